"""The structured operators (Kronecker, circulant, Toeplitz, tridiagonal, Householder,
permutation, block lower triangular): adds them to `tf.linalg` (imported last by the package's
``__init__``)."""

from ferroflow.linalg_operators.block_lower_triangular import LinearOperatorBlockLowerTriangular
from ferroflow.linalg_operators.circulant import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
)
from ferroflow.linalg_operators.householder import LinearOperatorHouseholder
from ferroflow.linalg_operators.kronecker import LinearOperatorKronecker
from ferroflow.linalg_operators.permutation import LinearOperatorPermutation
from ferroflow.linalg_operators.toeplitz import LinearOperatorToeplitz
from ferroflow.linalg_operators.tridiag import LinearOperatorTridiag

EXPORTS = {
    "LinearOperatorCirculant": LinearOperatorCirculant,
    "LinearOperatorCirculant2D": LinearOperatorCirculant2D,
    "LinearOperatorCirculant3D": LinearOperatorCirculant3D,
    "LinearOperatorKronecker": LinearOperatorKronecker,
    "LinearOperatorBlockLowerTriangular": LinearOperatorBlockLowerTriangular,
    "LinearOperatorHouseholder": LinearOperatorHouseholder,
    "LinearOperatorPermutation": LinearOperatorPermutation,
    "LinearOperatorToeplitz": LinearOperatorToeplitz,
    "LinearOperatorTridiag": LinearOperatorTridiag,
}


def _export():
    from ferroflow import linalg

    for name, value in EXPORTS.items():
        setattr(linalg, name, value)


_export()
