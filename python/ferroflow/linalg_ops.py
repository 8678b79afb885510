"""`tf.linalg` decompositions, solvers and matrix compositions.

The decompositions are primitives (`ops/linalg` in Rust, TensorFlow's op names, run on the CPU
through faer); the functions here give them TensorFlow's Python signatures and build the
compositions TensorFlow builds in Python (logdet, cholesky_solve, the LU helpers, pinv,
matrix_rank, expm, band_part, diagonals, trace, cross)."""

import collections
import json

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dt
from ferroflow.array_ops import (
    argsort,
    convert_to_tensor,
    expand_dims,
    eye,
    fill,
    gather,
    ones,
    reshape,
    stack,
    transpose,
    where,
    zeros_like,
)
from ferroflow.array_ops import range as _range
from ferroflow.array_ops import shape as _shape
from ferroflow.backprop import custom_gradient
from ferroflow.control_flow import cond, while_loop
from ferroflow.linalg import matmul, norm
from ferroflow.linalg_diagonals import diag, diag_part, set_diag  # noqa: F401 - tf.linalg API
from ferroflow.linalg_tridiagonal import (  # noqa: F401 - tf.linalg API
    tridiagonal_matmul,
    tridiagonal_solve,
)
from ferroflow.math import abs as _abs
from ferroflow.math import (
    cast,
    floor,
    is_finite,
    log,
    logical_and,
    logical_or,
    maximum,
    real,
    reduce_max,
    reduce_sum,
)

Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])
LogMatrixDeterminant = collections.namedtuple(
    "LogMatrixDeterminant", ["sign", "log_abs_determinant"]
)


def _op(name, inputs, **attrs):
    return _core.raw_op(name, inputs, json.dumps(attrs))


def _t(x, dtype=None):
    return convert_to_tensor(x, dtype=dtype)


# --- decompositions and solvers (primitives) ------------------------------------------------


