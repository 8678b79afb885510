"""`tf.keras.layers.AdaptiveAveragePooling1D/2D/3D` and `AdaptiveMaxPooling1D/2D/3D`: pooling
to a fixed ``output_size``, output ``i`` of an axis of size ``n`` reducing the inputs
``floor(i * n / out)`` up to ``ceil((i + 1) * n / out)``.

As Keras's TensorFlow backend does, each axis is pooled twice at stride 1 (windows of
``ceil(n / out)`` and one more), and each output gathers the pooling of its window's size, so
windows and values are Keras's to the last bit of its float32 index arithmetic."""

import math

import numpy as np

from ferroflow.array_ops import concat, gather
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers._conv_ops import from_channels_last, to_channels_last
from ferroflow.keras.layers.layer import Layer
from ferroflow.nn import pool

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "BaseAdaptivePooling",
]


def _gather_indices(size, out, small, big):
    """For each output, its window's position among the ``small`` then ``big`` poolings
    (float32 arithmetic, as Keras computes it)."""
    f32 = np.float32
    steps = np.arange(out + 1, dtype=f32) * f32(size) / f32(out)
    starts = np.minimum(np.floor(steps[:-1]).astype(np.int32), size - 1)
    ends = np.minimum(np.ceil(steps[1:]).astype(np.int32), size)
    small_count = max(1, size - small + 1)
    return np.where(ends - starts == big, starts + small_count, starts).astype(np.int32)


def _pool_axis(x, axis, out, pooling_type):
    """Adaptive pooling of channels_last ``x`` along spatial ``axis`` (1-based)."""
    size = x.shape[axis]
    small = math.ceil(size / out)
    big = small + 1
    spatial = len(x.shape) - 2

    def pooled(window):
        shape = [1] * spatial
        shape[axis - 1] = window
        return pool(x, shape, pooling_type, strides=[1] * spatial, padding="VALID")

    # A window of ``big`` positions fits only when the axis holds it; no output uses it then.
    parts = [pooled(small)] + ([pooled(big)] if big <= size else [])
    return gather(concat(parts, axis), _gather_indices(size, out, small, big), axis=axis)


class BaseAdaptivePooling(Layer):
    """Pools each spatial axis to ``output_size`` (a tuple, one size per axis)."""

    _pooling_type = None
    _rank = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.output_size = self._standardize_output_size(output_size)
        self.data_format = data_format or backend_config.image_data_format()
        if self.data_format not in {"channels_first", "channels_last"}:
            raise ValueError(
                f"Invalid data_format: {self.data_format}. Expected 'channels_first' or "
                "'channels_last'."
            )

    def _standardize_output_size(self, output_size):
        names = {2: "(height, width)", 3: "(depth, height, width)"}
        if isinstance(output_size, int):
            return (output_size,) * self._rank
        if isinstance(output_size, (tuple, list)) and len(output_size) == self._rank:
            return tuple(output_size)
        if self._rank == 1:
            if isinstance(output_size, (tuple, list)):
                raise ValueError(
                    f"For 1D input, `output_size` tuple must have length 1. Received: {output_size}"
                )
            raise TypeError(
                "`output_size` must be an integer or tuple of 1 integer. Received: "
                f"{output_size} of type {type(output_size)}"
            )
        raise TypeError(
            f"`output_size` must be an integer or {names[self._rank]} tuple. Received: "
            f"{output_size} of type {type(output_size)}"
        )

    def call(self, inputs):
        spatial = len(inputs.shape) - 2
        if spatial not in (1, 2, 3):
            raise ValueError(
                f"adaptive pooling supports 1D, 2D, or 3D inputs only; got rank "
                f"{len(inputs.shape)} inputs."
            )
        # Keras's 1-D pooling reads the first size; the others unpack one per axis.
        sizes = self.output_size[:1] if spatial == 1 else self.output_size
        if len(sizes) != spatial:
            raise ValueError(
                f"Expected {spatial} output sizes for {spatial}-D inputs. Received: "
                f"output_size={self.output_size}"
            )
        channels_first = self.data_format == "channels_first"
        x = to_channels_last(inputs) if channels_first else inputs
        if None in x.shape.as_list()[1:-1]:
            raise ValueError(
                "Input spatial dimensions must be statically known for adaptive pooling"
            )
        for axis, out in enumerate(sizes, start=1):
            x = _pool_axis(x, axis, out, self._pooling_type)
        return from_channels_last(x) if channels_first else x

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *self.output_size, input_shape[-1])
        return (input_shape[0], input_shape[1], *self.output_size)

    def get_config(self):
        return {
            **super().get_config(),
            "output_size": self.output_size,
            "data_format": self.data_format,
        }


class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """The mean over adaptive windows of steps."""

    _pooling_type, _rank = "AVG", 1


class AdaptiveAveragePooling2D(BaseAdaptivePooling):
    """The mean over adaptive windows of rows and columns."""

    _pooling_type, _rank = "AVG", 2


class AdaptiveAveragePooling3D(BaseAdaptivePooling):
    """The mean over adaptive windows of depth, rows and columns."""

    _pooling_type, _rank = "AVG", 3


class AdaptiveMaxPooling1D(BaseAdaptivePooling):
    """The maximum over adaptive windows of steps."""

    _pooling_type, _rank = "MAX", 1


class AdaptiveMaxPooling2D(BaseAdaptivePooling):
    """The maximum over adaptive windows of rows and columns."""

    _pooling_type, _rank = "MAX", 2


class AdaptiveMaxPooling3D(BaseAdaptivePooling):
    """The maximum over adaptive windows of depth, rows and columns."""

    _pooling_type, _rank = "MAX", 3
