"""`tf.io.parse_example`, `parse_single_example`, `parse_sequence_example` and
`parse_single_sequence_example`.

Examples parse through the `ParseExampleV2` primitive (`_parse_op.py`): one graph node, eager or
traced. SequenceExamples: the context features through the same op (a SequenceExample's context
is an Example's features field), the feature lists decoded in Rust
(``_core.parse_sequence_example_flat``: each list's values flattened with per-step counts) and
assembled here into what TensorFlow's `ParseSequenceExampleV2` outputs per key. Traced, those
outputs come from one host-call node that runs this eager code (`_sequence_traced.py`). Either
way RaggedFeatures are then partitioned by their partition keys' outputs with ordinary ops
(`_ragged_partitions.py`), as TensorFlow's Python does after its op.
"""

from __future__ import annotations

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes

from . import _parse_op, _sequence_traced
from ._features import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
)


def _shape_text(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _np(t):
    return np.asarray(t.numpy())


def _gather(values, extra, index, shape):
    """``concat([values, extra])[index]`` reshaped: dense outputs with defaults or padding."""
    from ferroflow import array_ops

    pool = (
        array_ops.concat([values, array_ops.reshape(extra, [-1])], 0)
        if extra is not None
        else values
    )
    return array_ops.reshape(array_ops.gather(pool, index.astype(np.int64)), shape)


def _serialized_tensor(serialized):
    from ferroflow import convert_to_tensor

    t = convert_to_tensor(serialized)
    if t.dtype != _dtypes.string:
        raise TypeError(
            f"Input 'serialized' of 'ParseExampleV2' Op has type {t.dtype.name} that does not "
            "match expected type of string."
        )
    if t.shape.rank is not None and t.shape.rank > 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Expected serialized to be a scalar or vector, got shape: {_shape_text(t.shape)}",
        )
    return t


def _names(example_names):
    """The records' names as Python strings, for the feature lists' error messages."""
    from ferroflow import convert_to_tensor

    if example_names is None:
        return []
    t = convert_to_tensor(example_names, dtype=_dtypes.string)
    return [v.decode("utf-8", "replace") for v in np.asarray(t.numpy()).reshape(-1)]


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
    params = _parse_op._Params(features)  # the features' errors come before the records'
    serialized = _serialized_tensor(serialized)
    return _parse_op.parse(serialized, features, example_names, params)


def parse_single_example(serialized, features, example_names=None, name=None):
    """`parse_example` of one serialized Example (a scalar): outputs without the batch axis."""
    from ferroflow import convert_to_tensor

    serialized = convert_to_tensor(serialized, dtype=_dtypes.string)
    if serialized.shape.rank not in (None, 0):
        raise ValueError(f"serialized must be a scalar, got shape {serialized.shape}")
    return parse_example(serialized, features, example_names=example_names, name=name)


def _sequence_params(context_features, sequence_features):
    """The op parameters (`_parse_op._Params`, None for an empty section) of the context and
    of the feature lists, with the checks TensorFlow's Python makes before reading a record."""
    _check_context(context_features)
    context = _parse_op._Params(context_features) if context_features else None
    lists = None
    if sequence_features:
        lists = _parse_op._Params(sequence_features, feature_lists=True)
        for key, _dtype, _shape, default, _variable in lists.dense:
            if default is not None:  # TensorFlow pads feature lists with zeros only
                raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
    return context, lists


def _sequence_requests(params, sequence_features):
    """The Rust requests of the feature lists' keys, in the op's order (sparse, dense, ragged):
    each step checked as one feature."""
    if params is None:
        return []
    requests = [(key, name, None, "", None, False, False) for key, name in params.sparse.items()]
    for key, name, shape, _default, _variable in params.dense:
        size = int(np.prod(shape, dtype=np.int64))
        required = not sequence_features[key].allow_missing
        requests.append((key, name, size, _shape_text(shape), None, required, True))
    for key, (name, _splits) in params.ragged.items():
        requests.append((key, name, None, "", None, False, False))
    return requests


def _ragged_list(values, steps, counts, splits_dtype, single):
    """A ragged key's feature list as the op gives it: [(steps), (values)] for one record,
    [batch, (steps), (values)] for a batch."""
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    splits_dtype = _dtypes.as_dtype(splits_dtype).as_numpy_dtype
    lists = RaggedTensor.from_row_lengths(
        values, np.maximum(counts, 0).astype(splits_dtype), validate=False
    )
    if single:
        return lists
    return RaggedTensor.from_row_lengths(
        lists, np.maximum(steps, 0).astype(splits_dtype), validate=False
    )


def _sequence_output(feature, values, steps, counts, batch, single):
    """A FixedLenSequenceFeature's (padded dense) or a VarLenFeature's (sparse) output."""
    from ferroflow import array_ops, convert_to_tensor
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


