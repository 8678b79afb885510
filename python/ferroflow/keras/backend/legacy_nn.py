"""The legacy Keras 2 ``K.*`` activations, normalisations and losses over ferroflow's ops."""

import ferroflow as tf
from ferroflow.keras._backend_config import epsilon, floatx, image_data_format
from ferroflow.keras._tensor_attributes import set_keras_logits, set_keras_mask

__all__ = [
    "batch_normalization",
    "bias_add",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "elu",
    "hard_sigmoid",
    "in_top_k",
    "l2_normalize",
    "relu",
    "sigmoid",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "tanh",
]


def sigmoid(x):
    """Elementwise logistic sigmoid."""
    return tf.sigmoid(x)


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return tf.tanh(x)


def softplus(x):
    """Elementwise ``log(1 + exp(x))``."""
    return tf.math.softplus(x)


def softsign(x):
    """Elementwise ``x / (1 + |x|)``."""
    return tf.math.softsign(x)


def hard_sigmoid(x):
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    x = x * tf.convert_to_tensor(0.2, dtype=x.dtype) + tf.convert_to_tensor(0.5, dtype=x.dtype)
    return tf.clip_by_value(x, 0.0, 1.0)


def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` above 0, ``alpha * (exp(x) - 1)`` below."""
    res = tf.nn.elu(x)
    return res if alpha == 1 else tf.where(x > 0, res, alpha * res)


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit with a negative slope ``alpha``, a cap ``max_value`` and an
    activation ``threshold``."""
    if alpha != 0.0 and max_value is None and threshold == 0:
        return tf.nn.leaky_relu(x, alpha=alpha)
    negative = None
    if alpha != 0.0:
        negative = tf.nn.relu(-x + threshold) if threshold != 0 else tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * tf.cast(tf.greater(x, threshold), dtype=getattr(x, "dtype", floatx()))
    elif max_value == 6:
        x, clip_max = tf.nn.relu6(x), False
    else:
        x = tf.nn.relu(x)
    if clip_max:
        zero = tf.convert_to_tensor(0, dtype=x.dtype)
        x = tf.clip_by_value(x, zero, tf.convert_to_tensor(max_value, dtype=x.dtype))
    if negative is not None:
        x -= tf.convert_to_tensor(alpha, dtype=x.dtype) * negative
    return x


def softmax(x, axis=-1):
    """Softmax over ``axis`` (an int or a list of axes); ``x`` must have rank 2 or more."""
    if x.shape.rank <= 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    if isinstance(axis, int):
        output = tf.nn.softmax(x, axis=axis)
    else:
        numerator = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
        output = numerator / tf.reduce_sum(numerator, axis=axis, keepdims=True)
    # Losses given this output read the logits back, as Keras does.
    set_keras_logits(output, x)
    return output


def l2_normalize(x, axis=None):
    """``x / sqrt(max(sum(x**2, axis), 1e-12))``."""
    return tf.linalg.l2_normalize(x, axis=axis)


def in_top_k(predictions, targets, k):
    """Whether each target is among the ``k`` largest predictions of its row."""
    return tf.math.in_top_k(targets, predictions, k)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` (``axis`` is unused, as in
    Keras)."""
    return tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def bias_add(x, bias, data_format=None):
    """``x + bias`` with ``bias`` on the channel axis (``data_format``, default
    `image_data_format`); a bias of rank ``ndim(x) - 1`` is added per position."""
    data_format = image_data_format() if data_format is None else data_format
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    bias_shape = tuple(bias.shape)
    rank = x.shape.rank
    if len(bias_shape) not in (1, rank - 1):
        raise ValueError(
            f"Unexpected bias dimensions {len(bias_shape)}. Expected it to be 1 or "
            f"{rank - 1} dimensions"
        )
    if len(bias_shape) == 1:
        layout = "NCHW" if data_format == "channels_first" else "NHWC"
        return tf.nn.bias_add(x, bias, data_format=layout)
    if rank in (3, 4, 5):
        if data_format == "channels_first":
            return x + tf.reshape(bias, (1, bias_shape[-1]) + bias_shape[:-1])
        return x + tf.reshape(bias, (1,) + bias_shape)
    return tf.nn.bias_add(x, bias)


def _clip_probabilities(output):
    eps = tf.convert_to_tensor(epsilon(), output.dtype)
    return tf.clip_by_value(output, eps, 1.0 - eps)


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy; probabilities are clipped to
    ``[epsilon, 1 - epsilon]``."""
    target = tf.convert_to_tensor(target)
    output = tf.convert_to_tensor(output)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clip_probabilities(output)
    bce = target * tf.math.log(output + epsilon())
    bce += (1 - target) * tf.math.log(1 - output + epsilon())
    return -bce


