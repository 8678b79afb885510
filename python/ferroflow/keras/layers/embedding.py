"""`tf.keras.layers.Embedding`: maps integer indices to dense vectors."""

import warnings

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import cast, gather
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import not_equal

__all__ = ["Embedding"]


def _check_positive(value, name):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"`{name}` must be a positive integer. Received: {name}={value} "
            f"(of type {type(value).__name__})."
        )


class Embedding(Layer):
    """Turns indices in ``[0, input_dim)`` into rows of an ``(input_dim, output_dim)``
    ``embeddings`` matrix; the output has the input's shape plus ``output_dim``. With
    ``mask_zero`` index 0 is padding, and `compute_mask` marks it."""

    def __init__(
        self,
        input_dim,
        output_dim,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        weights=None,
        lora_rank=None,
        lora_alpha=None,
        quantization_config=None,
        **kwargs,
    ):
        from ferroflow.keras import initializers, regularizers

        _check_positive(input_dim, "input_dim")
        _check_positive(output_dim, "output_dim")
        if lora_rank is not None or quantization_config is not None:
            raise NotImplementedError(
                "ferroflow's Embedding does not implement LoRA or quantization; leave "
                "`lora_rank` and `quantization_config` as None."
            )
        if kwargs.pop("input_length", None) is not None:
            warnings.warn("Argument `input_length` is deprecated. Just remove it.", stacklevel=2)
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = _config.get_constraint(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        # Indices are not floats to cast.
        self.autocast = False
        if weights is not None:
            self.build()
            if not (isinstance(weights, list) and len(weights) == 1):
                weights = [weights]
            self.set_weights(weights)

    def build(self, input_shape=None):
        if self.built:
            return
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            name="embeddings",
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def call(self, inputs):
        if inputs.dtype not in (_dtypes.int32, _dtypes.int64):
            inputs = cast(inputs, _dtypes.int32)
        return cast(gather(self.embeddings, inputs), self._dtype)

    def compute_mask(self, inputs, mask=None):
        """Where the inputs are not the padding index 0 (None without ``mask_zero``)."""
        if not self.mask_zero:
            return None
        return not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape), self.output_dim)

    def get_config(self):
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": _config.serialize_initializer(self.embeddings_initializer),
            "embeddings_regularizer": _config.serialize_regularizer(self.embeddings_regularizer),
            "activity_regularizer": _config.serialize_regularizer(self.activity_regularizer),
            "embeddings_constraint": _config.serialize_constraint(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "quantization_config": None,
        }
