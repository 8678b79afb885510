"""`tf.experimental.StructuredTensor` for uniform shapes: a tensor of structures (each a dict
of named fields) stored field-major, each field a Tensor, RaggedTensor or StructuredTensor whose
leading dimensions are the structure's shape. Built on `ExtensionType` (so it passes through
`tf.nest`, `tf.function` and batching like TensorFlow's, which is an ExtensionType too).

What TensorFlow has and this lacks: ragged outer dimensions (row partitions that are not
uniform: `partition_outer_dimension`, `from_pyval` of lists of lists of dicts, fields of
different row lengths), and `from_pyval`'s `typespec`; these raise NotImplementedError.
"""

import re
import typing

import numpy as np

from ferroflow import _core
from ferroflow.extension_type import BatchableExtensionType
from ferroflow.tensor_shape import TensorShape, as_shape
from ferroflow.type_spec import CompositeTensor

__all__ = ["StructuredTensor"]

_FIELD_NAME_RE = re.compile("^[a-zA-Z][a-zA-Z0-9_]*$")


def _unsupported(what):
    return NotImplementedError(
        f"ferroflow's StructuredTensor has uniform dimensions only: {what} is not supported"
    )


class StructuredTensor(BatchableExtensionType):
    """A tensor of structures (dicts of named fields) of a uniform shape.

    >>> import ferroflow as tf
    >>> st = tf.experimental.StructuredTensor.from_pyval([{"a": 1}, {"a": 2}])
    >>> st.field_value("a").numpy()
    array([1, 2], dtype=int32)
    """

    _fields: typing.Mapping[str, typing.Union[_core.Tensor, CompositeTensor]]
    _shape: TensorShape

    FieldName = typing.Union[str, typing.Sequence[str]]

    def __validate__(self):
        if self._shape.rank is None:
            raise ValueError("StructuredTensor's shape must have known rank.")

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def from_fields(cls, fields, shape=(), nrows=None, row_partitions=None, validate=False):
        """A StructuredTensor of `shape` whose fields are `fields` (each field's leading
        dimensions are `shape`)."""
        shape = as_shape(shape)
        if shape.rank is None:
            raise ValueError("StructuredTensor's shape must have known rank.")
        if not isinstance(fields, dict):
            raise TypeError(f"fields must be a dictionary, got {type(fields).__name__}")
        if row_partitions and shape.rank < 2:
            raise ValueError("row_partitions must be None or [] if shape.rank<2")
        if shape.rank == 0 and nrows is not None:
            raise ValueError("nrows must be None if shape.rank==0")
        if row_partitions:
            if len(row_partitions) != shape.rank - 1:
                raise ValueError("len(row_partitions) must be shape.rank-1")
            if not all(p.is_uniform() for p in row_partitions):
                raise _unsupported("a ragged row partition")
        converted = {}
        for key, value in fields.items():
            if not isinstance(key, str):
                raise TypeError(f"Unexpected type for key in `fields`: {key}")
            if not _FIELD_NAME_RE.match(key):
                raise ValueError(f"Field name {key!r} is not currently allowed.")
            converted[key] = _field_value(value)
        dims = list(shape.dims)
        if nrows is not None and shape.rank > 0:
            n = int(nrows) if not isinstance(nrows, _core.Tensor) else int(nrows.numpy())
            dims[0] = n if dims[0] is None else dims[0]
        for key, value in converted.items():
            field_shape = value.shape
            if field_shape.rank is not None and field_shape.rank < shape.rank:
                raise ValueError(f"Error in shape of {key}")
            prefix = [None] * shape.rank if field_shape.rank is None else field_shape[: shape.rank]
            for i, d in enumerate(prefix):
                if d is None:
                    continue
                if dims[i] is None:
                    dims[i] = d
                elif dims[i] != d:
                    raise ValueError(f"Error in shape of {key}")
        return cls(converted, TensorShape(dims))

    @classmethod
    def from_fields_and_rank(cls, fields, rank, validate=False, dtype=None):
        """A StructuredTensor whose shape is the first `rank` dimensions of its fields."""
        if not fields:
            raise ValueError("Must provide at least one field")
        if not isinstance(rank, int):
            raise ValueError("rank must be an integer")
        if rank < 0:
            raise ValueError("rank must be nonnegative")
        return cls.from_fields(fields, shape=[None] * rank, validate=validate)

    @classmethod
    def from_shape(cls, ragged_shape):
        """A StructuredTensor with no fields of a (uniform) DynamicRaggedShape."""
        if ragged_shape.num_row_partitions:
            raise _unsupported("a DynamicRaggedShape with row partitions")
        dims = [int(d) for d in np.asarray(ragged_shape.inner_shape)]
        return cls.from_fields({}, shape=dims)

    @classmethod
    def from_pyval(cls, pyval, typespec=None):
        """A StructuredTensor of a Python dict (rank 0) or list of dicts (rank 1); nested
        dicts become StructuredTensors and lists tensors (ragged ones RaggedTensors)."""
        if typespec is not None:
            raise _unsupported("from_pyval's typespec")
        return _from_pyval(pyval, ())

    # --- accessors ------------------------------------------------------------------------

    @property
    def rank(self):
        return self._shape.rank

    @property
    def shape(self):
        return self._shape

    def nrows(self):
        """The number of rows (an int64 scalar), None for a scalar StructuredTensor."""
        if self._shape.rank == 0:
            return None
        from ferroflow.array_ops import constant, shape

        first = self._shape[0]
        if first is not None:
            return constant(first, "int64")
        for value in self._fields.values():
            if isinstance(value, _core.Tensor):
                return shape(value, out_type="int64")[0]
        raise ValueError("The number of rows is not known")

    @property
    def row_partitions(self):
        """Uniform RowPartitions of the inner dimensions (rank - 1 of them)."""
        from ferroflow.ragged.row_partition import RowPartition

        out = []
        nrows = 1
        for i in range(1, self._shape.rank):
            outer, length = self._shape[i - 1], self._shape[i]
            if outer is None or length is None:
                raise _unsupported("row_partitions of unknown dimensions")
            nrows *= outer
            out.append(RowPartition.from_uniform_row_length(length, nrows=nrows))
        return tuple(out)

    def field_names(self):
        """The field names, in order."""
        return tuple(self._fields)

    def field_value(self, field_name):
        """The value of a field (a name, or a path of names through nested structures)."""
        if isinstance(field_name, (list, tuple)):
            value = self
            for f in field_name:
                if not isinstance(value, StructuredTensor):
                    raise KeyError(f"Field path {field_name} not found in {self}")
                value = value.field_value(f)
            return value
        return self._fields[field_name]

    def __getitem__(self, key):
        """A field (`st["a"]`, `st[0, "a"]`) or a slice of the structure (`st[1]`, `st[:2]`)."""
        if isinstance(key, str):
            return self.field_value(key)
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return self
        if isinstance(key[0], str):
            if len(key) > 1:
                return self._fields[key[0]][key[1:]]
            return self.field_value(key[0])
        if len(key) > self._shape.rank:
            if not isinstance(key[self._shape.rank], str):
                raise ValueError(
                    "Key for indexing a StructuredTensor must be a string or a full index "
                    f"through the first {self._shape.rank} dimensions."
                )
            field = self._fields[key[self._shape.rank]]
            return field[key[: self._shape.rank] + key[self._shape.rank + 1 :]]
        for k in key:
            if k is None or k is Ellipsis:
                raise ValueError(f"Slicing not supported for {k!r}")
        fields = {name: value[key] for name, value in self._fields.items()}
        if any(d is None for d in self._shape.dims):
            raise _unsupported("slicing a StructuredTensor of unknown dimensions")
        new_shape = np.empty(self._shape.as_list(), dtype=np.bool_)[key].shape
        return StructuredTensor.from_fields(fields, shape=new_shape)

    def __repr__(self):
        fields = sorted(self._fields.items())
        shown = ((k, str(v).replace("\n", "\n            ")) for k, v in fields)
        body = ",\n        ".join(f'"{k}": {v}' for k, v in shown)
        return f"<StructuredTensor(\n    fields={{\n        {body}}},\n    shape={self._shape})>"

    __str__ = __repr__

    # --- conversion -----------------------------------------------------------------------

    def to_pyval(self):
        """A nested Python dict (rank 0) or nested lists of dicts."""
        values = {}
        for key, value in self._fields.items():
            if isinstance(value, StructuredTensor):
                values[key] = value.to_pyval()
            elif isinstance(value, _core.Tensor):
                if _core.is_symbolic(value):
                    raise ValueError("StructuredTensor.to_pyval() is only supported in eager mode.")
                array = value.numpy()
                # As TensorFlow: arrays become lists, scalars stay numpy scalars (or bytes).
                values[key] = array.tolist() if isinstance(array, np.ndarray) else array
            else:
                values[key] = value.to_list()
        rank = self._shape.rank
        if rank == 0:
            return values
        if not values:
            return _empty_dicts(self._shape.as_list())
        return _node_major(list(values), list(values.values()), rank)

    # --- updates ---------------------------------------------------------------------------

    def with_updates(self, updates, validate=False):
        """A copy with fields set (values) or transformed (callables), by name or path;
        a value of None deletes the field."""
        fields = dict(self._fields)
        for path, update in updates.items():
            if isinstance(path, str):
                path = (path,)
            path = tuple(path)
            if not path:
                raise ValueError("Empty field path")
            if len(path) > 1:
                child = fields.get(path[0])
                if not isinstance(child, StructuredTensor):
                    raise ValueError(f"Field path {path} does not name a StructuredTensor")
                fields[path[0]] = child.with_updates({path[1:]: update}, validate)
                continue
            name = path[0]
            if callable(update):
                if name not in fields:
                    raise ValueError(f"Field {name!r} does not exist, cannot transform it")
                fields[name] = update(fields[name])
            elif update is None:
                if name not in fields:
                    raise ValueError(f"Field {name!r} does not exist, cannot delete it")
                del fields[name]
            else:
                fields[name] = update
        return StructuredTensor.from_fields(fields, shape=self._shape, validate=validate)

    def promote(self, source_path, new_name):
        """A copy with the nested field at `source_path` also at the top level as `new_name`."""
        if not isinstance(new_name, str):
            raise ValueError("new_name is not a string")
        if not isinstance(source_path, (list, tuple)):
            raise ValueError("source_path must be a list or tuple")
        if len(source_path) < 2:
            raise ValueError("source_path must have length at least two")
        return self.with_updates({(new_name,): self.field_value(source_path)})

    def merge_dims(self, outer_axis, inner_axis):
        """A copy with dimensions outer_axis..inner_axis (inclusive) merged into one."""
        rank = self._shape.rank
        outer = outer_axis + rank if outer_axis < 0 else outer_axis
        inner = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer < rank or not 0 <= inner < rank:
            raise ValueError(f"axis out of range for shape {self._shape}")
        if outer > inner:
            raise ValueError(
                f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                f"inner_axis ({inner_axis})"
            )
        if outer == inner:
            return self
        dims = self._shape.as_list()
        if any(d is None for d in dims[outer : inner + 1]):
            raise _unsupported("merging dimensions of unknown size")
        merged = dims[:outer] + [int(np.prod(dims[outer : inner + 1]))] + dims[inner + 1 :]
        fields = {k: _merge_field(v, outer, inner, merged) for k, v in self._fields.items()}
        return StructuredTensor.from_fields(fields, shape=merged)

    def partition_outer_dimension(self, row_partition):
        """TensorFlow partitions the outer dimension into (ragged) rows; not supported."""
        raise _unsupported("partition_outer_dimension")


