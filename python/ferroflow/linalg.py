"""`tf.linalg`: matrix products and norms."""

from ferroflow import _core
from ferroflow.array_ops import eye, transpose  # noqa: F401 - tf.linalg API


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):  # fmt: skip
    """Matrix product of the last two axes; leading axes broadcast as batch dimensions."""
    return _core.matmul(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b)


def tensordot(a, b, axes, name=None):
    return _core.tensordot(a, b, axes)


def einsum(equation, *inputs, **kwargs):
    return _core.einsum(equation, *inputs)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (1, 2, inf, any p > 0) and, when ``axis`` names two axes, matrix norms:
    'euclidean'/'fro' (Frobenius), 1, inf, and 2 (the largest singular value)."""
    if isinstance(ord, str):
        if ord not in ("euclidean", "fro"):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")
        p = None
    elif isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
        p = float(ord)
    else:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")
    if isinstance(axis, int):
        axis = [axis]
    return _core.norm(tensor, p, axis, bool(keepdims))


def matvec(a, b, transpose_a=False, adjoint_a=False, name=None):
    from ferroflow.array_ops import expand_dims, squeeze

    return squeeze(matmul(a, expand_dims(b, -1), transpose_a, False, adjoint_a), -1)


# --- decompositions, solvers and matrix compositions (ferroflow.linalg_ops) ---
from ferroflow import linalg_experimental as experimental  # noqa: E402, F401
from ferroflow.linalg_band_solvers import banded_triangular_solve  # noqa: E402, F401
from ferroflow.linalg_eigh_tridiagonal import eigh_tridiagonal  # noqa: E402, F401
from ferroflow.linalg_ops import (  # noqa: E402, F401 - tf.linalg API
    adjoint,
    band_part,
    cholesky,
    cholesky_solve,
    cross,
    det,
    diag,
    diag_part,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    expm,
    inv,
    logdet,
    logm,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    matrix_transpose,
    normalize,
    pinv,
    qr,
    set_diag,
    slogdet,
    solve,
    svd,
    tensor_diag,
    tensor_diag_part,
    trace,
    triangular_solve,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from ferroflow.math import l2_normalize  # noqa: E402, F401 - tf.linalg API
from ferroflow.math_extra_ops import global_norm  # noqa: E402, F401 - tf.linalg API
from ferroflow.matrix_functions import matrix_square_root as sqrtm  # noqa: E402, F401
