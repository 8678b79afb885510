"""`CosineDecay`: half a cosine from the rate down to ``alpha`` times it over ``decay_steps``,
optionally after ``warmup_steps`` of linear warmup from ``initial_learning_rate`` to
``warmup_target`` (the cosine then decays from ``warmup_target``)."""

import math

from ferroflow import array_ops, control_flow
from ferroflow import math as tf_math
from ferroflow.keras.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule,
    check_decay_steps,
)
from ferroflow.name_scope import name_scope

__all__ = ["CosineDecay"]


class CosineDecay(LearningRateSchedule):
    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        alpha=0.0,
        name="CosineDecay",
        warmup_target=None,
        warmup_steps=0,
    ):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        check_decay_steps(decay_steps)

    def _decay(self, step, decay_steps, decay_from_lr, dtype):
        completed_fraction = tf_math.divide(step, decay_steps)
        pi = array_ops.constant(math.pi, dtype=dtype)
        cosine_decayed = 0.5 * (1.0 + tf_math.cos(tf_math.multiply(pi, completed_fraction)))
        decayed = (1 - self.alpha) * cosine_decayed + self.alpha
        return tf_math.multiply(decay_from_lr, decayed)

    def _warmup(self, step, warmup_steps, warmup_target, initial_learning_rate):
        completed_fraction = step / warmup_steps
        total_step_delta = warmup_target - initial_learning_rate
        return total_step_delta * completed_fraction + initial_learning_rate

    def __call__(self, step):
        with name_scope(self.name):
            initial_learning_rate = array_ops.convert_to_tensor(self.initial_learning_rate)
            dtype = initial_learning_rate.dtype
            decay_steps = array_ops.cast(self.decay_steps, dtype)
            step = array_ops.cast(step, dtype)
            if self.warmup_target is None:
                step = tf_math.minimum(step, decay_steps)
                return self._decay(step, decay_steps, initial_learning_rate, dtype)
            warmup_target = array_ops.cast(self.warmup_target, dtype)
            warmup_steps = array_ops.cast(self.warmup_steps, dtype)
            step = tf_math.minimum(step, decay_steps + warmup_steps)
            return control_flow.cond(
                tf_math.less(step, warmup_steps),
                lambda: self._warmup(step, warmup_steps, warmup_target, initial_learning_rate),
                lambda: self._decay(step - warmup_steps, decay_steps, warmup_target, dtype),
            )

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }
