"""`tf.keras.optimizers.Adadelta`."""

from ferroflow import array_ops
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``acc_g = rho * acc_g + (1 - rho) * g**2``,
    ``delta = -sqrt(acc_d + eps) * g / sqrt(acc_g + eps)``,
    ``acc_d = rho * acc_d + (1 - rho) * delta**2`` and ``w += lr * delta``. An IndexedSlices g
    keeps delta on its rows (scattered into w)."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {
        "_accumulated_grads",
        "_accumulated_delta_vars",
    }

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"]
        )

    def update_step(self, gradient, variable, learning_rate):
        lr = array_ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        rho = self.rho
        index = self._get_variable_index(variable)
        acc_grad = self._accumulated_grads[index]
        acc_delta = self._accumulated_delta_vars[index]

        def rms(x):
            return ops.sqrt(ops.add(x, self.epsilon))

        self.assign(acc_grad, ops.add(rho * acc_grad, ops.multiply(1 - rho, ops.square(gradient))))
        delta = ops.negative(ops.divide(ops.multiply(rms(acc_delta), gradient), rms(acc_grad)))
        self.assign(
            acc_delta,
            ops.add(ops.multiply(rho, acc_delta), ops.multiply(1 - rho, ops.square(delta))),
        )
        self.assign_add(variable, ops.multiply(lr, delta))

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "epsilon": self.epsilon})
        return config
