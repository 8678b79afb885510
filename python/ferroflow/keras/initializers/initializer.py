"""`tf.keras.initializers.Initializer`: the base class of all initializers."""

from ferroflow import dtypes as _dtypes
from ferroflow.keras._backend_config import floatx


def standardize_dtype(dtype):
    """The `DType` to build with: Keras's floatx when ``dtype`` is None."""
    return _dtypes.as_dtype(floatx() if dtype is None else dtype)


def standardize_shape(shape):
    """``shape`` (a tuple, list, `TensorShape` or int) as a tuple of Python ints."""
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if any(dim is None for dim in shape):
        raise ValueError(f"Cannot initialize a tensor of partially known shape {shape}.")
    return tuple(int(dim) for dim in shape)


class Initializer:
    """Initializer base class: ``init(shape, dtype=None)`` returns a tensor of that shape.

    Subclasses implement ``__call__``; ``get_config`` returns the constructor arguments so that
    the default ``from_config`` (``cls(**config)``) rebuilds the initializer.
    """

    def __call__(self, shape, dtype=None):
        raise NotImplementedError("Initializer subclasses must implement the `__call__()` method.")

    def get_config(self):
        """The initializer's configuration as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """Instantiates an initializer from the output of `get_config()`."""
        return cls(**config)

    def clone(self):
        return self.__class__.from_config(self.get_config())
