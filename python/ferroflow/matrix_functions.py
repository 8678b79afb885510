"""Matrix functions composed from ferroflow's ops: `tf.matrix_square_root` (`tf.linalg.sqrtm`).

TensorFlow computes the principal square root through a Schur decomposition. ferroflow has no
Schur or eigen kernels, so it runs the scaled product-form Denman-Beavers iteration (Higham,
Functions of Matrices, eq. 6.29) in float64 (complex128 for complex input), with each step's
inverse by Gauss-Jordan elimination with partial pivoting written as batched tensor ops: the
same principal root for every matrix with no eigenvalue on the closed negative real axis, on any
device, traced or eager, differentiable through the iteration. Where no real principal root
exists (a negative or zero eigenvalue) the iteration does not converge and the result is NaN, as
TensorFlow's is; a singular matrix that still has a root (e.g. `[[1, 1], [1, 1]]`) is NaN here
where TensorFlow finds it.
"""

from ferroflow import _tracing
from ferroflow import dtypes as _dt
from ferroflow.array_ops import (
    broadcast_to,
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    eye,
    one_hot,
    where,
)
from ferroflow.array_ops import range as _range
from ferroflow.array_ops import shape as _shape
from ferroflow.errors import InvalidArgumentError, NotFoundError
from ferroflow.linalg import matmul
from ferroflow.math import abs as _abs
from ferroflow.math import argmax, exp, is_finite, log, logical_and, reduce_sum, sqrt

# Denman-Beavers steps: with determinant scaling a condition number of 1e12 converges in 8 (the
# residual is 1e-9), and a converged step changes nothing, so a fixed count serves eager and
# traced code alike.
_STEPS = 10
_RESIDUAL = 1e-6


def _gauss_jordan(a, n):
    """(inverse, log |det|) of the batch of n x n matrices `a` (float64 or complex128)."""
    work = a.dtype
    rows = _range(n)
    aug = concat([a, broadcast_to(eye(n, dtype=work), _shape(a))], -1)
    logdet = None
    for k in range(n):
        pivot_row = argmax(_abs(aug[..., k:, k]), -1, output_type=_dt.int32) + k
        swap = expand_dims(pivot_row, -1)
        order = where(rows == k, swap, where(rows == swap, k, rows))
        aug = matmul(one_hot(order, n, dtype=work), aug)
        pivot = aug[..., k : k + 1, k : k + 1]
        row = aug[..., k : k + 1, :] / pivot
        aug = aug - aug[..., :, k : k + 1] * row + cast(rows == k, work)[:, None] * row
        size = log(_abs(pivot[..., 0, 0]))
        logdet = size if logdet is None else logdet + size
    return aug[..., n:], logdet


def _allowed(x):
    if x.dtype in (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128):
        return
    if x.dtype == _dt.float16:
        # TensorFlow declares half but has no kernel for it.
        message = "Could not find device for node: MatrixSquareRoot[T=DT_HALF]"
        if _tracing.tracing():
            raise InvalidArgumentError(None, None, message)
        raise NotFoundError(None, None, message)
    message = (
        f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: double, "
        "float, half, complex64, complex128"
    )
    if _tracing.tracing():
        raise TypeError(message)
    raise InvalidArgumentError(None, None, message)


def _shape_error(message):
    if _tracing.tracing():
        return ValueError(message)
    return InvalidArgumentError(None, None, message)


def matrix_square_root(input, name=None):  # noqa: A002 - TensorFlow's name
    """The principal square root of each square matrix in the innermost two axes: `Y` with
    `Y @ Y == input` and eigenvalues of positive real part. NaN where none exists.

    >>> import ferroflow as tf
    >>> tf.matrix_square_root(tf.constant([[4.0, 0.0], [0.0, 9.0]])).numpy()
    array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    x = convert_to_tensor(input)
    _allowed(x)
    shape = x.shape
    if shape.rank is not None and shape.rank < 2:
        raise _shape_error(f"Shape must be at least rank 2 but is rank {shape.rank}")
    n, m = shape[-2], shape[-1]
    if n is not None and m is not None and n != m:
        raise _shape_error(f"Input matrix must be square: dimensions {n} and {m} differ")
    if n is None:
        raise NotImplementedError(
            "matrix_square_root needs the matrix size known when the function is traced"
        )
    if n == 0:
        return x
    work = _dt.complex128 if x.dtype.is_complex else _dt.float64
    a = cast(x, work)
    identity = eye(n, dtype=work)
    y, mat = a, a
    for _ in range(_STEPS):
        inverse, logdet = _gauss_jordan(mat, n)
        mu = expand_dims(expand_dims(cast(exp(-logdet / (2.0 * n)), work), -1), -1)
        mu2 = mu * mu
        y = 0.5 * mu * matmul(y, identity + inverse / mu2)
        mat = 0.5 * (identity + 0.5 * (mu2 * mat + inverse / mu2))
    residual = _frobenius(matmul(y, y) - a) / _frobenius(a)
    good = logical_and(is_finite(residual), residual < _RESIDUAL)
    nan = cast(float("nan"), work)
    y = where(good[..., None, None], y, nan)
    return cast(y, x.dtype)


def _frobenius(m):
    return sqrt(reduce_sum(cast(_abs(m), _dt.float64) ** 2, axis=[-2, -1]))


__all__ = ["matrix_square_root"]