def _merge_field(value, outer, inner, merged):
    if isinstance(value, StructuredTensor):
        return value.merge_dims(outer, inner)
    if isinstance(value, _core.Tensor):
        from ferroflow.array_ops import reshape, shape

        rest = shape(value)[len(merged) + inner - outer :]
        from ferroflow.array_ops import concat, constant

        return reshape(value, concat([constant(merged, rest.dtype), rest], 0))
    raise _unsupported("merging dimensions of a ragged field")


def _field_value(value):
    from ferroflow.array_ops import convert_to_tensor

    if isinstance(value, (_core.Tensor, CompositeTensor)):
        return value
    if isinstance(value, dict):
        raise TypeError(f"Unexpected type for value in `fields`: {value!r}")
    return convert_to_tensor(value)


def _empty_dicts(dims):
    if not dims:
        return {}
    return [_empty_dicts(dims[1:]) for _ in range(dims[0])]


def _node_major(keys, values, depth):
    """Field-major values (one list per key) as a list of dicts, `depth` levels deep."""
    if depth == 0:
        return dict(zip(keys, values))
    return [_node_major(keys, parts, depth - 1) for parts in zip(*values)]


def _struct_depth(pyval):
    """The depth of dicts inside nested lists (0 for a dict), or None if it holds none."""
    if isinstance(pyval, dict):
        return 0
    if isinstance(pyval, (list, tuple)):
        depth = None
        for child in pyval:
            child_depth = _struct_depth(child)
            if child_depth is None:
                continue
            if depth is None:
                depth = child_depth + 1
            elif depth != child_depth + 1:
                raise ValueError("Inconsistent depth of dictionaries")
        return depth
    return None


