"""`tf.io.parse_example` and friends: the feature configurations (`FixedLenFeature`,
`VarLenFeature`, `SparseFeature`, `RaggedFeature`, `FixedLenSequenceFeature`) and the parsers.

Rust decodes the records (``_core.parse_example_flat``: prost, in parallel, GIL released) and
returns each requested feature's values flattened over the batch with per-example counts; this
module assembles TensorFlow's outputs from them: dense tensors with defaults, SparseTensors and
RaggedTensors. Inside a traced function the parse is one host-call node (``tf.py_function``)
that runs the same code when the graph runs.
"""

from __future__ import annotations

import collections

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes

_ALLOWED = ("float32", "int64", "string")


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A feature with a fixed number of values per example: a dense output of ``shape``."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A feature holding any number of ``shape``-sized rows: a dense output padded per batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values per example: a SparseTensor output."""


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A SparseTensor assembled from index feature(s) and a value feature."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(
    collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"]
    )
):
    """A RaggedTensor output: values from ``value_key`` (default: the feature's key), nested
    by ``partitions`` (outermost first), each read from its own feature."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(
        cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int32, validate=False
    ):
        dtype = _dtypes.as_dtype(dtype)
        row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if dtype.name not in _ALLOWED:
            raise ValueError(f"dtype must be one of tf.float32, tf.int64, tf.string, got {dtype}")
        if row_splits_dtype.name not in ("int32", "int64"):
            raise ValueError(f"Invalid row_splits_dtype: {row_splits_dtype}")
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"Invalid value_key: {value_key!r}")
        partition_types = (
            cls.RowSplits,
            cls.RowLengths,
            cls.RowStarts,
            cls.RowLimits,
            cls.ValueRowIds,
            cls.UniformRowLength,
        )
        if not isinstance(partitions, (list, tuple)) or not all(
            isinstance(p, partition_types) for p in partitions
        ):
            raise TypeError(f"partitions must be a list of partition objects: {partitions!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


_FEATURE_TYPES = (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    SparseFeature,
    RaggedFeature,
)


def _dtype_name(dtype, attr):
    name = _dtypes.as_dtype(dtype).name
    if name not in _ALLOWED:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {name} is not in the list of allowed values: float, "
            "int64, string",
        )
    return name


def _shape_text(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


class _Request:
    """The Rust requests one feature needs and how to assemble its output."""

    def __init__(self, key, feature):
        self.key, self.feature, self.rows = key, feature, []
        if isinstance(feature, FixedLenFeature):
            shape = [int(d) for d in feature.shape]
            if any(d < 0 for d in shape):
                raise ValueError(f"All dimensions of shape for feature {key} need to be known")
            size = int(np.prod(shape, dtype=np.int64))
            name = _dtype_name(feature.dtype, "Tdense")
            self.rows = [
                (key, name, size, _shape_text(shape), None, feature.default_value is None, True)
            ]
        elif isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            stride = int(np.prod([int(d) for d in feature.shape], dtype=np.int64))
            name = _dtype_name(feature.dtype, "Tdense")
            self.rows = [(key, name, None, "", stride, False, True)]
        elif isinstance(feature, VarLenFeature):
            self.rows = [
                (key, _dtype_name(feature.dtype, "sparse_types"), None, "", None, False, False)
            ]
        elif isinstance(feature, SparseFeature):
            index_keys = feature.index_key
            if isinstance(index_keys, str):
                index_keys = [index_keys]
            self.rows = [(k, "int64", None, "", None, False, False) for k in index_keys]
            name = _dtype_name(feature.dtype, "sparse_types")
            self.rows.append((feature.value_key, name, None, "", None, False, False))
        elif isinstance(feature, RaggedFeature):
            name = _dtype_name(feature.dtype, "ragged_value_types")
            self.rows = [(feature.value_key or key, name, None, "", None, False, False)]
            for p in feature.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    self.rows.append((p.key, "int64", None, "", None, False, False))
        else:
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")


def _requests(features):
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    if not isinstance(features, dict):
        raise TypeError(f"features must be a dict, got {type(features).__name__}")
    requests = [_Request(k, features[k]) for k in sorted(features)]
    _check_disjoint(requests)
    return requests


def _check_disjoint(requests):
    """TensorFlow's op takes dense, sparse and ragged keys apart: one key in two is refused."""
    groups = {"dense": [], "sparse": [], "ragged": []}
    for r in requests:
        f = r.feature
        if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            group = groups["dense"]
        elif isinstance(f, (VarLenFeature, SparseFeature)):
            group = groups["sparse"]
        else:
            group = groups["ragged"]
        group.extend(row[0] for row in r.rows if row[0] not in group)
    for a, b in (("dense", "sparse"), ("dense", "ragged"), ("ragged", "sparse")):
        common = set(groups[a]) & set(groups[b])
        if common:
            # TensorFlow's message is the str() of a tuple of two parts.
            raise ValueError(
                str(
                    (
                        f"{a.capitalize()} and {b} keys must not intersect; {a}_keys: ",
                        f"{groups[a]}, {b}_keys: {groups[b]}, intersection: {common}",
                    )
                )
            )


