"""`keras.ops.nn`: activations, convolutions and pooling, normalizations, losses, attention
and CTC, as Keras 3's TensorFlow backend computes them, over ferroflow's ops."""

import math as pymath
import warnings

import ferroflow as tf
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers._conv_ops import (
    convolve,
    depthwise_convolve,
    from_channels_last,
    grouped_convolve,
    tf_data_format,
    to_channels_last,
)
from ferroflow.keras.ops._dtypes import result_type
from ferroflow.keras.ops._dtypes import standardize_dtype as _std
from ferroflow.keras.ops.core import cast, convert_to_tensor
from ferroflow.keras.ops.numpy import log10, maximum, transpose

_t = convert_to_tensor

__all__ = [
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "ctc_decode", "ctc_loss", "depth_to_space", "depthwise_conv", "dot_product_attention", "elu",
    "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool", "moments",
    "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu", "relu6", "rms_normalization",
    "selu", "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign",
    "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink", "threshold", "unfold",
]  # fmt: skip


def _keep_logits(output, logits):
    # Keras tags sigmoid/softmax outputs with their logits; its crossentropies then use the
    # logits (from_logits=True), which changes their values.
    try:
        output._keras_logits = logits
    except AttributeError:
        pass
    return output


# Activations ----------------------------------------------------------------------------
def relu(x):
    """``max(x, 0)``."""
    return tf.nn.relu(x)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return tf.nn.relu6(x)


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return _keep_logits(tf.nn.sigmoid(x), x)


def sparse_sigmoid(x):
    """0 below -1, 1 above 1, linear between."""
    x = _t(x)
    zero, one = tf.constant(0.0, x.dtype), tf.constant(1.0, x.dtype)
    return tf.where(x <= -1, zero, tf.where(x >= 1, one, 0.5 * (x + 1)))


def tanh(x):
    """Hyperbolic tangent."""
    return tf.nn.tanh(x)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    return x - tf.math.tanh(x)


def softplus(x):
    """``log(1 + exp(x))``."""
    return tf.math.softplus(x)


def softsign(x):
    """``x / (1 + |x|)``."""
    return tf.nn.softsign(x)


def soft_shrink(x, threshold=0.5):
    """Shrinks ``x`` towards 0 by ``threshold``."""
    return tf.where(
        x > threshold, x - threshold, tf.where(x < -threshold, x + threshold, tf.zeros_like(x))
    )


def sparse_plus(x):
    """0 below -1, ``(x + 1)**2 / 4`` up to 1, ``x`` above."""
    return tf.where(x <= -1, tf.zeros_like(x), tf.where(x < 1, 1 / 4 * tf.pow(x + 1, 2), x))


def silu(x):
    """``x * sigmoid(x)``."""
    return tf.nn.silu(x)


swish = silu


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _t(x)
    return (x + tf.sqrt(tf.square(x) + _t(b, dtype=x.dtype))) / 2


def log_sigmoid(x):
    """``log(sigmoid(x))``."""
    return tf.math.log_sigmoid(x)


def leaky_relu(x, negative_slope=0.2):
    """``x`` above 0, ``negative_slope * x`` below."""
    return tf.nn.leaky_relu(x, alpha=negative_slope)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    x = _t(x)
    return relu6(x + tf.constant(3.0, x.dtype)) / tf.constant(6.0, x.dtype)


def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def elu(x, alpha=1.0):
    """``x`` above 0, ``alpha * (exp(x) - 1)`` below."""
    res = tf.nn.elu(x)
    return res if alpha == 1 else tf.where(x > 0, res, alpha * res)


def selu(x):
    """Scaled exponential linear unit."""
    return tf.nn.selu(x)


def gelu(x, approximate=True):
    """Gaussian error linear unit (tanh approximation by default)."""
    return tf.nn.gelu(_t(x), approximate=approximate)


