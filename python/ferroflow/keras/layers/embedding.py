"""`tf.keras.layers.Embedding`: maps integer indices to dense vectors."""

import warnings

from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import cast, gather
from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers import _config, _embedding_quantization, _lora
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
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        self.quantization_config = quantization_config
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
        shape = (self.input_dim, self.output_dim)
        if self.quantization_mode:
            self.quantized_build(shape, self.quantization_mode, self.quantization_config)
        if self.quantization_mode not in ("int8", "int4"):
            self._embeddings = self.add_weight(
                shape=shape,
                initializer=self.embeddings_initializer,
                name="embeddings",
                regularizer=self.embeddings_regularizer,
                constraint=self.embeddings_constraint,
            )
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank)

    @property
    def embeddings(self):
        """The matrix the lookups read: the variable (unpacked when int4-quantized), plus
        the LoRA delta cast to the compute dtype when LoRA is enabled."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `embeddings`.")
        embeddings = self._embeddings
        if self.quantization_mode == "int4":
            embeddings = quantizers.unpack_int4(embeddings, self._orig_output_dim, axis=-1)
        if self.lora_enabled:
            delta = _lora.lora_delta(self, self.lora_embeddings_a, self.lora_embeddings_b)
            embeddings = ops.cast(ops.add(embeddings, delta), self.compute_dtype)
        return embeddings

    def call(self, inputs):
        return cast(gather(self.embeddings, _indices(inputs)), self._dtype)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform", b_initializer="zeros"):
        """Freezes the embeddings and adds the trainable low-rank delta
        ``(lora_alpha / rank) * lora_embeddings_a @ lora_embeddings_b``."""
        _lora.check_enable_lora(self, self.embeddings_constraint, "embedding")
        _lora.add_lora_weights(
            self,
            ("lora_embeddings_a", "lora_embeddings_b"),
            ((self.input_dim, rank), (rank, self.output_dim)),
            (a_initializer, b_initializer),
            self.embeddings_regularizer,
            self._embeddings,
            rank,
            lora_alpha,
        )

    @property
    def variable_serialization_spec(self):
        """The variables each quantization mode saves, in Keras's order."""
        return {
            None: ["embeddings"],
            "int8": ["embeddings", "embeddings_scale"],
            "int4": ["embeddings", "embeddings_scale", "embeddings_zero", "g_idx"],
        }

    def save_own_variables(self, store):
        _lora.save_by_spec(
            self, store, "embeddings", _embedding_quantization.merged_embeddings(self)
        )

    def load_own_variables(self, store):
        _lora.load_by_spec(self, store, "embeddings", ("lora_embeddings_a", "lora_embeddings_b"))

    def quantized_build(self, embeddings_shape, mode, config=None):
        _embedding_quantization.build(self, embeddings_shape, mode, config)
        self._is_quantized = True

    def quantize(self, mode=None, type_check=True, config=None):
        """Replaces the float embeddings by their int8 or packed int4 form (one scale per
        row, or per group of ``block_size`` columns with a zero point)."""
        if type_check and type(self) is not Embedding:
            raise self._not_implemented_error(self.quantize)
        _embedding_quantization.quantize(self, mode, config)

    def _int8_call(self, inputs, training=None):
        return _embedding_quantization.lookup(self, _indices(inputs))

    def _int4_call(self, inputs, training=None):
        return _embedding_quantization.lookup(self, _indices(inputs))

    def _quantization_mode_error(self, mode):
        return NotImplementedError(
            "Invalid quantization mode. Expected one of ('int8', 'int4'). "
            f"Received: quantization_mode={mode}"
        )

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
            **_lora.config_entries(self),
        }

    @classmethod
    def from_config(cls, config):
        return super().from_config(_lora.revived_config(config))


def _indices(inputs):
    if inputs.dtype not in (_dtypes.int32, _dtypes.int64):
        return cast(inputs, _dtypes.int32)
    return inputs