def _np(t):
    return np.asarray(t.numpy())


def _present(counts):
    return np.maximum(counts, 0)


def _offsets(counts):
    return np.concatenate([[0], np.cumsum(_present(counts))]).astype(np.int64)


def _gather(values, extra, index, shape):
    """``concat([values, extra])[index]`` reshaped: dense outputs with defaults or padding."""
    from ferroflow import array_ops

    pool = (
        array_ops.concat([values, array_ops.reshape(extra, [-1])], 0)
        if extra is not None
        else values
    )
    return array_ops.reshape(array_ops.gather(pool, index.astype(np.int64)), shape)


def _default_tensor(value, dtype, shape):
    from ferroflow import array_ops, convert_to_tensor

    return array_ops.reshape(convert_to_tensor(value, dtype=dtype), shape)


def _dense(request, values, counts, batch, single):
    from ferroflow import array_ops

    feature = request.feature
    dtype = _dtypes.as_dtype(feature.dtype)
    shape = [int(d) for d in feature.shape]
    size = int(np.prod(shape, dtype=np.int64))
    out_shape = shape if single else [batch, *shape]
    if (counts >= 0).all():
        return array_ops.reshape(values, out_shape)
    default = _default_tensor(feature.default_value, dtype, shape)
    n = int(values.shape[0])
    starts = np.where(counts >= 0, _offsets(counts)[:-1], n)
    index = (starts[:, None] + np.arange(size, dtype=np.int64)[None, :]).reshape(-1)
    return _gather(values, default, index, out_shape)


def _sequence(request, values, counts, batch, single):
    from ferroflow import convert_to_tensor

    feature = request.feature
    dtype = _dtypes.as_dtype(feature.dtype)
    shape = [int(d) for d in feature.shape]
    stride = int(np.prod(shape, dtype=np.int64))
    present = _present(counts)
    rows = present // stride if stride else np.zeros_like(present)
    longest = int(rows.max()) if rows.size else 0
    out_shape = [longest, *shape] if single else [batch, longest, *shape]
    n = int(values.shape[0])
    if (rows == longest).all():
        from ferroflow import array_ops

        return array_ops.reshape(values, out_shape)
    pad = feature.default_value
    if pad is None:
        pad = b"" if dtype == _dtypes.string else 0
    pad = convert_to_tensor(pad, dtype=dtype)
    pad_size = int(np.prod(pad.shape, dtype=np.int64)) if pad.shape.rank else 1
    offsets = _offsets(counts)[:-1]
    position = np.arange(longest * stride, dtype=np.int64)
    index = offsets[:, None] + position[None, :]
    filled = position[None, :] < (rows * stride)[:, None]
    index = np.where(filled, index, n + (position[None, :] % pad_size))
    return _gather(values, pad, index.reshape(-1), out_shape)


