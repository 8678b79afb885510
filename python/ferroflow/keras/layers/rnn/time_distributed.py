"""`tf.keras.layers.TimeDistributed`: applies a layer to every time step (axis 1) of its
inputs, as Keras 3 does: one call per step when the number of steps is static, stacked."""

from ferroflow.array_ops import range as tf_range
from ferroflow.array_ops import shape, stack, transpose
from ferroflow.functional_ops import map_fn
from ferroflow.keras.layers.layer import Layer, _training_parameter
from ferroflow.keras.layers.rnn.rnn import _accepts

__all__ = ["TimeDistributed"]


def _swap_batch_time(x):
    return transpose(x, [1, 0, *range(2, x.shape.rank)])


class TimeDistributed(Layer):
    """Applies ``layer`` to each temporal slice ``inputs[:, t]`` of an input of rank 3 or
    more; the outputs are stacked along axis 1."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a `keras.layers.Layer` "
                f"instance. Received: {layer}"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def _get_child_input_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                f"dimensions, received: {input_shape}"
            )
        return (input_shape[0], *input_shape[2:])

    def compute_output_shape(self, input_shape):
        child = self.layer.compute_output_shape(self._get_child_input_shape(input_shape))
        return (child[0], input_shape[1], *child[1:])

    def build(self, input_shape):
        child_shape = self._get_child_input_shape(tuple(input_shape))
        if not self.layer.built:
            self.layer.build(child_shape)
            self.layer.built = True
        self.built = True

    def compute_mask(self, inputs, mask):
        return mask

    def call(self, inputs, training=None, mask=None):
        if mask is not None:
            if mask.shape.rank < 2:
                raise ValueError(
                    "The `mask` passed to the `TimeDistributed` layer must be at least 2D "
                    "(e.g., `(batch_size, timesteps)`), but it has "
                    f"{mask.shape.rank} dimension(s) with shape {mask.shape}."
                )
            ins, ms = inputs.shape.as_list(), mask.shape.as_list()
            if any(a is not None and b is not None and a != b for a, b in zip(ins[:2], ms[:2])):
                raise ValueError(
                    f"The `mask` passed to the `TimeDistributed` layer has a shape {mask.shape} "
                    "that is incompatible with the input shape "
                    f"{inputs.shape}. The first two dimensions of the mask (batch size and "
                    "timesteps) must match the input's first two dimensions. Expected mask "
                    f"shape prefix: ({ins[0]}, {ins[1]})."
                )
        inputs = _swap_batch_time(inputs)
        if mask is not None:
            mask = _swap_batch_time(mask)
        takes_mask = _accepts(self.layer.call, "mask")
        takes_training = _training_parameter(self.layer)[0]

        def step(i):
            kwargs = {}
            if takes_mask and mask is not None:
                kwargs["mask"] = mask[i]
            if takes_training:
                kwargs["training"] = training
            return self.layer.call(inputs[i], **kwargs)

        if inputs.shape[0] is not None:
            return _swap_batch_time(stack([step(i) for i in range(inputs.shape[0])]))
        # Steps known only when the graph runs: one staged map. Keras 3 maps over the range
        # of the *batch* size here (it reads the shape before moving time first), so only
        # the first `batch` steps come out; ferroflow gives Keras's result.
        outputs = map_fn(step, tf_range(shape(inputs)[1]), fn_output_signature=inputs.dtype)
        return _swap_batch_time(outputs)

    def get_config(self):
        from ferroflow.keras.layers import serialization

        return {**super().get_config(), "layer": serialization.serialize(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.layers import serialization

        # Keras pops the layer from the caller's dict: so does ferroflow.
        layer = serialization.deserialize(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)
