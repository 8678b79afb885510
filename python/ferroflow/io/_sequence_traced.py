"""`parse_sequence_example` and `parse_single_sequence_example` inside a trace (a `tf.function`,
a `Dataset.map`): one host-call node (`_host.run`) stands for TensorFlow's
`ParseSequenceExampleV2` op. Each time the graph runs it parses the records eagerly and returns
the op's outputs by key (every sparse, dense and ragged key of both sections, the partition
keys of RaggedFeatures included) as a flat list; this module plans that list at trace time from
the features alone, with the static shapes TensorFlow's op gives them, and rebuilds the
SparseTensors, Tensors and RaggedTensors. What TensorFlow's Python builds after its op (the
RaggedFeatures' partitions) the caller composes with ordinary ops in the graph, as TensorFlow.

One node for all outputs, as TensorFlow's one op: an error in any feature (a missing required
key, a malformed record) raises whichever of the outputs the graph uses.
"""

from __future__ import annotations

from ferroflow import dtypes as _dtypes

from . import _host


class _Output:
    """One output of the op: how many components it has, their dtypes and static shapes.
    ``kind`` is "dense", "sparse" or "ragged" (flat values, then row splits outermost
    first)."""

    def __init__(self, section, key, kind, dtypes, shapes):
        self.section, self.key, self.kind = section, key, kind
        self.dtypes, self.shapes = dtypes, shapes


def _dense(section, key, dtype, shape):
    return _Output(section, key, "dense", [_dtypes.as_dtype(dtype)], [shape])


def _sparse(section, key, dtype, rank):
    shapes = [[None, rank], [None], [rank]]
    return _Output(
        section, key, "sparse", [_dtypes.int64, _dtypes.as_dtype(dtype), _dtypes.int64], shapes
    )


def _ragged(section, key, dtype, splits_dtype, levels, batch):
    """Flat values of shape [None] under ``levels`` row splits; the outermost have batch + 1
    entries when ``batch`` is given and they are the batch's. One record's context values are
    a plain Tensor."""
    if not levels:
        return _dense(section, key, dtype, [None])
    splits_dtype = _dtypes.as_dtype(splits_dtype)
    outer = [None if batch is None else batch + 1]
    shapes = [[None], outer] + [[None]] * (levels - 1)
    dtypes = [_dtypes.as_dtype(dtype)] + [splits_dtype] * levels
    return _Output(section, key, "ragged", dtypes, shapes)


def _batched_rank(rank, value):
    """A batch's sparse rank, unknown (as TensorFlow's) when the records' rank is."""
    return None if rank is None else value


def _context_outputs(params, single, rank, batch):
    if params is None:
        return []
    plan = [
        _sparse("context", key, dtype, 1 if single else _batched_rank(rank, 2))
        for key, dtype in params.sparse.items()
    ]
    for key, dtype, shape, _default, _variable in params.dense:
        if not single:
            shape = None if rank is None else [batch, *shape]
        plan.append(_dense("context", key, dtype, shape))
    for key, (dtype, splits) in params.ragged.items():
        plan.append(_ragged("context", key, dtype, splits, 0 if single else 1, batch))
    return plan


def _list_outputs(params, single, rank, batch):
    if params is None:
        return []
    plan = [
        _sparse("lists", key, dtype, 2 if single else _batched_rank(rank, 3))
        for key, dtype in params.sparse.items()
    ]
    for key, dtype, shape, _default, _variable in params.dense:
        shape = [None, *shape]
        if not single:
            shape = None if rank is None else [batch, *shape]
        plan.append(_dense("lists", key, dtype, shape))
    for key, *_ in params.dense:
        length_shape = [] if single else None if rank is None else [batch]
        plan.append(_dense("lengths", key, _dtypes.int64, length_shape))
    for key, (dtype, splits) in params.ragged.items():
        levels = 1 if single else 2
        plan.append(_ragged("lists", key, dtype, splits, levels, None if single else batch))
    return plan


def _components(output, value):
    """The numpy components of one eager output, in the order `_Output` declares them."""
    if output.kind == "dense":
        return [value.numpy()]
    if output.kind == "sparse":
        return [value.indices.numpy(), value.values.numpy(), value.dense_shape.numpy()]
    return [value.flat_values.numpy(), *(s.numpy() for s in value.nested_row_splits)]


def _rebuild(output, parts):
    from ferroflow.ragged.ragged_tensor import RaggedTensor
    from ferroflow.sparse_tensor import SparseTensor

    if output.kind == "dense":
        return parts[0]
    if output.kind == "sparse":
        return SparseTensor(*parts)
    return RaggedTensor.from_nested_row_splits(parts[0], parts[1:], validate=False)


def op_outputs(eager_outputs, serialized, features, params, example_names, single):
    """The op's ``(context, feature_lists, lengths)`` outputs by key for `serialized` (a
    traced string vector, or one record when ``single``) through one host-call node.
    ``features``: the context and sequence features; ``params``: their `_parse_op._Params`
    (None for an empty section); ``eager_outputs``: the eager function that gives the
    outputs for the records."""
    from ferroflow import convert_to_tensor

    context_features, sequence_features = features
    context_params, list_params = params
    rank = serialized.shape.rank
    batch = serialized.shape[0] if rank == 1 else None
    plan = _context_outputs(context_params, single, rank, batch)
    plan += _list_outputs(list_params, single, rank, batch)
    inputs = [serialized]
    if example_names is not None:
        inputs.append(convert_to_tensor(example_names, dtype=_dtypes.string))

    def host(records, *names):
        sections = eager_outputs(
            convert_to_tensor(records, dtype=_dtypes.string),
            context_features,
            sequence_features,
            names[0] if names else None,
        )
        sections = dict(zip(("context", "lists", "lengths"), sections, strict=True))
        return [c for o in plan for c in _components(o, sections[o.section][o.key])]

    dtypes = [d for o in plan for d in o.dtypes]
    shapes = [s for o in plan for s in o.shapes]
    flat = iter(_host.run(host, inputs, dtypes, shapes))
    out = {"context": {}, "lists": {}, "lengths": {}}
    for o in plan:
        out[o.section][o.key] = _rebuild(o, [next(flat) for _ in o.dtypes])
    return out["context"], out["lists"], out["lengths"]
