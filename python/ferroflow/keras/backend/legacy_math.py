"""The legacy Keras 2 ``K.*`` elementwise, comparison, reduction and product functions over
ferroflow's ops (Keras 3's `keras.src.legacy.backend`, which TensorFlow 2.21 still exports)."""

import builtins

import ferroflow as tf
from ferroflow.keras._backend_config import floatx

__all__ = [
    "abs",
    "all",
    "any",
    "argmax",
    "argmin",
    "batch_dot",
    "clip",
    "cos",
    "cumprod",
    "cumsum",
    "dot",
    "equal",
    "exp",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "not_equal",
    "pow",
    "prod",
    "round",
    "sign",
    "sin",
    "sqrt",
    "square",
    "std",
    "sum",
    "var",
]


def _elementwise(name, op, doc):
    """A legacy ``K.<name>`` calling ``op()`` (looked up at call time: ferroflow may still be
    importing when this module loads) on one or two tensors."""

    def fn(*args):
        return op()(*args)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


abs = _elementwise("abs", lambda: tf.abs, "Elementwise absolute value.")  # noqa: A001
cos = _elementwise("cos", lambda: tf.cos, "Elementwise cosine.")
sin = _elementwise("sin", lambda: tf.sin, "Elementwise sine.")
exp = _elementwise("exp", lambda: tf.exp, "Elementwise exponential.")
log = _elementwise("log", lambda: tf.math.log, "Elementwise natural logarithm.")
round = _elementwise("round", lambda: tf.round, "Elementwise rounding, half to even.")  # noqa: A001
sign = _elementwise("sign", lambda: tf.sign, "Elementwise sign.")
square = _elementwise("square", lambda: tf.square, "Elementwise square.")
equal = _elementwise("equal", lambda: tf.equal, "Elementwise ``x == y``.")
not_equal = _elementwise("not_equal", lambda: tf.not_equal, "Elementwise ``x != y``.")
greater = _elementwise("greater", lambda: tf.greater, "Elementwise ``x > y``.")
greater_equal = _elementwise("greater_equal", lambda: tf.greater_equal, "Elementwise ``x >= y``.")
less = _elementwise("less", lambda: tf.less, "Elementwise ``x < y``.")
less_equal = _elementwise("less_equal", lambda: tf.less_equal, "Elementwise ``x <= y``.")
maximum = _elementwise("maximum", lambda: tf.maximum, "Elementwise maximum.")
minimum = _elementwise("minimum", lambda: tf.minimum, "Elementwise minimum.")


def sqrt(x):
    """Elementwise square root of ``max(x, 0)`` (negative inputs give 0, not NaN)."""
    return tf.sqrt(tf.maximum(x, tf.convert_to_tensor(0.0, x.dtype)))


def pow(x, a):  # noqa: A001
    """Elementwise ``x ** a``."""
    return tf.pow(x, a)


def clip(x, min_value, max_value):
    """``x`` clipped to ``[min_value, max_value]``; None bounds are infinite, and a Python
    ``max_value`` below ``min_value`` is raised to it."""
    numbers = (int, float)
    if isinstance(min_value, numbers) and isinstance(max_value, numbers):
        max_value = builtins.max(min_value, max_value)
    min_value = -float("inf") if min_value is None else min_value
    max_value = float("inf") if max_value is None else max_value
    return tf.clip_by_value(x, min_value, max_value)


