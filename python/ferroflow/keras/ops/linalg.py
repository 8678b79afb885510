"""`keras.ops.linalg`: decompositions, solves, norms and `jvp`, as Keras 3's TensorFlow backend
computes them (with Keras's rank and squareness checks)."""

import ferroflow as tf
from ferroflow.keras._backend_config import floatx
from ferroflow.keras.ops._dtypes import result_type
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops.core import cast, convert_to_tensor

_t = convert_to_tensor

__all__ = [
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor",
    "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd",
]  # fmt: skip


def _rank2(*arrays):
    for a in arrays:
        if a.shape.rank < 2:
            raise ValueError(
                f"Expected input to have rank >= 2. Received input with shape {a.shape}."
            )


def _square(*arrays):
    for a in arrays:
        if a.shape[-2] != a.shape[-1]:
            raise ValueError(
                f"Expected a square matrix. Received non-square input with shape {a.shape}"
            )


def _matrix(x):
    x = _t(x)
    _rank2(x)
    _square(x)
    return x


def _system(a, b):
    a, b = _matrix(a), _t(b)
    if b.shape.rank < 1:
        raise ValueError(f"Expected input to have rank >= 1. Received scalar input {b}.")
    if a.shape.rank == b.shape.rank and a.shape[-2] != b.shape[-2]:
        raise ValueError(
            "Incompatible shapes between `a` and `b`. Expected `a.shape[-2] == b.shape[-2]`. "
            f"Received: a.shape={a.shape}, b.shape={b.shape}"
        )
    if a.shape.rank == b.shape.rank + 1 and a.shape[-1] != b.shape[-1]:
        raise ValueError(
            "Incompatible shapes between `a` and `b`. Expected `a.shape[-1] == b.shape[-1]`. "
            f"Received: a.shape={a.shape}, b.shape={b.shape}"
        )
    return a, b


def cholesky(x, upper=False):
    """The Cholesky factor (lower, or upper with ``upper``); ValueError if not positive
    definite."""
    x = _matrix(x)
    try:
        out = tf.debugging.check_numerics(tf.linalg.cholesky(x), "Cholesky")
    except Exception as e:
        raise ValueError(f"Cholesky decomposition failed: {e}") from e
    return tf.linalg.adjoint(out) if upper else out


