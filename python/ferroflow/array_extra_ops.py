"""Top-level array names TensorFlow implements as kernels and ferroflow composes from its
primitives, so they trace, run on every device and differentiate through their parts (with
TensorFlow's gradient stated by `custom_gradient` where it differs): `dynamic_partition`,
`dynamic_stitch`, `tensor_scatter_nd_min/max`, `space_to_batch(_nd)`, `batch_to_space`,
`required_space_to_batch_paddings`, `histogram_fixed_width_bins`, `parallel_stack`, `case`,
`vectorized_map`, `guarantee_const`. `bitcast`, `random_index_shuffle` and `edit_distance` call
their Rust primitives (TensorFlow's Bitcast, RandomIndexShuffle and EditDistance kernels)."""

import builtins
import json

import numpy as np

from ferroflow import _core, _tracing, control_flow
from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow.array_ops import (
    argsort,
    boolean_mask,
    cast,
    concat,
    constant,
    convert_to_tensor,
    gather,
    gather_nd,
    identity,
    ones_like,
    pad,
    range,
    reshape,
    scatter_nd,
    shape,
    stack,
    transpose,
    where,
)
from ferroflow.backprop import custom_gradient
from ferroflow.errors import InvalidArgumentError

builtins_range = builtins.range  # `range` here is TensorFlow's

__all__ = [
    "batch_to_space",
    "bitcast",
    "case",
    "dynamic_partition",
    "dynamic_stitch",
    "edit_distance",
    "guarantee_const",
    "histogram_fixed_width_bins",
    "parallel_stack",
    "random_index_shuffle",
    "required_space_to_batch_paddings",
    "space_to_batch",
    "space_to_batch_nd",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "vectorized_map",
]


def _known(t):
    """The value of `t` as numpy when it is known now (eager, or a trace constant), else None."""
    if isinstance(t, _core.Tensor) and _core.is_symbolic(t):
        return None
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


# --- partition and stitch -------------------------------------------------------------------


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors by the partition index of each of its
    leading entries (``partitions`` has the leading shape of ``data``)."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions, dtype=_dtypes.int32)
    if not isinstance(num_partitions, int) or isinstance(num_partitions, bool):
        raise TypeError(f"Expected int for argument 'num_partitions' not {num_partitions!r}.")
    if num_partitions < 1:
        raise InvalidArgumentError(
            None, None, f"num_partitions must be at least 1, got {num_partitions}"
        )
    rank = len(partitions.shape)
    if list(data.shape[:rank]) != list(partitions.shape):
        raise InvalidArgumentError(
            None,
            None,
            f"data.shape must start with partitions.shape, got data.shape = {data.shape}, "
            f"partitions.shape = {partitions.shape}",
        )
    known = _known(partitions)
    if known is not None:
        bad = np.flatnonzero((known.reshape(-1) < 0) | (known.reshape(-1) >= num_partitions))
        if bad.size:
            k = int(bad[0])
            raise InvalidArgumentError(
                None,
                None,
                f"partitions[{k}] = {int(known.reshape(-1)[k])} is not in [0, {num_partitions}) "
                "[Op:DynamicPartition]",
            )
    return [boolean_mask(data, _math.equal(partitions, p)) for p in builtins_range(num_partitions)]