def _sparse(values, counts, batch, single):
    from ferroflow.sparse_tensor import SparseTensor

    present = _present(counts)
    total = int(present.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(_offsets(counts)[:-1], present)
    longest = int(present.max()) if present.size else 0
    if single:
        return SparseTensor(within.reshape(-1, 1), values, np.array([longest], np.int64))
    rows = np.repeat(np.arange(batch, dtype=np.int64), present)
    indices = np.stack([rows, within], axis=1).reshape(-1, 2)
    return SparseTensor(indices, values, np.array([batch, longest], np.int64))


def _sparse_feature(request, parsed, batch, single):
    from ferroflow import array_ops
    from ferroflow.sparse_tensor import SparseTensor

    feature = request.feature
    *index_parts, (values, value_counts) = parsed
    value_counts = _present(value_counts)
    columns = []
    for keyed, (index_values, index_counts) in zip(request.rows, index_parts):
        if not np.array_equal(_present(index_counts), value_counts):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Inconsistent number of indices for feature {keyed[0]} and values for "
                f"feature {feature.value_key}",
            )
        columns.append(_np(index_values).astype(np.int64))
    sizes = feature.size if isinstance(feature.size, (list, tuple)) else [feature.size]
    rows = np.repeat(np.arange(batch, dtype=np.int64), value_counts)
    indices = np.stack(columns, axis=1) if columns else np.zeros((0, 0), np.int64)
    indices = indices.reshape(-1, len(columns))
    for column, size in zip(indices.T, sizes):
        if ((column < 0) | (column >= int(size))).any():
            raise errors.InvalidArgumentError(
                None, None, f"Index out of bounds for SparseFeature of size {sizes}"
            )
    order = np.arange(len(rows))
    if not feature.already_sorted and len(rows):
        order = np.lexsort(
            tuple(indices[:, k] for k in reversed(range(indices.shape[1]))) + (rows,)
        )
    indices = indices[order]
    values = array_ops.gather(values, order.astype(np.int64))
    dense_shape = np.array([int(s) for s in sizes], np.int64)
    if single:
        return SparseTensor(indices, values, dense_shape)
    full = np.concatenate([rows[order][:, None], indices], axis=1)
    return SparseTensor(full, values, np.concatenate([[batch], dense_shape]).astype(np.int64))


def _lengths_of(partition, part_values, inner_counts):
    """Row lengths of one example's partition over `inner_counts` inner items."""
    p = part_values
    if isinstance(partition, RaggedFeature.RowSplits):
        return np.diff(p)
    if isinstance(partition, RaggedFeature.RowLengths):
        return p
    if isinstance(partition, RaggedFeature.RowStarts):
        return np.diff(np.concatenate([p, [inner_counts]]))
    if isinstance(partition, RaggedFeature.RowLimits):
        return np.diff(np.concatenate([[0], p]))
    if isinstance(partition, RaggedFeature.ValueRowIds):
        nrows = int(p.max()) + 1 if len(p) else 0
        return np.bincount(p, minlength=nrows)
    raise TypeError(partition)


def _ragged(request, parsed, batch, single):
    from ferroflow import array_ops, convert_to_tensor
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    feature = request.feature
    splits_dtype = feature.row_splits_dtype
    (values, counts), *part_parsed = parsed
    inner = _present(counts)  # items per example at the current level
    result = values
    # Partitions are listed outermost first; they apply innermost first.
    keyed = iter(reversed(part_parsed))
    levels = []
    partitions = list(feature.partitions)
    # Innermost uniform partitions are dense dimensions of the values, as in TensorFlow.
    while partitions and isinstance(partitions[-1], RaggedFeature.UniformRowLength):
        length = int(partitions.pop().length)
        inner_dims = list(result.shape[1:])
        result = array_ops.reshape(result, [-1, length, *inner_dims])
        inner = inner // length if length else inner
    for partition in reversed(partitions):
        if isinstance(partition, RaggedFeature.UniformRowLength):
            length = int(partition.length)
            levels.append(("uniform", length))
            inner = inner // length if length else inner
            continue
        part_values, part_counts = next(keyed)
        flat = _np(part_values).astype(np.int64)
        offsets = _offsets(part_counts)
        lengths = [
            _lengths_of(partition, flat[offsets[i] : offsets[i + 1]], int(inner[i]))
            for i in range(len(inner))
        ]
        lengths_flat = (
            np.concatenate(lengths).astype(np.int64) if lengths else np.zeros(0, np.int64)
        )
        levels.append(("lengths", lengths_flat))
        inner = np.array([len(x) for x in lengths], np.int64)
    for kind, data in levels:
        if kind == "uniform":
            length = convert_to_tensor(data, dtype=splits_dtype)
            result = RaggedTensor.from_uniform_row_length(result, length, validate=False)
        else:
            result = RaggedTensor.from_row_lengths(
                result, data.astype(splits_dtype.as_numpy_dtype), validate=False
            )
    if single:
        return result
    return RaggedTensor.from_row_lengths(
        result, inner.astype(splits_dtype.as_numpy_dtype), validate=False
    )


