"""`tf.keras.layers.Bidirectional`: a recurrent layer run forwards and a copy run backwards
over the same sequences, their outputs merged (concat, sum, ave, mul, or kept apart)."""

from ferroflow.array_ops import concat, reverse
from ferroflow.keras.layers.layer import Layer, _training_parameter
from ferroflow.keras.layers.rnn.rnn import _accepts, output_spec

__all__ = ["Bidirectional"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _renamed_copy(layer, prefix, **overrides):
    from ferroflow.keras.layers import serialization

    config = serialization.serialize(layer)
    name = layer.name[len(prefix) :] if layer.name.startswith(prefix) else layer.name
    config["config"] = {**config["config"], **overrides, "name": f"{prefix}{name}"}
    return serialization.deserialize(config)


class Bidirectional(Layer):
    """Runs ``layer`` forwards and ``backward_layer`` (by default a copy of ``layer`` with
    ``go_backwards=True``) backwards, and merges their outputs by ``merge_mode``."""

    _no_dependency_attributes = Layer._no_dependency_attributes | {"_build_shape"}

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. "
                f"Received: {layer}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(
                "`backward_layer` need to be a `keras.layers.Layer` instance. Received: "
                f"{backward_layer}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        self.forward_layer = _renamed_copy(layer, "forward_")
        if backward_layer is None:
            self.backward_layer = _renamed_copy(layer, "backward_", go_backwards=True)
        else:
            self.backward_layer = backward_layer
        if hasattr(layer, "use_cudnn"):
            self.forward_layer.use_cudnn = layer.use_cudnn
            self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for inner in (self.forward_layer, self.backward_layer):
            # Keras zeroes masked outputs of returned sequences so the merge reads zeros.
            if getattr(inner, "zero_output_for_mask", None) is not None:
                inner.zero_output_for_mask = inner.return_sequences
        self.merge_mode = merge_mode
        if weights:
            # Keras 3 stores these and never reads them; so does ferroflow.
            half = len(weights) // 2
            self.forward_layer.initial_weights = weights[:half]
            self.backward_layer.initial_weights = weights[half:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify_layer_config(self):
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value. "
                f"Received: forward_layer.go_backwards {forward.go_backwards}, "
                f"backward_layer.go_backwards={backward.go_backwards}"
            )
        for a in ("stateful", "return_sequences", "return_state"):
            f, b = getattr(forward, a), getattr(backward, a)
            if f != b:
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value for "
                    f'attribute "{a}", got "{f}" for forward layer and "{b}" for backward layer'
                )

    def build(self, sequences_shape, initial_state_shape=None):
        object.__setattr__(self, "_build_shape", tuple(sequences_shape))
        for inner in (self.forward_layer, self.backward_layer):
            if not inner.built:
                inner.build(sequences_shape)
                inner.built = True
        self.built = True

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        output_shape = self.forward_layer.compute_output_shape(sequences_shape)
        if self.return_state:
            output_shape, state_shape = output_shape[0], tuple(output_shape[1:])
        if self.merge_mode == "concat":
            output_shape = (*output_shape[:-1], output_shape[-1] * 2)
        elif self.merge_mode is None:
            output_shape = [output_shape, output_shape]
        if self.return_state:
            if self.merge_mode is None:
                return tuple(output_shape) + state_shape + state_shape
            return (output_shape, *state_shape, *state_shape)
        return tuple(output_shape)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {}
        if _training_parameter(self.forward_layer)[0]:
            kwargs["training"] = training
        if _accepts(self.forward_layer.call, "mask"):
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return (output, *states)
        return output

    def reset_states(self):
        self.reset_state()

    def reset_state(self):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    @property
    def states(self):
        if self.forward_layer.states and self.backward_layer.states:
            return tuple(self.forward_layer.states + self.backward_layer.states)
        return None

    def get_build_config(self):
        """Keras's ``build_config``: the sequences' shape this layer was built for."""
        shape = self.__dict__.get("_build_shape")
        return {"input_shape": shape} if self.built and shape is not None else None

    def build_from_config(self, config):
        self.build(tuple(config["input_shape"]))

    def compute_output_spec(self, sequences, initial_state=None, mask=None, training=None):
        """The functional API's outputs, from `compute_output_shape` as in Keras 3."""
        return output_spec(self, sequences)

    def compute_mask(self, inputs, mask):
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = mask if self.merge_mode else (mask, mask)
        else:
            output_mask = None if self.merge_mode else (None, None)
        if self.return_state and self.states is not None:
            state_mask = tuple(None for _ in self.states)
            return (output_mask, *state_mask, *state_mask)
        return output_mask

    def get_config(self):
        from ferroflow.keras.layers import serialization

        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": serialization.serialize(self.forward_layer),
            "backward_layer": serialization.serialize(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.layers import serialization

        config = dict(config)
        config["layer"] = serialization.deserialize(config["layer"], custom_objects=custom_objects)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = serialization.deserialize(
                backward, custom_objects=custom_objects
            )
        return cls(**config)
