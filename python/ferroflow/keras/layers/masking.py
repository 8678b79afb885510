"""`Masking`: marks the timesteps whose features all equal ``mask_value`` as padding, zeroes
them, and hands the mask to the layers downstream."""

from ferroflow.array_ops import squeeze, where, zeros_like
from ferroflow.keras.layers._masking import set_keras_mask
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import not_equal, reduce_any

__all__ = ["Masking"]


class Masking(Layer):
    """Skips timesteps (axis 1) whose every feature equals ``mask_value`` in downstream layers
    that support masking; their outputs here are zero."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(mask_value, dict) and mask_value.get("config"):
            from ferroflow.keras.saving import deserialize_keras_object

            mask_value = deserialize_keras_object(mask_value)
        self.mask_value = mask_value
        self.supports_masking = True
        self.built = True

    def _kept(self, inputs, keepdims):
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=keepdims)

    def compute_mask(self, inputs, mask=None):
        return self._kept(inputs, keepdims=False)

    def call(self, inputs):
        kept = self._kept(inputs, keepdims=True)
        outputs = where(kept, inputs, zeros_like(inputs))
        set_keras_mask(outputs, squeeze(kept, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