def _assemble(request, parsed, batch, single):
    feature = request.feature
    if isinstance(feature, FixedLenFeature):
        values, counts = parsed[0]
        return _dense(request, values, _np(counts), batch, single)
    if isinstance(feature, FixedLenSequenceFeature):
        values, counts = parsed[0]
        return _sequence(request, values, _np(counts), batch, single)
    if isinstance(feature, VarLenFeature):
        values, counts = parsed[0]
        return _sparse(values, _np(counts), batch, single)
    if isinstance(feature, SparseFeature):
        return _sparse_feature(request, [(v, _np(c)) for v, c in parsed], batch, single)
    return _ragged(request, [(v, _np(c)) for v, c in parsed], batch, single)


def _serialized_tensor(serialized):
    from ferroflow import convert_to_tensor

    t = convert_to_tensor(serialized, dtype=_dtypes.string)
    if t.shape.rank is not None and t.shape.rank > 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Expected serialized to be a scalar or vector, got shape: {_shape_text(t.shape)}",
        )
    return t


def _names(example_names, batch):
    if example_names is None:
        return []
    names = _np_strings(example_names)
    return names


def _np_strings(value):
    from ferroflow import convert_to_tensor

    t = convert_to_tensor(value, dtype=_dtypes.string)
    return [v.decode("utf-8", "replace") for v in np.asarray(t.numpy()).reshape(-1)]


def _uniform_tail(feature):
    """The lengths of a RaggedFeature's innermost uniform partitions (outermost first) and the
    number of partitions before them."""
    partitions = list(feature.partitions)
    tail = []
    while partitions and isinstance(partitions[-1], RaggedFeature.UniformRowLength):
        tail.insert(0, int(partitions.pop().length))
    return tail, len(partitions)


def _output_order(keys_and_features):
    """TensorFlow's dict order: sparse outputs, then dense, then ragged, each by key."""

    def rank(item):
        f = item[1]
        if isinstance(f, VarLenFeature):
            return 0
        if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            return 1
        # SparseFeatures are assembled from sparse outputs after the op, so they come later.
        return 2 if isinstance(f, SparseFeature) else 3

    return [k for k, _ in sorted(keys_and_features, key=lambda kf: (rank(kf), kf[0]))]


def _ordered(out, features):
    return {k: out[k] for k in _output_order(list(features.items()))}


def _parse_eager(serialized, requests, example_names):
    single = serialized.shape.rank == 0
    batch = 1 if single else int(serialized.shape[0])
    rows = [row for r in requests for row in r.rows]
    flat = _core.parse_example_flat(serialized, _names(example_names, batch), rows, single)
    out, at = {}, 0
    for r in requests:
        parsed = flat[at : at + len(r.rows)]
        at += len(r.rows)
        out[r.key] = _assemble(r, parsed, batch, single)
    return _ordered(out, {r.key: r.feature for r in requests})


def parse_example(serialized, features, example_names=None, name=None):
    """Parses a batch (a vector, or a scalar for one) of serialized ``tf.train.Example``
    records into a dict of dense tensors, SparseTensors and RaggedTensors.

    >>> import ferroflow as tf
    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
    >>> out = tf.io.parse_example([ex.SerializeToString()],
    ...                           {"x": tf.io.FixedLenFeature([2], tf.float32)})
    >>> out["x"].numpy().tolist()
    [[1.0, 2.0]]
    """
    requests = _requests(features)
    serialized = _serialized_tensor(serialized)
    if _tracing.tracing() or _core.is_symbolic(serialized):
        return _parse_traced(serialized, requests, example_names)
    return _parse_eager(serialized, requests, example_names)


def parse_single_example(serialized, features, example_names=None, name=None):
    """`parse_example` of one serialized Example (a scalar): outputs without the batch axis."""
    from ferroflow import convert_to_tensor

    serialized = convert_to_tensor(serialized, dtype=_dtypes.string)
    if serialized.shape.rank not in (None, 0):
        raise ValueError(f"serialized must be a scalar, got shape {serialized.shape}")
    return parse_example(serialized, features, example_names=example_names, name=name)


def _flatten(value):
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    if isinstance(value, RaggedTensor):
        return [value.flat_values, *value.nested_row_splits]
    return [value]


