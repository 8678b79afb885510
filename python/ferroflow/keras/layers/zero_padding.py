"""`tf.keras.layers.ZeroPadding1D/2D/3D`: zeros added before and after each spatial axis, with
Keras 3's argument forms (an int, one int per axis, or a (before, after) pair per axis) and
errors, in either data format."""

import ferroflow as _tf
from ferroflow.keras.layers._shapes import standardize_data_format, standardize_tuple
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"]

_ORDINALS = ("1st", "2nd", "3rd")


def _pairs(padding, rank):
    """``padding`` as ``rank`` (before, after) pairs, checked as Keras 3 checks it."""
    if rank == 1:
        return (standardize_tuple(padding, 2, "padding", allow_zero=True),)
    if isinstance(padding, int):
        return ((padding, padding),) * rank
    if not hasattr(padding, "__len__"):
        raise ValueError(
            f"`padding` should be either an int, a tuple of {rank} ints, or a tuple of "
            f"{rank} tuples of 2 ints. Received: padding={padding}."
        )
    if len(padding) != rank:
        words = "two elements" if rank == 2 else f"{rank} elements"
        raise ValueError(f"`padding` should have {words}. Received: padding={padding}.")
    return tuple(
        standardize_tuple(p, 2, f"{_ORDINALS[i]} entry of padding", allow_zero=True)
        for i, p in enumerate(padding)
    )


class _ZeroPadding(Layer):
    rank = None

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        pairs = _pairs(padding, self.rank)
        self.padding = pairs[0] if self.rank == 1 else pairs
        self._pairs = pairs
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.built = True

    def _first_spatial(self):
        return 2 if self.data_format == "channels_first" else 1

    def call(self, inputs):
        start = self._first_spatial()
        paddings = [[0, 0]] * (self.rank + 2)
        for i, pair in enumerate(self._pairs):
            paddings[start + i] = list(pair)
        return _tf.pad(inputs, paddings)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        start = self._first_spatial()
        for i, (before, after) in enumerate(self._pairs):
            if shape[start + i] is not None:
                shape[start + i] += before + after
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


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
