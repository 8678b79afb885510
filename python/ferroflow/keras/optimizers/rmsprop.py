"""`tf.keras.optimizers.RMSprop`, with optional momentum and centering."""

from ferroflow import array_ops
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v = rho * v + (1 - rho) * g**2``; the step is ``lr * g / sqrt(v + epsilon)`` (centered:
    ``sqrt(v - a**2 + epsilon)`` with ``a = rho * a + (1 - rho) * g``), applied directly or
    through ``mom = momentum * mom + step``. For an IndexedSlices g, v and a take the dense
    sum of its (squared) rows, and the step stays on g's rows (scattered into w)."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {
        "_velocities",
        "_momentums",
        "_average_gradients",
    }

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
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
        super().__init__(
            learning_rate=learning_rate,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            name=name,
            **kwargs,
        )
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = []
        if self.momentum > 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._average_gradients = []
        if self.centered:
            self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient")

    def update_step(self, gradient, variable, learning_rate):
        lr = array_ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        velocity = self._velocities[index]
        rho = self.rho
        self.assign(
            velocity,
            ops.add(ops.multiply(rho, velocity), ops.multiply(1 - rho, ops.square(gradient))),
        )
        if self.centered:
            average_grad = self._average_gradients[index]
            self.assign(
                average_grad,
                ops.add(ops.multiply(rho, average_grad), ops.multiply(1 - rho, gradient)),
            )
            denominator = velocity - ops.square(average_grad) + self.epsilon
        else:
            denominator = ops.add(velocity, self.epsilon)
        increment = ops.divide(ops.multiply(lr, gradient), ops.sqrt(denominator))
        if self.momentum > 0:
            momentum = self._momentums[index]
            self.assign(momentum, ops.add(ops.multiply(self.momentum, momentum), increment))
            self.assign_sub(variable, momentum)
        else:
            self.assign_sub(variable, increment)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "rho": self.rho,
                "momentum": self.momentum,
                "epsilon": self.epsilon,
                "centered": self.centered,
            }
        )
        return config
