"""`tf.keras.optimizers.LossScaleOptimizer`: Keras 3's dynamic loss scaling around an inner
optimizer (``scale_loss`` multiplies the loss; `apply` unscales the gradients, applies them
when all are finite and grows the scale every ``dynamic_growth_steps``, else skips the step
and halves the scale)."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.control_flow import cond
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["LossScaleOptimizer"]

_BASE_DEFAULTS = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer``; its variables are its own (iterations, learning rate,
    ``step_counter``, ``dynamic_scale``) followed by the inner optimizer's."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {"inner_optimizer"}

    def __init__(
        self,
        inner_optimizer,
        initial_scale=2.0**15,
        dynamic_growth_steps=2000,
        name=None,
        **kwargs,
    ):
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                "`loss_scale_factor` directly on the `inner_optimizer`."
            )
        for argument, default in _BASE_DEFAULTS.items():
            if argument not in kwargs:
                continue
            value = kwargs.pop(argument)
            if (default is None and value is not None) or value != default:
                raise ValueError(
                    f"LossScaleOptimizer does not support `{argument}`. Instead, set "
                    f"`{argument}` on the `inner_optimizer`."
                )
        if kwargs:
            raise ValueError(
                f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs.keys())}`."
            )
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list):
        self.step_counter = self.add_variable(
            shape=(), dtype="int64", initializer="zeros", name="step_counter"
        )
        self.dynamic_scale = self.add_variable(
            shape=(), dtype="float32", initializer=float(self.initial_scale), name="dynamic_scale"
        )
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self):
        return self._variables + self.inner_optimizer.variables

    def check_finite(self, grads):
        """Whether every gradient holds only finite values (a boolean tensor)."""
        finite = [
            tf_math.reduce_all(tf_math.is_finite(ops.densify(g))) for g in grads if g is not None
        ]
        return tf_math.reduce_all(array_ops.stack(finite))

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if not self.built:
            with self._name_scope:
                self.build(trainable_variables)
            self.built = True
        variables = None if trainable_variables is None else list(trainable_variables)

        def finite():
            scale = self.dynamic_scale
            unscaled = [None if g is None else _unscale(g, scale) for g in grads]
            self.inner_optimizer.apply(unscaled, trainable_variables=variables)

            def upscale():
                self.step_counter.assign(0)
                self.dynamic_scale.assign(self.dynamic_scale * 2.0)

            def increment():
                self.step_counter.assign_add(1)

            cond(
                tf_math.equal(self.step_counter, self.dynamic_growth_steps - 1), upscale, increment
            )

        def non_finite():
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale * 0.5)

        cond(self.check_finite(grads), finite, non_finite)

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        self.inner_optimizer.learning_rate = learning_rate

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    def scale_loss(self, loss):
        """``loss * dynamic_scale`` (the initial scale before the optimizer is built)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return loss * scale

    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self):
        from ferroflow.keras.optimizers.serialization import serialize

        return {
            "name": self.name,
            "inner_optimizer": serialize(self.inner_optimizer),
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.optimizers.serialization import deserialize

        # Keras pops the inner optimizer out of the caller's dict.
        inner = deserialize(config.pop("inner_optimizer"), custom_objects=custom_objects)
        return cls(inner, **config)


def _unscale(gradient, scale):
    scale = array_ops.cast(scale, gradient.dtype)
    if isinstance(gradient, ops.IndexedSlices):
        return ops.divide(gradient, scale)
    return gradient / scale