def _parse_traced(serialized, requests, example_names):
    """One host-call node that parses when the graph runs; outputs rebuilt around it."""
    from ferroflow import array_ops, script_ops
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    single = serialized.shape.rank == 0
    tout, builders = [], []
    for r in requests:
        f = r.feature
        dtype = _dtypes.as_dtype(f.dtype)
        if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            tout.append(dtype)
            builders.append((r, 1))
        elif isinstance(f, (VarLenFeature, SparseFeature)):
            tout += [_dtypes.int64, dtype, _dtypes.int64]
            builders.append((r, 3))
        else:
            levels = _uniform_tail(f)[1] + (0 if single else 1)
            tout += [dtype] + [f.row_splits_dtype] * levels
            builders.append((r, 1 + levels))

    def run(s):
        out = _parse_eager(s, requests, example_names)
        return [t for r in requests for t in _flatten(out[r.key])]

    flat = script_ops.py_function(run, [serialized], tout)
    if not isinstance(flat, (list, tuple)):
        flat = [flat]
    out, at = {}, 0
    for r, n in builders:
        part = list(flat[at : at + n])
        at += n
        f = r.feature
        if isinstance(f, FixedLenFeature):
            shape = [int(d) for d in f.shape]
            out[r.key] = array_ops.reshape(part[0], shape if single else [-1, *shape])
        elif isinstance(f, FixedLenSequenceFeature):
            shape = [int(d) for d in f.shape]
            out[r.key] = array_ops.reshape(part[0], [-1, *shape] if single else [-1, -1, *shape])
        elif isinstance(f, (VarLenFeature, SparseFeature)):
            rank = 1 if single else 2
            if isinstance(f, SparseFeature):
                size = f.size if isinstance(f.size, (list, tuple)) else [f.size]
                rank = len(size) + (0 if single else 1)
            indices = array_ops.reshape(part[0], [-1, rank])
            values = array_ops.reshape(part[1], [-1])
            dense_shape = array_ops.reshape(part[2], [rank])
            out[r.key] = SparseTensor(indices, values, dense_shape)
        else:
            values = array_ops.reshape(part[0], [-1, *_uniform_tail(f)[0]])
            splits = [array_ops.reshape(s, [-1]) for s in part[1:]]
            out[r.key] = (
                RaggedTensor.from_nested_row_splits(values, splits, validate=False)
                if splits
                else values
            )
    return _ordered(out, {r.key: r.feature for r in requests})


def _sequence_request(key, feature):
    """The Rust request of one feature list: each step checked as one feature."""
    if isinstance(feature, FixedLenSequenceFeature):
        shape = [int(d) for d in feature.shape]
        size = int(np.prod(shape, dtype=np.int64))
        name = _dtype_name(feature.dtype, "feature_list_dense_types")
        return (key, name, size, _shape_text(shape), None, not feature.allow_missing, True)
    if isinstance(feature, VarLenFeature):
        name = _dtype_name(feature.dtype, "feature_list_sparse_types")
        return (key, name, None, "", None, False, False)
    if isinstance(feature, RaggedFeature):
        if feature.partitions:
            raise errors.UnimplementedError(
                None, None, "RaggedFeature partitions in sequence_features are not supported"
            )
        name = _dtype_name(feature.dtype, "feature_list_ragged_value_types")
        return (feature.value_key or key, name, None, "", None, False, False)
    raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")


def _sequence_output(feature, values, steps, counts, batch, single):
    from ferroflow import array_ops, convert_to_tensor
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    steps = np.maximum(steps, 0)
    longest = int(steps.max()) if steps.size else 0
    if isinstance(feature, FixedLenSequenceFeature):
        shape = [int(d) for d in feature.shape]
        size = int(np.prod(shape, dtype=np.int64))
        dtype = _dtypes.as_dtype(feature.dtype)
        out_shape = [longest, *shape] if single else [batch, longest, *shape]
        if (steps == longest).all():
            return array_ops.reshape(values, out_shape)
        pad = feature.default_value
        if pad is None:
            pad = b"" if dtype == _dtypes.string else 0
        pad = convert_to_tensor(pad, dtype=dtype)
        pad_size = int(np.prod(pad.shape, dtype=np.int64)) if pad.shape.rank else 1
        starts = np.concatenate([[0], np.cumsum(steps * size)])[:-1].astype(np.int64)
        position = np.arange(longest * size, dtype=np.int64)
        filled = position[None, :] < (steps * size)[:, None]
        index = np.where(
            filled, starts[:, None] + position[None, :], len(values) + position[None, :] % pad_size
        )
        return _gather(values, pad, index.reshape(-1), out_shape)
    if isinstance(feature, VarLenFeature):
        counts = np.maximum(counts, 0)
        step_of = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        first_step = np.concatenate([[0], np.cumsum(steps)])[:-1].astype(np.int64)
        example_of_step = np.repeat(np.arange(batch, dtype=np.int64), steps)
        within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
            np.concatenate([[0], np.cumsum(counts)])[:-1].astype(np.int64), counts
        )
        b = example_of_step[step_of]
        t = step_of - first_step[b]
        widest = int(counts.max()) if counts.size else 0
        if single:
            indices = np.stack([t, within], axis=1).reshape(-1, 2)
            return SparseTensor(indices, values, np.array([longest, widest], np.int64))
        indices = np.stack([b, t, within], axis=1).reshape(-1, 3)
        return SparseTensor(indices, values, np.array([batch, longest, widest], np.int64))
    splits_dtype = feature.row_splits_dtype.as_numpy_dtype
    inner = RaggedTensor.from_row_lengths(
        values, np.maximum(counts, 0).astype(splits_dtype), validate=False
    )
    if single:
        return inner
    return RaggedTensor.from_row_lengths(inner, steps.astype(splits_dtype), validate=False)


