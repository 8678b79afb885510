"""`batch` and `unbatch`."""

import itertools

import numpy as np

from ferroflow import _core, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor, stack
from ferroflow.data import _composite, _structure
from ferroflow.data.dataset import (
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    check_count,
    finite_batches,
)
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec

__all__ = [
    "BatchDataset",
    "DenseToRaggedDataset",
    "DenseToSparseBatchDataset",
    "PaddedBatchDataset",
    "UnbatchDataset",
]


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def stack_elements(elements, spec=None, batched=None):
    """One element whose components stack the components of ``elements`` (of the element
    spec ``spec``; composite components are batched as their specs say into ``batched``)."""
    columns = zip(*(_structure.flatten(e) for e in elements))
    specs = _structure.flatten(spec) if spec is not None else None
    batched_specs = _structure.flatten(batched) if batched is not None else None
    stacked = []
    for component, column in enumerate(columns):
        if specs is not None and _composite.is_composite_spec(specs[component]):
            stacked.append(
                _composite.batch(specs[component], list(column), batched_specs[component])
            )
            continue
        first = column[0].shape
        for i, tensor in enumerate(column[1:], start=1):
            if tensor.shape != first:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot batch tensors with different shapes in component {component}. "
                    f"First element had shape {_shape_text(first)} and element {i} had shape "
                    f"{_shape_text(tensor.shape)}.",
                )
        stacked.append(stack(list(column)))
    return _structure.pack_as(elements[0], stacked)


def _batch_size(value):
    size = check_count(value, "batch_size")
    if size <= 0:
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
    return size


def _chunks(elements, size, drop_remainder):
    """Lists of ``size`` consecutive elements (the last one shorter unless
    ``drop_remainder``)."""
    while True:
        chunk = list(itertools.islice(elements, size))
        if not chunk or (len(chunk) < size and drop_remainder):
            return
        yield chunk


class BatchDataset(Dataset):
    _repr_name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder, parallel=False):
        self._input = input_dataset
        self._batch_size = _batch_size(batch_size)
        self._drop_remainder = bool(drop_remainder)
        # `batch(num_parallel_calls=...)`: TensorFlow's ParallelBatchDataset, which its
        # map-and-batch fusion leaves alone (data/_fusion.py).
        self._parallel = parallel
        self._spec = _structure.batched_spec(
            input_dataset.element_spec, self._batch_size if self._drop_remainder else None
        )

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return finite_batches(self._input._cardinality(), self._batch_size, self._drop_remainder)

    def _elements(self):
        from ferroflow.data import _fusion

        source = self._input._slice_source()
        if source is not None:
            return self._sliced(source, self._input._indices())
        fused = _fusion.map_and_batch(self) or _fusion.read_and_batch(self)
        if fused is not None:
            return fused
        return self._stacked(iter(self._input._elements()))

    def _sliced(self, source, indices):
        size = self._batch_size
        if isinstance(indices, range) and indices.step == 1:
            for start in range(indices.start, indices.stop, size):
                stop = min(start + size, indices.stop)
                if stop - start < size and self._drop_remainder:
                    return
                yield source._select(slice(start, stop))
            return
        indices = iter(indices)
        while True:
            chunk = list(itertools.islice(indices, size))
            if not chunk or (len(chunk) < size and self._drop_remainder):
                return
            yield source._select(np.asarray(chunk, dtype=np.int64))

    def _stacked(self, elements):
        for chunk in _chunks(elements, self._batch_size, self._drop_remainder):
            yield stack_elements(chunk, self._input.element_spec, self._spec)


