"""`tf.keras.backend`'s dtype and naming helpers: `standardize_dtype`, `result_type`,
`is_float_dtype`, `is_int_dtype`, `get_uid` and `is_keras_tensor`."""

import collections

from ferroflow.keras.ops._dtypes import result_type, standardize_dtype

__all__ = [
    "get_uid",
    "is_float_dtype",
    "is_int_dtype",
    "is_keras_tensor",
    "reset_uids",
    "result_type",
    "standardize_dtype",
]

_uids = collections.defaultdict(int)


def is_float_dtype(dtype):
    """Whether ``dtype`` (anything `standardize_dtype` takes) is a float type."""
    dtype = standardize_dtype(dtype)
    return dtype.startswith("float") or dtype.startswith("bfloat")


def is_int_dtype(dtype):
    """Whether ``dtype`` is a signed or unsigned integer type."""
    dtype = standardize_dtype(dtype)
    return dtype.startswith("int") or dtype.startswith("uint")


def get_uid(prefix=""):
    """Counts calls per ``prefix``: 1 on the first, then 2, 3... (`clear_session` resets)."""
    _uids[prefix] += 1
    return _uids[prefix]


def reset_uids():
    """Forgets the counts of `get_uid` (`clear_session`)."""
    _uids.clear()


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic Keras tensor, such as `keras.Input` makes."""
    from ferroflow.keras.layers.input_layer import KerasTensor

    return isinstance(x, KerasTensor)
