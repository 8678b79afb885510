"""`tf.io.parse_example` over the `ParseExampleV2` primitive (`src/ops/parse_example.rs`).

The Rust kernel parses the records and assembles every sparse, dense and ragged output, so a
parse is one graph node in a traced function (every `Dataset.map(parse_fn)`) and never takes the
GIL. As TensorFlow's `parsing_config` does, this module turns the feature dict into the op's
keys, types, shapes and defaults (`_Params`), and composes SparseFeatures and RaggedFeature
partitions (`_ragged_partitions`) from the op's outputs with ordinary ops, so they trace too.
"""

from __future__ import annotations

import json

from ferroflow import _core
from ferroflow import dtypes as _dtypes

from . import _ragged_partitions
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

    def __init__(self, features, feature_lists=False):
        """``feature_lists``: the features are a SequenceExample's feature lists (the op's
        attrs are named after them, and FixedLenFeature and SparseFeature are refused)."""
        if not features:
            raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
        if not isinstance(features, dict):
            raise TypeError(f"features must be a dict, got {type(features).__name__}")
        self.feature_lists = feature_lists
        self.sparse = {}  # key -> dtype name
        self.dense = []  # (key, dtype name, shape, default value, variable length)
        self.ragged = {}  # key -> (value dtype name, row splits dtype name)
        for key in sorted(features):
            self._add(key, features[key])
        self._check_disjoint()

    def _attr(self, name):
        return "feature_list_" + name if self.feature_lists else name

    def _add(self, key, feature):
        if self.feature_lists and isinstance(feature, FixedLenSequenceFeature):
            name = _dtype_name(feature.dtype, "feature_list_dense_types")
            shape = [int(d) for d in feature.shape]
            self.dense.append((key, name, shape, feature.default_value, True))
        elif self.feature_lists and not isinstance(feature, (VarLenFeature, RaggedFeature)):
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
        elif isinstance(feature, FixedLenFeature):
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
            self._add_sparse(key, _dtype_name(feature.dtype, self._attr("sparse_types")))
        elif isinstance(feature, SparseFeature):
            index_keys = feature.index_key
            if isinstance(index_keys, str):
                index_keys = [index_keys]
            for index_key in sorted(index_keys):
                self._add_sparse(index_key, "int64")
            self._add_sparse(feature.value_key, _dtype_name(feature.dtype, "sparse_types"))
        elif isinstance(feature, RaggedFeature):
            splits = feature.row_splits_dtype.name
            name = _dtype_name(feature.dtype, self._attr("ragged_value_types"))
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
    params = params or _Params(features)
    return composed(features, op_outputs(serialized, example_names, params))


def op_outputs(serialized, example_names, params):
    """The `ParseExampleV2` op's outputs by key: a SparseTensor per sparse key, a Tensor per
    dense key, per ragged key its values (one record) or a RaggedTensor [batch, (values)]."""
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

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
    for key, v, splits in zip(params.ragged, take(nr), take(nr), strict=True):
        tensors[key] = v if single else RaggedTensor.from_row_splits(v, splits, validate=False)
    return tensors


def composed(features, tensors):
    """The features' outputs from the op's outputs by key (``tensors``): SparseFeatures and
    RaggedFeatures built from their keys' outputs (all of them from the op's outputs, as
    TensorFlow's, when one feature's key is another's value key), in TensorFlow's order."""
    updates = {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            updates[key] = _sparse_merge(feature, tensors)
        elif isinstance(feature, RaggedFeature):
            updates[key] = _ragged_partitions.build(key, feature, tensors)
    tensors = {**tensors, **updates}
    return _ordered({k: tensors[k] for k in features}, features)


def _op_keys(features):
    """The parse op's keys in TensorFlow's order: sparse, dense, then ragged keys, each group
    in the order the features (sorted by key) name them, partition keys after value keys."""
    sparse, dense, ragged = {}, [], {}
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sparse[key] = None
        elif isinstance(f, SparseFeature):
            index_keys = [f.index_key] if isinstance(f.index_key, str) else f.index_key
            sparse.update(dict.fromkeys([*sorted(index_keys), f.value_key]))
        elif isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            dense.append(key)
        elif isinstance(f, RaggedFeature):
            ragged[f.value_key or key] = None
            partitions = [p for p in f.partitions if not isinstance(p, f.UniformRowLength)]
            ragged.update(dict.fromkeys(p.key for p in partitions))
    return [*sparse, *dense, *ragged]


def _ordered(out, features):
    """TensorFlow's dict order: a feature whose key is one of the op's keys where the op's
    outputs list it (`_op_keys`), then the features built from other keys' outputs, by key."""
    op_keys = _op_keys(features)
    position = {k: i for i, k in reversed(list(enumerate(op_keys)))}
    return {k: out[k] for k in sorted(out, key=lambda k: (position.get(k, len(op_keys)), k))}


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
