"""`tf.io.serialize_sparse`, `serialize_many_sparse` and `deserialize_many_sparse`: a
SparseTensor as three serialized `TensorProto`s (indices, values, dense shape), written and
read by `tf.io.serialize_tensor` / `parse_tensor`, as TensorFlow's kernels do."""

import numpy as np

from ferroflow import _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.data import _varint
from ferroflow.io import _host

__all__ = ["deserialize_many_sparse", "serialize_many_sparse", "serialize_sparse"]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _sparse(sp_input):
    from ferroflow.sparse_tensor import SparseTensor

    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _check_out_type(out_type):
    if _dtypes.as_dtype(out_type) != _dtypes.string:
        raise errors.UnimplementedError(
            None, None, "ferroflow serializes SparseTensors as strings only (no variant dtype)"
        )


def _serialized(array, dtype):
    """The `TensorProto` bytes TensorFlow's `AsProtoTensorContent` writes: every dtype's values
    in ``tensor_content`` (strings as varint lengths, then the bytes), unlike
    `serialize_tensor`, which puts strings in ``string_val``."""
    from ferroflow._proto import message_class
    from ferroflow.io import serialize_tensor

    data = serialize_tensor(constant(array, dtype=dtype)).numpy()
    if dtype != _dtypes.string or not np.size(array):
        return data
    proto = message_class("tensorflow.TensorProto").FromString(data)
    strings = list(proto.string_val)
    del proto.string_val[:]
    proto.tensor_content = b"".join(_varint.encode(len(v)) for v in strings) + b"".join(strings)
    return proto.SerializeToString()


def _string_content(proto):
    """The strings of a string `TensorProto` whose values are in ``tensor_content``."""
    content = proto.tensor_content
    count = int(np.prod([d.size for d in proto.tensor_shape.dim], dtype=np.int64))
    lengths, pos = [], 0
    for _ in range(count):
        n = shift = 0
        while True:
            if pos >= len(content):
                raise _invalid("Could not parse serialized proto")
            byte = content[pos]
            pos += 1
            n |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        lengths.append(n)
    values = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        values[i] = content[pos : pos + n]
        pos += n
    if pos != len(content):
        raise _invalid("Could not parse serialized proto")
    return values.reshape([d.size for d in proto.tensor_shape.dim])


def _parsed(data, dtype):
    from ferroflow._proto import message_class
    from ferroflow.io import parse_tensor

    if dtype == _dtypes.string:
        try:
            proto = message_class("tensorflow.TensorProto").FromString(data)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError
            raise _invalid("Could not parse serialized proto") from None
        if proto.dtype == _dtypes.string.as_datatype_enum and proto.tensor_content:
            return _string_content(proto)
    return np.asarray(parse_tensor(data, dtype).numpy())


def serialize_sparse(sp_input, out_type=_dtypes.string, name=None):
    """``sp_input`` as a string vector of 3: the serialized indices, values and dense shape."""
    sp = _sparse(sp_input)
    _check_out_type(out_type)
    value_dtype = sp.values.dtype

    def serialize(indices, values, shape):
        parts = [
            _serialized(indices, _dtypes.int64),
            _serialized(values, value_dtype),
            _serialized(shape, _dtypes.int64),
        ]
        out = np.empty(3, dtype=object)
        out[:] = parts
        return [out]

    inputs = [sp.indices, sp.values, sp.dense_shape]
    return _host.run(serialize, inputs, [_dtypes.string], [[3]])[0]


def _check_order(indices):
    for i in range(1, len(indices)):
        if tuple(indices[i]) <= tuple(indices[i - 1]):
            shown = ",".join(str(v) for v in indices[i])
            raise _invalid(
                f"indices[{i}] = [{shown}] is out of order. Many sparse ops require sorted "
                "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
            )


