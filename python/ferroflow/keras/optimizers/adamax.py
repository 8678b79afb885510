"""`tf.keras.optimizers.Adamax`: Adam with the infinity norm."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers._adam_family import AdamFamily

__all__ = ["Adamax"]


class Adamax(AdamFamily):
    """``m += (g - m) * (1 - beta_1)``, ``u = max(beta_2 * u, |g|)`` and
    ``w -= lr * m / ((1 - beta_1**t) * (u + epsilon))``."""

    _no_dependency_attributes = AdamFamily._no_dependency_attributes | {"_m", "_u"}

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        beta_1_power = tf_math.pow(array_ops.cast(self.beta_1, dtype), local_step)
        index = self._get_variable_index(variable)
        m = self._m[index]
        u = self._u[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign(u, ops.maximum(ops.multiply(self.beta_2, u), ops.abs(gradient)))
        self.assign_sub(
            variable,
            ops.divide(
                ops.multiply(lr, m), ops.multiply(1 - beta_1_power, ops.add(u, self.epsilon))
            ),
        )
