"""`tf.io.parse_example` over the `ParseExampleV2` primitive (`src/ops/parse_example.rs`).

The Rust kernel parses the records and assembles every sparse, dense and ragged output, so a
parse is one graph node in a traced function (every `Dataset.map(parse_fn)`) and never takes the
GIL. As TensorFlow's `parsing_config` does, this module turns the feature dict into the op's
keys, types, shapes and defaults (`_Params`), and composes SparseFeature and RaggedFeature
partitions from the op's outputs with ordinary ops, so they trace too.
"""

from __future__ import annotations

import json

from ferroflow import _core
from ferroflow import dtypes as _dtypes

from ._features import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    _dtype_name,
)


class _Params:
    """TensorFlow's ParseOpParams: the op's sparse, dense and ragged keys with their types,
    dense shapes and defaults, read from the features in sorted key order."""

    def __init__(self, features):
        if not features:
            raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
        if not isinstance(features, dict):
            raise TypeError(f"features must be a dict, got {type(features).__name__}")
        self.sparse = {}  # key -> dtype name
        self.dense = []  # (key, dtype name, shape, default value, variable length)
        self.ragged = {}  # key -> (value dtype name, row splits dtype name)
        for key in sorted(features):
            self._add(key, features[key])
        self._check_disjoint()

    def _add(self, key, feature):
        if isinstance(feature, FixedLenFeature):
            shape = list(feature.shape)
            if any(d is None or int(d) < 0 for d in shape):
                raise ValueError(
                    f"All dimensions of shape for feature {key} need to be known but received "
                    f"{feature.shape!s}."
                )
            name = _dtype_name(feature.dtype, "Tdense")
            self.dense.append((key, name, [int(d) for d in shape], feature.default_value, False))
        elif isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            name = _dtype_name(feature.dtype, "Tdense")
            shape = [int(d) for d in feature.shape]
            self.dense.append((key, name, shape, feature.default_value, True))
        elif isinstance(feature, VarLenFeature):
            self._add_sparse(key, _dtype_name(feature.dtype, "sparse_types"))
        elif isinstance(feature, SparseFeature):
            index_keys = feature.index_key
            if isinstance(index_keys, str):
                index_keys = [index_keys]
            for index_key in sorted(index_keys):
                self._add_sparse(index_key, "int64")
            self._add_sparse(feature.value_key, _dtype_name(feature.dtype, "sparse_types"))
        elif isinstance(feature, RaggedFeature):
            splits = feature.row_splits_dtype.name
            name = _dtype_name(feature.dtype, "ragged_value_types")
            self._add_ragged(feature.value_key or key, name, splits)
            for p in feature.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    self._add_ragged(p.key, "int64", splits)
        else:
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")

    def _add_sparse(self, key, dtype):
        original = self.sparse.setdefault(key, dtype)
        if original != dtype:
            raise ValueError(
                f"Conflicting type {_dtypes.as_dtype(original)!r} vs "
                f"{_dtypes.as_dtype(dtype)!r} for feature {key}."
            )

    def _add_ragged(self, key, dtype, splits):
        original, original_splits = self.ragged.setdefault(key, (dtype, splits))
        if original != dtype:
            raise ValueError(
                f"Conflicting type {_dtypes.as_dtype(original)!r} vs "
                f"{_dtypes.as_dtype(dtype)!r} for feature {key}."
            )
        if original_splits != splits:
            raise ValueError(
                f"Conflicting partition type {_dtypes.as_dtype(original_splits)!r} vs "
                f"{_dtypes.as_dtype(splits)!r} for feature {key}."
            )

    def _check_disjoint(self):
        """TensorFlow's op takes dense, sparse and ragged keys apart: one key in two is refused."""
        groups = {
            "dense": [d[0] for d in self.dense],
            "sparse": list(self.sparse),
            "ragged": list(self.ragged),
        }
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

    def defaults(self):
        """One default per dense key, as TensorFlow builds them: an empty tensor for a required
        key, the value reshaped to the key's shape, or a scalar padding value for a
        variable-length key (zero or the empty string when none is given)."""
        from ferroflow import array_ops, constant, convert_to_tensor

        out = []
        for _key, dtype, shape, default, variable in self.dense:
            if variable:
                if default is None:
                    default = b"" if dtype == "string" else 0
                out.append(array_ops.reshape(convert_to_tensor(default, dtype=dtype), []))
            elif default is None:
                out.append(constant([], dtype=dtype))
            else:
                out.append(array_ops.reshape(convert_to_tensor(default, dtype=dtype), shape))
        return out

    def attrs(self):
        return {
            "sparse_keys": list(self.sparse),
            "sparse_types": list(self.sparse.values()),
            "dense_keys": [d[0] for d in self.dense],
            "Tdense": [d[1] for d in self.dense],
            "dense_shapes": [([-1] if d[4] else []) + d[2] for d in self.dense],
            "ragged_keys": list(self.ragged),
            "ragged_value_types": [v for v, _ in self.ragged.values()],
            "ragged_split_types": [s for _, s in self.ragged.values()],
        }