def celu(x, alpha=1.0):
    """Continuously differentiable exponential linear unit."""
    return tf.maximum(x, 0.0) + alpha * tf.math.expm1(tf.minimum(x, 0.0) / alpha)


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second."""
    if x.shape[axis] % 2 != 0:
        raise ValueError(
            f"axis size must be divisible by 2. Received: x.shape={x.shape} with axis={axis}"
        )
    a, b = tf.split(x, num_or_size_splits=2, axis=axis)
    return a * tf.sigmoid(b)


def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    return tf.clip_by_value(x, clip_value_min=-1.0, clip_value_max=1.0)


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    return tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x))


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    return tf.where(x > threshold, x, default_value)


def _over_axes(fn, x, axis):
    # A tuple of axes: the kept axes first, the reduced ones flattened into the last.
    keep = [v for v in range(len(x.shape)) if v not in axis]
    moved = transpose(x, axes=(*keep, *axis))
    out = tf.reshape(fn(tf.reshape(moved, (*[x.shape[v] for v in keep], -1)), -1), moved.shape)
    order = [*keep, *axis]
    return transpose(out, axes=sorted(range(len(order)), key=order.__getitem__))


def _softmax(x, axis):
    if axis is None:
        return tf.reshape(tf.nn.softmax(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    return tf.nn.softmax(x, axis=axis)


def softmax(x, axis=-1):
    """Softmax over ``axis`` (an int, a tuple of axes, or None for all)."""
    x = _t(x)
    if isinstance(axis, int) and -len(x.shape) <= axis < len(x.shape) and x.shape[axis] == 1:
        warnings.warn(
            f"You are using a softmax over axis {axis} of a tensor of shape {x.shape}. This "
            "axis has size 1. The softmax operation will always return the value 1, which is "
            "likely not what you intended. Did you mean to use a sigmoid instead?",
            stacklevel=2,
        )
    if isinstance(axis, tuple):
        return _over_axes(_softmax, x, axis)
    return _keep_logits(_softmax(x, axis), x)


def _log_softmax(x, axis):
    if axis is None:
        return tf.reshape(tf.nn.log_softmax(tf.reshape(x, [-1]), axis=-1), tf.shape(x))
    return tf.nn.log_softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """Log-softmax over ``axis`` (an int, a tuple of axes, or None for all)."""
    x = _t(x)
    if isinstance(axis, tuple):
        return _over_axes(_log_softmax, x, axis)
    return _log_softmax(x, axis)


def sparsemax(x, axis=-1):
    """Sparsemax: the Euclidean projection of ``x`` onto the probability simplex."""
    logits = _t(x)
    ordered = tf.sort(logits, direction="DESCENDING", axis=axis)
    running = tf.cumsum(ordered, axis=axis)
    shape = [1] * len(logits.shape)
    shape[axis] = -1
    r = tf.reshape(tf.range(1, tf.shape(logits)[axis] + 1, dtype=logits.dtype), shape)
    support = ordered - (running - 1) / r > 0
    k = tf.reduce_sum(tf.cast(support, logits.dtype), axis=axis, keepdims=True)
    tau = (tf.reduce_sum(tf.where(support, running, 0.0), axis=axis, keepdims=True) - 1) / k
    return tf.maximum(logits - tau, 0.0)


# Convolution and pooling ----------------------------------------------------------------
def _data_format(data_format):
    data_format = (data_format or backend_config.image_data_format()).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return data_format


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _conv_groups(channels, kernel):
    """How many groups the input channels form for ``kernel`` (TensorFlow's checks)."""
    depth, filters = kernel.shape[-2], kernel.shape[-1]
    if channels is None or depth is None or channels == depth:
        return 1
    if depth == 0 or channels % depth:
        raise ValueError(
            f"Depth of input ({channels}) is not a multiple of input depth of filter ({depth}) "
            f"with input shapes: kernel {list(kernel.shape)}."
        )
    groups = channels // depth
    if filters is not None and filters % groups:
        raise ValueError(
            f"Depth of output ({filters}) is not a multiple of the number of groups ({groups}) "
            f"with input shapes: kernel {list(kernel.shape)}."
        )
    return groups


def _check_channels(inputs, kernel, data_format):
    have = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    want = kernel.shape[-2]
    if isinstance(have, int) and isinstance(want, int) and have != want:
        raise ValueError(
            "The number of input channels must match the kernel's input channels. Received: "
            f"input channels={have}, kernel input channels={want}, data_format='{data_format}'."
        )


def _pool(kind):
    def fn(inputs, pool_size, strides=None, padding="valid", data_format=None):
        data_format = _data_format(data_format)
        inputs = _t(inputs)
        strides = pool_size if strides is None else strides
        rank = len(inputs.shape)
        x = to_channels_last(inputs) if data_format == "channels_first" else inputs
        op = tf.nn.max_pool if kind == "MAX" else tf.nn.avg_pool
        out = op(x, pool_size, strides, padding.upper(), tf_data_format(rank - 2, "channels_last"))
        return from_channels_last(out) if data_format == "channels_first" else out

    return fn


max_pool = _pool("MAX")
max_pool.__doc__ = "Max pooling over the spatial axes."
average_pool = _pool("AVG")
average_pool.__doc__ = "Average pooling over the spatial axes."


def _adaptive(kind):
    def fn(inputs, output_size, data_format=None):
        from ferroflow.keras.layers.adaptive_pooling import _pool_axis

        data_format = _data_format(data_format)
        inputs = _t(inputs)
        spatial = len(inputs.shape) - 2
        if spatial not in (1, 2, 3):
            raise ValueError(f"adaptive_{kind.lower()}_pool supports 1D, 2D, or 3D inputs only.")
        sizes = _tuple(output_size, spatial)
        x = to_channels_last(inputs) if data_format == "channels_first" else inputs
        if None in x.shape.as_list()[1:-1]:
            raise ValueError(
                "Input spatial dimensions must be statically known for adaptive pooling"
            )
        for axis, out in enumerate(sizes[:spatial], start=1):
            x = _pool_axis(x, axis, out, kind)
        return from_channels_last(x) if data_format == "channels_first" else x

    return fn


adaptive_average_pool = _adaptive("AVG")
adaptive_average_pool.__doc__ = "Average pooling to a fixed ``output_size``."
adaptive_max_pool = _adaptive("MAX")
adaptive_max_pool.__doc__ = "Max pooling to a fixed ``output_size``."


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """An N-D convolution (kernel ``kernel_size + (in_channels, filters)``)."""
    data_format = _data_format(data_format)
    inputs, kernel = _t(inputs), _t(kernel)
    n = len(inputs.shape) - 2
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    groups = _conv_groups(channels, kernel)
    args = (_tuple(strides, n), padding.lower(), data_format, _tuple(dilation_rate, n))
    # Keras runs TensorFlow's grouped convolution (through XLA on the CPU).
    out = grouped_convolve(inputs, kernel, groups, *args)
    if (
        out.shape.is_fully_defined()
        and pymath.prod(out.shape) == 0
        and pymath.prod(inputs.shape) != 0
    ):
        raise ValueError(
            f"The convolution operation resulted in an empty output. Output shape: {out.shape}. "
            "This can happen if the input is too small for the given kernel size, strides, "
            "dilation rate, and padding mode. Please check the input shape and convolution "
            "parameters."
        )
    return out


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """A depthwise 1-D or 2-D convolution (kernel ``kernel_size + (channels, multiplier)``)."""
    data_format = _data_format(data_format)
    inputs, kernel = _t(inputs), _t(kernel)
    n = len(inputs.shape) - 2
    if n > 2:
        raise ValueError(
            f"`inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: {len(inputs.shape)}."
        )
    _check_channels(inputs, kernel, data_format)
    x = to_channels_last(inputs) if data_format == "channels_first" else inputs
    out = depthwise_convolve(
        x, kernel, _tuple(strides, n), padding.lower(), _tuple(dilation_rate, n)
    )
    return from_channels_last(out) if data_format == "channels_first" else out


def separable_conv(
    inputs,
    depthwise_kernel,
    pointwise_kernel,
    strides=1,
    padding="valid",
    data_format=None,
    dilation_rate=1,
):
    """A depthwise convolution followed by a 1x1 pointwise convolution."""
    data_format = _data_format(data_format)
    inputs = _t(inputs)
    depthwise_kernel, pointwise_kernel = _t(depthwise_kernel), _t(pointwise_kernel)
    n = len(inputs.shape) - 2
    if n > 2:
        raise ValueError(f"`num_spatial_dims` must be 1 or 2. Received: num_spatial_dims={n}.")
    _check_channels(inputs, depthwise_kernel, data_format)
    x = to_channels_last(inputs) if data_format == "channels_first" else inputs
    depth = depthwise_convolve(
        x, depthwise_kernel, _tuple(strides, n), padding.lower(), _tuple(dilation_rate, n)
    )
    out = convolve(depth, pointwise_kernel, (1,) * n, "valid", "channels_last", (1,) * n)
    return from_channels_last(out) if data_format == "channels_first" else out


def _transpose_size(size, k, stride, padding, output_padding, dilation):
    k = (k - 1) * dilation + 1
    if padding == "valid":
        extra = max(k, stride) - k if output_padding is None else output_padding
        return (size - 1) * stride + k + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + k % 2 + output_padding


def conv_transpose(
    inputs,
    kernel,
    strides=1,
    padding="valid",
    output_padding=None,
    data_format=None,
    dilation_rate=1,
):
    """The transpose of `conv` (kernel ``kernel_size + (filters, in_channels)``)."""
    data_format = _data_format(data_format)
    padding = padding.lower()
    if padding not in ("valid", "same"):
        raise ValueError(
            f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}"
        )
    inputs, kernel = _t(inputs), _t(kernel)
    n = len(inputs.shape) - 2
    have = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    if isinstance(have, int) and have != kernel.shape[-1]:
        raise ValueError(
            "The number of input channels must match the kernel's input channels. Received: "
            f"input channels={have}, kernel input channels={kernel.shape[-1]}, "
            f"data_format='{data_format}'."
        )
    strides, dilation = _tuple(strides, n), _tuple(dilation_rate, n)
    pads = (None,) * n if output_padding is None else _tuple(output_padding, n)
    shape = list(inputs.shape)
    dynamic = tf.shape(inputs)
    shape = [dynamic[i] if d is None else d for i, d in enumerate(shape)]
    spatial = shape[1:-1] if data_format == "channels_last" else shape[2:]
    sizes = [
        _transpose_size(s, k, st, padding, p, d)
        for s, k, st, p, d in zip(spatial, kernel.shape[:-2], strides, pads, dilation, strict=True)
    ]
    filters = kernel.shape[-2]
    out_shape = (
        [shape[0], *sizes, filters]
        if data_format == "channels_last"
        else [shape[0], filters, *sizes]
    )
    return tf.nn.conv_transpose(
        inputs,
        kernel,
        out_shape,
        list(strides),
        padding=padding.upper(),
        data_format=tf_data_format(n, data_format),
        dilations=list(dilation),
    )