def cholesky(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The lower Cholesky factor of each matrix (NaN where it is not positive definite).

    >>> import ferroflow as tf
    >>> float(tf.linalg.cholesky(tf.constant([[4.0, 2.0], [2.0, 3.0]]))[1, 0])
    1.0
    """
    return _op("Cholesky", [_t(input)])[0]


def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse (of the adjoint with ``adjoint``) of each square matrix."""
    return _op("MatrixInverse", [_t(input)], adjoint=bool(adjoint))[0]


def det(input, name=None):  # noqa: A002
    """The determinant of each square matrix."""
    return _op("MatrixDeterminant", [_t(input)])[0]


def slogdet(input, name=None):  # noqa: A002
    """(sign, log |det|) of each square matrix."""
    sign, log_abs = _op("LogMatrixDeterminant", [_t(input)])
    return LogMatrixDeterminant(sign, log_abs)


def logdet(matrix, name=None):
    """log det of Hermitian positive definite matrices, from their Cholesky factor."""
    chol = cholesky(matrix)
    d = diag_part(chol)
    # TensorFlow's math_ops.real is the identity on real tensors (no Real op, no complex
    # gradient).
    if d.dtype.is_complex:
        d = real(d)
    return 2.0 * reduce_sum(log(d), axis=[-1])


def solve(matrix, rhs, adjoint=False, name=None):
    """Solves ``matrix @ x = rhs`` (``adjoint(matrix) @ x = rhs`` with ``adjoint``)."""
    return _op("MatrixSolve", [_t(matrix), _t(rhs)], adjoint=bool(adjoint))[0]


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves a triangular system; only the named triangle of ``matrix`` is read."""
    return _op(
        "MatrixTriangularSolve",
        [_t(matrix), _t(rhs)],
        lower=bool(lower),
        adjoint=bool(adjoint),
    )[0]


def cholesky_solve(chol, rhs, name=None):
    """Solves ``A x = rhs`` given the Cholesky factor of ``A``."""
    y = triangular_solve(chol, rhs, adjoint=False, lower=True)
    return triangular_solve(chol, y, adjoint=True, lower=True)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """(q, r) with ``q`` orthonormal columns and ``r`` upper triangular."""
    q, r = _op("Qr", [_t(input)], full_matrices=bool(full_matrices))
    return Qr(q, r)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (descending, real), and ``u``, ``v`` with ``compute_uv``."""
    x = _t(tensor)
    s, u, v = _op("Svd", [x], compute_uv=bool(compute_uv), full_matrices=bool(full_matrices))
    if x.dtype.is_complex:
        s = real(s)
    if compute_uv:
        return s, u, v
    return s


def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of self-adjoint matrices (lower triangle read)."""
    e, v = _op("SelfAdjointEigV2", [_t(tensor)], compute_v=True)
    return e, v


def eigvalsh(tensor, name=None):
    """Eigenvalues (ascending) of self-adjoint matrices."""
    return _op("SelfAdjointEigV2", [_t(tensor)], compute_v=False)[0]


def eig(tensor, name=None):
    """Eigenvalues and eigenvectors of general matrices (complex)."""
    e, v = _op("Eig", [_t(tensor)], compute_v=True)
    return e, v


def eigvals(tensor, name=None):
    """Eigenvalues of general matrices (complex)."""
    return _op("Eig", [_t(tensor)], compute_v=False)[0]


def lu(input, output_idx_type=_dt.int32, name=None):  # noqa: A002
    """Packed LU factors and the row permutation, as TensorFlow's `Lu` op."""
    index = _dt.as_dtype(output_idx_type)
    if index not in (_dt.int32, _dt.int64):
        raise TypeError(
            f"Value passed to parameter 'output_idx_type' has DataType {index.name} not in "
            "list of allowed values: int32, int64"
        )

    @custom_gradient
    def factor(x):
        def no_gradient(*upstream):
            # TensorFlow registers no gradient for Lu: asking for one is its error.
            raise LookupError("gradient registry has no entry for: Lu")

        packed, p = _op("Lu", [x], index_i64=index == _dt.int64)
        return (packed, p), no_gradient

    packed, p = factor(_t(input))
    return Lu(packed, p)


def _unit_lower(lower_upper):
    return set_diag(
        band_part(lower_upper, -1, 0), ones(_shape(lower_upper)[:-1], dtype=lower_upper.dtype)
    )


def _permute_rows(x, perm):
    """``x[..., perm[..., i], :]`` for each matrix of the batch."""
    x, perm = _t(x), _t(perm)
    if x.shape.rank == 2 and perm.shape.rank == 1:
        return gather(x, perm, axis=-2)
    return gather(x, perm, axis=-2, batch_dims=perm.shape.rank - 1)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves ``A x = rhs`` from ``tf.linalg.lu(A)``'s outputs."""
    lower_upper = _t(lower_upper)
    permuted = _permute_rows(_t(rhs, lower_upper.dtype), perm)
    return triangular_solve(
        lower_upper, triangular_solve(_unit_lower(lower_upper), permuted), lower=False
    )


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of ``A`` from ``tf.linalg.lu(A)``'s outputs."""
    lower_upper = _t(lower_upper)
    n = lower_upper.shape[-1]
    batch = list(lower_upper.shape[:-2])
    return lu_solve(lower_upper, perm, eye(n, batch_shape=batch, dtype=lower_upper.dtype))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``A`` again from ``tf.linalg.lu(A)``'s outputs."""
    lower_upper = _t(lower_upper)
    x = matmul(_unit_lower(lower_upper), band_part(lower_upper, 0, -1))
    perm = _t(perm)
    # A permutation's argsort is its inverse.
    return _permute_rows(x, cast(argsort(perm, axis=-1), perm.dtype))


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse by SVD (TensorFlow's default cutoff)."""
    a = _t(a)
    dtype = a.dtype.as_numpy_dtype
    if rcond is None:
        rcond = 10.0 * float(max(a.shape[-2], a.shape[-1])) * np.finfo(dtype).eps
    rcond = _t(rcond, a.dtype)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * reduce_max(s, axis=-1)
    s = where(s > expand_dims(cutoff, -1), s, _t(np.inf, a.dtype))
    return matmul(v / expand_dims(s, -2), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (TensorFlow's default tolerance)."""
    a = _t(a, _dt.float32) if not hasattr(a, "dtype") else _t(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        m = max(a.shape[-2], a.shape[-1])
        eps = np.finfo(a.dtype.as_numpy_dtype).eps
        tol = eps * cast(m, a.dtype) * reduce_max(s, axis=-1, keepdims=True)
    return reduce_sum(cast(s > tol, _dt.int32), axis=-1)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least squares by the (regularised) normal equations and Cholesky (``fast=True``), or the
    minimum-norm solution, robust for rank-deficient matrices (``fast=False``, which ignores
    ``l2_regularizer`` as TensorFlow's kernel does)."""
    a, b = _t(matrix), _t(rhs)
    if not fast:
        from ferroflow.linalg_band_solvers import lstsq_minimum_norm

        if a.dtype == _dt.complex128 and l2_regularizer != 0:
            raise NotImplementedError(
                "matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 "
                "due to poor accuracy."
            )
        if b.dtype != a.dtype or a.shape[-2] != b.shape[-2]:
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None, None, "Input matrix and rhs are incompatible. [Op:MatrixSolveLs]"
            )
        return lstsq_minimum_norm(a, b)
    m, n = a.shape[-2], a.shape[-1]
    reg = _t(l2_regularizer, a.dtype)
    if m >= n:
        gram = matmul(a, a, adjoint_a=True) + reg * eye(n, dtype=a.dtype)
        return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))
    gram = matmul(a, a, adjoint_b=True) + reg * eye(m, dtype=a.dtype)
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)


# --- compositions ------------------------------------------------------------------------------


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes."""
    return matrix_transpose(matrix, conjugate=True)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the last two axes (conjugating with ``conjugate``)."""
    a = _t(a)
    rank = a.shape.rank
    if rank < 2:
        raise ValueError(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
            f"{a} with shape: {a.shape}"
        )
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return transpose(a, perm, conjugate=conjugate)


def _indices(m, n):
    i = reshape(_range(m, dtype=_dt.int64), [m, 1])
    j = reshape(_range(n, dtype=_dt.int64), [1, n])
    return i, j


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps ``num_lower`` subdiagonals and ``num_upper`` superdiagonals (negative: all)."""
    x = _t(input)
    m, n = x.shape[-2], x.shape[-1]
    i, j = _indices(m, n)
    lo = cast(_t(num_lower), _dt.int64)
    up = cast(_t(num_upper), _dt.int64)
    keep = logical_and(logical_or(lo < 0, i - j <= lo), logical_or(up < 0, j - i <= up))
    return where(keep, x, zeros_like(x))


def trace(x, name=None):
    """The sum of each matrix's main diagonal."""
    return reduce_sum(diag_part(x), axis=-1)


def tensor_diag(diagonal, name=None):
    """A tensor of rank 2k with ``diagonal`` (rank k) on its diagonal."""
    d = _t(diagonal)
    dims = list(d.shape)
    size = int(np.prod(dims)) if dims else 1
    flat = reshape(d, [size])
    return reshape(diag(flat), dims + dims)


def tensor_diag_part(input, name=None):  # noqa: A002
    """The diagonal of a rank-2k tensor whose two halves have equal sizes."""
    x = _t(input)
    dims = list(x.shape)
    k = len(dims) // 2
    if len(dims) % 2 or dims[:k] != dims[k:]:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, None, f"Input must have even rank and equal halves, got shape {x.shape}"
        )
    size = int(np.prod(dims[:k])) if k else 1
    return reshape(diag_part(reshape(x, [size, size])), dims[:k])


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis."""
    a, b = _t(a), _t(b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / its norm, the norm), TensorFlow's `tf.linalg.normalize`."""
    t = _t(tensor)
    n = norm(t, ord=ord, axis=axis, keepdims=True)
    return t / cast(n, t.dtype), n


def logm(input, name=None):  # noqa: A002
    """The principal matrix logarithm of complex matrices, from their eigendecomposition
    (diagonalizable matrices)."""
    x = _t(input)
    if x.dtype not in (_dt.complex64, _dt.complex128):
        message = (
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            "complex64, complex128"
        )
        from ferroflow import _tracing
        from ferroflow.errors import InvalidArgumentError

        if _tracing.tracing():
            raise TypeError(message)
        raise InvalidArgumentError(None, None, message)
    e, v = eig(x)
    return matmul(v * log(e)[..., None, :], inv(v))


def expm(input, name=None):  # noqa: A002
    """The matrix exponential by scaling and squaring with Padé approximants (TensorFlow's
    algorithm and thresholds)."""
    x = _t(input)
    if list(x.shape[-2:]) == [0, 0]:
        return x
    shape = list(x.shape)
    n = shape[-1]
    mat = reshape(x, [-1, n, n])
    l1 = reduce_max(reduce_sum(_abs(mat), axis=-2), axis=-1)[..., None, None]
    ident = eye(n, dtype=x.dtype)
    if x.dtype in (_dt.float16, _dt.float32, _dt.complex64):
        maxnorm = 3.92572478313866
        conds, orders = (0.4258730016922831, 1.880152677804762), (3, 5, 7)
    elif x.dtype in (_dt.float64, _dt.complex128):
        maxnorm = 5.371920351148152
        conds = (0.01495585217958292, 0.253939833006323, 0.9504178996162932, 2.097847961257068)
        orders = (3, 5, 7, 9, 13)
    else:
        raise ValueError(f"tf.linalg.expm does not support matrices of type {x.dtype}")
    rdt = l1.dtype
    squarings = maximum(floor(log(l1 / _t(maxnorm, rdt)) / log(_t(2.0, rdt))), _t(0.0, rdt))
    scaled = mat / cast(2.0**squarings, x.dtype)
    pairs = [_pade(scaled if k == orders[-1] else mat, k, ident) for k in orders]

    def pick(idx):
        out = pairs[-1][idx]
        for c, pair in reversed(list(zip(conds, pairs[:-1]))):
            out = where(l1 < _t(c, rdt), pair[idx], out)
        return out

    u, v = pick(0), pick(1)
    finite = is_finite(reduce_max(l1))
    result = cond(
        finite,
        lambda: solve(-u + v, u + v),
        lambda: fill(_shape(mat), _t(float("nan"), x.dtype)),
    )
    most = reduce_max(squarings)

    def body(i, r):
        return i + 1, where(i < squarings, matmul(r, r), r)

    _, result = while_loop(lambda i, _: logical_and(finite, i < most), body, [_t(0.0, rdt), result])
    return reshape(result, shape)


_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0,
        3960.0, 90.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0],
}  # fmt: skip


