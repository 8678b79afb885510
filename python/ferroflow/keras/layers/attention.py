"""`tf.keras.layers.Attention` (Luong's dot-product attention) and `AdditiveAttention`
(Bahdanau's): called on ``[query, value]`` or ``[query, value, key]``, with masks
``[query_mask, value_mask]`` (given, or filled by `Layer.__call__` from the inputs'
``_keras_mask``)."""

import ferroflow as _tf
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.random import dropout as _dropout

__all__ = ["AdditiveAttention", "Attention"]


class Attention(Layer):
    """Scores ``query . key`` (``score_mode="dot"``, times a learnt ``scale`` with
    ``use_scale``) or ``sum(tanh(query + key))`` (``"concat"``), softmax over the value
    positions (masked by ``value_mask`` and, with ``use_causal_mask``, the future), then the
    weighted sum of values; rows where ``query_mask`` is False are zero."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        if self.dropout > 0:
            self.seed_generator = SeedGenerator(seed)
        self.supports_masking = True
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode}"
            )

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones"
            )
        self.built = True

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = _tf.matmul(query, key, transpose_b=True)
            if self.scale is not None:
                scores = scores * self.scale
            return scores
        q = _tf.expand_dims(query, -2)
        k = _tf.expand_dims(key, -3)
        summed = q + k if self.scale is None else self.scale * (q + k)
        return self.concat_score_weight * _tf.reduce_sum(_tf.tanh(summed), axis=-1)

    def _apply_scores(self, scores, value, scores_mask, training):
        if scores_mask is not None:
            # Keras's bias for masked positions; 65504 is float16's largest value.
            big = 65504.0 if scores.dtype == _tf.float16 else 1.0e9
            padding = _tf.logical_not(scores_mask)
            if padding.shape.rank == 2:
                padding = _tf.expand_dims(padding, -2)
            scores = _tf.where(padding, scores - big, scores)
        weights = _tf.nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = _dropout(weights, self.dropout, seed=self.seed_generator)
        return _tf.matmul(weights, value), weights

    def _score_mask(self, scores, value_mask, use_causal_mask):
        if not use_causal_mask:
            return value_mask
        shape = _tf.shape(scores)
        ones = _tf.ones(_tf.stack([1, shape[-2], shape[-1]]), _tf.int32)
        causal = _tf.greater_equal(_tf.cumsum(ones, axis=-2), _tf.cumsum(ones, axis=-1))
        if value_mask is None:
            return causal
        return _tf.logical_and(_tf.expand_dims(value_mask, -2), causal)

    def call(
        self,
        inputs,
        mask=None,
        training=False,
        return_attention_scores=False,
        use_causal_mask=False,
    ):
        self._validate_inputs(inputs, mask)
        inputs = [self._as_input(x) for x in inputs]
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        if value_mask is not None:
            value_mask = _tf.convert_to_tensor(value_mask)
        scores = self._calculate_scores(query, key)
        scores_mask = self._score_mask(scores, value_mask, use_causal_mask)
        output, weights = self._apply_scores(scores, value, scores_mask, training)
        if query_mask is not None:
            query_mask = _tf.expand_dims(_tf.convert_to_tensor(query_mask), -1)
            output = _tf.where(query_mask, output, _tf.zeros_like(output))
        if return_attention_scores:
            return output, weights
        return output

    def compute_mask(self, inputs, mask=None):
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return _tf.convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape[0])[:-1], tuple(input_shape[1])[-1])

    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(
                f"{name} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: inputs={inputs}."
            )
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(
                f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] "
                f"or [query, value, key]. Received length: {len(inputs)}."
            )
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(
                    f"{name} layer mask must be a list, namely [query_mask, value_mask]. "
                    f"Received: mask={mask}."
                )
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(
                    f"{name} layer accepts mask list of length 2 or 3. "
                    f"Received: inputs={inputs}, mask={mask}."
                )

    def get_config(self):
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


class AdditiveAttention(Attention):
    """Bahdanau-style attention: scores ``sum(scale * tanh(query + key))`` with a learnt
    ``scale`` vector of the feature size (``use_scale``, the default)."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(
                name="scale", shape=[input_shape[0][-1]], initializer="glorot_uniform"
            )
        self.built = True

    def _calculate_scores(self, query, key):
        q = _tf.expand_dims(query, -2)
        k = _tf.expand_dims(key, -3)
        scale = self.scale if self.use_scale else 1.0
        return _tf.reduce_sum(scale * _tf.tanh(q + k), axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config
