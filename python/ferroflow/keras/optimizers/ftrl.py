"""`tf.keras.optimizers.Ftrl`: follow the regularized leader."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["Ftrl"]

_NON_NEGATIVE = (
    "initial_accumulator_value",
    "l1_regularization_strength",
    "l2_regularization_strength",
    "l2_shrinkage_regularization_strength",
)


class Ftrl(Optimizer):
    """Keras's FTRL-proximal update: an accumulator of squared gradients (from
    ``initial_accumulator_value``), a linear term, and
    ``w = (clip(linear, -l1, l1) - linear) / (accum**-p / lr + 2 * l2')``."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {
        "_accumulators",
        "_linears",
    }

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        values = locals()
        for argument in _NON_NEGATIVE[:1]:
            if values[argument] < 0.0:
                raise ValueError(
                    f"`{argument}` needs to be positive or zero. "
                    f"Received: {argument}={values[argument]}."
                )
        if learning_rate_power > 0.0:
            raise ValueError(
                "`learning_rate_power` needs to be negative or zero. "
                f"Received: learning_rate_power={learning_rate_power}."
            )
        for argument in _NON_NEGATIVE[1:]:
            if values[argument] < 0.0:
                raise ValueError(
                    f"`{argument}` needs to be positive or zero. "
                    f"Received: {argument}={values[argument]}."
                )
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list,
            ["accumulator", "linear"],
            initializer=[float(self.initial_accumulator_value), "zeros"],
        )

    def update_step(self, gradient, variable, learning_rate):
        lr = array_ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        accum = self._accumulators[index]
        linear = self._linears[index]
        lr_power = self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        grad_to_use = ops.add(
            gradient, ops.multiply(2 * self.l2_shrinkage_regularization_strength, variable)
        )
        new_accum = ops.add(accum, ops.square(gradient))
        self.assign_add(
            linear,
            ops.subtract(
                grad_to_use,
                ops.multiply(
                    ops.divide(
                        tf_math.pow(new_accum, -lr_power) - tf_math.pow(accum, -lr_power), lr
                    ),
                    variable,
                ),
            ),
        )
        quadratic = ops.add(ops.divide(tf_math.pow(new_accum, -lr_power), lr), 2 * l2_reg)
        l1 = self.l1_regularization_strength
        clipped = ops.clip(linear, -l1, l1)
        self.assign(variable, ops.divide(ops.subtract(clipped, linear), quadratic))
        self.assign(accum, new_accum)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
                "beta": self.beta,
            }
        )
        return config