def cholesky_inverse(x, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``x``."""
    x = _matrix(x)
    try:
        eye = tf.eye(num_rows=tf.shape(x)[-1], dtype=x.dtype)
        inv_chol = tf.linalg.triangular_solve(x, eye, lower=not upper)
        if upper:
            return tf.matmul(inv_chol, inv_chol, transpose_b=True)
        return tf.matmul(inv_chol, inv_chol, transpose_a=True)
    except Exception as e:
        raise ValueError(f"Cholesky inverse failed: {e}") from e


def det(x):
    """The determinant."""
    return tf.linalg.det(_matrix(x))


def eig(x):
    """Eigenvalues and eigenvectors of a general square matrix."""
    return tf.linalg.eig(_matrix(x))


def eigh(x):
    """Eigenvalues and eigenvectors of a Hermitian matrix."""
    return tf.linalg.eigh(_matrix(x))


def inv(x):
    """The matrix inverse."""
    return tf.linalg.inv(_matrix(x))


def lu_factor(x):
    """The packed LU factorization and the row permutation (square matrices only)."""
    x = _t(x)
    _rank2(x)
    try:
        _square(x)
    except ValueError as e:
        raise ValueError(
            f"LU decomposition failed: {e}. LU decomposition is only supported for square "
            "matrices in Tensorflow."
        ) from e
    lu, p = tf.linalg.lu(x)
    return lu, tf.math.invert_permutation(p)


def solve(a, b):
    """Solves ``a @ x = b``."""
    a, b = _system(a, b)
    if b.shape.rank == a.shape.rank - 1:
        return tf.squeeze(tf.linalg.solve(a, tf.expand_dims(b, -1)), axis=-1)
    return tf.linalg.solve(a, b)


def solve_triangular(a, b, lower=False):
    """Solves ``a @ x = b`` for triangular ``a``."""
    a, b = _system(a, b)
    if b.shape.rank == a.shape.rank - 1:
        out = tf.linalg.triangular_solve(a, tf.expand_dims(b, -1), lower=lower)
        return tf.squeeze(out, axis=-1)
    return tf.linalg.triangular_solve(a, b, lower=lower)


def svd(x, full_matrices=True, compute_uv=True):
    """``(u, s, vh)``, or the singular values alone without ``compute_uv``."""
    x = _t(x)
    _rank2(x)
    if compute_uv is False:
        return tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, tf.linalg.adjoint(v)


def qr(x, mode="reduced"):
    """The QR decomposition (``mode`` "reduced" or "complete")."""
    x = _t(x)
    if mode not in ("reduced", "complete"):
        raise ValueError(
            "`mode` argument value not supported. Expected one of {'reduced', 'complete'}. "
            f"Received: mode={mode}"
        )
    return tf.linalg.qr(x, full_matrices=mode == "complete")


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms over one axis or matrix norms over two (NumPy's ``ord`` values)."""
    from ferroflow.keras.ops.numpy import moveaxis

    x = _t(x)
    ndim = x.shape.rank
    axis = tuple(range(ndim)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    if any(a < -ndim or a >= ndim for a in axis):
        raise ValueError(
            "All `axis` values must be in the range [-ndim, ndim). Received inputs with "
            f"ndim={ndim}, while axis={axis}"
        )
    axis = axis[0] if len(axis) == 1 else axis
    x = cast(x, floatx() if _std(x.dtype) == "int64" else result_type(x.dtype, float))
    inf = float("inf")
    if isinstance(axis, int):
        if ord is None or ord == 2:
            return tf.sqrt(tf.reduce_sum(x * tf.math.conj(x), axis=axis, keepdims=keepdims))
        if ord == inf:
            return tf.reduce_max(tf.abs(x), axis=axis, keepdims=keepdims)
        if ord == -inf:
            return tf.reduce_min(tf.abs(x), axis=axis, keepdims=keepdims)
        if ord == 0:
            nonzero = tf.cast(tf.not_equal(x, 0), x.dtype)
            return tf.reduce_sum(nonzero, axis=axis, keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
        p = _t(ord, dtype=x.dtype)
        return tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), p), axis=axis, keepdims=keepdims), 1.0 / p)
    if len(axis) != 2:
        raise ValueError(f"Invalid axis values. Received: axis={axis}")
    row, col = (a + ndim if a < 0 else a for a in axis)
    if ord is None or ord == "fro":
        return tf.sqrt(tf.reduce_sum(x * tf.math.conj(x), axis=axis, keepdims=keepdims))
    if ord in (1, -1):
        if not keepdims and col > row:
            col -= 1
        pick = tf.reduce_max if ord == 1 else tf.reduce_min
        return pick(
            tf.reduce_sum(tf.abs(x), axis=row, keepdims=keepdims), axis=col, keepdims=keepdims
        )
    if ord in (inf, -inf):
        if not keepdims and row > col:
            row -= 1
        pick = tf.reduce_max if ord == inf else tf.reduce_min
        return pick(
            tf.reduce_sum(tf.abs(x), axis=col, keepdims=keepdims), axis=row, keepdims=keepdims
        )
    if ord in ("nuc", 2, -2):
        s = tf.linalg.svd(moveaxis(x, axis, (-2, -1)), compute_uv=False)
        pick = {"nuc": tf.reduce_sum, 2: tf.reduce_max, -2: tf.reduce_min}[ord]
        out = pick(s, axis=-1)
        if keepdims:
            out = tf.expand_dims(tf.expand_dims(out, axis[0]), axis[1])
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b`` through the SVD."""
    a, b = _t(a), _t(b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.shape.rank == 1
    if vector:
        b = b[:, None]
    if a.shape.rank != 2:
        raise TypeError(f"{a.shape.rank}-dimensional array given. Array must be two-dimensional")
    if b.shape.rank != 2:
        raise TypeError(
            f"{b.shape.rank}-dimensional array given. Array must be one or two-dimensional"
        )
    m, n = a.shape
    eps = tf.experimental.numpy.finfo(a.dtype).eps
    rcond = eps * max(n, m) if rcond is None else tf.where(rcond < 0, eps, rcond)
    u, s, vt = svd(a, full_matrices=False)
    keep = s >= tf.convert_to_tensor(rcond, dtype=s.dtype) * s[0]
    safe = tf.cast(tf.where(keep, s, 1), a.dtype)
    s_inv = tf.where(keep, 1 / safe, 0)[:, None]
    x = tf.matmul(
        tf.transpose(tf.math.conj(vt)), s_inv * tf.matmul(tf.transpose(tf.math.conj(u)), b)
    )
    return tf.reshape(x, [-1]) if vector else x


def matrix_rank(x, tol=None):
    """The numerical rank."""
    return tf.linalg.matrix_rank(_t(x), tol=tol)


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse."""
    return tf.linalg.pinv(_t(x), rcond=rcond)


def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode Jacobian-vector product: ``(fun(*primals), J @ tangents[, aux])``."""
    primal_flat = tf.nest.flatten(primals)
    tangent_flat = [
        tf.cast(t, p.dtype) for t, p in zip(tf.nest.flatten(tangents), primal_flat, strict=False)
    ]
    with tf.autodiff.ForwardAccumulator(primal_flat, tangent_flat) as acc:
        if has_aux:
            out, aux = fun(*primals)
        else:
            out = fun(*primals)
        tangents_out = tf.nest.pack_sequence_as(out, [acc.jvp(o) for o in tf.nest.flatten(out)])
    return (out, tangents_out, aux) if has_aux else (out, tangents_out)
