"""`tf.keras.optimizers.Lamb`: Adam steps scaled per variable by a trust ratio."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers._adam_family import AdamFamily

__all__ = ["Lamb"]


class Lamb(AdamFamily):
    """Adam's bias-corrected ``update = m_hat / (sqrt(v_hat) + epsilon)``, applied as
    ``w -= ratio * lr * update`` with ``ratio = ||w|| / ||update||`` (1 where either is 0)."""

    _no_dependency_attributes = AdamFamily._no_dependency_attributes | {
        "_momentums",
        "_velocities",
    }

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        beta_1_power = tf_math.pow(array_ops.cast(self.beta_1, dtype), local_step)
        beta_2_power = tf_math.pow(array_ops.cast(self.beta_2, dtype), local_step)
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.beta_2))
        m_hat = m / (1.0 - beta_1_power)
        v_sqrt = tf_math.sqrt(v / (1.0 - beta_2_power)) + self.epsilon
        update = m_hat / v_sqrt
        w_norm = tf_math.sqrt(tf_math.reduce_sum(tf_math.pow(variable.value(), 2)))
        g_norm = tf_math.sqrt(tf_math.reduce_sum(tf_math.pow(update, 2)))
        zero = array_ops.zeros([], dtype)
        one = array_ops.ones([], dtype)
        ratio = array_ops.where(
            w_norm > zero, array_ops.where(g_norm > zero, w_norm / g_norm, one), one
        )
        self.assign_sub(variable, ratio * lr * update)
