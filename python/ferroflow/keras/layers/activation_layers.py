"""Keras 3's activation layers with arguments of their own: `ReLU`, `LeakyReLU`, `ELU`,
`Softmax` (with an optional mask), and `Identity`. Their arguments are checked, their configs
and defaults are Keras's (ELU's config carries no `alpha`, as Keras 3's does not)."""

import warnings

import ferroflow as _tf
from ferroflow.keras.layers.layer import Layer

__all__ = ["ELU", "Identity", "LeakyReLU", "ReLU", "Softmax"]


class _ShapePreserving(Layer):
    """A layer without weights whose output has its input's shape."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape):
        return input_shape


class ReLU(_ShapePreserving):
    """``max(x, 0)`` with Keras's ``max_value``, ``negative_slope`` and ``threshold``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(
                "max_value of a ReLU layer cannot be a negative "
                f"value. Received: max_value={max_value}"
            )
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(
                "negative_slope of a ReLU layer cannot be None or a "
                f"negative value. Received: negative_slope={negative_slope}"
            )
        if threshold is None or threshold < 0.0:
            raise ValueError(
                "threshold of a ReLU layer cannot be None or a "
                f"negative value. Received: threshold={threshold}"
            )
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        from ferroflow.keras import activations

        return activations.relu(
            inputs,
            negative_slope=self.negative_slope,
            max_value=self.max_value,
            threshold=self.threshold,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class LeakyReLU(_ShapePreserving):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise (``alpha`` is the deprecated
    name of ``negative_slope``)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn(
                "Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=2
            )
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer "
                "cannot be None or negative value. Expected a float."
                f" Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope

    def call(self, inputs):
        from ferroflow.keras import activations

        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(_ShapePreserving):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        from ferroflow.keras import activations

        return activations.elu(inputs, alpha=self.alpha)


def _large_negative_number(dtype):
    return -3e4 if dtype == _tf.float16 else -1e9


class Softmax(_ShapePreserving):
    """Softmax along ``axis`` (an int, or several axes at once); positions where ``mask`` is
    False (or at most 0.5) get no weight."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        from ferroflow.keras import activations

        inputs = _tf.convert_to_tensor(inputs)
        if mask is not None:
            mask = _tf.convert_to_tensor(mask)
            _check_mask(mask, inputs)
            if mask.dtype != _tf.bool:
                mask = _tf.greater(mask, _tf.cast(0.5, mask.dtype))
            fill = _tf.cast(_large_negative_number(inputs.dtype), inputs.dtype)
            inputs = _tf.where(mask, inputs, fill)
        if isinstance(self.axis, (tuple, list)) and len(self.axis) > 1:
            axis = list(self.axis)
            outputs = _tf.exp(inputs - _tf.reduce_logsumexp(inputs, axis=axis, keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
            outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            # A wholly masked axis would otherwise come out uniform.
            outputs = _tf.where(mask, outputs, _tf.zeros_like(outputs))
        return outputs

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _check_mask(mask, inputs):
    if mask.shape.rank > inputs.shape.rank:
        raise ValueError(
            "The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
            f"Received: inputs.shape={tuple(inputs.shape)}, mask.shape={tuple(mask.shape)}"
        )
    for m_dim, i_dim in zip(mask.shape[::-1], inputs.shape[::-1]):
        if m_dim is not None and i_dim is not None and m_dim != 1 and m_dim != i_dim:
            raise ValueError(
                "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 "
                "or match the corresponding input dimension. Received: "
                f"inputs.shape={tuple(inputs.shape)}, mask.shape={tuple(mask.shape)}"
            )


class Identity(_ShapePreserving):
    """Returns its input unchanged (a placeholder in a model)."""

    def call(self, inputs):
        return inputs
