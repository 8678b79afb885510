"""Ragged dispatch for issue 19's numerical APIs that TensorFlow also gives a ragged version:
`math.bincount`, `nn.experimental.stateless_dropout`, `image.resize` and
`nn.(safe_)embedding_lookup_sparse`, each as TensorFlow's `ragged_*_ops.py` computes it.

Registered like `ragged_dispatch.py`'s handlers (this module loads right after it, from
`ferroflow/__init__.py`); `tests/parity/test_ragged_dispatch_coverage.py` checks the table.
"""

from ferroflow import _dispatch
from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.errors import InvalidArgumentError
from ferroflow.ragged.ragged_dispatch import (
    _bincount_axis,
    _first_is_ragged,
    _ragged_weights,
    _second,
)
from ferroflow.ragged.ragged_tensor import (
    RaggedTensor,
    convert_to_tensor_or_ragged_tensor,
    is_ragged,
)

# --- math.bincount ------------------------------------------------------------------------------


def bincount(
    arr,
    weights=None,
    minlength=None,
    maxlength=None,
    dtype=_dtypes.int32,
    name=None,
    axis=None,
    binary_output=False,
):
    """tf.math.bincount of a RaggedTensor: the counts of all its values (axis 0), or of each
    row apart (axis -1, a dense ``[nrows, bins]`` result). Weights must be ragged alike."""
    from ferroflow import math_compositions

    arr = convert_to_tensor_or_ragged_tensor(arr)
    if weights is not None:
        weights = convert_to_tensor_or_ragged_tensor(weights)
    axis = _bincount_axis(weights, binary_output, axis)
    options = dict(minlength=minlength, maxlength=maxlength, dtype=dtype)
    if axis == 0:
        while is_ragged(arr):
            if weights is not None:
                weights = _ragged_weights(arr, weights)
            arr = arr.values
        return math_compositions.bincount(arr, weights, binary_output=binary_output, **options)
    if weights is not None:
        weights = _ragged_weights(arr, weights)
    if is_ragged(arr.values) or arr.values.shape.rank != 1:
        # TensorFlow's RaggedBincount takes one ragged dimension of scalars only.
        raise ValueError(
            "tf.math.bincount with axis=-1 takes a RaggedTensor of ragged rank 1 with scalar "
            f"values; got one of shape {arr.shape}."
        )
    return _row_bincount(arr, weights, binary_output, **options)


def _row_bincount(arr, weights, binary_output, minlength, maxlength, dtype):
    """Per-row counts of a ragged-rank-1 `arr` ([nrows, bins]; bins from all rows' values)."""
    from ferroflow.segment_ops import unsorted_segment_sum

    values = arr.values
    if not values.dtype.is_integer:
        values = _a.cast(values, _dtypes.int32)
    if _m.reduce_any(_m.less(values, 0)).numpy() if not _is_symbolic(values) else False:
        raise InvalidArgumentError(None, None, "Input must be non-negative [Op:RaggedBincount]")
    values = _a.cast(values, _dtypes.int64)
    bins = _bins(values, minlength, maxlength)
    kept = _m.less(values, bins)
    counts = (
        _a.ones_like(values, dtype=dtype) if weights is None else _a.cast(weights, weights.dtype)
    )
    counts = _a.where(kept, counts, _a.zeros_like(counts))
    rows = _a.cast(arr.nrows(), _dtypes.int64)
    slots = _a.cast(arr.value_rowids(), _dtypes.int64) * bins + _a.where(
        kept, values, _a.zeros_like(values)
    )
    out = _a.reshape(unsorted_segment_sum(counts, slots, rows * bins), _a.stack([rows, bins]))
    if binary_output:
        out = _a.cast(_m.greater(out, _a.zeros_like(out)), dtype)
    return out


def _bins(values, minlength, maxlength):
    """TensorFlow's output size: max(values) + 1 (0 if empty), at least `minlength`, at most
    `maxlength`."""
    nonempty = _a.cast(_m.greater(_a.size(values), 0), _dtypes.int64)
    top = _m.reduce_max(_a.concat([values, _a.zeros([1], _dtypes.int64)], 0)) + 1
    bins = nonempty * top
    if minlength is not None:
        bins = _m.maximum(bins, _a.cast(minlength, _dtypes.int64))
    if maxlength is not None:
        bins = _m.minimum(bins, _a.cast(maxlength, _dtypes.int64))
    return bins


def _is_symbolic(value):
    from ferroflow import _core

    return _core.is_symbolic(value)


