"""`tf.linalg.banded_triangular_solve` and the minimum-norm least squares of
`tf.linalg.lstsq(fast=False)`.

Both are compositions: the bands are laid into dense triangular matrices (TensorFlow's
'LEFT_RIGHT' band storage, `tf.linalg.diag`) for MatrixTriangularSolve, so the gradient is
TensorFlow's BandedTriangularSolve rule (the triangular solve's, read back on the bands); the
least squares solution is the pseudo-inverse's, which is what TensorFlow's complete orthogonal
decomposition computes, rank-deficient matrices included."""

import numpy as np

from ferroflow import _core, _tracing
from ferroflow import dtypes as _dt
from ferroflow.array_ops import convert_to_tensor, expand_dims, ones_like, where, zeros, zeros_like
from ferroflow.backprop import custom_gradient
from ferroflow.errors import InvalidArgumentError
from ferroflow.linalg import matmul
from ferroflow.linalg_diagonals import diag
from ferroflow.math import cast, equal, reduce_any, reduce_max

_BANDED_DTYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


# TensorFlow's C++ names in its kernels' messages.
_TF_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _tf_name(dtype):
    return _TF_NAMES.get(dtype.name, dtype.name)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _op_error(op, message):
    return InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def _check_dtypes(op, a, b, allowed):
    if a.dtype not in allowed:
        names = ", ".join(_tf_name(d) for d in allowed)
        raise _op_error(op, f"Value for attr 'T' of {_tf_name(a.dtype)} is not in the list of "
                        f"allowed values: {names}")  # fmt: skip
    if b.dtype != a.dtype:
        raise _op_error(
            op,
            f"cannot compute {op} as input #1(zero-based) was expected to be a "
            f"{_tf_name(a.dtype)} tensor but is a {_tf_name(b.dtype)} tensor",
        )


def _check_invertible(diagonal):
    """TensorFlow's banded kernel refuses a zero on the diagonal (the dense one divides)."""
    singular = reduce_any(equal(diagonal, zeros_like(diagonal)))
    message = "Input matrix is not invertible."
    if _core.is_symbolic(singular) or _tracing.tracing():
        from ferroflow.check_ops import Assert
        from ferroflow.math import logical_not

        Assert(logical_not(singular), [message])
    elif bool(singular.numpy()):
        raise _op_error("BandedTriangularSolve", message)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """Solves ``A x = rhs`` (``adjoint(A) x = rhs`` with ``adjoint``) for triangular ``A`` given
    by ``bands`` (``[..., K, M]``): the diagonal and ``K - 1`` subdiagonals, diagonal first, when
    ``lower``; else ``K - 1`` superdiagonals and the diagonal, diagonal last; stored
    'LEFT_RIGHT' (superdiagonals padded on the right, subdiagonals on the left). Batch
    dimensions of ``bands`` and ``rhs`` (``[..., M, N]``) broadcast.

    >>> import ferroflow as tf
    >>> x = tf.linalg.banded_triangular_solve([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]], tf.ones([3, 1]))
    >>> x.numpy().ravel().tolist()
    [0.5, 0.0, 0.25]
    """
    op = "BandedTriangularSolve"
    a = convert_to_tensor(bands)
    b = convert_to_tensor(rhs)
    _check_dtypes(op, a, b, _BANDED_DTYPES)
    if a.dtype == _dt.float16:
        from ferroflow.errors import NotFoundError

        # The op accepts half, but TensorFlow's CPU build registers no half kernel.
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node BandedTriangularSolve}} = "
            f"BandedTriangularSolve[T=DT_HALF, adjoint={str(bool(adjoint)).lower()}, "
            f"lower={str(bool(lower)).lower()}]",
        )
    for i, t in enumerate((a, b)):
        if t.shape.rank < 2:
            raise _op_error(op, f"In[{i}] ndims must be >= 2: {t.shape.rank}")
    k, m = a.shape[-2], a.shape[-1]
    if b.shape[-2] != m:
        raise _op_error(
            op,
            f"In[0] mismatch In[1] shape: {m} vs. {b.shape[-2]}: {_dims(a.shape)} "
            f"{_dims(b.shape)} {int(lower)} {int(adjoint)}",
        )
    try:
        np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise _op_error(
            op,
            "In[0] and In[1] must have compatible batch dimensions: "
            f"{_dims(a.shape)} vs. {_dims(b.shape)}",
        ) from None
    # Rows beyond the matrix's M diagonals are never read.
    if k > m:
        a = a[..., :m, :] if lower else a[..., k - m :, :]
        k = m
    if k == 0 or m == 0:
        from ferroflow.array_ops import broadcast_to

        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        return broadcast_to(b, list(batch) + list(b.shape[-2:]))
    _check_invertible(a[..., 0, :] if lower else a[..., k - 1, :])
    band = (-(k - 1), 0) if lower else (0, k - 1)
    dense = diag(a, k=band, num_rows=m, num_cols=m, align="LEFT_RIGHT")
    from ferroflow.linalg_ops import triangular_solve

    return triangular_solve(dense, b, lower=bool(lower), adjoint=bool(adjoint))


def _pinv_solve(a, b):
    """``pinv(a) @ b`` by SVD, dropping singular values at or below ``eps * min(m, n) * s_max``
    (the rank rule of the column-pivoted QR inside Eigen's complete orthogonal
    decomposition)."""
    from ferroflow.linalg_ops import svd

    m, n = a.shape[-2], a.shape[-1]
    if m == 0 or n == 0:
        return zeros(list(np.broadcast_shapes(a.shape[:-2], b.shape[:-2])) + [n, b.shape[-1]],
                     a.dtype)  # fmt: skip
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    eps = np.finfo(a.dtype.real_dtype.as_numpy_dtype).eps
    cutoff = expand_dims(reduce_max(s, axis=-1) * (eps * min(m, n)), -1)
    keep = s > cutoff
    inverse = where(keep, 1.0 / where(keep, s, ones_like(s)), zeros_like(s))
    coefficients = matmul(u, b, adjoint_a=True) * cast(expand_dims(inverse, -1), a.dtype)
    return matmul(v, coefficients)


def lstsq_minimum_norm(matrix, rhs):
    """The minimum-norm least squares solution (`tf.linalg.lstsq(fast=False)`); as TensorFlow,
    it has no gradient (asking for one raises ValueError)."""

    @custom_gradient
    def solve(a, b):
        def grad(dx):
            raise ValueError("Gradient not defined for fast=False")

        return _pinv_solve(a, b), grad

    return solve(matrix, rhs)
