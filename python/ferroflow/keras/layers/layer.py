"""`tf.keras.layers.Layer`: state (weights made by `add_weight`, usually in a lazy `build` run
on the first call with the input's shape) and computation (`call`). Sublayers assigned to
attributes are tracked in assignment order, as Keras 3 tracks them, so `weights` lists a
layer's own weights (trainable first) and then each sublayer's."""

import collections

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import nest
from ferroflow.array_ops import convert_to_tensor
from ferroflow.module import camel_to_snake
from ferroflow.tensor_shape import TensorShape
from ferroflow.train.trackable import AutoTrackable
from ferroflow.variables import Variable

__all__ = ["Layer", "unique_name"]

_name_counts = collections.defaultdict(int)


def unique_name(base):
    """Keras's automatic names: ``dense``, ``dense_1``, ``dense_2``..."""
    count = _name_counts[base]
    _name_counts[base] += 1
    return base if count == 0 else f"{base}_{count}"


def _sublayers_in(value):
    if isinstance(value, Layer):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _sublayers_in(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _sublayers_in(v)]
    return []


def _spec_of(value):
    from ferroflow.tensor_spec import TensorSpec

    return TensorSpec(value.shape, value.dtype) if hasattr(value, "dtype") else value


class Layer(AutoTrackable):
    """Base class of Keras layers."""

    _no_dependency_attributes = frozenset(
        {"_layers", "_own_weights", "_regularized", "_first_call_specs"}
    )

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        kwargs.pop("input_shape", None)
        kwargs.pop("input_dim", None)
        kwargs.pop("autocast", None)
        if kwargs:
            raise TypeError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}"
            )
        object.__setattr__(self, "_layers", [])
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_regularized", [])
        self._name = name or unique_name(camel_to_snake(type(self).__name__))
        self._trainable = bool(trainable)
        self._dtype = _dtypes.as_dtype(dtype or "float32")
        self.built = False
        # TensorSpecs of the first eager call's inputs: what `model.save` traces `call` with.
        self._first_call_specs = None

    def __setattr__(self, name, value):
        if "_layers" in self.__dict__ and not name.startswith("_"):
            for layer in _sublayers_in(value):
                if layer is not self and not any(layer is known for known in self._layers):
                    self._layers.append(layer)
        super().__setattr__(name, value)

    # --- identity -----------------------------------------------------------------------------

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype.name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    # --- building and calling -------------------------------------------------------------

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def __call__(self, inputs, *args, **kwargs):
        from ferroflow.keras import _symbolic

        if _symbolic.any_symbolic(inputs):
            return _symbolic.symbolic_call(self, inputs, args, kwargs)
        inputs = nest.map_structure(self._as_input, inputs)
        if self._first_call_specs is None:
            self._first_call_specs = nest.map_structure(_spec_of, inputs)
        if not self.built:
            shapes = nest.map_structure(lambda t: TensorShape(t.shape), inputs)
            self.build(shapes if nest.is_nested(shapes) else shapes)
            self.built = True
        return self.call(inputs, *args, **kwargs)

    def _as_input(self, value):
        if isinstance(value, Variable):
            return value.value()
        if isinstance(value, (np.ndarray, list, float, int)):
            return convert_to_tensor(value, dtype=self._dtype if self._dtype.is_floating else None)
        return value

    # --- weights --------------------------------------------------------------------------

    def add_weight(
        self,
        shape=None,
        initializer=None,
        dtype=None,
        trainable=True,
        regularizer=None,
        constraint=None,
        name=None,
        **kwargs,
    ):
        from ferroflow.keras import initializers, regularizers

        dtype = _dtypes.as_dtype(dtype or self._dtype)
        shape = [] if shape is None else list(shape)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        value = initializers.get(initializer)(shape, dtype=dtype)
        variable = Variable(value, trainable=trainable, name=name, dtype=dtype)
        variable.path = f"{self._name}/{name}" if name else self._name
        self._own_weights.append(variable)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularized.append((regularizer, variable))
        return variable

    def _walk(self, seen=None):
        """This layer, then its sublayers depth first, each once."""
        seen = set() if seen is None else seen
        if id(self) in seen:
            return
        seen.add(id(self))
        yield self
        for layer in self._layers:
            yield from layer._walk(seen)

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        own = [v for v in self._own_weights if v.trainable]
        return own + [w for layer in self._layers for w in layer.trainable_weights]

    @property
    def non_trainable_weights(self):
        own = [v for v in self._own_weights if not v.trainable or not self._trainable]
        return own + [w for layer in self._layers for w in layer.non_trainable_weights]

    @property
    def weights(self):
        found, seen = [], set()
        for layer in self._walk():
            for v in layer._own_weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    found.append(v)
        return found

    variables = weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def layers(self):
        return list(self._layers)

    @property
    def losses(self):
        """Regularisation losses of this layer's and its sublayers' weights."""
        return [reg(v) for layer in self._walk() for reg, v in layer._regularized]

    def get_weights(self):
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self._name}' with a weight list "
                f"of length {len(weights)}, but the layer was expecting {len(mine)} weights."
            )
        for variable, value in zip(mine, weights):
            value = np.asarray(value)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"Layer {self._name} weight shape {tuple(variable.shape)} is not compatible "
                    f"with provided weight shape {value.shape}."
                )
            variable.assign(value)

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name}, built={self.built}>"