def all(x, axis=None, keepdims=False):  # noqa: A001
    """Logical AND over ``axis`` of ``x`` cast to bool."""
    return tf.reduce_all(tf.cast(x, tf.bool), axis, keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001
    """Logical OR over ``axis`` of ``x`` cast to bool."""
    return tf.reduce_any(tf.cast(x, tf.bool), axis, keepdims)


def argmax(x, axis=-1):
    """Index of the largest value along ``axis`` (int64)."""
    return tf.argmax(x, axis)


def argmin(x, axis=-1):
    """Index of the smallest value along ``axis`` (int64)."""
    return tf.argmin(x, axis)


def max(x, axis=None, keepdims=False):  # noqa: A001
    """Maximum over ``axis``."""
    return tf.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    """Minimum over ``axis``."""
    return tf.reduce_min(x, axis, keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    """Sum over ``axis``."""
    return tf.reduce_sum(x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Product over ``axis``."""
    return tf.reduce_prod(x, axis, keepdims)


def _bool_as_floatx(x):
    # Keras's statistics count booleans as floatx 0/1.
    return tf.cast(x, floatx()) if x.dtype == tf.bool else x


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (booleans count as floatx 0/1)."""
    return tf.reduce_mean(_bool_as_floatx(x), axis, keepdims)


def std(x, axis=None, keepdims=False):
    """Standard deviation over ``axis`` (booleans count as floatx 0/1)."""
    return tf.math.reduce_std(_bool_as_floatx(x), axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    """Variance over ``axis`` (booleans count as floatx 0/1)."""
    return tf.math.reduce_variance(_bool_as_floatx(x), axis=axis, keepdims=keepdims)


def cumsum(x, axis=0):
    """Cumulative sum along ``axis``."""
    return tf.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    """Cumulative product along ``axis``."""
    return tf.math.cumprod(x, axis=axis)


def _dims(x):
    """Static dimensions where known, dynamic scalars elsewhere."""
    dynamic = tf.shape(x)
    return [d if d is not None else dynamic[i] for i, d in enumerate(x.shape.as_list())]


def dot(x, y):
    """Keras's ``dot``: a matmul, contracting the last axis of ``x`` with the second-to-last
    of ``y`` when either has rank above 2 (Theano's N-d dot)."""
    if x.shape.rank > 2 or y.shape.rank > 2:
        x_dims, y_dims = _dims(x), _dims(y)
        perm = list(range(y.shape.rank))
        perm = [perm.pop(-2), *perm]
        flat_x = tf.reshape(x, [-1, x_dims[-1]])
        flat_y = tf.reshape(tf.transpose(y, perm=perm), [y_dims[-2], -1])
        return tf.reshape(tf.matmul(flat_x, flat_y), x_dims[:-1] + y_dims[:-2] + y_dims[-1:])
    if isinstance(x, tf.SparseTensor):
        return tf.sparse.sparse_dense_matmul(x, y)
    return tf.matmul(x, y)


def _batch_dot_axes(x, y, axes):
    x_rank, y_rank = x.shape.rank, y.shape.rank
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_rank - 1, y_rank - 1 if y_rank == 2 else y_rank - 2]
    if builtins.any(isinstance(a, list | tuple) for a in axes):
        raise ValueError(
            "Multiple target dimensions are not supported. Expected: None, int, (int, int), "
            f"Provided: {axes}"
        )
    axes = [
        axes[0] + x_rank if axes[0] < 0 else axes[0],
        axes[1] + y_rank if axes[1] < 0 else axes[1],
    ]
    if 0 in axes:
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy "
            "batch dimension to your inputs using K.expand_dims(x, 0)"
        )
    d1, d2 = x.shape[axes[0]], y.shape[axes[1]]
    if d1 is not None and d2 is not None and d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with tf.shapes {x.shape} and {y.shape} with "
            f"axes={axes}. x.shape[{axes[0]}] != y.shape[{axes[1]}] ({d1} != {d2})."
        )
    return axes


def batch_dot(x, y, axes=None):
    """Per-sample dot product of two batches: contracts ``axes`` (default: the last axis of
    ``x`` with the second-to-last of ``y``, or the last if ``y`` is 2-D); the result has
    ``x``'s other axes then ``y``'s."""
    x_rank, y_rank = len(x.shape), len(y.shape)
    if x_rank < 2 or y_rank < 2:
        raise ValueError(
            "Cannot do batch_dot on inputs with rank < 2. Received inputs with tf.shapes "
            f"{x.shape} and {y.shape}."
        )
    bx, by = x.shape[0], y.shape[0]
    if bx is not None and by is not None and bx != by:
        raise ValueError(
            "Cannot do batch_dot on inputs with different batch sizes. Received inputs with "
            f"tf.shapes {x.shape} and {y.shape}."
        )
    a0, a1 = _batch_dot_axes(x, y, axes)
    if x_rank == 2:
        x, a0 = tf.expand_dims(x, 1), a0 + 1
    if y_rank == 2:
        y = tf.expand_dims(y, 2)
    xr, yr = x.shape.rank, y.shape.rank
    # Move x's contracted axis last and y's to axis 1, then flatten the rest into one matmul.
    x = tf.transpose(x, [i for i in range(xr) if i != a0] + [a0])
    y = tf.transpose(y, [0, a1] + [i for i in range(1, yr) if i != a1])
    x_dims, y_dims = _dims(x), _dims(y)
    out = tf.matmul(
        tf.reshape(x, [x_dims[0], -1, x_dims[-1]]), tf.reshape(y, [y_dims[0], y_dims[1], -1])
    )
    out = tf.reshape(out, x_dims[:-1] + y_dims[2:])
    if x_rank == 2:
        return tf.squeeze(out, 1)
    if y_rank == 2:
        return tf.squeeze(out, -1)
    return out
