"""`tf.keras.layers.GroupQueryAttention` (class `GroupedQueryAttention`, as in Keras 3):
``num_query_heads`` query heads share ``num_key_value_heads`` key and value heads. Unlike
`MultiHeadAttention` it takes the query mask from the ``query_mask`` argument (which
`Layer.__call__` fills from ``query._keras_mask``) and leaves the inputs' masks on them."""

import math

import ferroflow as _tf
from ferroflow.keras.layers.activation_layers import Softmax
from ferroflow.keras.layers.dropout import Dropout
from ferroflow.keras.layers.einsum_dense import EinsumDense
from ferroflow.keras.layers.multi_head_attention import (
    _AttentionBase,
    _check_flash_attention,
    _check_sliding_window,
)

__all__ = ["GroupQueryAttention", "GroupedQueryAttention"]


class GroupedQueryAttention(_AttentionBase):
    """Grouped-query attention (Ainslie et al., 2023): heads of size ``head_dim``; each of
    the ``num_key_value_heads`` key/value heads serves ``num_query_heads //
    num_key_value_heads`` query heads. The output has the query's feature size."""

    def __init__(
        self,
        head_dim,
        num_query_heads,
        num_key_value_heads,
        dropout=0.0,
        use_bias=True,
        sliding_window=None,
        flash_attention=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate=False,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout = dropout
        self.use_bias = use_bias
        self.use_gate = use_gate
        _check_sliding_window(sliding_window)
        self.sliding_window = sliding_window
        self._flash_attention = _check_flash_attention(flash_attention, dropout)
        self._init_weights_config(
            kernel_initializer,
            bias_initializer,
            kernel_regularizer,
            bias_regularizer,
            activity_regularizer,
            kernel_constraint,
            bias_constraint,
        )
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(head_dim))

    def _dense(self, equation, heads, bias_axes, name, input_shape, **extra):
        layer = EinsumDense(
            equation,
            output_shape=(None, heads, self.head_dim) if heads else (None, self.feature_dim),
            bias_axes=bias_axes if self.use_bias else None,
            name=name,
            **extra,
            **self._common_kwargs(),
        )
        layer.build(input_shape)
        return self._sublayer(layer)

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        self.feature_dim = query_shape[-1]
        q_heads, kv_heads = self.num_query_heads, self.num_key_value_heads
        self._query_dense = self._dense("bqm,muh->bquh", q_heads, "uh", "query", query_shape)
        self._key_dense = self._dense("bkm,mvh->bkvh", kv_heads, "vh", "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._dense(
                "bqm,muh->bquh", q_heads, "uh", "gate", query_shape, activation="sigmoid"
            )
        self._value_dense = self._dense("bkm,mvh->bkvh", kv_heads, "vh", "value", value_shape)
        self._softmax = self._sublayer(Softmax(axis=-1, dtype=self._sublayer_dtype()))
        self._dropout_layer = self._sublayer(
            Dropout(rate=self.dropout, dtype=self._sublayer_dtype(), seed=self.seed)
        )
        self._output_dense = self._dense(
            "bquh,uhm->bqm", None, "m", "attention_output", (None, None, q_heads, self.head_dim)
        )
        self.built = True

    _cast_explicit_mask = False
    _masks_output = False

    def _attention_spec(self):
        # Keys and queries are "bkuh" and "bquh": one attention axis.
        equations = ("bkuh,bquh->buqk", "buqk,bkuh->bquh")
        return (self.use_gate, self.sliding_window, self._inverse_sqrt_head_dim, 1, *equations)

    def _project_key_value(self, projected):
        # Each key/value head serves `num_repeats` query heads.
        return _tf.repeat(projected, self.num_repeats, axis=2)

    def _scores_shape(self, query_shape, value_shape, key_shape):
        kv_len = (value_shape if key_shape is None else key_shape)[1]
        return (query_shape[0], self.num_query_heads, query_shape[1], kv_len)

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(
                "The last dimension of `query_shape` and `value_shape` must be equal, but are "
                f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                f"value_shape={value_shape}"
            )
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        return query_shape

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {
            **config,
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            **self._weights_config(),
            "seed": self.seed,
        }


GroupQueryAttention = GroupedQueryAttention