def _from_pyval(pyval, path):
    from ferroflow.array_ops import constant

    if isinstance(pyval, dict):
        fields = {k: _from_pyval(v, (*path, k)) for k, v in pyval.items()}
        return StructuredTensor.from_fields(fields, shape=())
    if isinstance(pyval, (list, tuple)):
        depth = _struct_depth(pyval)
        if depth is None:
            from ferroflow.ragged.ragged_factory import constant as ragged_constant

            try:
                return ragged_constant(pyval)
            except Exception as exc:
                raise ValueError(f"Error parsing path {path!r}") from exc
        if depth > 1:
            raise _unsupported("from_pyval of nested lists of dicts (ragged rows)")
        keys = []
        for child in pyval:
            if not isinstance(child, dict):
                raise ValueError("Expected dict or nested list/tuple of dict")
            keys.extend(k for k in child if k not in keys)
        columns = {key: [child[key] for child in pyval] for key in keys}
        fields = {key: _from_pyval(column, (*path, key)) for key, column in columns.items()}
        try:
            return StructuredTensor.from_fields(fields, shape=[len(pyval)])
        except Exception as exc:
            raise ValueError(f"Error parsing path {path!r}") from exc
    try:
        return constant(pyval)
    except Exception as exc:
        raise ValueError(f"Error parsing path {path!r}") from exc