def _names(example_names, single):
    from ferroflow import array_ops, constant, convert_to_tensor

    if example_names is None or single:
        return constant([], dtype=_dtypes.string)
    return array_ops.reshape(convert_to_tensor(example_names, dtype=_dtypes.string), [-1])


def parse(serialized, features, example_names, params=None):
    """The parsed features of `serialized` (a string scalar or vector tensor), in
    TensorFlow's dict order (`params`: the features' `_Params`, when already built)."""
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    params = params or _Params(features)
    single = serialized.shape.rank == 0
    inputs = [serialized, _names(example_names, single), *params.defaults()]
    outputs = iter(_core.raw_op("ParseExampleV2", inputs, json.dumps(params.attrs())))

    def take(n):
        return [next(outputs) for _ in range(n)]

    ns, nd, nr = len(params.sparse), len(params.dense), len(params.ragged)
    indices, values, shapes = take(ns), take(ns), take(ns)
    tensors = {
        key: SparseTensor(i, v, s)
        for key, i, v, s in zip(params.sparse, indices, values, shapes, strict=True)
    }
    tensors.update((d[0], v) for d, v in zip(params.dense, take(nd), strict=True))
    raw = dict(zip(params.ragged, zip(take(nr), take(nr), strict=True), strict=True))
    for key, (v, splits) in raw.items():
        tensors[key] = v if single else RaggedTensor.from_row_splits(v, splits, validate=False)
    updates = {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            updates[key] = _sparse_merge(feature, tensors)
        elif isinstance(feature, RaggedFeature) and feature.partitions:
            updates[key] = _ragged(key, feature, raw, single)
        elif isinstance(feature, RaggedFeature):
            updates[key] = tensors[feature.value_key or key]
    tensors.update(updates)
    return _ordered({k: tensors[k] for k in features}, features)


def _ordered(out, features):
    """TensorFlow's dict order: sparse outputs, then dense, then ragged outputs, each by key,
    then the features built from other keys' outputs (SparseFeatures, and RaggedFeatures
    reading another key's values), by key."""

    def rank(key):
        f = features[key]
        if isinstance(f, VarLenFeature):
            return 0
        if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            return 1
        if isinstance(f, SparseFeature) or f.value_key not in (None, key):
            return 3
        return 2

    return {k: out[k] for k in sorted(out, key=lambda k: (rank(k), k))}


def _sparse_merge(feature, tensors):
    """TensorFlow's `sparse_merge`: the index features' values become the last columns of the
    value feature's indices, reordered unless `already_sorted`."""
    import ferroflow as tf
    from ferroflow.sparse_tensor import SparseTensor

    index_keys = feature.index_key
    if isinstance(index_keys, str):
        index_keys, sizes = [index_keys], [feature.size]
    else:
        sizes = list(feature.size)
    ids = [tensors[k] for k in index_keys]
    values = tensors[feature.value_key]
    columns = [tf.expand_dims(sp.values, 1) for sp in ids]
    indices = tf.concat([ids[0].indices[:, :-1], *columns], 1)
    sizes = tf.stack([tf.cast(s, tf.int64) for s in sizes])
    shape = tf.concat([ids[0].dense_shape[:-1], sizes], 0)
    result = SparseTensor(indices, values.values, shape)
    if feature.already_sorted:
        return result
    ordered = tf.sparse.reorder(result)
    return SparseTensor(ordered.indices, ordered.values, shape)


def _ragged(key, feature, raw, single):
    """A RaggedFeature's value feature nested by its partitions, innermost first."""
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    splits_dtype = feature.row_splits_dtype
    values, splits = raw[feature.value_key or key]
    for partition in reversed(feature.partitions):
        if single:
            values = _partition(values, partition, raw, splits_dtype, feature.validate)
        else:
            values, splits = _batched_partition(
                values, splits, partition, raw, splits_dtype, feature.validate
            )
    if single:
        return values
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _uniform(values, length, splits_dtype, validate):
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    if isinstance(values, RaggedTensor):
        length = tf.constant(length, dtype=splits_dtype)
        return RaggedTensor.from_uniform_row_length(values, length, validate=validate)
    return tf.reshape(values, tf.concat([[-1, length], tf.shape(values)[1:]], 0))


def _partition(values, partition, raw, splits_dtype, validate):
    """One example's values partitioned by one partition feature."""
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor as R

    if isinstance(partition, RaggedFeature.UniformRowLength):
        return _uniform(values, partition.length, splits_dtype, validate)
    p = tf.cast(raw[partition.key][0], splits_dtype)
    build = {
        RaggedFeature.RowSplits: R.from_row_splits,
        RaggedFeature.RowLengths: R.from_row_lengths,
        RaggedFeature.RowStarts: R.from_row_starts,
        RaggedFeature.RowLimits: R.from_row_limits,
        RaggedFeature.ValueRowIds: R.from_value_rowids,
    }[type(partition)]
    return build(values, p, validate=validate)


def _batched_partition(values, splits, partition, raw, splits_dtype, validate):
    """A batch's values (rows of `splits` per example) partitioned by one partition feature,
    each example by its own partition values: returns the new values and batch splits."""
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor as R

    if isinstance(partition, RaggedFeature.UniformRowLength):
        length = int(partition.length)
        return _uniform(values, length, splits_dtype, validate), splits // length
    p, p_splits = raw[partition.key]
    p, p_splits = tf.cast(p, splits_dtype), tf.cast(p_splits, splits_dtype)
    lengths = p_splits[1:] - p_splits[:-1]
    if isinstance(partition, RaggedFeature.RowSplits):
        # Each example's splits without their leading 0 are its row limits.
        within = tf.range(tf.size(p, out_type=splits_dtype), dtype=splits_dtype)
        keep = within - tf.repeat(p_splits[:-1], lengths) > 0
        p = tf.boolean_mask(p, keep)
        lengths = tf.maximum(lengths - 1, 0)
        p_splits = tf.concat([tf.zeros([1], splits_dtype), tf.cumsum(lengths)], 0)
    starts = tf.repeat(splits[:-1], lengths)
    if isinstance(partition, (RaggedFeature.RowSplits, RaggedFeature.RowLimits)):
        return R.from_row_limits(values, p + starts, validate=validate), p_splits
    if isinstance(partition, RaggedFeature.RowStarts):
        return R.from_row_starts(values, p + starts, validate=validate), p_splits
    if isinstance(partition, RaggedFeature.RowLengths):
        return R.from_row_lengths(values, p, validate=validate), p_splits
    # ValueRowIds: each example's rows are its largest row id + 1.
    batch = tf.size(lengths)
    example = tf.repeat(tf.range(batch), lengths)
    rows = tf.maximum(tf.math.unsorted_segment_max(p + 1, example, batch), 0)
    offsets = tf.repeat(tf.cumsum(rows, exclusive=True), lengths)
    inner = R.from_value_rowids(values, p + offsets, nrows=tf.reduce_sum(rows), validate=validate)
    return inner, tf.concat([tf.zeros([1], splits_dtype), tf.cumsum(rows)], 0)