class UnbatchDataset(Dataset):
    _repr_name = "_UnbatchDataset"

    def __init__(self, input_dataset):
        self._input = input_dataset
        self._spec = _structure.unbatched_spec(input_dataset.element_spec)
        # TensorFlow's rules: the batch sizes its tensors state must agree, and the first one
        # stated by a tensor or a RaggedTensor counts the rows.
        known = None
        for s in _structure.flatten(input_dataset.element_spec):
            for dim in _composite.unbatch_check_dims(s):
                if dim is None:
                    continue
                if known is not None and dim != known:
                    raise ValueError(
                        "`unbatch()` is only supported for datasets of elements whose "
                        "components have a matching leading dimension. Encountered both "
                        f"{known} and {dim}."
                    )
                known = dim
        counted = [
            d
            for s in _structure.flatten(input_dataset.element_spec)
            for d in _composite.unbatch_count_dims(s)
            if d is not None
        ]
        self._batch_dim = counted[0] if counted else None

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        n = self._input._cardinality()
        if n == INFINITE_CARDINALITY or n == 0:
            return n
        if n > 0 and self._batch_dim is not None:
            return n * self._batch_dim
        return UNKNOWN_CARDINALITY

    def _elements(self):
        specs = _structure.flatten(self._input.element_spec)
        for element in self._input._elements():
            leaves = _structure.flatten(element)
            columns = [
                _composite.rows(s, leaf) if _composite.is_composite_spec(s) else None
                for s, leaf in zip(specs, leaves)
            ]
            sizes = [len(c) if c is not None else leaf.shape[0] for c, leaf in zip(columns, leaves)]
            if len(set(sizes)) != 1:
                other = next(n for n in sizes if n != sizes[0])
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Input element must have the same batch size in each component. Component 0 "
                    f"had size {sizes[0]} but component {sizes.index(other)} had size {other}.",
                )
            arrays = [np.asarray(leaf) if c is None else None for c, leaf in zip(columns, leaves)]
            dtypes = [getattr(leaf, "dtype", None) for leaf in leaves]
            for i in range(sizes[0]):
                yield _structure.pack_as(
                    element,
                    [
                        convert_to_tensor(a[i], dtype=d) if c is None else c[i]
                        for a, d, c in zip(arrays, dtypes, columns)
                    ],
                )


# --- padded_batch ----------------------------------------------------------------------------


def _default_padding(dtype):
    return convert_to_tensor("" if dtype == _dtypes.string else 0, dtype=dtype)


def _padding_tensor(value, dtype):
    tensor = convert_to_tensor(value)
    if tensor.shape.rank not in (None, 0):
        raise ValueError(
            "Invalid `padding_values`. `padding_values` values should be scalars, but got "
            f"{tensor.shape}."
        )
    if tensor.dtype != dtype:
        raise TypeError(
            f"Invalid `padding_values`. `padding_values` values type {tensor.dtype!r} does not "
            f"match type {dtype!r} of the corresponding input component."
        )
    return tensor


def _preferring_int64(value):
    """``value`` as a tensor, int64 when it can be (TensorFlow's ``preferred_dtype``)."""
    if isinstance(value, _core.Tensor):
        return value
    try:
        return convert_to_tensor(value, dtype=_dtypes.int64)
    except (TypeError, ValueError):
        return convert_to_tensor(value)


def _padded_shape(padded, input_shape):
    """A padded shape argument as a TensorShape, checked against the component's shape."""
    try:
        shape = TensorShape(padded) if not isinstance(padded, TensorShape) else padded
        if shape.rank is not None and any(d is not None and d < 0 for d in shape.as_list()):
            # TensorFlow's TensorShape refuses -1; as a tensor it means "unknown".
            raise ValueError("negative dimension")
    except (TypeError, ValueError):
        tensor = _preferring_int64(padded)
        if tensor.shape.rank != 1:
            raise ValueError(
                f"Padded shape {padded} must be a `tf.int64` vector tensor, but its shape was "
                f"{tensor.shape}."
            ) from None
        if tensor.dtype != _dtypes.int64:
            raise TypeError(
                f"Padded shape {padded} must be a `tf.int64` vector tensor, but its element "
                f"type was {tensor.dtype.name}."
            ) from None
        shape = TensorShape([None if d < 0 else int(d) for d in np.asarray(tensor).tolist()])
    compatible = shape.rank is None or input_shape.rank is None
    if not compatible and shape.rank == input_shape.rank:
        compatible = all(
            p is None or d is None or p >= d for p, d in zip(shape.as_list(), input_shape.as_list())
        )
    if not compatible:
        raise ValueError(
            f"The padded shape {shape} is not compatible with the shape {input_shape} of the "
            "corresponding input component."
        )
    return shape


def _broadcast_up_to(structure, value):
    """``value`` repeated at every leaf of ``structure`` when it is a single value."""
    if isinstance(structure, (tuple, dict)) and not isinstance(value, (tuple, dict)):
        return _structure.map_element(lambda _: value, structure)
    return value