def _parse_sequence_eager(serialized, context_features, sequence_features, example_names):
    single = serialized.shape.rank == 0
    batch = 1 if single else int(serialized.shape[0])
    context = [_Request(k, context_features[k]) for k in sorted(context_features or {})]
    for r in context:
        if isinstance(r.feature, (FixedLenSequenceFeature, SparseFeature)):
            raise ValueError(f"Unsupported context feature type for key '{r.key}'")
    seq_keys = sorted(sequence_features or {})
    lists = [_sequence_request(k, sequence_features[k]) for k in seq_keys]
    rows = [row for r in context for row in r.rows]
    c, lflat = _core.parse_sequence_example_flat(
        serialized, _names(example_names, batch), rows, lists
    )
    context_out, at = {}, 0
    for r in context:
        parsed = c[at : at + len(r.rows)]
        at += len(r.rows)
        context_out[r.key] = _assemble(r, parsed, batch, single)
    lists_out, lengths = {}, {}
    for key, (values, steps, counts) in zip(seq_keys, lflat):
        feature = sequence_features[key]
        steps_np, counts_np = _np(steps), _np(counts)
        lists_out[key] = _sequence_output(feature, values, steps_np, counts_np, batch, single)
        if isinstance(feature, FixedLenSequenceFeature):
            from ferroflow import convert_to_tensor

            n = np.maximum(steps_np, 0).astype(np.int64)
            lengths[key] = convert_to_tensor(n[0] if single else n)
    context_out = _ordered(context_out, dict(context_features or {}))
    lists_out = _ordered(lists_out, dict(sequence_features or {}))
    return context_out, lists_out, lengths


def _check_sequence_args(context_features, sequence_features):
    if not context_features and not sequence_features:
        raise ValueError("Must provide at least one context_feature or sequence_feature.")


def parse_sequence_example(
    serialized, context_features=None, sequence_features=None, example_names=None, name=None
):
    """Parses a vector of serialized ``tf.train.SequenceExample`` records: returns
    ``(context, feature_lists, feature_list_lengths)``."""
    _check_sequence_args(context_features, sequence_features)
    serialized = _serialized_tensor(serialized)
    if serialized.shape.rank != 1 and not _core.is_symbolic(serialized):
        raise ValueError(f"Input serialized must be a vector, got shape {serialized.shape}")
    if _tracing.tracing() or _core.is_symbolic(serialized):
        raise errors.UnimplementedError(
            None, None, "parse_sequence_example inside a traced function is not supported yet"
        )
    return _parse_sequence_eager(serialized, context_features, sequence_features, example_names)


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
):
    """`parse_sequence_example` of one scalar record: returns ``(context, feature_lists)``."""
    _check_sequence_args(context_features, sequence_features)
    serialized = _serialized_tensor(serialized)
    if serialized.shape.rank != 0 and not _core.is_symbolic(serialized):
        raise ValueError(f"Input serialized must be a scalar, got shape {serialized.shape}")
    if _tracing.tracing() or _core.is_symbolic(serialized):
        raise errors.UnimplementedError(
            None,
            None,
            "parse_single_sequence_example inside a traced function is not supported yet",
        )
    names = None if example_name is None else [example_name]
    context, lists, _ = _parse_sequence_eager(
        serialized, context_features, sequence_features, names
    )
    return context, lists


__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "SparseFeature",
    "VarLenFeature",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
]
