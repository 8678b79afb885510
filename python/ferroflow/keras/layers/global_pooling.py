"""Global pooling layers: `GlobalAveragePooling1D/2D/3D` and `GlobalMaxPooling1D/2D/3D` (and
their `GlobalAvgPool*` / `GlobalMaxPool*` aliases): a mean or maximum over every spatial axis."""

from ferroflow.array_ops import cast, expand_dims, where, zeros_like
from ferroflow.keras.layers._shapes import standardize_data_format
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import reduce_max, reduce_mean, reduce_sum

__all__ = [
    "BaseGlobalPooling",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
]


class BaseGlobalPooling(Layer):
    """Reduces all spatial axes (kept as size 1 with ``keepdims``)."""

    _reduce = None

    def __init__(self, pool_dimensions, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self.built = True

    def call(self, inputs):
        rank = len(inputs.shape)
        if self.data_format == "channels_last":
            axes = list(range(1, rank - 1))
        else:
            axes = list(range(2, rank))
        return type(self)._reduce(inputs, axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = len(input_shape) - 2
        if self.data_format == "channels_last":
            if self.keepdims:
                return (input_shape[0], *(1,) * spatial, input_shape[-1])
            return (input_shape[0], input_shape[-1])
        if self.keepdims:
            return (input_shape[0], input_shape[1], *(1,) * spatial)
        return (input_shape[0], input_shape[1])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling1D(BaseGlobalPooling):
    """The mean over the steps axis (over the unmasked steps when given a ``mask`` of shape
    ``(batch, steps)``)."""

    _reduce = reduce_mean

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(1, data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return None  # the steps are averaged away

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        channels_last = self.data_format == "channels_last"
        steps_axis = 1 if channels_last else 2
        chosen = cast(expand_dims(mask, 2 if channels_last else 1), "bool")
        weights = cast(chosen, inputs.dtype)
        total = reduce_sum(where(chosen, inputs, zeros_like(inputs)), steps_axis, self.keepdims)
        return total / reduce_sum(weights, steps_axis, self.keepdims)


class GlobalAveragePooling2D(BaseGlobalPooling):
    """The mean over rows and columns."""

    _reduce = reduce_mean

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling1D(BaseGlobalPooling):
    """The maximum over the steps axis."""

    _reduce = reduce_max

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(1, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling2D(BaseGlobalPooling):
    """The maximum over rows and columns."""

    _reduce = reduce_max

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalAveragePooling3D(BaseGlobalPooling):
    """The mean over depth, rows and columns."""

    _reduce = reduce_mean

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(3, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling3D(BaseGlobalPooling):
    """The maximum over depth, rows and columns."""

    _reduce = reduce_max

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(3, data_format=data_format, keepdims=keepdims, **kwargs)


# Keras exports each class under both names.
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D
