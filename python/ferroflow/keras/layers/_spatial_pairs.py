"""The base of the ZeroPadding and Cropping layers: a (before, after) pair per spatial axis,
given as Keras 3 accepts it, in either data format."""

from ferroflow.keras.layers._shapes import spatial_pairs, standardize_data_format
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["SpatialPairsLayer"]


class SpatialPairsLayer(Layer):
    """Subclasses set ``rank`` (1, 2 or 3) and ``argument`` (the attribute name Keras uses,
    ``padding`` or ``cropping``)."""

    rank = None
    argument = None

    def __init__(self, value, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        pairs = spatial_pairs(value, self.rank, self.argument)
        setattr(self, self.argument, pairs[0] if self.rank == 1 else pairs)
        self._pairs = pairs
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def _first_spatial(self):
        return 2 if self.data_format == "channels_first" else 1

    def _resized(self, input_shape, sign):
        """``input_shape`` with each known spatial size grown (sign 1) or shrunk (-1)."""
        shape = list(input_shape)
        start = self._first_spatial()
        for i, (before, after) in enumerate(self._pairs):
            if shape[start + i] is not None:
                shape[start + i] += sign * (before + after)
        return tuple(shape)

    def get_config(self):
        return {
            **super().get_config(),
            self.argument: getattr(self, self.argument),
            "data_format": self.data_format,
        }
