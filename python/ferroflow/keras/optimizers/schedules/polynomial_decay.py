"""`PolynomialDecay`: from ``initial_learning_rate`` to ``end_learning_rate`` over
``decay_steps`` as ``(1 - step / decay_steps) ** power``; with ``cycle`` it restarts, each cycle
stretched to the next multiple of ``decay_steps``."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule,
    check_decay_steps,
)
from ferroflow.name_scope import name_scope

__all__ = ["PolynomialDecay"]


class PolynomialDecay(LearningRateSchedule):
    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        end_learning_rate=0.0001,
        power=1.0,
        cycle=False,
        name="PolynomialDecay",
    ):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        check_decay_steps(decay_steps)

    def __call__(self, step):
        with name_scope(self.name):
            initial_learning_rate = array_ops.convert_to_tensor(self.initial_learning_rate)
            dtype = initial_learning_rate.dtype
            end_learning_rate = array_ops.cast(self.end_learning_rate, dtype)
            power = array_ops.cast(self.power, dtype)
            step = array_ops.cast(step, dtype)
            decay_steps = array_ops.cast(self.decay_steps, dtype)
            if self.cycle:
                # The first multiple of decay_steps above step (1 at step 0).
                multiplier = array_ops.where(
                    tf_math.equal(step, 0),
                    array_ops.ones_like(step),
                    tf_math.ceil(step / decay_steps),
                )
                decay_steps = tf_math.multiply(decay_steps, multiplier)
            else:
                step = tf_math.minimum(step, decay_steps)
            p = tf_math.divide(step, decay_steps)
            return tf_math.add(
                tf_math.multiply(
                    initial_learning_rate - end_learning_rate, tf_math.pow(1 - p, power)
                ),
                end_learning_rate,
            )

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }
