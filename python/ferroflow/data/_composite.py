"""Dataset components that are not plain tensors (RaggedTensor, SparseTensor, ExtensionType...),
batched and unbatched as `tf.data` does it, spec by spec:

* a `RaggedTensorSpec` batch is a RaggedTensor with one more ragged dimension (its rows may be
  dense tensors of different lengths when the row spec has ragged_rank 0);
* a `SparseTensorSpec` batch is a SparseTensor whose dense shape is the batch size followed by
  the largest size of each dimension among the rows;
* any other batchable spec (a BatchableExtensionType's) is batched component by component,
  through its `__batch_encoder__`.

Unbatching splits a value back into its rows, each rebuilt by the row spec (so its static shape
is the one `tf.data` gives it). Tensors go through `_structure`'s numpy slicing instead.
"""

import numpy as np

from ferroflow import _core, errors, nest
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import concat, convert_to_tensor, stack, zeros
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import BatchableTypeSpec, NoneTensorSpec, TypeSpec

__all__ = [
    "as_spec",
    "batch",
    "example",
    "is_composite_spec",
    "rows",
    "slice_dims",
    "unbatch_check_dims",
    "unbatch_count_dims",
]


def is_composite_spec(spec):
    """Whether ``spec`` describes something other than a plain tensor."""
    return isinstance(spec, TypeSpec) and not isinstance(spec, TensorSpec)


def _ragged_spec_type():
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec

    return RaggedTensorSpec


def _sparse_types():
    from ferroflow.sparse_tensor import SparseTensor, SparseTensorSpec

    return SparseTensor, SparseTensorSpec


def _encoding(spec):
    """(encode, decode, encoding specs) of a spec batched component by component."""
    encoder = getattr(spec, "__batch_encoder__", None)
    if encoder is not None:
        return (
            lambda s, v: encoder.encode(s, v),
            lambda s, c: encoder.decode(s, c),
            encoder.encoding_specs,
        )
    return (
        lambda s, v: s._to_components(v),
        lambda s, c: s._from_components(c),
        lambda s: s._component_specs,
    )


# --- batching ------------------------------------------------------------------------------


def batch(spec, values, batched_spec):
    """One value of ``batched_spec`` stacking ``values`` (each a value of ``spec``)."""
    if isinstance(spec, _ragged_spec_type()):
        return _batch_ragged(spec, values, batched_spec)
    if isinstance(spec, _sparse_types()[1]):
        return _batch_sparse(values, batched_spec)
    if isinstance(spec, TensorSpec):
        return stack([convert_to_tensor(v) for v in values])
    if isinstance(spec, NoneTensorSpec):
        return None
    if not isinstance(spec, BatchableTypeSpec):
        raise AttributeError(f"'{type(spec).__qualname__}' object has no attribute '_batch'")
    encode, decode, encoding_specs = _encoding(spec)
    specs = encoding_specs(spec)
    flat_specs = nest.flatten(specs)
    flat_batched = nest.flatten(encoding_specs(batched_spec))
    columns = [nest.flatten(encode(spec, v)) for v in values]
    parts = [
        batch(s, [column[i] for column in columns], b)
        for i, (s, b) in enumerate(zip(flat_specs, flat_batched))
    ]
    return decode(batched_spec, nest.pack_sequence_as(specs, parts))


def _ragged_components(spec, value):
    """[flat_values, *nested_row_splits] of a row of a ragged dataset (a dense tensor when the
    row spec has ragged_rank 0), and its number of rows (a tensor)."""
    from ferroflow.array_ops import shape
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    if spec.ragged_rank <= 0:
        value = convert_to_tensor(value, dtype=spec.dtype)
        return [value], shape(value, out_type=spec.row_splits_dtype)[0]
    if not isinstance(value, RaggedTensor):
        value = RaggedTensor.from_tensor(
            value, ragged_rank=spec.ragged_rank, row_splits_dtype=spec.row_splits_dtype
        )
    return [value.flat_values, *value.nested_row_splits], value.nrows(
        out_type=spec.row_splits_dtype
    )


def _batch_ragged(spec, values, batched_spec):
    from ferroflow.math import cumsum

    parts = [_ragged_components(spec, v) for v in values]
    splits_dtype = batched_spec.row_splits_dtype
    counts = stack([n for _, n in parts])
    outer = concat([zeros([1], splits_dtype), cumsum(counts)], 0)
    flat = concat([components[0] for components, _ in parts], 0)
    inner = []
    for level in range(1, spec.ragged_rank + 1):
        pieces, offset = [], None
        for components, _ in parts:
            splits = components[level]
            pieces.append(splits if offset is None else splits[1:] + offset)
            offset = splits[-1] if offset is None else offset + splits[-1]
        inner.append(concat(pieces, 0))
    return batched_spec._from_components([flat, outer, *inner])


