"""`tf.keras.layers.Layer`: state (weights made by `add_weight`, usually in a lazy `build` run
on the first call with the input's shape) and computation (`call`). Sublayers assigned to
attributes are tracked in assignment order, as Keras 3 tracks them, so `weights` lists a
layer's own weights (trainable first) and then each sublayer's.

A call resolves ``training`` as Keras 3 does: the value passed explicitly, else the value of
the enclosing layer call, else the default of ``call``'s own ``training`` parameter; `call`
receives it only if it declares a ``training`` parameter."""

import collections
import contextlib
import inspect
import math
import warnings

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import nest
from ferroflow.array_ops import cast, convert_to_tensor, is_tensor, shape
from ferroflow.keras import _autocast, _call_context, _layer_paths, _scopes
from ferroflow.keras._naming import to_snake_case
from ferroflow.keras._variables import Variable as KerasVariable
from ferroflow.keras.layers import _config, _masking, _quantization
from ferroflow.keras.layers.input_spec import assert_input_compatibility
from ferroflow.train.trackable import AutoTrackable
from ferroflow.variables import Variable

__all__ = ["Layer", "unique_name"]

_name_counts = collections.defaultdict(int)


def unique_name(base):
    """Keras's automatic names: ``dense``, ``dense_1``, ``dense_2``..."""
    count = _name_counts[base]
    _name_counts[base] += 1
    return base if count == 0 else f"{base}_{count}"


def reset_names():
    """Automatic names start again from the bare ``dense`` (`clear_session`)."""
    _name_counts.clear()


def _track_seed_generator(layer, value):
    """Keeps a `SeedGenerator` set as an attribute: its state is one of the layer's variables."""
    from ferroflow.keras._seed_generator import SeedGenerator

    if isinstance(value, SeedGenerator):
        generators = layer.__dict__.setdefault("_seed_generators", [])
        if not any(value is known for known in generators):
            generators.append(value)


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


def _shape_tuple(value):
    """What `build` receives for one input, as in Keras 3: its shape as a tuple."""
    if not hasattr(value, "shape"):
        return value
    return tuple(value.shape.as_list()) if hasattr(value.shape, "as_list") else value.shape


_PLAIN_CONFIG_TYPES = (str, int, float, bool, type(None))


def _auto_config(cls, args, kwargs):
    """Keras's default config of a layer whose class writes no `get_config`: the arguments of
    its constructor (defaults included), when all of them are plain values; else None."""
    try:
        signature = inspect.signature(cls.__init__)
        bound = signature.bind(None, *args, **kwargs)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())[1:]
    if any(p.kind == p.POSITIONAL_ONLY for p in parameters):
        return None
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop(next(iter(signature.parameters)))
    for parameter in parameters:
        if parameter.kind == parameter.VAR_KEYWORD:
            arguments.update(arguments.pop(parameter.name, {}))
        elif parameter.kind == parameter.VAR_POSITIONAL and arguments.pop(parameter.name, ()):
            return None
    arguments.pop("name", None)
    try:
        plain = all(isinstance(v, _PLAIN_CONFIG_TYPES) for v in nest.flatten(arguments))
    except TypeError:
        plain = False
    return arguments if plain else None


# Per layer class: (call declares `training`, its index among the positional arguments
# after `inputs` or None, its default).
_training_parameters = {}


def _training_parameter(layer):
    cls = type(layer)
    found = _training_parameters.get(cls)
    if found is None:
        found = (False, None, None)
        try:
            parameters = list(inspect.signature(layer.call).parameters.values())
        except (TypeError, ValueError):
            parameters = []
        for index, parameter in enumerate(parameters):
            if parameter.name == "training" and parameter.kind in (
                parameter.POSITIONAL_OR_KEYWORD,
                parameter.KEYWORD_ONLY,
            ):
                positional = parameter.kind == parameter.POSITIONAL_OR_KEYWORD and index > 0
                default = None if parameter.default is parameter.empty else parameter.default
                found = (True, index - 1 if positional else None, default)
                break
        _training_parameters[cls] = found
    return found


