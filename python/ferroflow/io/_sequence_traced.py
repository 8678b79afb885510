"""`parse_sequence_example` and `parse_single_sequence_example` inside a trace (a `tf.function`,
a `Dataset.map`): one host-call node (`_host.run`) runs the eager parser each time the graph
runs and returns every output's components as a flat list; this module plans that list at trace
time from the features alone and rebuilds the dicts of Tensors, SparseTensors and RaggedTensors
from the node's outputs, with the static shapes TensorFlow's `ParseSequenceExampleV2` gives them.

One node for all outputs, as TensorFlow's one op: an error in any feature (a missing required
key, a malformed record) raises whichever of the outputs the graph uses.
"""

from __future__ import annotations

from ferroflow import dtypes as _dtypes

from . import _host, _parse_op
from ._features import FixedLenFeature, FixedLenSequenceFeature, RaggedFeature, VarLenFeature


class _Output:
    """One output of the parse: how many components it has, their dtypes and static shapes,
    and how to rebuild it. ``kind`` is "dense", "sparse" or "ragged"; a ragged output lists
    its partitions outermost first, each ``None`` (row splits) or a uniform row length."""

    def __init__(self, section, key, kind, dtypes, shapes, levels=(), splits_dtype=None):
        self.section, self.key, self.kind = section, key, kind
        self.dtypes, self.shapes = dtypes, shapes
        self.levels, self.splits_dtype = list(levels), splits_dtype


def _dense(section, key, dtype, shape):
    return _Output(section, key, "dense", [_dtypes.as_dtype(dtype)], [shape])


def _sparse(section, key, dtype, rank):
    shapes = [[None, rank], [None], [rank]]
    return _Output(
        section, key, "sparse", [_dtypes.int64, _dtypes.as_dtype(dtype), _dtypes.int64], shapes
    )


def _ragged(section, key, dtype, levels, inner, splits_dtype, batch):
    """A RaggedTensor of ``levels`` partitions over flat values of shape [None, *inner]; the
    outermost splits have batch + 1 entries when ``batch`` is given."""
    if not levels:  # one record's ragged feature without ragged partitions: a plain tensor
        return _dense(section, key, dtype, [None, *inner])
    splits_dtype = _dtypes.as_dtype(splits_dtype)
    dtypes = [_dtypes.as_dtype(dtype)] + [splits_dtype] * len(levels)
    outer = [None if batch is None else batch + 1]
    shapes = [[None, *inner], outer] + [[None]] * (len(levels) - 1)
    return _Output(section, key, "ragged", dtypes, shapes, levels, splits_dtype)


def _context_ragged(key, feature, single, batch):
    """`_parse_op._ragged`'s nesting, innermost partition first: a uniform length over values
    that are still dense reshapes them (an inner dimension of the flat values); any other
    partition, or a uniform one over ragged values, adds a level."""
    inner, levels = [], []
    for partition in reversed(feature.partitions):
        if isinstance(partition, RaggedFeature.UniformRowLength):
            if levels:
                levels.insert(0, int(partition.length))
            else:
                inner.insert(0, int(partition.length))
        else:
            levels.insert(0, None)
    if not single:
        levels.insert(0, None)
    return _ragged("context", key, feature.dtype, levels, inner, feature.row_splits_dtype, batch)


def _batched_rank(rank, value):
    """A batch's sparse rank, unknown (as TensorFlow's) when the records' rank is."""
    return None if rank is None else value


def _context_output(key, feature, single, rank, batch):
    if isinstance(feature, FixedLenFeature):
        shape = [int(d) for d in feature.shape]
        if single:
            return _dense("context", key, feature.dtype, shape)
        return _dense("context", key, feature.dtype, None if rank is None else [batch, *shape])
    if isinstance(feature, VarLenFeature):
        return _sparse("context", key, feature.dtype, 1 if single else _batched_rank(rank, 2))
    return _context_ragged(key, feature, single, batch)


def _list_output(key, feature, single, rank, batch):
    if isinstance(feature, FixedLenSequenceFeature):
        shape = [None, *(int(d) for d in feature.shape)]
        if single:
            return _dense("lists", key, feature.dtype, shape)
        return _dense("lists", key, feature.dtype, None if rank is None else [batch, *shape])
    if isinstance(feature, VarLenFeature):
        return _sparse("lists", key, feature.dtype, 2 if single else _batched_rank(rank, 3))
    levels = [None] if single else [None, None]
    return _ragged("lists", key, feature.dtype, levels, [], feature.row_splits_dtype, batch)


def _plan(serialized, context_features, sequence_features, single):
    """Every output, in the eager parser's dict orders (context, feature lists, lengths)."""
    rank = serialized.shape.rank
    batch = serialized.shape[0] if rank == 1 else None
    context = _parse_op._ordered(dict.fromkeys(context_features), context_features)
    lists = _parse_op._ordered(dict.fromkeys(sequence_features), sequence_features)
    plan = [_context_output(k, context_features[k], single, rank, batch) for k in context]
    plan += [_list_output(k, sequence_features[k], single, rank, batch) for k in lists]
    for key in sorted(sequence_features):
        if isinstance(sequence_features[key], FixedLenSequenceFeature):
            shape = [] if single else None if rank is None else [batch]
            plan.append(_dense("lengths", key, _dtypes.int64, shape))
    return plan


def _components(output, value):
    """The numpy components of one eager output, in the order `_Output` declares them."""
    if output.kind == "dense":
        return [value.numpy()]
    if output.kind == "sparse":
        return [value.indices.numpy(), value.values.numpy(), value.dense_shape.numpy()]
    splits = []
    for _ in output.levels:
        splits.append(value.row_splits.numpy())
        value = value.values
    return [value.numpy(), *splits]


def _rebuild(output, parts):
    from ferroflow import constant, size
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    if output.kind == "dense":
        return parts[0]
    if output.kind == "sparse":
        return SparseTensor(*parts)
    values, splits = parts[0], parts[1:]
    for level, row_splits in reversed(list(zip(output.levels, splits, strict=True))):
        if level is None:
            values = RaggedTensor.from_row_splits(values, row_splits, validate=False)
        else:
            length = constant(level, dtype=output.splits_dtype)
            nrows = size(row_splits, out_type=output.splits_dtype) - 1
            values = RaggedTensor.from_uniform_row_length(values, length, nrows, validate=False)
    return values


def parse(eager_parse, serialized, context_features, sequence_features, example_names, single):
    """``(context, feature_lists, lengths)`` of `serialized` (a traced string vector, or one
    record when ``single``) through one host-call node; ``eager_parse`` is the eager parser it
    runs on the records."""
    from ferroflow import convert_to_tensor

    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    plan = _plan(serialized, context_features, sequence_features, single)
    inputs = [serialized]
    if example_names is not None:
        inputs.append(convert_to_tensor(example_names, dtype=_dtypes.string))

    def host(records, *names):
        context, lists, lengths = eager_parse(
            convert_to_tensor(records, dtype=_dtypes.string),
            context_features,
            sequence_features,
            names[0] if names else None,
        )
        sections = {"context": context, "lists": lists, "lengths": lengths}
        return [c for o in plan for c in _components(o, sections[o.section][o.key])]

    dtypes = [d for o in plan for d in o.dtypes]
    shapes = [s for o in plan for s in o.shapes]
    flat = iter(_host.run(host, inputs, dtypes, shapes))
    out = {"context": {}, "lists": {}, "lengths": {}}
    for o in plan:
        out[o.section][o.key] = _rebuild(o, [next(flat) for _ in o.dtypes])
    return out["context"], out["lists"], out["lengths"]
