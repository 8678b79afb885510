"""`ExponentialDecay`: ``initial_learning_rate * decay_rate ** (step / decay_steps)``."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule,
    check_decay_steps,
)
from ferroflow.name_scope import name_scope

__all__ = ["ExponentialDecay"]


class ExponentialDecay(LearningRateSchedule):
    """With ``staircase=True`` the exponent is ``floor(step / decay_steps)``."""

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        decay_rate,
        staircase=False,
        name="ExponentialDecay",
    ):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        check_decay_steps(decay_steps)

    def __call__(self, step):
        with name_scope(self.name):
            initial_learning_rate = array_ops.convert_to_tensor(self.initial_learning_rate)
            dtype = initial_learning_rate.dtype
            decay_steps = array_ops.cast(self.decay_steps, dtype)
            decay_rate = array_ops.cast(self.decay_rate, dtype)
            p = array_ops.cast(step, dtype) / decay_steps
            if self.staircase:
                p = tf_math.floor(p)
            return tf_math.multiply(initial_learning_rate, tf_math.pow(decay_rate, p))

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }
