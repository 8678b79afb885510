"""`tf.keras.layers.ZeroPadding1D/2D/3D`: zeros added before and after each spatial axis, with
Keras 3's argument forms (an int, one int per axis, or a (before, after) pair per axis) and
errors, in either data format."""

import ferroflow as _tf
from ferroflow.keras.layers._spatial_pairs import SpatialPairsLayer

__all__ = ["ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"]


class _ZeroPadding(SpatialPairsLayer):
    argument = "padding"

    def call(self, inputs):
        start = self._first_spatial()
        paddings = [[0, 0]] * (self.rank + 2)
        for i, pair in enumerate(self._pairs):
            paddings[start + i] = list(pair)
        return _tf.pad(inputs, paddings)

    def compute_output_shape(self, input_shape):
        return self._resized(input_shape, 1)


class ZeroPadding1D(_ZeroPadding):
    """Pads axis 1 of ``[batch, steps, channels]`` (``padding`` an int or a pair)."""

    rank = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Pads the rows and columns of 4-D images."""

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes of 5-D volumes."""

    rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)
