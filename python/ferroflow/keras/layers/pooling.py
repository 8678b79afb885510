"""Pooling layers: `MaxPooling2D` and `AveragePooling2D` (and their 1-D forms) through
`tf.nn.max_pool2d` / `tf.nn.avg_pool2d`, and the global average and max poolings."""

from ferroflow.array_ops import cast, expand_dims, where, zeros_like
from ferroflow.keras.layers._shapes import (
    pooling_output_shape,
    standardize_data_format,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import reduce_max, reduce_mean, reduce_sum
from ferroflow.nn import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "MaxPooling1D",
    "MaxPooling2D",
]

_POOL_OPS = {
    (1, "max"): max_pool1d,
    (1, "average"): avg_pool1d,
    (2, "max"): max_pool2d,
    (2, "average"): avg_pool2d,
}


class BasePooling(Layer):
    """A window of ``pool_size`` moved by ``strides`` (default ``pool_size``) over the
    spatial axes, reduced by max or average. With ``padding="same"`` an average counts only
    the window's positions inside the input."""

    def __init__(
        self,
        pool_size,
        strides,
        pool_dimensions,
        pool_mode="max",
        padding="valid",
        data_format=None,
        name=None,
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        self.pool_size = standardize_tuple(pool_size, pool_dimensions, "pool_size")
        strides = pool_size if strides is None else strides
        self.strides = standardize_tuple(strides, pool_dimensions, "strides", allow_zero=True)
        self.pool_mode = pool_mode
        self.padding = padding
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._pool = _POOL_OPS[(pool_dimensions, pool_mode)]
        self.built = True

    def call(self, inputs):
        # Keras checks the window fits the input before pooling.
        self.compute_output_shape(inputs.shape.as_list())
        channels_last = self.data_format == "channels_last"
        if len(self.pool_size) == 1:
            data_format = "NWC" if channels_last else "NCW"
        else:
            data_format = "NHWC" if channels_last else "NCHW"
        return self._pool(
            inputs,
            list(self.pool_size),
            list(self.strides),
            str(self.padding).upper(),
            data_format=data_format,
        )

    def compute_output_shape(self, input_shape):
        return pooling_output_shape(
            tuple(input_shape),
            self.pool_size,
            self.strides,
            str(self.padding).lower(),
            self.data_format,
        )

    def get_config(self):
        return {
            **super().get_config(),
            "pool_size": self.pool_size,
            "padding": self.padding,
            "strides": self.strides,
            "data_format": self.data_format,
        }


class MaxPooling1D(BasePooling):
    """The maximum over windows of ``pool_size`` steps."""

    def __init__(
        self, pool_size=2, strides=None, padding="valid", data_format=None, name=None, **kwargs
    ):
        super().__init__(pool_size, strides, 1, "max", padding, data_format, name=name, **kwargs)


class AveragePooling1D(BasePooling):
    """The average over windows of ``pool_size`` steps."""

    def __init__(
        self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs
    ):
        super().__init__(
            pool_size, strides, 1, "average", padding, data_format, name=name, **kwargs
        )


class MaxPooling2D(BasePooling):
    """The maximum over ``pool_size`` windows of rows and columns."""

    def __init__(
        self,
        pool_size=(2, 2),
        strides=None,
        padding="valid",
        data_format=None,
        name=None,
        **kwargs,
    ):
        super().__init__(pool_size, strides, 2, "max", padding, data_format, name=name, **kwargs)


class AveragePooling2D(BasePooling):
    """The average over ``pool_size`` windows of rows and columns."""

    def __init__(
        self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs
    ):
        super().__init__(
            pool_size, strides, 2, "average", padding, data_format, name=name, **kwargs
        )


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
