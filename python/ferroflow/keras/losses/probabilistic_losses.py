"""Probabilistic losses: binary, categorical and sparse categorical cross-entropy (plain and
focal), Kullback-Leibler divergence and Poisson, as functions and as `Loss` classes."""

import warnings

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.losses import _backend as K
from ferroflow.keras.losses import _nn
from ferroflow.keras.losses._tensor_notes import set_keras_mask, sigmoid, softmax
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = [
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "KLDivergence",
    "Poisson",
    "SparseCategoricalCrossentropy",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "kl_divergence",
    "poisson",
    "sparse_categorical_crossentropy",
]


def _check_axis(axis):
    if isinstance(axis, bool):
        raise ValueError(
            f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}"
        )


def _warn_single_class(fn_name, y_pred):
    if y_pred.shape[-1] == 1:
        warnings.warn(
            f"In loss {fn_name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={y_pred.shape}. Consider using "
            "'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning,
            stacklevel=3,
        )


def _smooth_categorical(y_true, y_pred, label_smoothing):
    num_classes = K.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
    return y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over ``axis``; labels are squeezed toward 0.5 by
    ``label_smoothing``."""
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return tf_math.reduce_mean(
        _nn.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis
    )


def binary_focal_crossentropy(
    y_true,
    y_pred,
    apply_class_balancing=False,
    alpha=0.25,
    gamma=2.0,
    from_logits=False,
    label_smoothing=0.0,
    axis=-1,
):
    """Binary cross-entropy scaled by the focal factor ``(1 - p_t) ** gamma``."""
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = sigmoid(y_pred)
    bce = _nn.binary_crossentropy(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal_bce = tf_math.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        weight = y_true * alpha + (1 - y_true) * (1 - alpha)
        focal_bce = weight * focal_bce
    return tf_math.reduce_mean(focal_bce, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy between one-hot (or soft) labels and a distribution along ``axis``."""
    _check_axis(axis)
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    _warn_single_class("categorical_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smooth_categorical(y_true, y_pred, label_smoothing)
    return _nn.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def categorical_focal_crossentropy(
    y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1
):
    """Categorical cross-entropy scaled by ``alpha * (1 - p) ** gamma`` per class."""
    _check_axis(axis)
    y_pred = K.convert(y_pred)
    y_true = K.cast(y_true, y_pred.dtype)
    _warn_single_class("categorical_focal_crossentropy", y_pred)
    if label_smoothing:
        y_true = _smooth_categorical(y_true, y_pred, label_smoothing)
    if from_logits:
        y_pred = softmax(y_pred, axis=axis)
    output = y_pred / tf_math.reduce_sum(y_pred, axis=axis, keepdims=True)
    output = tf_math.clip_by_value(output, K.EPSILON, 1.0 - K.EPSILON)
    cce = -y_true * tf_math.log(output)
    weighting_factor = tf_math.pow(1.0 - output, gamma) * alpha
    return tf_math.reduce_sum(weighting_factor * cce, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """Cross-entropy between integer labels and a distribution over the last axis; entries
    labelled ``ignore_class`` get loss 0 and are masked out of the mean."""
    y_true = K.convert(y_true)
    y_pred = K.convert(y_pred)
    if K.ndim(y_true) == K.ndim(y_pred) and y_true.shape[axis] == 1:
        y_true = array_ops.squeeze(y_true, axis=axis)
    if ignore_class is not None:
        valid_mask = tf_math.not_equal(y_true, K.cast(ignore_class, y_true.dtype))
        y_true = array_ops.where(valid_mask, y_true, K.constant(0, y_true.dtype))
        y_pred = array_ops.where(
            array_ops.expand_dims(valid_mask, axis), y_pred, K.constant(0, y_pred.dtype)
        )
    res = _nn.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)
    if ignore_class is not None:
        if tuple(valid_mask.shape) != tuple(res.shape):
            valid_mask = array_ops.reshape(valid_mask, array_ops.shape(res))
        res = array_ops.where(valid_mask, res, K.constant(0, res.dtype))
        set_keras_mask(res, valid_mask)
    return res


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to [epsilon, 1]."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    y_true = tf_math.clip_by_value(y_true, K.EPSILON, 1)
    y_pred = tf_math.clip_by_value(y_pred, K.EPSILON, 1)
    return tf_math.reduce_sum(y_true * tf_math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_pred = K.convert(y_pred)
    y_true = K.convert(y_true, y_pred.dtype)
    epsilon = K.convert(K.EPSILON, y_pred.dtype)
    return tf_math.reduce_mean(y_pred - y_true * tf_math.log(y_pred + epsilon), axis=-1)


class _CrossentropyConfig:
    _config_keys = ("from_logits", "label_smoothing", "axis")

    def get_config(self):
        config = Loss.get_config(self)
        config.update({key: getattr(self, key) for key in self._config_keys})
        return config


class BinaryCrossentropy(_CrossentropyConfig, LossFunctionWrapper):
    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class BinaryFocalCrossentropy(_CrossentropyConfig, LossFunctionWrapper):
    _config_keys = (
        "from_logits", "label_smoothing", "axis", "apply_class_balancing", "alpha", "gamma",
    )  # fmt: skip

    def __init__(
        self,
        apply_class_balancing=False,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="binary_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            binary_focal_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            apply_class_balancing=apply_class_balancing,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma


class CategoricalCrossentropy(_CrossentropyConfig, LossFunctionWrapper):
    def __init__(
        self,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CategoricalFocalCrossentropy(_CrossentropyConfig, LossFunctionWrapper):
    _config_keys = ("from_logits", "label_smoothing", "axis", "alpha", "gamma")

    def __init__(
        self,
        alpha=0.25,
        gamma=2.0,
        from_logits=False,
        label_smoothing=0.0,
        axis=-1,
        reduction="sum_over_batch_size",
        name="categorical_focal_crossentropy",
        dtype=None,
    ):
        super().__init__(
            categorical_focal_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            alpha=alpha,
            gamma=gamma,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis
        self.alpha = alpha
        self.gamma = gamma


class SparseCategoricalCrossentropy(_CrossentropyConfig, LossFunctionWrapper):
    _config_keys = ("from_logits", "ignore_class")

    def __init__(
        self,
        from_logits=False,
        ignore_class=None,
        reduction="sum_over_batch_size",
        axis=-1,
        name="sparse_categorical_crossentropy",
        dtype=None,
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            name=name,
            reduction=reduction,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )
        self.from_logits = from_logits
        self.ignore_class = ignore_class


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)


class Poisson(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return Loss.get_config(self)