def binary_focal_crossentropy(
    target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False
):
    """Binary cross-entropy weighted by ``(1 - p_t) ** gamma`` (and by ``alpha`` with
    class balancing)."""
    probs = tf.sigmoid(output) if from_logits else output
    p_t = target * probs + (1 - target) * (1 - probs)
    focal = tf.pow(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        focal = (target * alpha + (1 - target) * (1 - alpha)) * focal
    return focal


def _normalized_probabilities(target, output, axis):
    if not target.shape.is_compatible_with(output.shape):
        raise ValueError(f"Shapes {target.shape} and {output.shape} are incompatible")
    return _clip_probabilities(output / tf.reduce_sum(output, axis, True))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Categorical cross-entropy along ``axis``; probabilities are renormalised and
    clipped to ``[epsilon, 1 - epsilon]``."""
    target = tf.convert_to_tensor(target)
    output = tf.convert_to_tensor(output)
    if from_logits:
        if not target.shape.is_compatible_with(output.shape):
            raise ValueError(f"Shapes {target.shape} and {output.shape} are incompatible")
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = _normalized_probabilities(target, output, axis)
    return -tf.reduce_sum(target * tf.math.log(output), axis)


def categorical_focal_crossentropy(
    target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1
):
    """Categorical cross-entropy weighted by ``alpha * (1 - p) ** gamma``."""
    target = tf.convert_to_tensor(target)
    output = tf.convert_to_tensor(output)
    if from_logits:
        if not target.shape.is_compatible_with(output.shape):
            raise ValueError(f"Shapes {target.shape} and {output.shape} are incompatible")
        output = tf.nn.softmax(output, axis=axis)
    output = _normalized_probabilities(target, output, axis)
    focal = tf.pow(1.0 - output, gamma) * alpha * (-target * tf.math.log(output))
    return tf.reduce_sum(focal, axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    """Cross-entropy of integer labels against the class axis ``axis`` of ``output``;
    positions whose label is ``ignore_class`` give 0."""
    target = tf.cast(tf.convert_to_tensor(target), "int64")
    output = tf.convert_to_tensor(output)
    if not from_logits:
        output = tf.math.log(_clip_probabilities(output))
    rank = output.shape.rank
    axis %= rank
    if axis != rank - 1:
        output = tf.transpose(output, [*range(axis), *range(axis + 1, rank), axis])
    output_shape = tf.shape(output)
    reshaped = target.shape.rank != rank - 1
    if reshaped:
        target = tf.reshape(target, [-1])
        output = tf.reshape(output, [-1, output_shape[-1]])
    if ignore_class is not None:
        valid = tf.not_equal(target, tf.cast(ignore_class, target.dtype))
        target, output = tf.boolean_mask(target, valid), tf.boolean_mask(output, valid)
    res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if ignore_class is not None:
        res_shape = tf.cast(output_shape[:-1], "int64")
        valid = tf.reshape(valid, res_shape)
        res = tf.scatter_nd(tf.where(valid), res, res_shape)
        set_keras_mask(res, valid)
        return res
    if reshaped and rank >= 3:
        res = tf.reshape(res, output_shape[:-1])
    return res
