"""Array creation of `tf.experimental.numpy`: zeros/ones/full/empty and their `_like` forms,
eye/identity/tri, arange/linspace/logspace/geomspace, meshgrid, vander, ix_, diag_indices."""

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import array, asarray, is_ndarray


def _dtype_or_default(dtype):
    return tf.as_dtype(_dtypes.result_type(dtype)) if dtype else _dtypes.default_float_type()


def zeros(shape, dtype=float):
    """Zeros of `shape`; `dtype` float gives float64 (float32 under prefer_float32)."""
    return tf.zeros(shape, dtype=_dtype_or_default(dtype))


def ones(shape, dtype=float):
    """Ones of `shape`; `dtype` float gives float64 (float32 under prefer_float32)."""
    return tf.ones(shape, dtype=_dtype_or_default(dtype))


def empty(shape, dtype=float):
    """Same as `zeros` (TensorFlow has no uninitialized memory)."""
    return zeros(shape, dtype)


def zeros_like(a, dtype=None):
    """Zeros of `a`'s shape and (promoted) dtype."""
    return tf.zeros_like(a, tf.as_dtype(_dtypes.result_type_unary(a, dtype)))


def ones_like(a, dtype=None):
    """Ones of `a`'s shape and (promoted) dtype."""
    return tf.ones_like(a, tf.as_dtype(_dtypes.result_type_unary(a, dtype)))


def empty_like(a, dtype=None):
    """Same as `zeros_like`."""
    return zeros_like(a, dtype)


def full(shape, fill_value, dtype=None):
    """`fill_value` (converted with `asarray`) broadcast to `shape`."""
    if not is_ndarray(shape):
        shape = asarray(tf.convert_to_tensor(shape, dtype_hint=tf.int32))
    if shape.shape.rank == 0:
        shape = tf.reshape(shape, [1])
    return tf.broadcast_to(asarray(fill_value, dtype=dtype), shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """`fill_value` broadcast to `a`'s shape, in `a`'s dtype unless `dtype` is given."""
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or _dtypes.result_type(a)
    return tf.broadcast_to(asarray(fill_value, dtype=dtype), tf.shape(a))


def _band(n, m, k):
    """[n, m] bool mask of the entries with column - row <= k."""
    rows = tf.reshape(tf.range(n, dtype=tf.int64), [-1, 1])
    cols = tf.reshape(tf.range(m, dtype=tf.int64), [1, -1])
    return tf.less_equal(cols - rows, k)


def eye(N, M=None, k=0, dtype=float):  # noqa: N803 - NumPy's names
    """An [N, M] matrix with ones on the k-th diagonal."""
    dtype = _dtype_or_default(dtype)
    if not M:
        M = N  # noqa: N806
    n, m, k = int(N), int(M), int(k)
    on = tf.logical_and(_band(n, m, k), tf.logical_not(_band(n, m, k - 1)))
    return tf.cast(on, dtype)


def identity(n, dtype=float):
    """The n x n identity matrix."""
    return eye(N=n, M=n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    """Ones at and below the k-th diagonal of an [N, M] matrix."""
    M = M if M is not None else N  # noqa: N806
    dtype = tf.as_dtype(_dtypes.result_type(dtype if dtype is not None else float))
    return tf.cast(_band(int(N), int(M), int(k)), dtype)


def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop); dtype from NumPy's promotion of the arguments."""
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = _dtypes.result_type(dtype)
    elif stop is None:
        dtype = _dtypes.result_type(start, step)
    else:
        dtype = _dtypes.result_type(start, step, stop)
    dtype = tf.as_dtype(dtype)
    if step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0)):
        return array([], dtype=dtype)
    if step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0)):
        return array([], dtype=dtype)
    return tf.cast(tf.range(start, limit=stop, delta=step), dtype)


