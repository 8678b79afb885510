"""`tf.keras.layers.ReversibleEmbedding`: an `Embedding` that also projects back from
``output_dim`` to ``input_dim`` (``reverse=True``), through the transposed embeddings (tied,
the default) or a separate ``reverse_embeddings`` matrix."""

import ferroflow as _tf
from ferroflow.keras._tensor_attributes import set_keras_mask
from ferroflow.keras.layers._quantization import UnsupportedQuantizationError
from ferroflow.keras.layers.embedding import Embedding

__all__ = ["ReversibleEmbedding"]


class ReversibleEmbedding(Embedding):
    """Embedding lookup, or with ``reverse=True`` the logits ``inputs @ embeddings.T``
    (optionally cast to ``reverse_dtype`` and soft-capped: ``tanh(x / cap) * cap``)."""

    def __init__(
        self,
        input_dim,
        output_dim,
        tie_weights=True,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        reverse_dtype=None,
        logit_soft_cap=None,
        **kwargs,
    ):
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        self.tie_weights = tie_weights
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        if self.built:
            return
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                name="reverse_embeddings",
            )
        self.built = True

    def call(self, inputs, reverse=False):
        if not reverse:
            outputs = super().call(inputs)
            mask = super().compute_mask(inputs)
            if mask is not None:
                set_keras_mask(outputs, mask)
            return outputs
        if self.tie_weights:
            kernel = _tf.transpose(self.embeddings)
        else:
            kernel = self.reverse_embeddings
        if self.reverse_dtype is not None:
            inputs = _tf.cast(inputs, self.reverse_dtype)
            kernel = _tf.cast(kernel, self.reverse_dtype)
        logits = _tf.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = _tf.tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape, reverse=False):
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
        else:
            shape.append(self.output_dim)
        return shape

    @property
    def variable_serialization_spec(self):
        """Embedding's, plus the untied ``reverse_embeddings``."""
        spec = {mode: list(names) for mode, names in super().variable_serialization_spec.items()}
        if not self.tie_weights:
            spec[None].append("reverse_embeddings")
        return spec

    def quantize(self, mode=None, type_check=True, config=None):
        """Not in ferroflow: Keras quantizes ReversibleEmbedding (int8, int4)."""
        raise UnsupportedQuantizationError(
            "ferroflow's Keras cannot quantize ReversibleEmbedding layers yet "
            f"(layer '{self.name}', mode='{mode}')."
        )

    def get_config(self):
        return {
            **super().get_config(),
            "tie_weights": self.tie_weights,
            "reverse_dtype": self.reverse_dtype,
            "logit_soft_cap": self.logit_soft_cap,
        }
