"""`tf.keras.optimizers.Adagrad`."""

from ferroflow import array_ops
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``acc += g**2`` (acc starts at ``initial_accumulator_value``), then
    ``w -= lr * g / sqrt(acc + epsilon)``. An IndexedSlices g stays sparse: each of its rows is
    squared and scattered into acc, and the step is scattered into w."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {"_accumulators"}

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
        epsilon=1e-7,
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
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=float(self.initial_accumulator_value)
        )

    def update_step(self, gradient, variable, learning_rate):
        lr = array_ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        accumulator = self._accumulators[self._get_variable_index(variable)]
        self.assign_add(accumulator, ops.square(gradient))
        self.assign_sub(
            variable,
            ops.divide(ops.multiply(lr, gradient), ops.sqrt(ops.add(accumulator, self.epsilon))),
        )

    def get_config(self):
        config = super().get_config()
        config.update(
            {"initial_accumulator_value": self.initial_accumulator_value, "epsilon": self.epsilon}
        )
        return config
