"""`tf.keras.layers.UpSampling1D/2D/3D`: each step, row, column (and depth slice) repeated by
an integer factor; UpSampling2D can interpolate instead, through `tf.image.resize` as Keras 3's
TensorFlow backend does (no antialiasing)."""

import ferroflow as _tf
from ferroflow.keras.layers._shapes import (
    positive_int,
    standardize_data_format,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["UpSampling1D", "UpSampling2D", "UpSampling3D"]

_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


class _UpSampling(Layer):
    """Subclasses set ``rank``; ``self._factors`` holds one factor per spatial axis."""

    rank = None

    def _setup(self, factors, data_format):
        self.data_format = standardize_data_format(data_format)
        self._factors = factors
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def _first_spatial(self):
        return 2 if self.data_format == "channels_first" else 1

    def _repeat(self, inputs):
        start = self._first_spatial()
        for i, factor in enumerate(self._factors):
            inputs = _tf.repeat(inputs, factor, axis=start + i)
        return inputs

    def call(self, inputs):
        return self._repeat(inputs)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        start = self._first_spatial()
        for i, factor in enumerate(self._factors):
            if shape[start + i] is not None:
                shape[start + i] *= factor
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}


class UpSampling1D(_UpSampling):
    """Repeats each step of ``[batch, steps, features]`` ``size`` times."""

    rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = positive_int(size, "size")
        self._setup((size,), None)

    def get_config(self):
        config = super().get_config()
        del config["data_format"]  # UpSampling1D has none
        return config


class UpSampling2D(_UpSampling):
    """Repeats rows and columns by ``size``, or resizes by ``interpolation``."""

    rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = standardize_tuple(size, 2, "size")
        self.interpolation = interpolation.lower()
        self._setup(self.size, data_format)

    def call(self, inputs):
        if self.interpolation == "nearest":
            return self._repeat(inputs)
        if self.interpolation not in _INTERPOLATIONS:
            raise ValueError(
                "Invalid value for argument `interpolation`. Expected of one "
                f"{_INTERPOLATIONS}. Received: interpolation={self.interpolation}"
            )
        x = inputs
        if self.data_format == "channels_first":
            x = _tf.transpose(x, [0, 2, 3, 1])
        shape = _tf.shape(x)
        size = _tf.stack([shape[1] * self.size[0], shape[2] * self.size[1]])
        x = _tf.image.resize(x, size, method=self.interpolation)
        if self.data_format == "channels_first":
            x = _tf.transpose(x, [0, 3, 1, 2])
        return x

    def get_config(self):
        return {**super().get_config(), "interpolation": self.interpolation}


class UpSampling3D(_UpSampling):
    """Repeats the three spatial axes of 5-D volumes by ``size``."""

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = standardize_tuple(size, 3, "size")
        self._setup(self.size, data_format)
