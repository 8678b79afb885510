"""`tf.keras.optimizers.SGD`: gradient descent, with optional (Nesterov) momentum."""

from ferroflow import array_ops
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``m = momentum * m - lr * g``; then ``w += m`` (Nesterov: ``w += momentum * m - lr * g``).
    Without momentum, ``w -= lr * g`` (an IndexedSlices g scattered into w); with momentum, an
    IndexedSlices ``lr * g`` is made dense."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {"momentums"}

    def __init__(
        self,
        learning_rate=0.01,
        momentum=0.0,
        nesterov=False,
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
            name=name,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            **kwargs,
        )
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.momentums = []
        if self.momentum != 0:
            self.momentums = self.add_optimizer_variables(variables, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        learning_rate = array_ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        if self.momentum == 0:
            self.assign_sub(variable, ops.multiply(gradient, learning_rate))
            return
        m = self.momentums[self._get_variable_index(variable)]
        momentum = array_ops.cast(self.momentum, variable.dtype)
        self.assign(
            m, ops.subtract(ops.multiply(m, momentum), ops.multiply(gradient, learning_rate))
        )
        if self.nesterov:
            self.assign_add(
                variable,
                ops.subtract(ops.multiply(m, momentum), ops.multiply(gradient, learning_rate)),
            )
        else:
            self.assign_add(variable, m)

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
