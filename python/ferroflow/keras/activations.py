"""`tf.keras.activations`: element-wise (and softmax-like) activation functions, as in Keras 3.

Every function is built from ferroflow ops, so it is differentiable under `tf.GradientTape`
and works inside `tf.function`. ``get(identifier)`` resolves a name (``"relu"``,
``"swish"``...), a serialized config or a callable; None gives `linear`.
"""

import types as _types

import ferroflow as _tf

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _t(x):
    return _tf.convert_to_tensor(x)


def _attach_logits(output, logits):
    # Keras records the logits on softmax / sigmoid outputs so that losses can use them; a
    # ferroflow tensor does not take new attributes, in which case this is a no-op (as in Keras
    # for backends whose tensors refuse them).
    try:
        output._keras_logits = logits
    except AttributeError:
        pass
    return output


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``; below ``threshold`` values are zero (or ``negative_slope * (x -
    threshold)``), and the result is clipped at ``max_value``. Same branches as Keras 3."""
    x = _t(x)
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return _tf.nn.leaky_relu(x, alpha=negative_slope)
        if threshold != 0:
            negative_part = _tf.nn.relu(-x + threshold)
        else:
            negative_part = _tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = _tf.where(_tf.greater(x, _tf.cast(threshold, x.dtype)), x, _tf.zeros_like(x))
    elif max_value == 6:
        x = _tf.nn.relu6(x)
        clip_max = False
    else:
        x = _tf.nn.relu(x)
    if clip_max:
        x = _tf.clip_by_value(x, _tf.cast(0.0, x.dtype), _tf.cast(max_value, x.dtype))
    if negative_slope != 0.0:
        x = x - negative_slope * negative_part
    return x


def leaky_relu(x, negative_slope=0.2):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise."""
    return _tf.nn.leaky_relu(_t(x), alpha=negative_slope)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return _tf.nn.relu6(_t(x))


def _flat_axis(fn, x, axis):
    """``fn`` over all elements at once when ``axis`` is None (numpy-like), else along it."""
    if axis is None:
        flat = fn(_tf.reshape(x, [-1]), axis=-1)
        return _tf.reshape(flat, _tf.shape(x))
    return fn(x, axis=axis)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (all elements when None)."""
    x = _t(x)
    return _attach_logits(_flat_axis(_tf.nn.softmax, x, axis), x)


def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis`` (all elements when None)."""
    return _flat_axis(_tf.nn.log_softmax, _t(x), axis)


def _elu_core(x):
    """``x`` for ``x >= 0``, ``exp(x) - 1`` below, with TF's gradients (1 at 0).

    Composed rather than `tf.nn.elu`: ferroflow's elu / selu gradients are NaN for large
    positive inputs (``exp(x)`` overflows in the unused branch). Taking ``expm1`` of
    ``min(x, 0)`` keeps both branches finite.
    """
    negative = _tf.math.expm1(_tf.minimum(x, _tf.zeros_like(x)))
    return _tf.where(x >= 0, x, negative)


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    x = _t(x)
    res = _elu_core(x)
    if alpha == 1:
        return res
    return _tf.where(x > 0, res, alpha * res)


def selu(x):
    """``scale * elu(x, alpha)`` with the self-normalizing constants (alpha 1.6733, scale
    1.0507)."""
    x = _t(x)
    return _SELU_SCALE * _tf.where(x >= 0, x, _SELU_ALPHA * _elu_core(x))


def softplus(x):
    """``log(exp(x) + 1)``, computed stably."""
    return _tf.nn.softplus(_t(x))


def softsign(x):
    """``x / (abs(x) + 1)``."""
    x = _t(x)
    return x / (_tf.abs(x) + 1)


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    x = _t(x)
    zeros = _tf.zeros_like(x)
    return _tf.where(x > threshold, x - threshold, _tf.where(x < -threshold, x + threshold, zeros))