class PaddedBatchDataset(BatchDataset):
    """`padded_batch`: tensors of varying shapes padded to a common shape, then stacked
    (`BatchDataset`'s spec and cardinality, its own elements)."""

    _repr_name = "_PaddedBatchDataset"

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        flat = _structure.flatten(spec)
        if padded_shapes is None:
            for i, s in enumerate(flat):
                if getattr(s, "shape", TensorShape(None)).rank is None:
                    raise ValueError(
                        "You must provide `padded_shapes` argument because component "
                        f"{i} has unknown rank."
                    )
            padded_shapes = _structure.map_element(lambda s: s.shape, spec)
        for s in flat:
            if not isinstance(s, TensorSpec):
                raise TypeError(
                    "`padded_batch` is only supported for datasets that produce tensor "
                    "elements but type spec of elements in the input dataset is not a subclass "
                    f"of TensorSpec: `{s}`."
                )
        self._input = input_dataset
        self._batch_size = _batch_size(batch_size)
        self._drop_remainder = bool(drop_remainder)
        shapes = _flatten_up_to(spec, padded_shapes, "padded_shapes")
        self._shapes = [_padded_shape(p, s.shape) for p, s in zip(shapes, flat)]
        if padding_values is None:
            values = [_default_padding(s.dtype) for s in flat]
        else:
            values = _flatten_up_to(spec, _broadcast_up_to(spec, padding_values), "padding")
            values = [_default_padding(s.dtype) if v is None else v for v, s in zip(values, flat)]
        self._padding = [_padding_tensor(v, s.dtype) for v, s in zip(values, flat)]
        size = self._batch_size if self._drop_remainder else None
        self._spec = _structure.pack_as(
            spec,
            [
                TensorSpec(
                    TensorShape([size]).concatenate(shape)
                    if shape.rank is not None
                    else TensorShape(None),
                    s.dtype,
                )
                for shape, s in zip(self._shapes, flat)
            ],
        )

    def _elements(self):
        elements = iter(self._input._elements())
        for chunk in _chunks(elements, self._batch_size, self._drop_remainder):
            columns = zip(*(_structure.flatten(e) for e in chunk))
            parts = [
                _pad_and_stack(list(column), shape, padding)
                for column, shape, padding in zip(columns, self._shapes, self._padding)
            ]
            yield _structure.pack_as(chunk[0], parts)


def _flatten_up_to(spec, value, what):
    """``value``'s parts at the leaves of ``spec`` (a leaf of ``spec`` takes a whole list)."""
    if isinstance(spec, (tuple, dict)):
        if not isinstance(value, type(spec)) and not (
            isinstance(spec, tuple) and isinstance(value, (tuple, list))
        ):
            raise TypeError(f"`{what}` must have the structure of the elements: {spec}.")
        if isinstance(spec, dict):
            return [x for k in sorted(spec) for x in _flatten_up_to(spec[k], value[k], what)]
        if len(spec) != len(value):
            raise ValueError(
                f"The two structures don't have the same sequence length. Input structure has "
                f"length {len(spec)}, while shallow structure has length {len(value)}."
            )
        return [x for s, v in zip(spec, value) for x in _flatten_up_to(s, v, what)]
    return [value]


def _pad_and_stack(tensors, shape, padding):
    from ferroflow.array_ops import pad

    ranks = {t.shape.rank for t in tensors}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            None, None, "All elements in a batch must have the same rank as the padded shape."
        )
    rank = ranks.pop()
    if shape.rank is not None and shape.rank != rank:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"All elements in a batch must have the same rank as the padded shape for "
            f"component0: expected rank {shape.rank} but got element with rank {rank}",
        )
    dims = [t.shape.as_list() for t in tensors]
    if any(None in d for d in dims):
        raise ValueError("padded_batch needs elements of known shapes in a traced function")
    wanted = shape.as_list() if shape.rank is not None else [None] * rank
    target = [w if w is not None else max(d[i] for d in dims) for i, w in enumerate(wanted)]
    padded = []
    for tensor, d in zip(tensors, dims):
        if any(x > t for x, t in zip(d, target)):
            # TensorFlow's class for this (its kernel reports it as data loss).
            raise errors.DataLossError(
                None, None, "Attempted to pad to a smaller size than the input element."
            )
        if d == target:
            padded.append(tensor)
        else:
            amounts = [[0, t - x] for x, t in zip(d, target)]
            padded.append(pad(tensor, amounts, constant_values=padding))
    return stack(padded)


