"""Keras's global configuration (`keras.backend.floatx`, `epsilon`, `image_data_format` and
their setters): the one place every part of ferroflow's Keras reads them from. It imports
nothing from ferroflow, so any module can read it without import cycles."""

__all__ = [
    "backend",
    "epsilon",
    "floatx",
    "image_data_format",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_FLOAT_TYPES = {"bfloat16", "float16", "float32", "float64"}


def floatx():
    """The default float dtype's name, ``'float32'`` unless `set_floatx` changed it."""
    return _FLOATX


def set_floatx(value):
    """Sets the default float dtype: one of ``'bfloat16'``, ``'float16'``, ``'float32'``,
    ``'float64'`` (ValueError otherwise)."""
    global _FLOATX
    if value not in _FLOAT_TYPES:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {_FLOAT_TYPES}")
    _FLOATX = str(value)


def epsilon():
    """The fuzz factor that keeps logarithms and divisions finite (``1e-07`` by default)."""
    return _EPSILON


def set_epsilon(value):
    """Sets the fuzz factor `epsilon` returns."""
    global _EPSILON
    _EPSILON = value


def image_data_format():
    """The default image layout, ``'channels_last'`` or ``'channels_first'``."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    """Sets the default image layout (case-insensitive ``'channels_first'`` or
    ``'channels_last'``; ValueError otherwise)."""
    global _IMAGE_DATA_FORMAT
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    _IMAGE_DATA_FORMAT = data_format


def backend():
    """The name of the backend Keras runs on: ferroflow stands in for TensorFlow."""
    return "tensorflow"
