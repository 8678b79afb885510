"""`tf.keras.optimizers.Nadam`: Adam with Nesterov momentum (and Keras's momentum schedule)."""

from ferroflow import array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers._adam_family import AdamFamily
from ferroflow.variables import Variable

__all__ = ["Nadam"]


class Nadam(AdamFamily):
    """With ``u_t = beta_1 * (1 - 0.5 * 0.96**t)`` and their running product (a variable
    updated once per step, before the variables): Adam's moments, and
    ``m_hat = u_{t+1} m / (1 - prod_{t+1}) + (1 - u_t) g / (1 - prod_t)``."""

    _no_dependency_attributes = AdamFamily._no_dependency_attributes | {
        "_momentums",
        "_velocities",
    }

    def build(self, var_list):
        if self.built:
            return
        dtype = var_list[0].dtype if var_list else _dtypes.float32
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        # Keras makes this one outside the optimizer's scope, as a plain "variable".
        self._u_product = Variable(1.0, dtype=dtype, trainable=False, name="variable")
        self._track_variable(self._u_product)

    def _apply_clipped_step(self, grads, trainable_variables):
        dtype = self._u_product.dtype
        step = array_ops.cast(self.iterations + 1, dtype)
        self.assign(
            self._u_product,
            self._u_product
            * self.beta_1
            * (1.0 - 0.5 * tf_math.pow(array_ops.cast(0.96, dtype), step)),
        )
        super()._apply_clipped_step(grads, trainable_variables)

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        next_step = array_ops.cast(self.iterations + 2, dtype)
        decay = array_ops.cast(0.96, dtype)
        beta_1 = array_ops.cast(self.beta_1, dtype)
        beta_2 = array_ops.cast(self.beta_2, dtype)
        u_t = beta_1 * (1.0 - 0.5 * tf_math.pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * tf_math.pow(decay, next_step))
        u_product_t = array_ops.cast(self._u_product, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = tf_math.pow(beta_2, local_step)
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - beta_2))
        m_hat = ops.add(
            ops.divide(ops.multiply(u_t_1, m), 1 - u_product_t_1),
            ops.divide(ops.multiply(1 - u_t, gradient), 1 - u_product_t),
        )
        v_hat = ops.divide(v, 1 - beta_2_power)
        self.assign_sub(
            variable, ops.divide(ops.multiply(m_hat, lr), ops.add(ops.sqrt(v_hat), self.epsilon))
        )
