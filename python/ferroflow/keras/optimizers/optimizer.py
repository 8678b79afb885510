"""`tf.keras.optimizers.Optimizer`: Keras 3's base optimizer (as TensorFlow 2.21 ships it) over
ferroflow variables.

Subclasses create their per-variable state in `build` (called on the first `apply`, which may
happen while a `tf.function` is first traced) and write `update_step` with tensor ops and
variable updates only, so one code path runs eagerly and inside traces. All state lives in plain
`tf.Variable`s on attributes, which `tf.train.Checkpoint` saves under Keras's names
(``_iterations``, ``_learning_rate``, ``_variables/N``, ``_trainable_variables/N``).

`tf.IndexedSlices` gradients (a gather's) reach `update_step` as they are; the update steps
use `_ops`, which treats them as Keras's TensorFlow backend does (per-row squares, dense
where combined with a dense tensor, scattered into variables).
"""

import warnings

import numpy as np

from ferroflow import array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import math as tf_math
from ferroflow.keras._variables import Variable as KerasVariable
from ferroflow.keras.optimizers import (
    _accumulation,
    _arguments,
    _clipping,
    _ema,
    _gradients,
    _minimize,
    _naming,
    _variable_ops,
    _weight_decay,
)
from ferroflow.keras.optimizers.schedules import LearningRateSchedule
from ferroflow.keras.optimizers.schedules import deserialize as _deserialize_schedule
from ferroflow.keras.optimizers.schedules import serialize as _serialize_schedule
from ferroflow.name_scope import name_scope
from ferroflow.train.trackable import AutoTrackable
from ferroflow.variables import Variable, VariableAggregation

__all__ = ["Optimizer"]

_BAD_LEARNING_RATE = (
    "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a "
    "callable (that takes in the current iteration value and returns the corresponding learning "
    "rate value). Received instead: learning_rate={}"
)