class Layer(_quantization.QuantizableLayer, AutoTrackable):
    """Base class of Keras layers: weights (`add_weight`, usually in `build`), computation
    (`call`), losses (`add_loss`, weight and activity regularizers) and configs."""

    _no_dependency_attributes = frozenset(
        {
            "_layers",
            "_own_weights",
            "_regularized",
            "_first_call_specs",
            "_losses",
            "_loss_ids",
            "_input_spec",
            "_auto_config",
            "_input_shape_arg",
            "_build_shapes_dict",
        }
    )

    def _checkpoint_alias(self, name):
        """What a Keras 2 checkpoint's edge ``name`` names here (restoring only)."""
        from ferroflow.keras.models import _tf_keras_names

        return _tf_keras_names.layer_child(self, name)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:
            cls.build = _layer_paths.wrap_build(cls.__dict__["build"])
        if "quantize" in cls.__dict__:
            cls.quantize = _quantization.wrap_quantize(cls.__dict__["quantize"])

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        instance.__dict__["_auto_config"] = _auto_config(cls, args, kwargs)
        return instance

    def __init__(
        self,
        *,
        activity_regularizer=None,
        trainable=True,
        dtype=None,
        autocast=True,
        name=None,
        **kwargs,
    ):
        from ferroflow.keras import regularizers

        input_dim = kwargs.pop("input_dim", None)
        input_shape = (input_dim,) if input_dim is not None else kwargs.pop("input_shape", None)
        if kwargs:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}"
            )
        if name is None:
            # Keras's snake case ("Conv2D" -> "conv2d"), not tf.Module's ("conv2_d").
            name = unique_name(to_snake_case(type(self).__name__))
        if not isinstance(name, str) or "/" in name:
            raise ValueError(
                "Argument `name` must be a string and cannot contain character `/`. "
                f"Received: name={name} (of type {type(name)})"
            )
        if not isinstance(trainable, bool):
            raise ValueError(
                "Expected `trainable` to be a boolean. "
                f"Received: trainable={trainable} (of type {type(trainable)})"
            )
        object.__setattr__(self, "_layers", [])
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_regularized", [])
        object.__setattr__(self, "_losses", [])
        # Ids of the losses this layer handed to a `StatelessScope(collect_losses=True)`.
        object.__setattr__(self, "_loss_ids", set())
        object.__setattr__(self, "_input_spec", None)
        if input_shape is not None:
            warnings.warn(
                "Do not pass an `input_shape`/`input_dim` argument to a layer. When using "
                "Sequential models, prefer using an `Input(shape)` object as the first layer "
                "in the model instead.",
                stacklevel=2,
            )
            # What a Sequential model reads to build itself up front.
            object.__setattr__(self, "_input_shape_arg", tuple(input_shape))
        self._name = name
        self._trainable = trainable
        self.dtype_policy = dtype
        self.autocast = autocast
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.built = False
        # TensorSpecs of the first eager call's inputs: what `model.save` traces `call` with.
        self._first_call_specs = None

    def __setattr__(self, name, value):
        if "_layers" in self.__dict__ and not name.startswith("_"):
            for layer in _sublayers_in(value):
                if layer is not self and not any(layer is known for known in self._layers):
                    self._layers.append(layer)
            _track_seed_generator(self, value)
        super().__setattr__(name, value)

    # --- identity -----------------------------------------------------------------------------

    @property
    def name(self):
        return self._name

    @property
    def dtype_policy(self):
        """The layer's `DTypePolicy` (its ``dtype`` argument, else the global policy)."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        policy = _config.dtype_policy_from(value)
        object.__setattr__(self, "_dtype_policy", policy)
        # What calls cast floating inputs to, and what the layers' own casts read.
        object.__setattr__(self, "_dtype", _dtypes.as_dtype(policy.compute_dtype))
        _quantization.policy_set(self, value, policy)

    @property
    def dtype(self):
        """The dtype of this layer's weights (the policy's variable dtype), as Keras 3."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self):
        """The dtype floating inputs are cast to."""
        return self._dtype_policy.compute_dtype

    @property
    def quantization_mode(self):
        """The quantization mode of this layer (its policy's), `None` if not quantized."""
        return self._dtype_policy.quantization_mode

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def input_spec(self):
        """The `InputSpec` (or structure of them) each call's inputs are checked against."""
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        object.__setattr__(self, "_input_spec", value)

    # --- building and calling -------------------------------------------------------------

    def build(self, input_shape):
        self.built = True
        _layer_paths.record_build_shapes(self, Layer.build, (input_shape,), {})

    def get_build_config(self):
        """Keras 3's record of the shapes the layer was built for: ``{"input_shape": shape}``
        for a one-argument `build`, ``{"shapes_dict": {...}}`` for more; None before it is
        built."""
        shapes = self.__dict__.get("_build_shapes_dict")
        if shapes is None:
            return None
        if len(shapes) == 1:
            return {"input_shape": next(iter(shapes.values()))}
        return {"shapes_dict": shapes}

    def build_from_config(self, config):
        """Builds the layer from `get_build_config`'s record (Keras 3)."""
        if config:
            if "input_shape" in config:
                self.build(config["input_shape"])
            elif "shapes_dict" in config:
                self.build(**config["shapes_dict"])

    def call(self, inputs, *args, **kwargs):
        return inputs

    def __call__(self, inputs, *args, **kwargs):
        from ferroflow.keras import _symbolic

        if _symbolic.any_symbolic(inputs):
            return _symbolic.symbolic_call(self, inputs, args, kwargs)
        inputs = nest.map_structure(self._as_input, inputs)
        args, previous_mask = _masking.masks_for_call(self, inputs, args, kwargs)
        if self._first_call_specs is None:
            self._first_call_specs = nest.map_structure(_spec_of, inputs)
        assert_input_compatibility(self.input_spec, inputs, self._name)
        if not self.built:
            self.build(nest.map_structure(_shape_tuple, inputs))
            self.built = True
        args, training = self._resolve_training(args, kwargs)
        with _call_context.layer_call(training) as outermost, self._scopes():
            if outermost:
                self._clear_losses()
            call = self.call if self.quantization_mode is None else self.quantized_call
            outputs = call(inputs, *args, **kwargs)
            self._add_activity_losses(outputs)
        _masking.attach_output_masks(self, inputs, outputs, previous_mask)
        return outputs

    @contextlib.contextmanager
    def _scopes(self):
        """This call's name scope (variable paths) and autocast scope."""
        with _layer_paths.layer_scope(self), self._autocast_scope():
            yield

    def _autocast_scope(self):
        """Keras 3's rule for the dtype variables are read in during this call: the compute
        dtype of a mixed-precision layer (or of one inside such a call whose compute dtype
        differs), none for layers that opt out or compute in a non-float dtype."""
        current = _autocast.current_autocast_dtype()
        compute = self._dtype_policy.compute_dtype
        if current is not None:
            if not self.autocast or not _dtypes.as_dtype(compute).is_floating:
                return _autocast.autocast_scope(None)
            if current != compute:
                return _autocast.autocast_scope(compute)
        elif compute != self._dtype_policy.variable_dtype:
            return _autocast.autocast_scope(compute)
        return contextlib.nullcontext()

    def _resolve_training(self, args, kwargs):
        """The ``training`` value of this call (see the module docstring), put where `call`
        takes it; returns the new positional arguments and the value. Edits ``kwargs``."""
        accepts, position, default = _training_parameter(self)
        passed_positionally = position is not None and position < len(args)
        training = args[position] if passed_positionally else kwargs.get("training")
        if not accepts:
            kwargs.pop("training", None)
        if training is None:
            training = _call_context.enclosing_training()
        if training is None:
            training = default
        if accepts and training is not None:
            if passed_positionally:
                args = args[:position] + (training,) + args[position + 1 :]
            else:
                kwargs["training"] = training
        return args, training

    def _as_input(self, value):
        """A call's input as a tensor: variables are read, arrays and Python numbers
        converted, and floating inputs cast to the layer's dtype (Keras's autocast); a cast
        input keeps its mask."""
        if isinstance(value, Variable):
            value = value.value()
        elif isinstance(value, (np.ndarray, np.generic)):
            value = convert_to_tensor(value)
        elif isinstance(value, (float, int)) and not isinstance(value, bool):
            value = convert_to_tensor(value, dtype=self._dtype if self._dtype.is_floating else None)
        if (
            self.autocast
            and self._dtype.is_floating
            and is_tensor(value)
            and value.dtype.is_floating
            and value.dtype != self._dtype
        ):
            mask = _masking.get_keras_mask(value)
            value = cast(value, self._dtype)
            if mask is not None:
                _masking.set_keras_mask(value, mask)
        return value

    # --- masks ----------------------------------------------------------------------------

    @property
    def supports_masking(self):
        """Whether calls attach `compute_mask`'s result to the outputs; by default, whether
        the class overrides `compute_mask` (as in Keras 3)."""
        value = self.__dict__.get("_supports_masking")
        if value is None:
            value = type(self).compute_mask is not Layer.compute_mask
        return value

    @supports_masking.setter
    def supports_masking(self, value):
        object.__setattr__(self, "_supports_masking", bool(value))

    def compute_mask(self, inputs, previous_mask):
        """The outputs' mask: by default the mask of the first input, unchanged."""
        return previous_mask

    def compute_output_shape(self, input_shape):
        """The output shape for an input of shape ``input_shape`` (layers that can say so
        without running implement this)."""
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `compute_output_shape` method "
            "implemented. Should implement `def compute_output_shape(self, input_shape)`."
        )

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

        dtype = _dtypes.as_dtype(dtype or self.variable_dtype)
        shape = [] if shape is None else list(shape)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        value = initializers.get(initializer)(shape, dtype=dtype)
        autocast = kwargs.pop("autocast", True)
        overwrite_with_gradient = kwargs.pop("overwrite_with_gradient", False)
        variable = KerasVariable(
            value,
            trainable=trainable,
            name=name,
            dtype=dtype,
            constraint=_config.get_constraint(constraint),
        )
        variable._keras_autocast = bool(autocast)
        # The optimizer assigns such a variable its gradient (Keras's float8 scales).
        variable.overwrite_with_gradient = bool(overwrite_with_gradient)
        variable.path = _layer_paths.variable_path(self, name)
        # Keras lists a layer's weights made trainable before those made non-trainable,
        # each group in creation order (whatever `trainable` says later).
        variable._keras_created_trainable = bool(trainable)
        position = sum(1 for v in self._own_weights if getattr(v, "_keras_created_trainable", True))
        self._own_weights.insert(position if trainable else len(self._own_weights), variable)
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

    @property
    def variables(self):
        """`weights` and the state of the layers' seed generators, layer by layer (Keras's
        order: a layer's weights, its generators' states, then its sublayers')."""
        found, seen = [], set()
        for layer in self._walk():
            states = [g.state for g in layer.__dict__.get("_seed_generators", ())]
            for v in [*layer._own_weights, *states]:
                if id(v) not in seen:
                    seen.add(id(v))
                    found.append(v)
        return found

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """Non-trainable weights and the seed generators' states (all variables of a frozen
        layer), as Keras."""
        if not self._trainable:
            return self.variables
        states = [g.state for g in self.__dict__.get("_seed_generators", ())]
        own = [v for v in self._own_weights if not v.trainable] + states
        found, seen = [], set()
        # A frozen sublayer's variables are all non-trainable, whatever each one says.
        for v in own + [w for layer in self._layers for w in layer.non_trainable_variables]:
            if id(v) not in seen:
                seen.add(id(v))
                found.append(v)
        return found

    @property
    def layers(self):
        return list(self._layers)

    # --- functional graph ---------------------------------------------------------------

    @property
    def input(self):
        """The symbolic input of this layer's first call in a functional model."""
        return self._first_node_value("input_tensors", "input")

    @property
    def output(self):
        """The symbolic output of this layer's first call in a functional model."""
        return self._first_node_value("output_tensors", "output")

    def _first_node_value(self, attribute, what):
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(
                f"The layer {self.name} has never been called and thus has no defined {what}."
            )
        values = getattr(nodes[0], attribute)
        return values[0] if len(values) == 1 else values

    def count_params(self):
        """The number of scalars in this layer's weights."""
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self._name}', but the layer "
                "isn't built. You can build it manually via: `layer.build(input_shape)`."
            )
        return int(sum(math.prod(v.shape.as_list()) for v in self.weights))

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

    # --- losses ---------------------------------------------------------------------------

    def add_loss(self, loss):
        """Adds scalar loss tensor(s), usually from inside `call`; `losses` lists them until
        the next outermost layer call starts. In a `keras.StatelessScope` they go to the
        scope's ``losses`` (``collect_losses=True``) or nowhere, as in Keras."""
        losses = nest.flatten(loss)
        for x in losses:
            if not is_tensor(x):
                raise ValueError(
                    "`add_loss()` can only be called from inside `build()` or `call()`, on a "
                    f"tensor input. Received invalid value: {x}"
                )
        _scopes.add_layer_losses(self, losses)

    def _clear_losses(self):
        for layer in self._walk():
            _scopes.clear_layer_losses(layer)

    def _add_activity_losses(self, outputs):
        if self.activity_regularizer is None:
            return
        from ferroflow.math import divide_no_nan

        for output in nest.flatten(outputs):
            if not is_tensor(output):
                continue
            loss = self.activity_regularizer(output)
            if output.shape.rank:
                # Normalised by the batch size, so the strength does not depend on it.
                loss = divide_no_nan(loss, cast(shape(output)[0], loss.dtype))
            self.add_loss(loss)

    @property
    def losses(self):
        """The losses added by this layer's and its sublayers' calls, then the regularisation
        losses of the trainable weights."""
        collected = [loss for layer in self._walk() for loss in _scopes.own_losses(layer)]
        regularizer_of = {
            id(v): regularizer for layer in self._walk() for regularizer, v in layer._regularized
        }
        collected.extend(
            regularizer_of[id(v)](v) for v in self.trainable_weights if id(v) in regularizer_of
        )
        return collected

    # --- configs --------------------------------------------------------------------------

    def get_config(self):
        """The arguments that rebuild this layer with `from_config`: ``name``, ``trainable``
        and ``dtype``, then each layer class's own arguments. A subclass that does not write
        `get_config` gets its constructor's arguments when they are all plain values."""
        config = {"name": self._name}
        own_method = type(self).get_config is Layer.get_config
        if own_method:
            if self._auto_config is None:
                raise NotImplementedError(
                    f"Object {type(self).__name__} was created by passing non-serializable "
                    "argument values in `__init__()`, and therefore the object must override "
                    "`get_config()` in order to be serializable. Please implement "
                    "`get_config()`."
                )
            config.update(self._auto_config)
        config["trainable"] = self.trainable
        config["dtype"] = _config.dtype_policy_config(self._dtype_policy)
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = _config.serialize_regularizer(
                self.activity_regularizer
            )
        return config

    @classmethod
    def from_config(cls, config):
        """The layer that ``config`` (from `get_config`) describes."""
        config = dict(config)
        if isinstance(config.get("dtype"), dict):
            # The policy's name rebuilds it, and keeps the layer's arguments plain values.
            config["dtype"] = _config.dtype_policy_from(config["dtype"]).name
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(
                f"Error when deserializing class '{cls.__name__}' using config={config}.\n\n"
                f"Exception encountered: {e}"
            ) from e

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name}, built={self.built}>"