def serialize_many_sparse(sp_input, out_type=_dtypes.string, name=None):
    """A rank >= 2 ``sp_input`` as an ``[N, 3]`` string matrix: row ``i`` serializes the
    entries whose first index is ``i`` (indices and shape without the first dimension)."""
    sp = _sparse(sp_input)
    _check_out_type(out_type)
    value_dtype = sp.values.dtype

    def serialize(indices, values, shape):
        if len(shape) < 2:
            raise _invalid(f"Rank of input SparseTensor should be > 1, but saw rank: {len(shape)}")
        _check_order(indices)
        rows = int(shape[0])
        out = np.empty((rows, 3), dtype=object)
        inner_shape = _serialized(shape[1:], _dtypes.int64)
        for i in range(rows):
            mine = indices[:, 0] == i
            out[i, 0] = _serialized(indices[mine][:, 1:].reshape(-1, len(shape) - 1), _dtypes.int64)
            out[i, 1] = _serialized(values[mine], value_dtype)
            out[i, 2] = inner_shape
        return [out]

    inputs = [sp.indices, sp.values, sp.dense_shape]
    return _host.run(serialize, inputs, [_dtypes.string], [[None, 3]])[0]


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of an ``[N, 3]`` matrix of serialized SparseTensors (of one rank): row
    ``i``'s entries get first index ``i``; the dense shape is ``N`` then the largest of each
    dimension."""
    from ferroflow.sparse_tensor import SparseTensor

    dtype = _dtypes.as_dtype(dtype)
    serialized = _host.string_input(serialized_sparse, "DeserializeManySparse")

    def deserialize(matrix):
        if matrix.ndim < 1 or matrix.shape[-1] != 3:
            raise _invalid(
                "Serialized sparse should have 3 as the last dimension, got shape "
                f"{list(matrix.shape)}"
            )
        batched = matrix.ndim > 1
        rows = matrix.reshape(-1, 3)
        if rows.shape[0] == 0:
            raise _invalid(
                "Serialized sparse should have at least 1 serialized tensor, but has a zero "
                f"dimension [{','.join(str(d) for d in matrix.shape)}]"
            )
        all_indices, all_values, shapes = [], [], []
        for i, (ind, val, shp) in enumerate(rows):
            indices = _parsed(ind, _dtypes.int64)
            try:
                values = _parsed(val, dtype)
            except errors.InvalidArgumentError:
                raise _invalid(
                    f"Requested SparseTensor of type {dtype.name} but SparseTensor[{i}]"
                    ".values.dtype() differs"
                ) from None
            shape = _parsed(shp, _dtypes.int64)
            if shapes and len(shape) != len(shapes[-1]):
                raise _invalid(
                    "Inconsistent shape across SparseTensors: rank prior to SparseTensor"
                    f"[{i}] was: {len(shapes[-1])} but rank of SparseTensor[{i}] is: "
                    f"{len(shape)}"
                )
            shapes.append(shape)
            indices = indices.reshape(len(values), len(shape))
            if batched:
                batch = np.full((len(values), 1), i, np.int64)
                indices = np.concatenate([batch, indices], axis=1)
            all_indices.append(indices)
            all_values.append(values)
        inner = np.max(np.stack(shapes), axis=0)
        shape = np.concatenate([[len(rows)], inner]) if batched else inner
        indices = np.concatenate(all_indices).astype(np.int64)
        return [indices.reshape(-1, len(shape)), np.concatenate(all_values), shape.astype(np.int64)]

    if rank is not None and not _tracing.tracing():
        wanted = deserialize  # the eager result is checked against the static rank

        def deserialize(matrix):
            out = wanted(matrix)
            if out[0].shape[1] != rank:
                raise ValueError(
                    f"Tensor's shape {tuple(out[0].shape)} is not compatible with supplied "
                    f"shape (None, {rank})."
                )
            return out

    indices, values, shape = _host.run(
        deserialize,
        [serialized],
        [_dtypes.int64, dtype, _dtypes.int64],
        [[None, rank], [None], [rank]],
    )
    return SparseTensor(indices, values, convert_to_tensor(shape, dtype=_dtypes.int64))