def _linspace_dtype(start, stop):
    return _dtypes.result_type([start * 1.0, stop * 1.0])


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """`num` evenly spaced values from start to stop (NumPy 2 rules: the dtype comes from
    start and stop as floats, whatever `dtype` says, as in TensorFlow 2.21)."""
    if dtype:
        dtype = tf.as_dtype(_linspace_dtype(start, stop))
    start = array(start, dtype=dtype)
    stop = array(stop, dtype=dtype)
    if num < 0:
        raise ValueError(
            "Argument `num` (number of samples) must be a non-negative integer. "
            f"Received: num={num}"
        )
    step = tf.convert_to_tensor(np.nan)
    if endpoint:
        result = tf.linspace(start, stop, num, axis=axis)
        if num > 1:
            step = (stop - start) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / num
        if num > 1:
            new_stop = tf.cast(stop, step.dtype) - step
            start = tf.cast(start, new_stop.dtype)
            result = tf.linspace(start, new_stop, num, axis=axis)
        else:
            result = tf.linspace(start, stop, num, axis=axis)
    if dtype:
        if dtype.is_integer:
            result = tf.floor(result)
        result = tf.cast(result, dtype)
    if retstep:
        return result, step
    return result


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base ** linspace(start, stop, num)`; the dtype comes from start and stop as floats."""
    dtype = tf.as_dtype(_linspace_dtype(start, stop))
    result = linspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    result = tf.pow(tf.cast(base, result.dtype), result)
    return tf.cast(result, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values in geometric progression from start to stop."""
    from ferroflow.experimental.numpy import _math, _shape

    if dtype:
        dtype = tf.as_dtype(dtype)
    else:
        dtype = tf.as_dtype(_dtypes.result_type(start, stop, float(num), zeros((), dtype)))
    computation = np.promote_types(dtype.as_numpy_dtype, np.float32)
    start = asarray(start, dtype=computation)
    stop = asarray(stop, dtype=computation)
    start_sign = 1 - _math.sign(_math.real(start))
    stop_sign = 1 - _math.sign(_math.real(stop))
    signflip = 1 - start_sign * stop_sign // 2
    res = signflip * logspace(
        _math.log10(signflip * start),
        _math.log10(signflip * stop),
        num,
        endpoint=endpoint,
        base=10.0,
        dtype=computation,
        axis=0,
    )
    if axis != 0:
        res = _shape.moveaxis(res, 0, axis)
    return tf.cast(res, dtype)


def meshgrid(*xi, **kwargs):
    """Coordinate matrices of the vectors `xi` (`indexing` 'xy' or 'ij'); sparse=True and
    copy=False raise ValueError as in TensorFlow."""
    sparse = kwargs.get("sparse", False)
    if sparse:
        raise ValueError(
            "Function `meshgrid` does not support returning sparse arrays yet. "
            f"Received: sparse={sparse}"
        )
    copy = kwargs.get("copy", True)
    if not copy:
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={copy}")
    indexing = kwargs.get("indexing", "xy")
    return tf.meshgrid(*[asarray(x) for x in xi], indexing=indexing)


def diag_indices(n, ndim=2):
    """`ndim` copies of `range(n)`, the indices of the main diagonal."""
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (tf.range(n),) * ndim


def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the vector `x`: columns are powers of x."""
    x = asarray(x)
    if N is None:
        N = x.shape[0] if x.shape.rank and x.shape[0] is not None else tf.shape(x)[0]  # noqa: N806
    if isinstance(N, int) and N < 0:
        raise ValueError("N must be nonnegative")
    if x.shape.rank != 1:
        raise ValueError("x must be a one-dimensional array")
    powers = tf.range(0, N, 1) if increasing else tf.range(N - 1, -1, -1)
    return tf.pow(tf.expand_dims(x, -1), tf.cast(powers, x.dtype))


def ix_(*args):
    """Open mesh index arrays from 1-d integer or boolean sequences."""
    n = len(args)
    output = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        new_shape = [1] * n
        new_shape[i] = -1
        if a.dtype == tf.bool:
            output.append(tf.reshape(tf.reshape(tf.where(a), [-1]), new_shape))
        elif a.dtype.is_integer:
            output.append(tf.reshape(a, new_shape))
        else:
            raise ValueError(f"Only integer and bool dtypes are supported, got {a.dtype}")
    return output
