"""`tf.keras.optimizers.ScheduleFreeAdamW`: schedule-free AdamW (Defazio et al. 2024)."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers._adam_family import AdamFamily

__all__ = ["ScheduleFreeAdamW"]


class ScheduleFreeAdamW(AdamFamily):
    """The "momentum" slot holds z (starting at the weights): ``z -= lr * g / (sqrt(v_hat) +
    eps)``; the weights y are re-interpolated between z and the running average x of the
    z's. ``warmup_steps`` ramps the learning rate up linearly."""

    _no_dependency_attributes = AdamFamily._no_dependency_attributes | {
        "_momentums",
        "_velocities",
    }

    def __init__(
        self,
        learning_rate=0.0025,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-8,
        warmup_steps=0,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name=name, **kwargs)
        self.warmup_steps = warmup_steps

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        for momentum, variable in zip(self._momentums, var_list):
            momentum.assign(variable.value())

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        beta_1 = array_ops.cast(self.beta_1, dtype)
        beta_2 = array_ops.cast(self.beta_2, dtype)
        epsilon = array_ops.cast(self.epsilon, dtype)
        if self.warmup_steps > 0:
            warmup = array_ops.cast(self.warmup_steps, dtype)
            lr = lr * tf_math.minimum(local_step / warmup, 1.0)
        index = self._get_variable_index(variable)
        momentum = self._momentums[index]
        velocity = self._velocities[index]
        bias_correction_2 = 1 - tf_math.pow(beta_2, local_step)
        self.assign_add(
            velocity, ops.multiply(ops.subtract(ops.square(gradient), velocity), 1 - beta_2)
        )
        denom = tf_math.sqrt(velocity / bias_correction_2) + epsilon
        self.assign_sub(momentum, ops.divide(ops.multiply(lr, gradient), denom))
        # Keras reads its "old" momentum through the variable, after the update above.
        z = momentum.value()
        weight = 1.0 / local_step
        x_old = (variable.value() - (1 - beta_1) * z) / beta_1
        x_new = (1 - weight) * x_old + weight * z
        self.assign(variable, (1 - beta_1) * z + beta_1 * x_new)

    def get_config(self):
        config = super().get_config()
        config["warmup_steps"] = self.warmup_steps
        return config
