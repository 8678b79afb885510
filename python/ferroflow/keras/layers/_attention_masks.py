"""What Keras 3's attention layers share: the causal and
sliding-window masks, the merge of the query/value/key masks into one ``(B, T, S)`` attention
mask, and the fused dot-product attention that Keras's TensorFlow backend runs when no
attention scores are asked for (``ops.dot_product_attention``)."""

import ferroflow as _tf

__all__ = [
    "attention_mask_from",
    "causal_mask",
    "dot_product_attention",
]

# `ops.dot_product_attention` masks logits with -0.7 * (about) float32's largest value, not
# the -1e9 of the Softmax layer, and does not zero wholly masked rows afterwards: such a row
# attends uniformly to every position, where the Softmax path gives zeros.
_FUSED_MASK_FILL = {"float16": 65500.0 * -0.7}
_FUSED_MASK_FILL_DEFAULT = 3.38953e38 * -0.7


def causal_mask(query, value):
    """``(1, T, S)`` boolean: position i of the query sees positions j <= i of the value."""
    q_len = _tf.shape(query)[1]
    v_len = _tf.shape(value)[1]
    ones = _tf.ones(_tf.stack([1, q_len, v_len]), _tf.int32)
    return _tf.greater_equal(_tf.cumsum(ones, axis=-2), _tf.cumsum(ones, axis=-1))


def sliding_window_mask(query, value, window):
    """``(1, T, S)`` boolean band: ``|i - j| < window``."""
    q_len = _tf.shape(query)[1]
    v_len = _tf.shape(value)[1]
    rows = _tf.reshape(_tf.range(q_len, dtype=_tf.int32), _tf.stack([1, q_len, 1]))
    cols = _tf.reshape(_tf.range(v_len, dtype=_tf.int32), _tf.stack([1, 1, v_len]))
    return _tf.less(_tf.abs(rows - cols), window)


def attention_mask_from(
    query,
    value,
    query_mask,
    value_mask,
    key_mask,
    attention_mask,
    use_causal_mask,
    sliding_window,
    cast_explicit_mask,
):
    """The query mask as ``(B, T, 1)``, value and key masks as ``(B, 1, S)``, the causal and
    sliding-window masks as ``(1, T, S)`` and ``attention_mask``, AND-ed; None if none is
    given. ``cast_explicit_mask``: MultiHeadAttention casts ``attention_mask`` to bool even
    alone; GroupedQueryAttention only when merging it with another mask."""
    auto = None

    def merge(mask):
        nonlocal auto
        auto = mask if auto is None else _tf.logical_and(auto, mask)

    if query_mask is not None:
        merge(_tf.expand_dims(_tf.cast(query_mask, _tf.bool), -1))
    for mask in (value_mask, key_mask):
        if mask is not None:
            merge(_tf.expand_dims(_tf.cast(mask, _tf.bool), -2))
    if use_causal_mask:
        merge(causal_mask(query, value))
    if sliding_window is not None:
        merge(sliding_window_mask(query, value, sliding_window))
    if attention_mask is not None and (cast_explicit_mask or auto is not None):
        attention_mask = _tf.cast(attention_mask, _tf.bool)
    if auto is None:
        return attention_mask
    return auto if attention_mask is None else _tf.logical_and(attention_mask, auto)


def dot_product_attention(query, key, value, mask, scale):
    """Keras's fused attention on ``(B, T, N, H)`` query and ``(B, S, N, H)`` key/value:
    ``softmax(scale * q.k masked) . v``, with ``mask`` broadcast to ``(B, N, T, S)``."""
    logits = _tf.einsum("BTNH,BSNH->BNTS", query, key) * _tf.cast(scale, query.dtype)
    if mask is not None:
        fill = _FUSED_MASK_FILL.get(logits.dtype.name, _FUSED_MASK_FILL_DEFAULT)
        mask = _tf.logical_and(_tf.ones_like(logits, dtype=_tf.bool), mask)
        logits = _tf.where(mask, logits, _tf.cast(fill, logits.dtype))
    probs = _tf.nn.softmax(logits, axis=-1)
    return _tf.einsum("BNTS,BSNH->BTNH", probs, value)