def dynamic_stitch(indices, data, name=None):
    """Interleaves ``data`` into one tensor: ``merged[indices[m][i]] = data[m][i]``; where an
    index repeats, the later value wins (TensorFlow's CPU kernel order), gaps are zeros. Every
    value gets the gradient at its index, as TensorFlow's rule gives."""
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError("Expected list for 'indices' and 'data' arguments to 'dynamic_stitch' Op")
    if len(indices) != len(data):
        raise ValueError(
            f"List argument 'data' to 'dynamic_stitch' Op with length {len(data)} must match "
            f"length {len(indices)} of argument 'indices'."
        )
    indices = [convert_to_tensor(i, dtype=_dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    inner = list(data[0].shape[len(indices[0].shape) :]) if data else []
    flat_index = concat([reshape(i, [-1]) for i in indices], 0)
    flat_data = [reshape(d, [-1, *inner]) for d in data]

    @custom_gradient
    def stitch(*parts):
        values = concat(list(parts), 0)
        size = _math.reduce_max(concat([flat_index, [-1]], 0)) + 1
        target = concat([reshape(size, [1]), constant(inner, dtype=_dtypes.int32)], 0)
        merged = _last_wins(flat_index, values, target)

        def grad(upstream):
            return [gather(upstream, reshape(i, [-1])) for i in indices]

        return merged, grad

    out = stitch(*flat_data)
    return out


def _last_wins(flat_index, values, target):
    """A scatter of ``values`` to rows ``flat_index`` where the last of repeated rows wins."""
    count = shape(flat_index, _dtypes.int64)[0]
    key = cast(flat_index, _dtypes.int64) * count + range(count, dtype=_dtypes.int64)
    order = argsort(key)
    sorted_index = gather(flat_index, order)
    last = _math.not_equal(sorted_index, concat([sorted_index[1:], [-1]], 0))
    kept = boolean_mask(order, last)
    rows = reshape(gather(flat_index, kept), [-1, 1])
    return scatter_nd(rows, gather(values, kept), target)


# --- scatter min / max ----------------------------------------------------------------------


def _scatter_extreme(tensor, indices, updates, largest):
    tensor, indices = convert_to_tensor(tensor), convert_to_tensor(indices)
    updates = convert_to_tensor(updates, dtype_hint=tensor.dtype)
    depth = indices.shape[-1]
    known = _known(indices)
    dims = list(tensor.shape)
    if known is not None and known.size:
        rows = known.reshape(-1, depth)
        for r, row in enumerate(rows):
            if any(v < 0 or v >= d for v, d in zip(row, dims)):
                raise InvalidArgumentError(
                    None,
                    None,
                    f"indices[{r}] = [{', '.join(map(str, row))}] does not index into shape "
                    f"[{','.join(map(str, dims))}] [Op:TensorScatter{'Max' if largest else 'Min'}]",
                )

    @custom_gradient
    def scatter(tensor, updates):
        output = _extreme_into(tensor, indices, updates, largest)

        def grad(upstream):
            # TensorFlow's rule: the gradient is shared among the inputs equal to the output.
            x_hit = cast(_math.equal(tensor, output), upstream.dtype)
            y_hit = cast(_math.equal(updates, gather_nd(output, indices)), upstream.dtype)
            count = x_hit + scatter_nd(indices, y_hit, shape(tensor, indices.dtype))
            return upstream * x_hit / count, gather_nd(upstream / count, indices) * y_hit

        return output, grad

    return scatter(tensor, updates)


def _extreme_into(tensor, indices, updates, largest):
    """``tensor`` with each element combined (min or max) with every update landing on it."""
    depth = indices.shape[-1]
    rows = reshape(indices, [-1, depth])
    dims = shape(tensor, _dtypes.int64)
    strides = _math.cumprod(dims[:depth], exclusive=True, reverse=True)
    place = _math.reduce_sum(cast(rows, _dtypes.int64) * strides, axis=1)
    inner = dims[depth:]
    inner_size = _math.reduce_prod(inner)
    # One entry per updated element: its flat position in `tensor` and its value.
    position = reshape(place[:, None] * inner_size + range(inner_size)[None, :], [-1])
    values = reshape(updates, [-1])
    # Order by value (descending for max), then stably by position: each position's first entry
    # is its extreme update.
    by_value = argsort(values, direction="DESCENDING" if largest else "ASCENDING", stable=True)
    by_position = gather(by_value, argsort(gather(position, by_value), stable=True))
    sorted_position = gather(position, by_position)
    before = concat([constant([-1], dtype=_dtypes.int64), sorted_position[:-1]], 0)
    first = _math.not_equal(sorted_position, before)
    chosen = boolean_mask(by_position, first)
    total = _math.reduce_prod(dims)
    flat_target = reshape(total, [1])
    picked = reshape(gather(position, chosen), [-1, 1])
    best = scatter_nd(picked, gather(values, chosen), flat_target)
    hit = scatter_nd(picked, ones_like(gather(values, chosen), dtype=_dtypes.int32), flat_target)
    flat = reshape(tensor, [-1])
    combine = _math.maximum if largest else _math.minimum
    merged = where(_math.greater(hit, 0), combine(flat, best), flat)
    return reshape(merged, shape(tensor))


def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` where each indexed element becomes the minimum of itself and the updates that
    land on it."""
    return _scatter_extreme(tensor, indices, updates, largest=False)


def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` where each indexed element becomes the maximum of itself and the updates that
    land on it."""
    return _scatter_extreme(tensor, indices, updates, largest=True)


# --- space <-> batch ------------------------------------------------------------------------


def _int_list(value, what):
    known = _known(convert_to_tensor(value))
    if known is None:
        raise NotImplementedError(f"{what} must be known when the op is traced")
    return known.astype(np.int64)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the spatial dimensions (1 .. M) of ``input`` by ``paddings``, cuts each into
    ``block_shape`` blocks and moves the blocks into the batch dimension."""
    x = convert_to_tensor(input)
    block = _int_list(block_shape, "block_shape").reshape(-1)
    pads = _int_list(paddings, "paddings").reshape(-1, 2)
    m = block.size
    dims = list(x.shape)
    if pads.shape[0] != m or len(dims) < m + 1:
        raise InvalidArgumentError(
            None, None, "paddings and block_shape must have M rows, input rank > M"
        )
    if (block < 1).any() or (pads < 0).any():
        raise InvalidArgumentError(None, None, "Negative block size or padding")
    full = [[0, 0], *pads.tolist()] + [[0, 0]] * (len(dims) - m - 1)
    padded = pad(x, full)
    pdims = [int(d) for d in padded.shape]
    for k in builtins_range(m):
        if pdims[k + 1] % int(block[k]):
            raise InvalidArgumentError(
                None,
                None,
                f"padded_shape[{k}]={pdims[k + 1]} is not divisible by "
                f"block_shape[{k}]={int(block[k])}",
            )
    batch, rest = pdims[0], pdims[m + 1 :]
    split = [batch]
    for k in builtins_range(m):
        split += [pdims[k + 1] // int(block[k]), int(block[k])]
    y = reshape(padded, split + rest)
    # Block offsets first, then the batch, then the reduced spatial sizes.
    perm = [2 * k + 2 for k in builtins_range(m)] + [0]
    perm += [2 * k + 1 for k in builtins_range(m)]
    perm += [2 * m + 1 + i for i in builtins_range(len(rest))]
    y = transpose(y, perm)
    out = [batch * int(np.prod(block))] + [pdims[k + 1] // int(block[k]) for k in builtins_range(m)]
    return reshape(y, out + rest)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of `space_to_batch_nd`: moves blocks of the batch back into the spatial
    dimensions, then crops them."""
    x = convert_to_tensor(input)
    block = _int_list(block_shape, "block_shape").reshape(-1)
    crop = _int_list(crops, "crops").reshape(-1, 2)
    m = block.size
    dims = [int(d) for d in x.shape]
    prod = int(np.prod(block))
    if crop.shape[0] != m or len(dims) < m + 1:
        raise InvalidArgumentError(None, None, "crops and block_shape must have M rows")
    if dims[0] % prod:
        raise InvalidArgumentError(
            None, None, f"Input batch dimension ({dims[0]}) is not divisible by product of "
            f"block sizes ({prod})"
        )  # fmt: skip
    batch, rest = dims[0] // prod, dims[m + 1 :]
    y = reshape(x, [int(b) for b in block] + [batch] + dims[1:])
    perm = [m]
    for k in builtins_range(m):
        perm += [m + 1 + k, k]
    perm += [2 * m + 1 + i for i in builtins_range(len(rest))]
    y = transpose(y, perm)
    spatial = [dims[k + 1] * int(block[k]) for k in builtins_range(m)]
    y = reshape(y, [batch, *spatial, *rest])
    begin = [0] + [int(c[0]) for c in crop] + [0] * len(rest)
    size = [batch] + [s - int(c[0]) - int(c[1]) for s, c in zip(spatial, crop)] + rest
    if any(s < 0 for s in size):
        raise InvalidArgumentError(None, None, "Crops are larger than the spatial dimensions")
    from ferroflow.array_ops import slice as _slice

    return _slice(y, begin, size)


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    return space_to_batch_nd(input, block_shape, paddings)


space_to_batch.__doc__ = space_to_batch_nd.__doc__


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make ``input_shape`` plus ``base_paddings`` divisible by
    ``block_shape``, as int32 tensors."""
    shp = _int_list(input_shape, "input_shape").reshape(-1)
    block = _int_list(block_shape, "block_shape").reshape(-1)
    base = (
        np.zeros([block.size, 2], np.int64)
        if base_paddings is None
        else _int_list(base_paddings, "base_paddings").reshape(-1, 2)
    )
    start, end = base[:, 0], base[:, 1]
    full = shp + start + end
    pad_end = end + (block - full % block) % block
    crop_end = pad_end - end
    paddings = np.stack([start, pad_end], axis=1)
    crops = np.stack([np.zeros_like(start), crop_end], axis=1)
    return constant(paddings, dtype=_dtypes.int32), constant(crops, dtype=_dtypes.int32)


# --- bins, stacks, conditions ---------------------------------------------------------------


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """The bin (0 .. nbins-1) of each value: ``nbins`` equal bins over ``value_range``, values
    below or above the range in the first or last bin."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, dtype=values.dtype)
    nbins = convert_to_tensor(nbins, dtype=_dtypes.int32)
    nbins_float = cast(nbins, values.dtype)
    scaled = _math.truediv(values - value_range[0], value_range[1] - value_range[0])
    index = _math.floor(nbins_float * scaled)
    index = _math.clip_by_value(index, 0, nbins_float - 1)
    return cast(index, _dtypes.int32)  # TensorFlow's result is int32 whatever `dtype` says


def parallel_stack(values, name="parallel_stack"):
    """`tf.stack` along a new first axis, built for graphs; eagerly TensorFlow refuses it."""
    if not _tracing.tracing():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return stack(values, axis=0)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first callable whose predicate is true (``default`` when none is;
    InvalidArgumentError without a default). Symbolic predicates become nested `tf.cond`s."""
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError("pred_fn_pairs must be a list of (predicate, callable) pairs")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple, got {pair!r}")
        if not callable(pair[1]):
            # TensorFlow reads the function's name first.
            raise AttributeError(f"'{type(pair[1]).__name__}' object has no attribute '__name__'")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")

    def no_match():
        preds = stack([convert_to_tensor(p, dtype=_dtypes.bool) for p, _ in pairs])
        raise InvalidArgumentError(
            None,
            None,
            f"Expected '{_math.reduce_any(preds)!r}' to be true. Summarized data: "
            "b'Input error: None of conditions evaluated as True:'",
        )

    def chain(rest):
        if not rest:
            return default() if default is not None else no_match()
        pred, fn = rest[0]
        if len(rest) == 1 and default is None:
            return fn()
        pred = convert_to_tensor(pred, dtype=_dtypes.bool)
        if _tracing.staged(pred):
            return control_flow.cond(pred, fn, lambda: chain(rest[1:]))
        return fn() if bool(pred) else chain(rest[1:])

    if default is None and pairs and not _tracing.tracing():
        if not any(bool(convert_to_tensor(p, dtype=_dtypes.bool)) for p, _ in pairs):
            no_match()
    elif default is None and pairs:
        # Traced, the last branch stands in for the default, and TensorFlow's graph asserts
        # when it runs that some predicate was true.
        from ferroflow.check_ops import Assert

        preds = stack([convert_to_tensor(p, dtype=_dtypes.bool) for p, _ in pairs])
        message = "Input error: None of conditions evaluated as True:"
        Assert(_math.reduce_any(preds), [message, preds])
    return chain(pairs)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to each slice of ``elems`` along the first axis, results stacked: the same
    values as `tf.map_fn` (TensorFlow vectorizes the function; ferroflow maps it)."""
    from ferroflow import functional_ops, nest

    elems = nest.map_structure(convert_to_tensor, elems)
    first = nest.flatten(elems)[0]
    probe = fn(nest.map_structure(lambda e: e[0], elems)) if first.shape[0] else None
    if probe is None:
        return functional_ops.map_fn(fn, elems)
    signature = nest.map_structure(lambda t: convert_to_tensor(t).dtype, probe)
    return functional_ops.map_fn(fn, elems, fn_output_signature=signature)


def guarantee_const(input, name=None):  # noqa: A002
    """``input`` unchanged (a promise that it does not change); as in TensorFlow, asking for its
    gradient raises LookupError."""

    @custom_gradient
    def const(x):
        def grad(upstream):
            raise LookupError("gradient registry has no entry for: GuaranteeConst")

        return identity(x), grad

    return const(convert_to_tensor(input))


# --- primitives TensorFlow runs as kernels of their own ------------------------------------------


def _raw(name, inputs, **attrs):
    return _core.raw_op(name, inputs, json.dumps(attrs))[0]


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's argument names
    """The bytes of ``input`` read as ``type`` (the `Bitcast` primitive): the same shape for an
    equal size, a last axis of the size ratio added (narrower type) or removed (wider type).

    >>> import ferroflow as tf
    >>> tf.bitcast(tf.constant(1.0), tf.uint8).numpy()
    array([  0,   0, 128,  63], dtype=uint8)
    """
    x = convert_to_tensor(input)
    target = _dtypes.as_dtype(type)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        return _raw("Bitcast", [x], to=target.name)

    @custom_gradient
    def cast_bits(x):
        def no_gradient(upstream):
            # TensorFlow registers no gradient for Bitcast: asking for one is its error.
            raise LookupError("gradient registry has no entry for: Bitcast")

        return _raw("Bitcast", [x], to=target.name), no_gradient

    return cast_bits(x)


def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """The position of each ``index`` in a pseudorandom permutation of ``[0, max_index]`` fixed
    by ``seed`` (3 integers, or one row of 3 per index), bit for bit TensorFlow's (the
    `RandomIndexShuffle` primitive).

    >>> import ferroflow as tf
    >>> tf.random_index_shuffle(tf.range(6), [1, 2, 3], 5).numpy()
    array([2, 0, 3, 4, 5, 1], dtype=int32)
    """
    if not isinstance(rounds, int) or isinstance(rounds, bool):
        raise TypeError(f"Expected int for argument 'rounds' not {rounds!r}.")
    # index and max_index share one dtype: a Python max_index takes index's, as TensorFlow's op
    # definition converts it; a Python index takes a tensor max_index's eagerly only (a graph
    # converts inputs in order, so TensorFlow's traced call then refuses the mismatch).
    if not _core.is_tensor(index) and _core.is_tensor(max_index) and not _tracing.tracing():
        index = convert_to_tensor(index, dtype=max_index.dtype)
    index = convert_to_tensor(index)
    if not _core.is_tensor(max_index):
        max_index = convert_to_tensor(max_index, dtype=index.dtype)
    return _raw("RandomIndexShuffle", [index, seed, max_index], rounds=rounds)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two SparseTensors (each sequence runs
    along the last dimension), divided by the truth's length when ``normalize`` (infinity for an
    empty truth against a non-empty hypothesis), as TensorFlow's `EditDistance` kernel."""
    from ferroflow.sparse_tensor import SparseTensor

    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    inputs = [
        hypothesis.indices,
        hypothesis.values,
        hypothesis.dense_shape,
        truth.indices,
        truth.values,
        truth.dense_shape,
    ]
    return _raw("EditDistance", inputs, normalize=bool(normalize))