def _batch_sparse(values, batched_spec):
    from ferroflow.array_ops import fill, shape
    from ferroflow.math import reduce_max

    sparse_tensor, _ = _sparse_types()
    rows = [sparse_tensor.from_value(v) for v in values]
    ranks = {r.dense_shape.shape[0] for r in rows}
    if len(ranks) > 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            "Cannot batch SparseTensors of different ranks: got ranks "
            f"{sorted(r for r in ranks if r is not None)}.",
        )
    indices = []
    one = convert_to_tensor([1], dtype=_dtypes.int64)
    for i, row in enumerate(rows):
        count = shape(row.indices, out_type=_dtypes.int64)[:1]
        column = fill(concat([count, one], 0), convert_to_tensor(i, dtype=_dtypes.int64))
        indices.append(concat([column, row.indices], 1))
    dense_shape = concat(
        [
            convert_to_tensor([len(rows)], dtype=_dtypes.int64),
            reduce_max(stack([r.dense_shape for r in rows]), axis=0),
        ],
        0,
    )
    return batched_spec._from_components(
        [concat(indices, 0), concat([r.values for r in rows], 0), dense_shape]
    )


def as_spec(value, spec):
    """``value`` rebuilt by ``spec`` (a composite gets the spec's static shape) when the spec
    describes it; unchanged otherwise."""
    if not is_composite_spec(spec) or not hasattr(value, "_type_spec"):
        return value
    if not spec.is_compatible_with(value._type_spec):
        return value
    return spec._from_components(spec._to_components(value))


# --- unbatching ------------------------------------------------------------------------------


def rows(spec, value):
    """The rows of ``value`` (a value of the batched ``spec``), each a value of
    ``spec._unbatch()``."""
    if isinstance(spec, _ragged_spec_type()):
        return _ragged_rows(spec, value)
    if isinstance(spec, _sparse_types()[1]):
        return _sparse_rows(spec, value)
    if isinstance(spec, TensorSpec):
        tensor = convert_to_tensor(value)
        if _core.is_symbolic(tensor):
            from ferroflow.array_ops import unstack

            return unstack(tensor)
        array = np.asarray(tensor)
        return [convert_to_tensor(a, dtype=tensor.dtype) for a in array]
    if not isinstance(spec, BatchableTypeSpec):
        raise AttributeError(
            f"'{type(spec).__qualname__}' object has no attribute '_to_batched_tensor_list'"
        )
    row_spec = spec._unbatch()
    encode, decode, encoding_specs = _encoding(spec)
    specs = encoding_specs(spec)
    row_specs = encoding_specs(row_spec)
    columns = [rows(s, c) for s, c in zip(nest.flatten(specs), nest.flatten(encode(spec, value)))]
    counts = {len(c) for c in columns}
    if len(counts) > 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            "Input element must have the same batch size in each component. Component 0 had "
            f"size {len(columns[0])} but another component had a different size.",
        )
    count = counts.pop() if counts else 0
    return [
        decode(row_spec, nest.pack_sequence_as(row_specs, [c[i] for c in columns]))
        for i in range(count)
    ]


def _ragged_rows(spec, value):
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    row_spec = spec._unbatch()
    if not isinstance(value, RaggedTensor):
        tensor = convert_to_tensor(value, dtype=spec.dtype)
        if tensor.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return rows(TensorSpec(tensor.shape, tensor.dtype), tensor)
    splits = [s for s in value.nested_row_splits]
    if any(_core.is_symbolic(s) for s in splits):
        count = value.shape[0]
        if count is None:
            raise ValueError("a ragged batch of unknown size cannot be unbatched in a trace")
        return [_row_as(row_spec, value[i]) for i in range(count)]
    known = [np.asarray(s) for s in splits]
    flat = value.flat_values
    out = []
    for i in range(len(known[0]) - 1):
        start, stop = int(known[0][i]), int(known[0][i + 1])
        nested = []
        for level in known[1:]:
            part = level[start : stop + 1]
            nested.append(convert_to_tensor(part - part[0], dtype=value.row_splits.dtype))
            start, stop = int(level[start]), int(level[stop])
        out.append(row_spec._from_components([flat[start:stop], *nested]))
    return out


def _row_as(row_spec, row):
    if row_spec.ragged_rank <= 0:
        return row
    return row_spec._from_components(row_spec._to_components(row))


def _sparse_rows(spec, value):
    sparse_tensor, _ = _sparse_types()
    value = sparse_tensor.from_value(value)
    row_spec = spec._unbatch()
    rank = value.dense_shape.shape[0]
    if rank is not None and rank < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Rank of input SparseTensor should be > 1, but saw rank: {rank}"
        )
    if _core.is_symbolic(value.indices) or _core.is_symbolic(value.dense_shape):
        return _traced_sparse_rows(value, row_spec)
    indices = np.asarray(value.indices)
    dense_shape = np.asarray(value.dense_shape)
    values = value.values
    out = []
    for i in range(int(dense_shape[0])):
        where = np.nonzero(indices[:, 0] == i)[0]
        row_values = values[int(where[0]) : int(where[-1]) + 1] if _contiguous(where) else None
        if row_values is None:
            from ferroflow.array_ops import gather

            row_values = gather(values, convert_to_tensor(where, dtype=_dtypes.int64))
        out.append(
            row_spec._from_components(
                [
                    convert_to_tensor(
                        indices[where, 1:].reshape(-1, rank - 1), dtype=_dtypes.int64
                    ),
                    row_values,
                    convert_to_tensor(dense_shape[1:], dtype=_dtypes.int64),
                ]
            )
        )
    return out


