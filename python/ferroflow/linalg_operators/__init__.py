"""`tf.linalg.LinearOperator` and its subclasses: structured matrices in pure Python over
ferroflow's ops (see base.py for the hooks a subclass overrides). Importing this package adds
the classes to `tf.linalg` and makes the tf.linalg functions (`adjoint`, `matmul`, `solve`,
`inv`, `cholesky`, `det`, `logdet`, `trace`, `diag_part`) accept operators."""

from ferroflow.linalg_operators.adjoint import LinearOperatorAdjoint
from ferroflow.linalg_operators.base import LinearOperator
from ferroflow.linalg_operators.block_diag import LinearOperatorBlockDiag
from ferroflow.linalg_operators.composition import LinearOperatorComposition
from ferroflow.linalg_operators.diag import LinearOperatorDiag
from ferroflow.linalg_operators.full_matrix import LinearOperatorFullMatrix
from ferroflow.linalg_operators.identity import (
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
)
from ferroflow.linalg_operators.inversion import LinearOperatorInversion
from ferroflow.linalg_operators.low_rank_update import LinearOperatorLowRankUpdate
from ferroflow.linalg_operators.lower_triangular import LinearOperatorLowerTriangular
from ferroflow.linalg_operators.zeros import LinearOperatorZeros

# The names this package adds to tf.linalg.
EXPORTS = {
    "LinearOperator": LinearOperator,
    "LinearOperatorAdjoint": LinearOperatorAdjoint,
    "LinearOperatorBlockDiag": LinearOperatorBlockDiag,
    "LinearOperatorComposition": LinearOperatorComposition,
    "LinearOperatorDiag": LinearOperatorDiag,
    "LinearOperatorFullMatrix": LinearOperatorFullMatrix,
    "LinearOperatorIdentity": LinearOperatorIdentity,
    "LinearOperatorInversion": LinearOperatorInversion,
    "LinearOperatorLowRankUpdate": LinearOperatorLowRankUpdate,
    "LinearOperatorLowerTriangular": LinearOperatorLowerTriangular,
    "LinearOperatorScaledIdentity": LinearOperatorScaledIdentity,
    "LinearOperatorZeros": LinearOperatorZeros,
}


def _export():
    from ferroflow import linalg
    from ferroflow.linalg_operators import _api

    for name, value in EXPORTS.items():
        setattr(linalg, name, value)
    _api.install()


_export()

# The structured operators (Kronecker, circulant, Toeplitz, ...) export themselves.
from ferroflow.linalg_operators import _structured  # noqa: E402, F401