def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` for ``-1 < x < 1``, ``x`` for ``x >= 1``."""
    x = _t(x)
    return _tf.where(x <= -1, _tf.zeros_like(x), _tf.where(x < 1, 0.25 * _tf.square(x + 1), x))


def silu(x):
    """Swish / SiLU: ``x * sigmoid(x)``."""
    x = _t(x)
    return x * _tf.sigmoid(x)


swish = silu


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _t(x)
    b = _tf.convert_to_tensor(b, dtype=x.dtype)
    return (x + _tf.sqrt(_tf.square(x) + b)) / 2


def gelu(x, approximate=False):
    """``x * P(X <= x)`` for standard normal X: exact (erf) by default, tanh approximation with
    ``approximate=True``."""
    return _tf.nn.gelu(_t(x), approximate=approximate)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)``."""
    x = _t(x)
    zero = _tf.zeros_like(x)
    return _tf.maximum(x, zero) + alpha * _tf.math.expm1(_tf.minimum(x, zero) / alpha)


def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along
    ``axis``."""
    x = _t(x)
    if x.shape[axis] % 2 != 0:
        raise ValueError(
            f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}"
        )
    x1, x2 = _tf.split(x, 2, axis=axis)
    return x1 * _tf.sigmoid(x2)


def tanh(x):
    """Hyperbolic tangent."""
    return _tf.tanh(_t(x))


def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _t(x)
    return x - _tf.tanh(x)


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x = _t(x)
    return _tf.clip_by_value(x, _tf.cast(-1.0, x.dtype), _tf.cast(1.0, x.dtype))


def hard_shrink(x, threshold=0.5):
    """``x`` where ``abs(x) > threshold``, else 0."""
    x = _t(x)
    return _tf.where(_tf.abs(x) > threshold, x, _tf.zeros_like(x))


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = _t(x)
    default = _tf.zeros_like(x) + default_value
    return _tf.where(x > threshold, x, default)


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    x = _t(x)
    return _attach_logits(_tf.sigmoid(x), x)


def sparse_sigmoid(x):
    """0 for ``x <= -1``, ``(x + 1) / 2`` for ``-1 < x < 1``, 1 for ``x >= 1``."""
    x = _t(x)
    return _tf.where(
        x <= -1,
        _tf.zeros_like(x),
        _tf.where(x >= 1, _tf.ones_like(x), 0.5 * (x + 1)),
    )


def exponential(x):
    """``exp(x)``."""
    return _tf.exp(_t(x))


def hard_sigmoid(x):
    """Piecewise-linear sigmoid: ``relu6(x + 3) / 6``."""
    x = _t(x)
    return _tf.nn.relu6(x + 3.0) / 6.0


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, computed stably."""
    x = _t(x)
    return -_tf.nn.softplus(-x)


def hard_silu(x):
    """Hard swish: ``x * hard_sigmoid(x)``."""
    x = _t(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def linear(x):
    """The identity: returns ``x`` unmodified."""
    return x


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = _t(x)
    return x * _tf.tanh(_tf.nn.softplus(x))


def sparsemax(x, axis=-1):
    """Euclidean projection of ``x`` onto the probability simplex along ``axis``: like softmax,
    but with exact zeros."""
    logits = _t(x)
    logits_sorted = _tf.sort(logits, axis=axis, direction="DESCENDING")
    logits_cumsum = _tf.math.cumsum(logits_sorted, axis=axis)
    n = logits.shape[axis]
    r_shape = [1] * len(logits.shape)
    r_shape[axis] = -1
    r = _tf.reshape(_tf.range(1, n + 1, dtype=logits.dtype), r_shape)
    support = logits_sorted - (logits_cumsum - 1) / r > 0
    logits_cumsum_safe = _tf.where(support, logits_cumsum, _tf.zeros_like(logits_cumsum))
    k = _tf.reduce_sum(_tf.cast(support, logits.dtype), axis=axis, keepdims=True)
    tau = (_tf.reduce_sum(logits_cumsum_safe, axis=axis, keepdims=True) - 1) / k
    return _tf.maximum(logits - tau, _tf.zeros_like(logits))


ALL_OBJECTS_DICT = {
    fn.__name__: fn
    for fn in (
        relu,
        leaky_relu,
        relu6,
        softmax,
        celu,
        elu,
        selu,
        softplus,
        softsign,
        squareplus,
        soft_shrink,
        sparse_plus,
        silu,
        gelu,
        glu,
        tanh,
        tanh_shrink,
        threshold,
        sigmoid,
        sparse_sigmoid,
        exponential,
        hard_sigmoid,
        hard_silu,
        hard_tanh,
        hard_shrink,
        linear,
        mish,
        log_softmax,
        log_sigmoid,
        sparsemax,
    )
}
ALL_OBJECTS_DICT["swish"] = silu
ALL_OBJECTS_DICT["hard_swish"] = hard_silu

_BUILTIN_NAMES = {id(fn): name for name, fn in ALL_OBJECTS_DICT.items() if name == fn.__name__}


def serialize(activation):
    """The name of a built-in activation (``serialize(swish) == "silu"``), or the Keras-style
    dict of an activation object with ``get_config``."""
    name = _BUILTIN_NAMES.get(id(activation))
    if name is not None:
        return name
    if not isinstance(activation, _types.FunctionType) and hasattr(activation, "get_config"):
        return {
            "module": type(activation).__module__,
            "class_name": type(activation).__name__,
            "config": activation.get_config(),
            "registered_name": None,
        }
    raise ValueError(
        f"Unknown activation function '{activation}' cannot be serialized due to invalid "
        "function name. Make sure to use an activation name that matches the references "
        "defined in activations.py."
    )


def deserialize(config, custom_objects=None):
    """The activation named by ``config``: a name, or a dict whose ``config`` is the name (as
    Keras writes functions) or the ``get_config`` of a custom class in ``custom_objects``."""
    objects = {**ALL_OBJECTS_DICT, **(custom_objects or {})}
    if isinstance(config, str):
        fn = objects.get(config)
    elif isinstance(config, dict) and "class_name" in config:
        inner = config.get("config")
        if config["class_name"] == "function" or isinstance(inner, str):
            fn = objects.get(inner)
        else:
            cls = objects.get(config["class_name"])
            fn = None if cls is None else cls(**(inner or {}))
    else:
        fn = None
    if fn is None:
        raise ValueError(f"Could not interpret activation function identifier: {config}")
    return fn


def get(identifier):
    """The activation for ``identifier``: None gives `linear`, a name or config is looked up,
    any callable comes back as it is."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")