class Optimizer(AutoTrackable):
    """Base class: subclasses override `build` (creating slots with `add_optimizer_variables`),
    `update_step(gradient, variable, learning_rate)` and `get_config`."""

    # Bookkeeping, and per-slot lists whose variables are checkpointed through `_variables`.
    _no_dependency_attributes = frozenset(
        (
            "_lock",
            "_name_scope",
            "_trainable_variables_indices",
            "_model_variables_moving_average",
            "_accumulated_gradients",
            "_exclude_from_weight_decay",
            "_exclude_from_weight_decay_pattern",
            "_exclude_from_weight_decay_cache",
        )
    )

    def __init__(
        self,
        learning_rate,
        weight_decay=None,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        **kwargs,
    ):
        self._lock = False
        _arguments.check_kwargs(kwargs)
        _arguments.check_arguments(
            gradient_accumulation_steps,
            use_ema,
            ema_momentum,
            ema_overwrite_frequency,
            (clipnorm, clipvalue, global_clipnorm),
        )
        self.name = _naming.auto_name(type(self).__name__) if name is None else name
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue
        self.use_ema = use_ema
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.built = False
        self._variables = []
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        # The scope is fixed now ("outer/adam/"), so slots made later, even while a tf.function
        # traces, are named as if made here (TensorFlow lifts them out of the trace).
        with name_scope(self.name) as scope:
            self._name_scope = name_scope(scope)
            iterations = KerasVariable(
                0,
                name="iteration",
                dtype=_dtypes.int64,
                trainable=False,
                aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            )
        iterations.path = f"{self.name}/iteration"
        self._track_variable(iterations)
        self._iterations = iterations
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            self._learning_rate = self._learning_rate_variable(learning_rate)

    def __setattr__(self, name, value):
        if name != "_lock" and "_lock" not in self.__dict__:
            raise RuntimeError(
                f"In optimizer '{type(self).__name__}', you forgot to call "
                "`super().__init__()` as the first statement in the `__init__()` method. "
                "Go add it!"
            )
        super().__setattr__(name, value)

    def _learning_rate_variable(self, value):
        if not isinstance(value, float):
            raise ValueError(_BAD_LEARNING_RATE.format(value))
        with self._name_scope:
            variable = KerasVariable(
                value,
                name="learning_rate",
                dtype=_dtypes.float32,
                trainable=False,
                aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            )
        variable.path = f"{self.name}/learning_rate"
        self._track_variable(variable)
        return variable

    # --- state ---------------------------------------------------------------------------------

    @property
    def iterations(self):
        """The number of steps applied (an int64 variable; with gradient accumulation, the
        number of real updates as a tensor)."""
        if self.gradient_accumulation_steps:
            return tf_math.floordiv(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    @property
    def variables(self):
        """The optimizer's variables: iterations, learning rate (unless a schedule), then the
        slots in creation order."""
        return self._variables[:]

    def _track_variable(self, variable):
        # Re-assigned, not appended: the assignment lets a pending checkpoint restore reach it.
        self._variables = [*self._variables, variable]

    def _untrack_variable(self, variable):
        self._variables = [v for v in self._variables if v is not variable]

    def _var_key(self, variable):
        return variable._unique_id

    def _get_variable_index(self, variable):
        return self._trainable_variables_indices[self._var_key(variable)]

    def build(self, variables):
        """Creates the base class's slots (EMA averages, gradient accumulators) for
        ``variables`` and records them as the variables this optimizer updates."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(
                variables, "average"
            )
        if self.gradient_accumulation_steps:
            # Every variable has an accumulator (float8 scales keep a running maximum).
            self._accumulated_gradients = [
                self.add_variable_from_reference(v, "gradient_accumulator") for v in variables
            ]
        self._trainable_variables_indices = {self._var_key(v): i for i, v in enumerate(variables)}
        self._trainable_variables = list(variables)
        self.built = True

    def add_variable(
        self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None
    ):
        """A non-trainable variable in this optimizer's name scope, tracked in `variables`.
        ``initializer``: "zeros", "ones", a number, or a callable ``(shape, dtype)``."""
        dtype = _dtypes.float32 if dtype is None else _dtypes.as_dtype(dtype)
        shape = list(shape)
        with self._name_scope:
            variable = KerasVariable(
                _variable_ops.initial_value(initializer, shape, dtype),
                name=name,
                dtype=dtype,
                trainable=False,
                aggregation=_variable_ops.AGGREGATIONS[aggregation],
            )
        variable.path = f"{self.name}/{name}" if name else self.name
        self._track_variable(variable)
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A slot shaped like ``reference_variable``, named ``{reference name}_{name}`` (a
        variable "w:0" gives "w_0_momentum")."""
        name = name or "var"
        if hasattr(reference_variable, "path"):
            prefix = reference_variable.path.replace("/", "_")
        else:
            prefix = str(reference_variable.name).replace("/", "_").replace(":", "_")
        return self.add_variable(
            shape=reference_variable.shape.as_list(),
            initializer=initializer,
            dtype=reference_variable.dtype,
            name=f"{prefix}_{name}",
        )

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """One slot per variable for ``name``, or, for a list of names, a tuple of such lists
        (created interleaved per variable, as Keras does)."""
        names = [name] if isinstance(name, str) else list(name)
        initializers = (
            [initializer] * len(names)
            if isinstance(name, str) or not isinstance(initializer, (list, tuple))
            else list(initializer)
        )
        if len(names) != len(initializers):
            raise ValueError(
                "The number of provided names must match the number of provided initializers. "
                f"Received name='{name}', initializer='{initializer}'"
            )
        slots = tuple([] for _ in names)
        for variable in trainable_variables:
            for i, (slot_name, slot_init) in enumerate(zip(names, initializers)):
                # A variable its gradient overwrites (float8 scales) has no slots: None.
                slots[i].append(
                    None
                    if getattr(variable, "overwrite_with_gradient", False)
                    else self.add_variable_from_reference(variable, slot_name, slot_init)
                )
        return slots[0] if isinstance(name, str) else slots

    def set_weights(self, weights):
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been built. "
                "Please call `optimizer.build(trainable_variables)` to create the optimizer "
                "weights before calling `set_weights()`."
            )
        for variable, weight in zip(self._variables, weights):
            if variable.shape.as_list() != list(np.shape(weight)):
                raise ValueError(
                    f"Optimizer variable {variable.name} has shape {variable.shape} not "
                    f"compatible with provided weight shape {np.shape(weight)}."
                )
            variable.assign(weight)

    def save_own_variables(self, store):
        """Writes `variables` into ``store`` under "0", "1"... (a Keras weights file's
        ``optimizer/vars`` group)."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store):
        """Reads what `save_own_variables` wrote. A saved state with another number of
        variables (an optimizer not built yet, say) is skipped with a warning, as in Keras."""
        if len(store.keys()) != len(self.variables):
            message = (
                f"Skipping variable loading for optimizer '{self.name}', because it has "
                f"{len(self.variables)} variables whereas the saved optimizer has "
                f"{len(store.keys())} variables. "
            )
            if len(self.variables) == 0:
                message += "This is likely because the optimizer has not been called/built yet."
            warnings.warn(message, stacklevel=2)
            return
        for i, variable in enumerate(self.variables):
            variable.assign(store[str(i)])

    # --- variable updates (casting as Keras's TensorFlow backend does) --------------------------

    def assign(self, variable, value):
        _variable_ops.update(variable, value, "assign", "scatter_update")

    def assign_add(self, variable, value):
        _variable_ops.update(variable, value, "assign_add", "scatter_add")

    def assign_sub(self, variable, value):
        _variable_ops.update(variable, value, "assign_sub", "scatter_sub")

    def update_step(self, gradient, variable, learning_rate):
        raise NotImplementedError

    # --- applying gradients ----------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Applies (gradient, variable) pairs; pairs with a None gradient are skipped (with a
        warning). Returns the `iterations` variable."""
        grads, trainable_variables = zip(*grads_and_vars)
        self.apply(grads, trainable_variables)
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Updates ``trainable_variables`` (by default those the optimizer was built with) from
        ``grads`` and increments `iterations`."""
        grads = list(grads)
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first. "
                )
            if len(grads) != len(self._trainable_variables_indices):
                raise ValueError(
                    "When passing `grads` as a list of gradient tensors, the gradients must "
                    "match `optimizer.variables` one-to-on. Received a list of "
                    f"{len(grads)} gradients, but the optimizer is tracking "
                    f"{len(self._trainable_variables)} trainable variables."
                )
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                with self._name_scope:
                    self.build(trainable_variables)
                self.built = True
            self._check_variables_are_known(trainable_variables)

        with self._name_scope:
            grads, trainable_variables = _gradients.filter_empty_gradients(
                grads, trainable_variables
            )
            grads, trainable_variables = self._overwrite_with_gradients(grads, trainable_variables)
            if grads:
                if self.loss_scale_factor is not None:
                    grads = [g / self.loss_scale_factor for g in grads]
                self._backend_apply_gradients(grads, trainable_variables)
                for variable in trainable_variables:
                    if variable.constraint is not None:
                        variable.assign(variable.constraint(variable))
        self._iterations.assign_add(1)

    def _overwrite_with_gradients(self, grads, variables):
        """Keras's rule for variables made with ``overwrite_with_gradient`` (float8 scales
        and amax histories): their "gradient" is their new value, assigned as is; the other
        pairs go on to the update."""
        kept_grads, kept_variables = [], []
        for grad, variable in zip(grads, variables):
            if not getattr(variable, "overwrite_with_gradient", False):
                kept_grads.append(grad)
                kept_variables.append(variable)
            elif self.gradient_accumulation_steps:
                self._overwrite_accumulated(grad, variable)
            else:
                variable.assign(grad)
        return kept_grads, kept_variables

    def _overwrite_accumulated(self, grad, variable):
        """With gradient accumulation, Keras keeps the running maximum of such a variable's
        "gradients" and assigns it on each update step."""
        from ferroflow.keras import ops

        steps = self.gradient_accumulation_steps
        is_update_step = ops.equal(ops.mod(self._iterations + 1, steps), 0)
        accumulated = self._accumulated_gradients[self._get_variable_index(variable)]
        running = ops.maximum(grad, accumulated)
        new_value = ops.where(is_update_step, running, variable.value())
        accumulated.assign(ops.where(is_update_step, ops.zeros_like(grad), running))
        variable.assign(new_value)

    def _check_variables_are_known(self, variables):
        for v in variables:
            if self._var_key(v) not in self._trainable_variables_indices:
                raise ValueError(
                    f"Unknown variable: {v}. This optimizer can only be called for the variables "
                    "it was originally built with. When working with a new set of variables, you "
                    "should recreate a new optimizer instance."
                )

    def _backend_apply_gradients(self, grads, trainable_variables):
        if self.gradient_accumulation_steps:
            _accumulation.apply_accumulated(self, grads, trainable_variables)
        else:
            self._apply_clipped_step(grads, trainable_variables)
        if self.use_ema:
            _ema.update_moving_average(self, self._trainable_variables)
            _ema.maybe_overwrite(self, self._trainable_variables)

    def _apply_clipped_step(self, grads, trainable_variables):
        """One update: clip, decay the weights, then each variable's `update_step`."""
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(trainable_variables)
        learning_rate = self.learning_rate
        for grad, variable in zip(grads, trainable_variables):
            self.update_step(grad, variable, learning_rate)

    def _clip_gradients(self, grads):
        if self.clipnorm and self.clipnorm > 0:
            return [_clipping.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _clipping.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            return [_clipping.clip_by_value(g, self.clipvalue) for g in grads]
        return grads

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Leaves the variables in ``var_list``, and those whose name contains (as a regex) one
        of ``var_names``, out of weight decay."""
        _weight_decay.exclusions(self, var_list, var_names)

    def _use_weight_decay(self, variable):
        return _weight_decay.uses_weight_decay(self, variable)

    def _apply_weight_decay(self, variables):
        _weight_decay.apply_weight_decay(self, variables)

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, overwrites ``var_list`` with their moving averages."""
        if self.use_ema:
            _ema.overwrite_with_average(self, var_list)

    def scale_loss(self, loss):
        if self.loss_scale_factor is not None:
            return loss * self.loss_scale_factor
        return loss

    # --- tf.keras 2's minimize -------------------------------------------------------------

    def compute_gradients(self, loss, var_list, tape=None):
        """[(gradient, variable)] of ``loss`` (a callable, or a tensor recorded on ``tape``)."""
        return _minimize.compute_gradients(loss, var_list, tape)

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` and applies them (tf.keras 2's API; Keras 3 keeps
        only `apply_gradients`). Returns the `iterations` variable."""
        return self.apply_gradients(self.compute_gradients(loss, var_list, tape))

    # --- learning rate -----------------------------------------------------------------------

    @property
    def learning_rate(self):
        """The current rate: the learning-rate variable, or a schedule's value at `iterations`."""
        if isinstance(self._learning_rate, LearningRateSchedule):
            return self._learning_rate(self._iterations)
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        if callable(self._learning_rate):
            return self._learning_rate()
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        previous = self._learning_rate if isinstance(self._learning_rate, Variable) else None
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not settable. "
                "If you need the learning rate to be settable, you should instantiate the "
                "optimizer with a float `learning_rate` argument."
            )
        elif previous is not None:
            previous.assign(learning_rate)
        else:
            self._learning_rate = self._learning_rate_variable(learning_rate)
        if previous is not None and self._learning_rate is not previous:
            self._untrack_variable(previous)

    # --- configuration -------------------------------------------------------------------------

    def get_config(self):
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            learning_rate = _serialize_schedule(lr)
        elif isinstance(lr, Variable):
            learning_rate = float(lr.numpy())
        elif array_ops.is_tensor(lr):
            learning_rate = float(lr)
        elif callable(lr):
            learning_rate = lr
        else:
            learning_rate = 0.5
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = _deserialize_schedule(
                config["learning_rate"], custom_objects=custom_objects
            )
        return cls(**config)
