"""Pooling layers: `MaxPooling1D/2D/3D` and `AveragePooling1D/2D/3D` (and their `MaxPool*` /
`AvgPool*` aliases) through `tf.nn.max_pool` / `tf.nn.avg_pool`."""

from ferroflow.keras.layers._conv_ops import tf_data_format
from ferroflow.keras.layers._shapes import (
    pooling_output_shape,
    standardize_data_format,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.nn import avg_pool, avg_pool3d, max_pool, max_pool3d

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "BasePooling",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
]

# `tf.nn.max_pool` / `avg_pool` take 1-D and 2-D windows; 3-D ones have their own ops.
_POOL_OPS = {
    (1, "max"): max_pool,
    (1, "average"): avg_pool,
    (2, "max"): max_pool,
    (2, "average"): avg_pool,
    (3, "max"): max_pool3d,
    (3, "average"): avg_pool3d,
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
        return self._pool(
            inputs,
            list(self.pool_size),
            list(self.strides),
            str(self.padding).upper(),
            data_format=tf_data_format(len(self.pool_size), self.data_format),
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


class MaxPooling3D(BasePooling):
    """The maximum over ``pool_size`` windows of depth, rows and columns."""

    def __init__(
        self,
        pool_size=(2, 2, 2),
        strides=None,
        padding="valid",
        data_format=None,
        name=None,
        **kwargs,
    ):
        super().__init__(pool_size, strides, 3, "max", padding, data_format, name=name, **kwargs)


class AveragePooling3D(BasePooling):
    """The average over ``pool_size`` windows of depth, rows and columns."""

    def __init__(
        self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs
    ):
        super().__init__(
            pool_size, strides, 3, "average", padding, data_format, name=name, **kwargs
        )


# Keras exports each class under both names.
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