def _pade(m, order, ident):
    """TensorFlow's (U, V) of the Padé approximant of the given order."""
    b = [_t(c, m.dtype) for c in _PADE[order]]
    m2 = matmul(m, m)
    if order == 13:
        m4 = matmul(m2, m2)
        m6 = matmul(m4, m2)
        tmp_u = (
            matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2
            + b[1] * ident
        )  # fmt: skip
        u = matmul(m, tmp_u)
        tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
        v = matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
        return u, v
    powers = [ident, m2]
    while len(powers) < (order + 1) // 2:
        powers.append(matmul(powers[-1], m2))
    tmp = powers[-1]
    for k in range(len(powers) - 2, -1, -1):
        tmp = tmp + b[2 * k + 1] * powers[k]
    u = matmul(m, tmp)
    v = b[order - 1] * powers[-1]
    for k in range(len(powers) - 2, -1, -1):
        v = v + b[2 * k] * powers[k]
    return u, v


__all__ = [
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag", "diag_part",
    "eig", "eigh", "eigvals", "eigvalsh", "expm", "inv", "logdet", "lstsq", "lu",
    "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matrix_rank", "matrix_transpose",
    "normalize", "pinv", "qr", "set_diag", "slogdet", "solve", "svd", "tensor_diag",
    "tensor_diag_part", "trace", "triangular_solve", "tridiagonal_matmul", "tridiagonal_solve",
    "logm",
]  # fmt: skip