def _contiguous(where):
    return len(where) > 0 and int(where[-1]) - int(where[0]) + 1 == len(where)


def _traced_sparse_rows(value, row_spec):
    from ferroflow.array_ops import boolean_mask
    from ferroflow.math import equal

    count = value.shape[0]
    if count is None:
        raise ValueError("a sparse batch of unknown size cannot be unbatched in a trace")
    out = []
    for i in range(count):
        mask = equal(value.indices[:, 0], convert_to_tensor(i, dtype=_dtypes.int64))
        out.append(
            row_spec._from_components(
                [
                    boolean_mask(value.indices, mask)[:, 1:],
                    boolean_mask(value.values, mask),
                    value.dense_shape[1:],
                ]
            )
        )
    return out


def leading_dims(spec, kinds):
    """The batch sizes the flat components of ``spec`` state (None where unknown), counting
    only specs of the types ``kinds`` (the others' encodings have no static batch size in
    TensorFlow); batchable specs of other types are looked into, component by component."""
    if isinstance(spec, kinds):
        shape = spec.shape
        return [shape[0] if shape.rank else None]
    if isinstance(spec, (TensorSpec, _ragged_spec_type(), _sparse_types()[1])):
        return [None]
    if isinstance(spec, BatchableTypeSpec):
        _, _, encoding_specs = _encoding(spec)
        return [d for s in nest.flatten(encoding_specs(spec)) for d in leading_dims(s, kinds)]
    return [None]


def slice_dims(spec):
    """What `from_tensor_slices` checks: every component's batch size."""
    return leading_dims(spec, (TensorSpec, _ragged_spec_type(), _sparse_types()[1]))


def unbatch_check_dims(spec):
    """What `unbatch` checks for agreement: its tensors' batch sizes."""
    return leading_dims(spec, TensorSpec)


def unbatch_count_dims(spec):
    """What `unbatch`'s cardinality counts on: tensors' and RaggedTensors' batch sizes."""
    return leading_dims(spec, (TensorSpec, _ragged_spec_type()))


# --- example values --------------------------------------------------------------------------


def _filled(dims, dtype, fill):
    from ferroflow.array_ops import fill as fill_op

    if dtype == _dtypes.string:
        value = b"a" * fill
    elif dtype == _dtypes.bool:
        value = bool(fill)
    else:
        value = fill
    return fill_op(dims, convert_to_tensor(value, dtype=dtype))


def example(spec, size, fill=0):
    """A value of ``spec`` whose unknown dimensions are ``size`` long, every entry ``fill``
    (0 or 1; an empty or one-letter string): what `map` calls its function on to learn the
    spec of the results."""
    if isinstance(spec, TensorSpec):
        if spec.shape.rank is None:
            raise ValueError("inputs of unknown rank")
        return _filled([size if d is None else d for d in spec.shape.as_list()], spec.dtype, fill)
    if isinstance(spec, _ragged_spec_type()):
        if spec.shape.rank is None:
            raise ValueError("inputs of unknown rank")
        dims = [size if d is None else d for d in spec.shape.as_list()]
        dense = _filled(dims, spec.dtype, fill)
        if spec.ragged_rank <= 0:
            return dense
        from ferroflow.ragged.ragged_tensor import RaggedTensor

        value = RaggedTensor.from_tensor(
            dense, ragged_rank=spec.ragged_rank, row_splits_dtype=spec.row_splits_dtype
        )
        # The spec's static shape: ragged dimensions stay unknown.
        return spec._from_components(spec._to_components(value))
    if isinstance(spec, _sparse_types()[1]):
        if spec.shape.rank is None:
            raise ValueError("inputs of unknown rank")
        dims = [size if d is None else d for d in spec.shape.as_list()]
        count = int(np.prod(dims)) if fill else 0
        positions = np.argwhere(np.ones(dims, bool)) if fill else np.zeros([0, len(dims)])
        return spec._from_components(
            [
                convert_to_tensor(positions.astype(np.int64), dtype=_dtypes.int64),
                _filled([count], spec.dtype, fill),
                convert_to_tensor(np.array(dims, np.int64), dtype=_dtypes.int64),
            ]
        )
    if isinstance(spec, NoneTensorSpec):
        return None
    _, decode, encoding_specs = _encoding(spec)
    specs = encoding_specs(spec)
    parts = [example(s, size, fill) for s in nest.flatten(specs)]
    return decode(spec, nest.pack_sequence_as(specs, parts))


def unknown_dims(spec):
    """Whether ``spec`` has unknown dimensions (an example needs a size for them)."""
    shape = getattr(spec, "shape", None)
    if isinstance(shape, TensorShape):
        return shape.rank is None or None in shape.as_list()
    if is_composite_spec(spec) and not isinstance(spec, NoneTensorSpec):
        try:
            specs = _encoding(spec)[2](spec)
        except Exception:  # noqa: BLE001 - a spec without components: nothing to size
            return False
        return any(unknown_dims(s) for s in nest.flatten(specs))
    return False