def _check_context(context_features):
    for key, feature in context_features.items():
        if isinstance(feature, (FixedLenSequenceFeature, SparseFeature)):
            raise ValueError(f"Unsupported context feature type for key '{key}'")


def _check_empty_batch(context_features):
    """TensorFlow's kernel counts a required context feature's values over the records: an
    empty batch has none, fewer than the feature's shape holds, and it refuses the batch."""
    for key in sorted(context_features):
        feature = context_features[key]
        if isinstance(feature, FixedLenFeature) and feature.default_value is None:
            size = int(np.prod([int(d) for d in feature.shape], dtype=np.int64))
            if size:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Inconsistent max number of elements for feature {key}: expected {size}, "
                    "but found 0",
                )


def _parse_sequence_eager(serialized, context_features, sequence_features, example_names):
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    outputs = _sequence_op_outputs(serialized, context_features, sequence_features, example_names)
    return _composed(context_features, sequence_features, *outputs)


def _composed(context_features, sequence_features, context, lists, lengths):
    """``(context, feature_lists, lengths)`` from the op's outputs by key, RaggedFeatures
    partitioned, as TensorFlow's Python builds them after its op (context first)."""
    context = _parse_op.composed(context_features, context) if context_features else {}
    lists = _parse_op.composed(sequence_features, lists) if sequence_features else {}
    return context, lists, lengths


def _sequence_op_outputs(serialized, context_features, sequence_features, example_names):
    """TensorFlow's `ParseSequenceExampleV2` outputs by key: the context's (as
    `_parse_op.op_outputs`), the feature lists' (a padded Tensor per dense key, a SparseTensor
    per sparse key, a RaggedTensor [(steps), (values)] or [batch, (steps), (values)] per ragged
    key) and the dense keys' lengths."""
    single = serialized.shape.rank == 0
    batch = 1 if single else int(serialized.shape[0])
    context_params, list_params = _sequence_params(context_features, sequence_features)
    if batch == 0:
        _check_empty_batch(context_features)
    requests = _sequence_requests(list_params, sequence_features)
    # The lists first: they decode each record as a SequenceExample (TensorFlow's message for
    # a record that is not one); the context is then the records' Example `features` field.
    _, lflat = _core.parse_sequence_example_flat(serialized, _names(example_names), [], requests)
    context = {}
    if context_features:
        context = _parse_op.op_outputs(serialized, example_names, context_params)
    lists, lengths = {}, {}
    for request, (values, steps, counts) in zip(requests, lflat, strict=True):
        key = request[0]
        steps_np, counts_np = _np(steps), _np(counts)
        if key in list_params.ragged:
            splits_dtype = list_params.ragged[key][1]
            lists[key] = _ragged_list(values, steps_np, counts_np, splits_dtype, single)
            continue
        feature = sequence_features[key]
        lists[key] = _sequence_output(feature, values, steps_np, counts_np, batch, single)
        if isinstance(feature, FixedLenSequenceFeature):
            from ferroflow import convert_to_tensor

            n = np.maximum(steps_np, 0).astype(np.int64)
            lengths[key] = convert_to_tensor(n[0] if single else n)
    return context, lists, dict(sorted(lengths.items()))


def _check_sequence_args(context_features, sequence_features):
    if not context_features and not sequence_features:
        raise ValueError("Must provide at least one context_feature or sequence_feature.")


def _parse_sequence_traced(
    serialized, context_features, sequence_features, example_names, single=False
):
    """The traced parse, after the checks the eager parser makes before reading any record:
    a trace reports them when it is built, as TensorFlow's Python does."""
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    params = _sequence_params(context_features, sequence_features)
    if serialized.shape.rank is None and any(p is not None and p.ragged for p in params):
        raise ValueError("serialized must have statically-known rank to parse ragged features.")
    single = single or serialized.shape.rank == 0
    features = (context_features, sequence_features)
    outputs = _sequence_traced.op_outputs(
        _sequence_op_outputs, serialized, features, params, example_names, single
    )
    return _composed(*features, *outputs)


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
        return _parse_sequence_traced(
            serialized, context_features, sequence_features, example_names
        )
    return _parse_sequence_eager(serialized, context_features, sequence_features, example_names)


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
):
    """`parse_sequence_example` of one scalar record: returns ``(context, feature_lists)``."""
    _check_sequence_args(context_features, sequence_features)
    serialized = _serialized_tensor(serialized)
    if serialized.shape.rank not in (0, None):
        raise ValueError(f"Input serialized must be a scalar, got shape {serialized.shape}")
    names = None if example_name is None else [example_name]
    if _tracing.tracing() or _core.is_symbolic(serialized):
        context, lists, _ = _parse_sequence_traced(
            serialized, context_features, sequence_features, names, single=True
        )
    else:
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
