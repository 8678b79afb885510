"""`tf.keras.optimizers.Lion`: sign of an interpolated momentum."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["Lion"]


class Lion(Optimizer):
    """``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then
    ``m = beta_2 * m + (1 - beta_2) * g``."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {"_momentums"}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer "
                f"degenerates to SignSGD. Received: beta_1={beta_1}."
            )

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        beta_1 = array_ops.cast(self.beta_1, dtype)
        beta_2 = array_ops.cast(self.beta_2, dtype)
        m = self._momentums[self._get_variable_index(variable)]
        direction = ops.add(ops.multiply(m, beta_1), ops.multiply(gradient, 1.0 - beta_1))
        self.assign_sub(variable, ops.multiply(lr, tf_math.sign(ops.densify(direction))))
        self.assign(m, ops.add(ops.multiply(m, beta_2), ops.multiply(gradient, 1.0 - beta_2)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
        return config
