"""`tf.nn.embedding_lookup_sparse` and `tf.nn.safe_embedding_lookup_sparse`: embeddings of the
ids of each row of a SparseTensor, combined by sum, mean or sqrtn (optionally weighted),
composed of gather and segment sums as TensorFlow composes them (embedding_ops.py)."""

import ferroflow as _tf
from ferroflow.array_ops import convert_to_tensor

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _table(params):
    if isinstance(params, (list, tuple)):
        return list(params)
    return [params]


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None, allow_fast_lookup=False
):
    """Per row of `sp_ids` (a ``[rows, n]`` SparseTensor of ids), the `combiner` of the rows of
    `params` it names, each scaled by `sp_weights` when given. As TensorFlow's, the result has
    ``max(row) + 1`` rows (rows past the last with an id are absent)."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _table(params)
    if not isinstance(sp_ids, _tf.sparse.SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None and not isinstance(sp_weights, _tf.sparse.SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
    segments = _tf.cast(sp_ids.indices[:, 0], _tf.int32)
    ids = sp_ids.values
    unique_ids, idx = _tf.unique(ids)
    embeddings = _tf.nn.embedding_lookup(params, unique_ids, max_norm=max_norm)
    embeddings = _tf.gather(embeddings, idx)
    if sp_weights is None:
        weights = None
    else:
        weights = sp_weights.values
        original = embeddings.dtype
        if original in (_tf.float16, _tf.bfloat16):
            embeddings = _tf.cast(embeddings, _tf.float32)
        if weights.dtype != embeddings.dtype:
            weights = _tf.cast(weights, embeddings.dtype)
        weights = _tf.reshape(
            weights,
            _tf.concat([_tf.shape(weights), _tf.ones([embeddings.shape.rank - 1], _tf.int32)], 0),
        )
        embeddings *= weights
    if weights is None:
        summed = _tf.math.segment_sum(embeddings, segments)
        if combiner == "sum":
            return summed
        counts = _tf.math.segment_sum(_tf.ones_like(segments, embeddings.dtype), segments)
        counts = _tf.reshape(counts, [-1] + [1] * (embeddings.shape.rank - 1))
        if combiner == "mean":
            return _tf.math.divide_no_nan(summed, counts)
        return _tf.math.divide_no_nan(summed, _tf.sqrt(counts))
    summed = _tf.math.segment_sum(embeddings, segments)
    if combiner == "mean":
        summed = _tf.math.divide_no_nan(summed, _tf.math.segment_sum(weights, segments))
    elif combiner == "sqrtn":
        total = _tf.math.segment_sum(_tf.pow(weights, 2), segments)
        summed = _tf.math.divide_no_nan(summed, _tf.sqrt(total))
    return _tf.cast(summed, original) if summed.dtype != original else summed


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
    """`embedding_lookup_sparse` that drops negative ids (and, unless summing, non-positive
    weights), gives empty rows zeros (or `default_id`'s embedding), and takes ids of any rank
    ``[d0, ..., dn, k]``, returning ``[d0, ..., dn, dim]``."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    tables = _table(embedding_weights)
    if len(tables) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    tables = [
        w
        if isinstance(w, _tf.Variable) and dtype in (None, w.dtype)
        else convert_to_tensor(w, dtype=dtype)
        for w in tables
    ]
    shape = sparse_ids.dense_shape
    rank = sparse_ids.dense_shape.shape[0]
    rows = _tf.reduce_prod(shape[: rank - 1])
    ids = _tf.sparse.reshape(sparse_ids, _tf.stack([rows, shape[rank - 1]]))
    weights = None
    if sparse_weights is not None:
        weights = _tf.sparse.SparseTensor(ids.indices, sparse_weights.values, ids.dense_shape)
    keep = ids.values >= 0
    ids = _tf.sparse.retain(ids, keep)
    if weights is not None:
        weights = _tf.sparse.retain(weights, keep)
        if combiner != "sum":
            positive = weights.values > 0
            ids = _tf.sparse.retain(ids, positive)
            weights = _tf.sparse.retain(weights, positive)
    ids, empty = _tf.sparse.fill_empty_rows(ids, default_id or 0)
    if weights is not None:
        weights, _ = _tf.sparse.fill_empty_rows(weights, 1.0)
    result = embedding_lookup_sparse(tables, ids, weights, combiner=combiner, max_norm=max_norm)
    if default_id is None:
        result = _tf.where(empty[:, None], _tf.zeros_like(result), result)
    outer = _tf.cast(shape[: rank - 1], _tf.int32)
    return _tf.reshape(result, _tf.concat([outer, _tf.shape(result)[1:]], 0))
