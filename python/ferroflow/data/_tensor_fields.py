"""A dense tensor as the ``TensorProto`` TensorFlow's ``Tensor::AsProtoField`` makes: values in
the dtype's repeated field (``float_val``, ``int64_val``...), not packed in ``tensor_content``.
TensorFlow encodes the tensors inside a variant this way (the tensors of a ragged, sparse or
optional component of a saved dataset), so ferroflow's records of them match its bytes."""

import numpy as np

from ferroflow._proto import message_class

__all__ = ["field_proto"]

# The repeated field of each dtype, and how its numpy values become the field's entries.
_FIELDS = {
    "float32": ("float_val", None),
    "float64": ("double_val", None),
    "int8": ("int_val", None),
    "int16": ("int_val", None),
    "int32": ("int_val", None),
    "uint8": ("int_val", None),
    "uint16": ("int_val", None),
    "int64": ("int64_val", None),
    "uint32": ("uint32_val", None),
    "uint64": ("uint64_val", None),
    "bool": ("bool_val", None),
    "string": ("string_val", lambda a: [bytes(v) for v in a]),
    # Half-width floats are their 16 bits, as ints.
    "float16": ("half_val", lambda a: a.view(np.uint16)),
    "bfloat16": ("half_val", lambda a: a.view(np.uint16)),
    # Complex numbers are (real, imaginary) pairs, one after the other.
    "complex64": ("scomplex_val", lambda a: a.view(np.float32)),
    "complex128": ("dcomplex_val", lambda a: a.view(np.float64)),
}


def field_proto(tensor):
    """The ``tensorflow.TensorProto`` message of the dense ``tensor``, as ``AsProtoField``."""
    proto = message_class("tensorflow.TensorProto")(dtype=tensor.dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in tensor.shape:
        proto.tensor_shape.dim.add().size = d
    field, convert = _FIELDS.get(tensor.dtype.name, (None, None))
    if field is None:  # a dtype without a field of its own: its bytes, as TensorFlow
        proto.tensor_content = np.ascontiguousarray(tensor.numpy()).tobytes()
        return proto
    flat = np.asarray(tensor.numpy(), dtype=object if field == "string_val" else None)
    flat = flat.reshape(-1)
    values = convert(flat) if convert else flat
    getattr(proto, field).extend(values.tolist() if hasattr(values, "tolist") else values)
    return proto