def depth_to_space(x, block_size, data_format="channels_last"):
    """Moves depth into ``block_size x block_size`` spatial blocks."""
    return _blocks(tf.nn.depth_to_space, x, block_size, data_format)


def space_to_depth(x, block_size, data_format="channels_last"):
    """Moves ``block_size x block_size`` spatial blocks into depth."""
    return _blocks(tf.nn.space_to_depth, x, block_size, data_format)


def _blocks(op, x, block_size, data_format):
    data_format = _data_format(data_format)
    if block_size < 2:
        raise ValueError(f"`block_size` must be at least 2. Received: block_size={block_size}")
    if data_format == "channels_last":
        return op(x, block_size, data_format="NHWC")
    x = tf.transpose(x, [0, 2, 3, 1])
    return tf.transpose(op(x, block_size, data_format="NHWC"), [0, 3, 1, 2])


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding ``kernel_size`` blocks of an NCHW ``x`` as columns ``(N, C*kh*kw, L)``."""
    if len(x.shape) != 4:
        raise ValueError(f"Input must be a 4D tensor. Received: input.shape={x.shape}")
    x = _t(x)
    k, d, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    n, c = x.shape[0], x.shape[1]
    if any(v > 0 for v in p):
        x = tf.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    patches = tf.image.extract_patches(
        tf.transpose(x, [0, 2, 3, 1]),
        [1, k[0], k[1], 1],
        [1, s[0], s[1], 1],
        [1, d[0], d[1], 1],
        "VALID",
    )
    nh, nw = patches.shape[1], patches.shape[2]
    patches = tf.transpose(tf.reshape(patches, [n, nh, nw, k[0], k[1], c]), [0, 5, 3, 4, 1, 2])
    return tf.reshape(patches, [n, c * k[0] * k[1], nh * nw])


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse of `unfold`: sums columns ``(N, C*kh*kw, L)`` back into NCHW images."""
    if len(x.shape) != 3:
        raise ValueError(f"Input must be a 3D tensor. Received: input.shape={x.shape}")
    x = _t(x)
    (kh, kw), (oh, ow), d, p, s = (
        _tuple(v, 2) for v in (kernel_size, output_size, dilation, padding, stride)
    )
    n = x.shape[0]
    c = x.shape[1] // (kh * kw)
    nh = (oh + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1
    nw = (ow + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1
    x = tf.reshape(x, [n, c, kh, kw, nh, nw])
    ph, pw = oh + 2 * p[0], ow + 2 * p[1]
    out = tf.zeros([n, c, ph, pw], dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = [r * s[0] + i * d[0] for r in range(nh)]
            cols = [q * s[1] + j * d[1] for q in range(nw)]
            idx = [[b, ch, r, q] for b in range(n) for ch in range(c) for r in rows for q in cols]
            out = tf.tensor_scatter_nd_add(out, idx, tf.reshape(x[:, :, i, j], [-1]))
    return out[:, :, p[0] : ph - p[0], p[1] : pw - p[1]]


# Encodings ------------------------------------------------------------------------------
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot vectors of ``num_classes`` along ``axis`` (negative indices give zeros); with
    ``sparse``, a `SparseTensor` holding one entry per element of ``x``."""
    x = _t(x, dtype="int64")
    dtype = "float32" if dtype is None else _std(dtype)
    if sparse:
        return _sparse_one_hot(x, num_classes, axis, dtype)
    on, off = (True, False) if dtype == "bool" else (None, None)
    return tf.one_hot(x, num_classes, on_value=on, off_value=off, axis=axis, dtype=dtype)


def _sparse_one_hot(x, num_classes, axis, dtype):
    # One entry per element of ``x``, in ``x``'s row-major order: its position with the class
    # inserted at ``axis`` (0 for a negative index, whose value is then 0).
    _require_static_shape(x.shape)
    rank = len(x.shape)
    if axis < 0:
        axis += rank + 1
    dims = list(x.shape)
    flat = tf.reshape(x, [-1])
    values = tf.cast(tf.greater_equal(flat, 0), dtype)
    grids = tf.meshgrid(*[tf.range(d) for d in dims], indexing="ij") if dims else []
    columns = [tf.cast(tf.reshape(c, [-1]), "int64") for c in grids]
    columns.insert(axis, tf.maximum(flat, 0))
    indices = tf.stack(columns, axis=1)
    shape = list(dims)
    shape.insert(axis, num_classes)
    return tf.SparseTensor(indices, values, shape)


def _require_static_shape(shape):
    """Keras's sparse one-hot sizes its entries from the static shape (the product of its
    dims): an unknown dimension (a ragged row length, a traced None) fails there."""
    if any(d is None for d in shape):
        raise TypeError("unsupported operand type(s) for *: 'int' and 'NoneType'")


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot vectors: the one-hot vectors of each row's indices, combined."""
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    dtype = _std(dtype)
    reduce_axis = 1 if len(inputs.shape) > 1 else 0
    if sparse:
        # As Keras's TensorFlow backend: the sparse one-hot entries' maximum over the reduced
        # axis, kept sparse (explicit zeros from negative indices stay); booleans go through
        # int8, which `tf.sparse.reduce_max` takes.
        work = "int8" if dtype == "bool" else dtype
        out = one_hot(inputs, num_classes, axis=axis, dtype=work, sparse=True)
        out = tf.sparse.reduce_max(out, axis=reduce_axis, output_is_sparse=True)
        return cast(out, dtype)
    out = one_hot(inputs, num_classes, axis=axis, dtype=dtype)
    reducer = tf.reduce_any if dtype == "bool" else tf.reduce_max
    return reducer(out, axis=reduce_axis)


# Losses ---------------------------------------------------------------------------------
def _same_shape(target, output, what):
    if len(target.shape) != len(output.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same rank (ndim). Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    for a, b in zip(target.shape, output.shape, strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Arguments `target` and `output` must have the same {what}. Received: "
                f"target.shape={target.shape}, output.shape={output.shape}"
            )


def _logits_of(output, from_logits, fn_name, op_name):
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced '
            f"by a {op_name} activation and thus does not represent logits. Was this intended?",
            stacklevel=3,
        )
    return logits, True


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary crossentropy."""
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    _same_shape(target, output, "shape")
    output, from_logits = _logits_of(output, from_logits, "binary_crossentropy", "Sigmoid")
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = tf.clip_by_value(output, backend_config.epsilon(), 1.0 - backend_config.epsilon())
    bce = target * tf.math.log(output)
    bce += (1 - target) * tf.math.log(1 - output)
    return -bce


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy between one-hot (or soft) ``target`` and ``output`` along ``axis``."""
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    if len(target.shape) < 1:
        raise ValueError(
            "Arguments `target` and `output` must be at least rank 1. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    _same_shape(target, output, "shape")
    output, from_logits = _logits_of(output, from_logits, "categorical_crossentropy", "Softmax")
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = output / tf.reduce_sum(output, axis, keepdims=True)
    output = tf.clip_by_value(output, backend_config.epsilon(), 1.0 - backend_config.epsilon())
    return -tf.reduce_sum(target * tf.math.log(output), axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Crossentropy between integer ``target`` and ``output`` (last axis only)."""
    if axis != -1 and axis != len(output.shape) - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")
    output, from_logits = _logits_of(
        output, from_logits, "sparse_categorical_crossentropy", "Softmax"
    )
    target = tf.cast(tf.convert_to_tensor(target), "int64")
    output = tf.convert_to_tensor(output)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, axis=-1)
    if len(output.shape) < 1:
        raise ValueError(
            f"Argument `output` must be at least rank 1. Received: output.shape={output.shape}"
        )
    if len(target.shape) != len(output.shape[:-1]):
        raise ValueError(
            "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
            f"target.shape={target.shape}, output.shape={output.shape}"
        )
    for a, b in zip(target.shape, output.shape[:-1], strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(
                "Arguments `target` and `output` must have the same shape up until the last "
                f"dimension: target.shape={target.shape}, output.shape={output.shape}"
            )
    if not from_logits:
        output = tf.math.log(
            tf.clip_by_value(output, backend_config.epsilon(), 1 - backend_config.epsilon())
        )
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)


def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio in dB."""
    if x1.shape != x2.shape:
        raise ValueError(
            f"Input shapes {x1.shape} and {x2.shape} must match for PSNR calculation. "
        )
    max_val = _t(max_val, dtype=x2.dtype)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20 * log10(max_val) - 10 * log10(mse)


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss of batch-major ``output`` logits for ``target`` label sequences."""
    target = tf.cast(_t(target), "int32")
    output = _t(output)
    out_dtype = result_type(output.dtype, "float32")
    compute = "float32" if out_dtype == "float64" else out_dtype
    loss = tf.nn.ctc_loss(
        labels=target,
        logits=tf.cast(output, compute),
        label_length=target_length,
        logit_length=output_length,
        blank_index=mask_index,
        logits_time_major=False,
    )
    return tf.cast(loss, out_dtype)


def ctc_decode(
    inputs,
    sequence_lengths,
    strategy="greedy",
    beam_width=100,
    top_paths=1,
    merge_repeated=True,
    mask_index=0,
):
    """Greedy or beam-search CTC decoding; returns dense paths (-1 padded) and scores."""
    inputs = _t(inputs)
    num_samples, num_steps = inputs.shape[0], inputs.shape[1]
    inputs = tf.transpose(inputs, (1, 0, 2))
    inputs = tf.cast(inputs, result_type(inputs.dtype, "float32"))
    sequence_lengths = _t(sequence_lengths, dtype="int32")
    if strategy == "greedy":
        decoded, scores = tf.nn.ctc_greedy_decoder(
            inputs=inputs,
            sequence_length=sequence_lengths,
            merge_repeated=merge_repeated,
            blank_index=mask_index,
        )
    elif strategy == "beam_search":
        if mask_index is not None:
            inputs = tf.concat(
                [
                    inputs[..., :mask_index],
                    inputs[..., mask_index + 1 :],
                    inputs[..., mask_index : mask_index + 1],
                ],
                axis=-1,
            )
        decoded, scores = tf.nn.ctc_beam_search_decoder(
            inputs=inputs,
            sequence_length=sequence_lengths,
            beam_width=beam_width,
            top_paths=top_paths,
        )
    else:
        raise ValueError(
            f"Invalid strategy {strategy}. Supported values are 'greedy' and 'beam_search'."
        )
    dense = []
    for st in decoded:
        st = tf.SparseTensor(st.indices, st.values, (num_samples, num_steps))
        dense.append(tf.sparse.to_dense(st, default_value=-1))
    dense = tf.cast(tf.stack(dense, axis=0), "int32")
    if strategy == "beam_search" and mask_index is not None:
        if mask_index < 0:
            mask_index += inputs.shape[-1]
        dense = tf.where(dense >= mask_index, dense + 1, dense)
    return dense, scores


# Normalization --------------------------------------------------------------------------
def moments(x, axes, keepdims=False, synchronized=False):
    """Mean and variance over ``axes`` (float16 inputs computed in float32)."""
    x = _t(x)
    name = _std(x.dtype)
    narrow = name in ("float16", "bfloat16")
    if narrow:
        x = cast(x, "float32")
    mean, variance = tf.nn.moments(x, axes, keepdims=keepdims)
    if narrow:
        lim = 65504.0
        mean = cast(tf.clip_by_value(mean, -lim, lim), name)
        variance = cast(tf.clip_by_value(variance, -lim, lim), name)
    return mean, variance


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` along ``axis``."""
    if axis != -1:
        shape = [1] * len(x.shape)
        shape[axis] = mean.shape[0]
        mean, variance = tf.reshape(mean, shape), tf.reshape(variance, shape)
        offset = None if offset is None else tf.reshape(offset, shape)
        scale = None if scale is None else tf.reshape(scale, shape)
    return tf.nn.batch_normalization(
        x=x, mean=mean, variance=variance, offset=offset, scale=scale, variance_epsilon=epsilon
    )


def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm along ``axis``."""
    from ferroflow.keras.ops.linalg import norm

    if not isinstance(order, int) or not order >= 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = _t(x)
    if len(x.shape) == 0:
        x = tf.expand_dims(x, 0)
    epsilon = backend_config.epsilon() if epsilon is None else epsilon
    if order == 2:
        from ferroflow.keras.ops.numpy import square, sum

        inv = tf.math.rsqrt(sum(square(x), axis=axis, keepdims=True))
        return x * tf.minimum(inv, 1.0 / epsilon)
    return x / maximum(norm(x, ord=order, axis=axis, keepdims=True), epsilon)


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2) + epsilon) * scale`` over ``axis``."""
    from ferroflow.keras.ops.numpy import mean, square

    epsilon = backend_config.epsilon() if epsilon is None else epsilon
    name = _std(x.dtype)
    x = _t(x, dtype=result_type(x.dtype, "float32"))
    if scale is not None:
        scale = _t(scale, x.dtype)
    if isinstance(axis, tuple | list):
        axis = sorted(axis)
    if len(x.shape) == 0:
        x = tf.expand_dims(x, 0)
    out = x * tf.math.rsqrt(mean(square(x), axis=axis, keepdims=True) + epsilon)
    if scale is not None:
        out = out * scale
    return tf.cast(out, name)


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """Layer normalization over ``axis`` with optional ``gamma`` scale and ``beta`` offset."""
    rms_scaling = kwargs.pop("rms_scaling", False)
    if rms_scaling:
        warnings.warn(
            "You passed `rms_scaling=True`, which is deprecated. This argument incorrectly "
            "scales the input by the variance, not the root mean square. To correctly use RMS "
            "Normalization, please use `keras.ops.rms_normalization` / "
            "`keras.ops.nn.rms_normalization` instead.",
            stacklevel=2,
        )
    epsilon = backend_config.epsilon() if epsilon is None else epsilon
    name = _std(x.dtype)
    x = _t(x, dtype=result_type(x.dtype, "float32"))
    gamma = None if gamma is None else _t(gamma, x.dtype)
    beta = None if beta is None else _t(beta, x.dtype)
    ndims = len(x.shape)
    axis = sorted([axis] if isinstance(axis, int) else axis)
    bshape = [1] * ndims
    for dim in axis:
        bshape[dim] = x.shape[dim]

    def bcast(v):
        if v is not None and len(v.shape) != ndims and axis != [ndims - 1]:
            return tf.reshape(v, bshape)
        return v

    if rms_scaling:
        from ferroflow.keras.ops.numpy import var

        out = x * tf.math.rsqrt(var(x, axis=axis, keepdims=True) + epsilon)
        if gamma is not None:
            out = out * tf.cast(bcast(gamma), x.dtype)
    else:
        mean, variance = moments(x, axes=axis, keepdims=True)
        gamma, beta = bcast(gamma), bcast(beta)
        inv = tf.math.rsqrt(variance + epsilon)
        if gamma is not None:
            inv = inv * gamma
        res = -mean * inv
        if beta is not None:
            res = res + beta
        out = x * inv + res
    return tf.cast(out, name)


def polar(abs_, angle):
    """The complex number ``abs_ * exp(i * angle)``."""
    from ferroflow.keras.ops.math import _complex_from
    from ferroflow.keras.ops.numpy import cos, sin

    abs_, angle = _t(abs_), _t(angle)
    return _complex_from((abs_ * cos(angle), abs_ * sin(angle)))


# Attention ------------------------------------------------------------------------------
def _apply_masks(logits, mask, is_causal):
    if mask is None and not is_causal:
        return logits
    keep = tf.ones_like(logits, dtype="bool")
    if mask is not None:
        keep = tf.logical_and(keep, mask)
    if is_causal:
        t, s = logits.shape[2], logits.shape[3]
        keep = tf.logical_and(keep, tf.linalg.band_part(tf.ones((t, s), "bool"), -1, 0)[None, None])
    big = 65500.0 if _std(logits.dtype) == "float16" else 3.38953e38
    return tf.where(keep, logits, tf.constant(big * -0.7, dtype=logits.dtype))


def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    scale=None,
    is_causal=False,
    flash_attention=None,
    attn_logits_soft_cap=None,
):
    """Scaled dot-product attention on ``(batch, seq, heads, dim)`` tensors."""
    if attn_logits_soft_cap is not None:
        raise ValueError(
            "attn_logits_soft_cap is only supported for JAX on TPU. Set "
            "attn_logits_soft_cap=None when not using JAX on TPU."
        )
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorflow backend.")
    query, key, value = _t(query), _t(key), _t(value)
    if len(query.shape) != 4:
        raise ValueError(
            "`dot_product_attention` only supports 4D inputs. Received: "
            f"query.shape={query.shape}, key.shape={key.shape}, value.shape={value.shape}."
        )
    dtype = result_type(query.dtype, key.dtype, value.dtype)
    query, key, value = cast(query, dtype), cast(key, dtype), cast(value, dtype)
    nq, nk = query.shape[2], key.shape[2]
    if nq is not None and nk is not None and nq > nk > 1:
        key = tf.repeat(key, repeats=nq // nk, axis=2)
        value = tf.repeat(value, repeats=nq // nk, axis=2)
    if bias is not None:
        bias = _t(bias, dtype=dtype)
    if scale is None:
        scale = 1.0 / tf.sqrt(tf.cast(tf.shape(key)[-1], "float32"))
    logits = tf.einsum("BTNH,BSNH->BNTS", query, key)
    logits = tf.cast(logits, result_type(query.dtype, "float32"))
    logits = tf.multiply(logits, tf.cast(scale, logits.dtype))
    if bias is not None:
        logits = tf.add(logits, tf.cast(bias, logits.dtype))
    logits = _apply_masks(logits, mask, is_causal)
    probs = tf.nn.softmax(tf.cast(logits, result_type(logits.dtype, "float32")), axis=-1)
    return tf.einsum("BNTS,BSNH->BTNH", tf.cast(probs, key.dtype), value)