# --- ragged_batch and sparse_batch -----------------------------------------------------------


def _to_ragged_spec(spec, row_splits_dtype):
    if not isinstance(spec, TensorSpec) or spec.shape.rank is None:
        return spec
    dims = spec.shape.as_list()
    if None not in dims:
        return spec
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec

    ragged_rank = max(i for i, d in enumerate(dims) if d is None)
    return RaggedTensorSpec(spec.shape, spec.dtype, ragged_rank, row_splits_dtype)


class DenseToRaggedDataset(Dataset):
    """Its input with every tensor component of partly unknown shape described by a
    RaggedTensorSpec (ragged from its last unknown dimension), so that `batch` can stack
    components of different shapes (TensorFlow's `_DenseToRaggedDataset`)."""

    _repr_name = "_DenseToRaggedDataset"

    def __init__(self, input_dataset, row_splits_dtype):
        self._input = input_dataset
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        self._specs = _structure.map_element(
            lambda s: _to_ragged_spec(s, self._row_splits_dtype), input_dataset.element_spec
        )

    @property
    def element_spec(self):
        return self._specs

    def _cardinality(self):
        return self._input._cardinality()

    def _elements(self):
        from ferroflow.ragged.ragged_tensor import RaggedTensor

        original = self._input.element_spec

        def convert(value, old, new):
            if new is old or not isinstance(value, _core.Tensor) or new.ragged_rank == 0:
                return value
            return RaggedTensor.from_tensor(
                value, ragged_rank=new.ragged_rank, row_splits_dtype=new.row_splits_dtype
            )

        for element in self._input._elements():
            yield _structure.map_element(convert, element, original, self._specs)


class DenseToSparseBatchDataset(Dataset):
    """`sparse_batch`: batches of single-tensor elements of varying shape as SparseTensors of
    dense shape ``[batch, *row_shape]`` (unknown row dimensions: the batch's largest)."""

    _repr_name = "_DenseToSparseBatchDataset"

    def __init__(self, input_dataset, batch_size, row_shape):
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            types = _structure.map_element(lambda s: getattr(s, "dtype", s), spec)
            raise TypeError(
                "`dense_to_sparse_batch` requires an input dataset whose elements have a "
                "single component, but the given dataset has the following component types: "
                f"{types}."
            )
        from ferroflow.sparse_tensor import SparseTensorSpec

        self._input = input_dataset
        self._batch_size = _batch_size(batch_size)
        self._row_shape = TensorShape(row_shape)
        self._spec = SparseTensorSpec(TensorShape([None]).concatenate(self._row_shape), spec.dtype)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return finite_batches(self._input._cardinality(), self._batch_size, False)

    def _elements(self):
        for chunk in _chunks(iter(self._input._elements()), self._batch_size, False):
            yield self._sparse_batch(chunk)

    def _sparse_batch(self, chunk):

        row = self._row_shape.as_list()
        arrays = [np.asarray(t) for t in chunk]
        for a in arrays:
            if a.ndim != len(row):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Input element had rank {a.ndim} but the row shape has rank {len(row)}.",
                )
            if any(r is not None and d > r for d, r in zip(a.shape, row)):
                raise errors.DataLossError(
                    None,
                    None,
                    f"Input element had shape ({_shape_text(a.shape)}) that is larger than the "
                    f"row shape ({_shape_text(['-1' if r is None else r for r in row])}).",
                )
        dims = [
            r if r is not None else max((a.shape[i] for a in arrays), default=0)
            for i, r in enumerate(row)
        ]
        indices = [
            np.concatenate([np.full((a.size, 1), b), np.argwhere(np.ones(a.shape, bool))], 1)
            for b, a in enumerate(arrays)
        ]
        values = np.concatenate([a.reshape(-1) for a in arrays])
        dtype = chunk[0].dtype
        return self._spec._from_components(
            [
                convert_to_tensor(np.concatenate(indices).astype(np.int64), dtype=_dtypes.int64),
                convert_to_tensor(values, dtype=dtype),
                convert_to_tensor(np.array([len(arrays), *dims], np.int64), dtype=_dtypes.int64),
            ]
        )
