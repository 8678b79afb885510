"""`tf.keras.Sequential`: a linear stack of layers. Given an input shape (an `Input` first, or
``input_shape=`` on the first layer) it builds a functional model of the stack at once;
otherwise on the first call, from the shape of the data."""

from ferroflow.keras import _symbolic
from ferroflow.keras.layers import serialization
from ferroflow.keras.layers._masking import set_keras_mask
from ferroflow.keras.layers.input_layer import InputLayer, KerasTensor
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.models.model import Model

__all__ = ["Sequential"]


class NotALayerError(TypeError, ValueError):
    """A non-layer given to `Sequential.add`. Keras 3 raises ValueError, TF-Keras 2 raised
    TypeError; this is both, so code written against either catches it."""


def _standardize_build_shape(input_shape):
    if input_shape is None:
        raise ValueError("no input shape")
    if hasattr(input_shape, "as_list"):
        input_shape = input_shape.as_list()
    dims = tuple(input_shape)
    if not all(d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in dims):
        raise ValueError(f"not a single shape: {input_shape}")
    return dims


def _dtype_policy_config(dtype):
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": dtype},
        "registered_name": None,
    }


class Sequential(Model):
    """Groups a linear stack of layers into a model.

    >>> import ferroflow as tf
    >>> model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])
    >>> model.output_shape, len(model.weights)
    ((None, 2), 2)
    """

    _no_dependency_attributes = Model._no_dependency_attributes | frozenset({"_inbound_nodes"})

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._functional = None
        if layers:
            for layer in layers:
                self.add(layer, rebuild=False)
            self._maybe_rebuild()

    # --- the stack ------------------------------------------------------------------------

    def add(self, layer, rebuild=True):
        """Adds ``layer`` on top of the stack (an `Input` tensor adds its InputLayer)."""
        if not self._layers:
            input_shape = getattr(layer, "_input_shape_arg", None)
            if input_shape is not None:
                self.add(InputLayer(shape=input_shape), rebuild=False)
        if isinstance(layer, KerasTensor) and layer._keras_history is not None:
            origin = layer._keras_history.operation
            if isinstance(origin, InputLayer):
                layer = origin
        if not isinstance(layer, Layer):
            raise NotALayerError(
                "Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                f"{layer} (of type {type(layer)})"
            )
        if any(known.name == layer.name and known is not layer for known in self._layers):
            raise ValueError(
                "All layers added to a Sequential model should have unique names. Name "
                f"'{layer.name}' is already the name of a layer in this model. Update the "
                "`name` argument to pass a unique name."
            )
        if (
            isinstance(layer, InputLayer)
            and self._layers
            and isinstance(self._layers[0], InputLayer)
        ):
            raise ValueError(
                f"Sequential model '{self.name}' has already been configured to use input "
                f"shape {self._layers[0].batch_shape}. You cannot add a different Input layer "
                "to it."
            )
        self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False
            self._functional = None

    def pop(self, rebuild=True):
        """Removes and returns the top layer."""
        if not self.layers:
            raise IndexError(f"Sequential model '{self.name}' has no layers to pop.")
        layer = self._layers.pop()
        self.built = False
        self._functional = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self):
        self.built = False
        self._functional = None
        if len(self._layers) < 2:
            return
        first = self._layers[0]
        if isinstance(first, InputLayer):
            self.build(first.batch_shape)
            return
        try:
            input_shape = first.input_shape  # a model as the first layer knows its input
        except AttributeError:
            return
        self.build(input_shape)

    @property
    def layers(self):
        # Without the InputLayer at the bottom of the stack, as in Keras.
        layers = list(self._layers)
        if layers and isinstance(layers[0], InputLayer):
            return layers[1:]
        return layers

    @layers.setter
    def layers(self, _):
        raise AttributeError(
            "`Sequential.layers` attribute is reserved and should not be used. Use `add()` and "
            "`pop()` to change the layers in this model."
        )

    # --- building and calling -------------------------------------------------------------

    def build(self, input_shape=None):
        from ferroflow.keras.models.functional import Functional

        try:
            input_shape = _standardize_build_shape(input_shape)
        except (TypeError, ValueError):
            return  # several inputs, or none known: the layers are applied one by one
        if not self._layers:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no layers. Call "
                "`model.add(layer)`."
            )
        if isinstance(self._layers[0], InputLayer):
            if self._layers[0].batch_shape != input_shape:
                raise ValueError(
                    f"Sequential model '{self.name}' has already been configured to use input "
                    f"shape {self._layers[0].batch_shape}. You cannot build it with "
                    f"input_shape {input_shape}"
                )
        else:
            # The first layer's compute dtype, as Keras's (a TextVectorization takes strings).
            dtype = self._layers[0].compute_dtype
            self._layers.insert(0, InputLayer(batch_shape=input_shape, dtype=dtype))
        inputs = self._layers[0].output
        x = inputs
        for layer in self._layers[1:]:
            x = layer(x)
        self._functional = Functional(inputs=inputs, outputs=x)
        self.built = True

    def call(self, inputs, training=None, mask=None):
        if self._functional is not None:
            return self._functional.call(inputs, training=training, mask=mask)
        if mask is not None:
            set_keras_mask(inputs, mask)  # the layers below pass it on (Layer.__call__)
        for layer in self.layers:
            kwargs = {}
            if training is not None and _symbolic.accepts_call_argument(layer, "training"):
                kwargs["training"] = training
            inputs = layer(inputs, **kwargs)
        return inputs

    # --- shapes ---------------------------------------------------------------------------

    def _defined(self, what):
        if self._functional is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._functional

    @property
    def input_shape(self):
        return self._defined("input shape").input_shape

    @property
    def output_shape(self):
        return self._defined("output shape").output_shape

    @property
    def inputs(self):
        return self._defined("inputs").inputs

    @property
    def outputs(self):
        return self._defined("outputs").outputs

    # --- serialisation --------------------------------------------------------------------

    def get_config(self):
        config = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": _dtype_policy_config(self.dtype),
            # With the InputLayer, which `layers` leaves out.
            "layers": [serialization.serialize(layer) for layer in self._layers],
        }
        if self._functional is not None:
            config["build_input_shape"] = self._layers[0].batch_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "name" not in config or "layers" not in config:
            raise ValueError(
                "A Sequential model configuration must be a dictionary containing the 'name' "
                f"and 'layers' keys. Received: config={config}"
            )
        model = cls(name=config["name"], trainable=config.get("trainable", True))
        for layer_config in config["layers"]:
            model.add(serialization.deserialize(layer_config, custom_objects=custom_objects))
        build_input_shape = config.get("build_input_shape")
        if model._functional is None and isinstance(build_input_shape, (tuple, list)):
            model.build(tuple(build_input_shape))
        return model
