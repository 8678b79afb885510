"""`tf.io.serialize_tensor` / `tf.io.parse_tensor`: tensors as TensorFlow's ``TensorProto`` bytes
(encoded and decoded in Rust with prost). Inside a traced function each is one host-call node."""

from __future__ import annotations

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes


def _convert(value, dtype=None):
    from ferroflow import convert_to_tensor

    return convert_to_tensor(value, dtype=dtype)


def _traced(tensor):
    return _tracing.tracing() or _core.is_symbolic(tensor)


def serialize_tensor(tensor, name=None):
    """The serialized ``TensorProto`` of ``tensor``: a scalar string tensor.

    >>> import ferroflow as tf
    >>> s = tf.io.serialize_tensor(tf.constant([1.5, 2.0]))
    >>> tf.io.parse_tensor(s, tf.float32).numpy().tolist()
    [1.5, 2.0]
    """
    tensor = _convert(tensor)
    if _traced(tensor):
        from ferroflow import script_ops

        return script_ops.py_function(serialize_tensor, [tensor], _dtypes.string)
    return _convert(_core.serialize_tensor(tensor), _dtypes.string)


def parse_tensor(serialized, out_type, name=None):
    """The tensor of a serialized ``TensorProto`` (a scalar string); its dtype must be
    ``out_type`` (InvalidArgumentError otherwise)."""
    out_type = _dtypes.as_dtype(out_type)
    serialized = _convert(serialized, _dtypes.string)
    if _traced(serialized):
        from ferroflow import script_ops

        return script_ops.py_function(lambda s: parse_tensor(s, out_type), [serialized], out_type)
    if serialized.shape.rank != 0:
        shape = "[" + ",".join(str(d) for d in serialized.shape) + "]"
        raise errors.InvalidArgumentError(
            None, None, f"Expected `serialized` to be a scalar, got shape: {shape}"
        )
    try:
        return _core.parse_tensor(serialized.numpy(), out_type.as_datatype_enum)
    except errors.InvalidArgumentError as e:
        raise _with_cpp_names(e) from None


# TensorFlow's mismatch message names dtypes as C++ does (DataTypeString).
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _with_cpp_names(error):
    message = error.message
    if message.startswith("Type mismatch between parsed tensor"):
        for python, cpp in _CPP_NAMES.items():
            message = message.replace(f"({python})", f"({cpp})")
    return type(error)(None, None, message)


__all__ = ["parse_tensor", "serialize_tensor"]