# --- nn -----------------------------------------------------------------------------------------


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """tf.nn.experimental.stateless_dropout of the flat values (the same mask as the dense op
    gives the flat values)."""
    from ferroflow import nn

    if noise_shape is not None:
        raise ValueError("noise_shape is not supported yet for RaggedTensor x")
    x = convert_to_tensor_or_ragged_tensor(x)
    values = nn.experimental.stateless_dropout(x.flat_values, rate, seed, rng_alg=rng_alg)
    return x.with_flat_values(values)


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None, allow_fast_lookup=False
):
    """tf.nn.embedding_lookup_sparse of ragged ids (and weights): each row's combined
    embedding, as the SparseTensor version of the same rows gives it."""
    from ferroflow import nn

    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    sp_weights = _ragged_like(sp_ids, sp_weights, "sp_ids", "sp_weights")
    return nn.embedding_lookup_sparse(
        params,
        sp_ids.to_sparse(),
        None if sp_weights is None else sp_weights.to_sparse(),
        combiner=combiner,
        max_norm=max_norm,
        allow_fast_lookup=allow_fast_lookup,
    )


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    max_norm=None,
    name=None,
    allow_fast_lookup=False,
):
    """tf.nn.safe_embedding_lookup_sparse of ragged ids (and weights): one row per ragged row,
    invalid ids pruned, empty rows zero (or `default_id`'s embedding)."""
    from ferroflow import nn

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    sparse_weights = _ragged_like(sparse_ids, sparse_weights, "sparse_ids", "sparse_weights")
    return nn.safe_embedding_lookup_sparse(
        embedding_weights,
        sparse_ids.to_sparse(),
        None if sparse_weights is None else sparse_weights.to_sparse(),
        combiner=combiner,
        default_id=default_id,
        max_norm=max_norm,
        allow_fast_lookup=allow_fast_lookup,
    )


def _ragged_like(ids, weights, ids_name, weights_name):
    """`weights` (None or ragged, with `ids`'s row structure), else TensorFlow's TypeError."""
    if weights is None:
        return None
    if not is_ragged(weights):
        raise TypeError(
            f"{ids_name} must be of the same type as {weights_name}, received "
            f"{type(ids).__name__!r} for {ids_name} and {type(weights).__name__!r} for "
            f"{weights_name}."
        )
    ids.values.shape.assert_is_compatible_with(weights.values.shape)
    ids.shape.assert_is_compatible_with(weights.shape)
    return weights


# --- image.resize -------------------------------------------------------------------------------


def resize(
    images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None
):
    """tf.image.resize of a ragged batch ``[batch, (height), (width), channels]``: each image
    made dense and resized, the results a dense float32 ``[batch, height, width, channels]``."""
    from ferroflow import functional_ops, image
    from ferroflow.framework_ops import get_static_value
    from ferroflow.tensor_spec import TensorSpec

    if images.shape.rank != 4:
        raise ValueError("tf.image.resize: images.shape.rank must be 4 if images is ragged.")
    size = _a.convert_to_tensor(size, _dtypes.int32, name="size")
    static = get_static_value(size)
    dims = [None, None] if static is None else [int(d) for d in static]
    if static is not None and len(dims) != 2:
        raise ValueError(f"Shape {list(size.shape)} must have rank 2")
    spec = TensorSpec([*dims, images.shape[-1]], _dtypes.float32)

    def resize_one(i):
        one = images[i]
        if is_ragged(one):
            one = one.to_tensor()
        return image.resize(
            one, size, method=method, preserve_aspect_ratio=preserve_aspect_ratio,
            antialias=antialias,
        )  # fmt: skip

    count = images.nrows(out_type=_dtypes.int32)
    if images.shape[0] == 0:
        channels = _a.shape(images.flat_values)[-1:]
        return _a.zeros(_a.concat([[0], size, channels], axis=0))
    return functional_ops.map_fn(resize_one, _a.range(count), fn_output_signature=spec)


def _register():
    from ferroflow import image, math_compositions, nn, nn_losses_extra

    first_ragged = {
        math_compositions.bincount: bincount,
        nn_losses_extra.stateless_dropout: stateless_dropout,
        image.resize: resize,
    }
    for api, handler in first_ragged.items():
        check = _first_is_ragged(api)
        _dispatch.register(_dispatch.install(api), RaggedTensor, handler, check=check)
    second_ragged = {
        nn.embedding_lookup_sparse: (embedding_lookup_sparse, "sp_ids"),
        nn.safe_embedding_lookup_sparse: (safe_embedding_lookup_sparse, "sparse_ids"),
    }
    for api, (handler, ids) in second_ragged.items():
        _dispatch.register(
            _dispatch.install(api),
            RaggedTensor,
            handler,
            check=lambda args, kwargs, ids=ids: is_ragged(_second(args, kwargs, ids)),
        )


_register()
