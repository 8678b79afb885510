"""`PiecewiseConstantDecay`: ``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
``boundaries[i-1] < step <= boundaries[i]``, ``values[-1]`` after the last boundary."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers.schedules.learning_rate_schedule import LearningRateSchedule
from ferroflow.name_scope import name_scope

__all__ = ["PiecewiseConstantDecay"]


class PiecewiseConstantDecay(LearningRateSchedule):
    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        super().__init__()
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of "
                f"values. Received: boundaries={boundaries} of length "
                f"{len(boundaries)}, and values={values} "
                f"of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        with name_scope(self.name):
            step = array_ops.convert_to_tensor(step)
            boundaries = [
                array_ops.cast(array_ops.convert_to_tensor(b), step.dtype) for b in self.boundaries
            ]
            values = [array_ops.convert_to_tensor(v) for v in self.values]
            dtype = values[0].dtype

            # Each range contributes its value times (step in range): a sum, so no branching.
            def in_range(condition):
                return array_ops.cast(condition, dtype)

            result = in_range(tf_math.less_equal(step, boundaries[0])) * values[0]
            result += in_range(tf_math.greater(step, boundaries[-1])) * values[-1]
            for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
                inside = tf_math.logical_and(
                    tf_math.greater(step, low), tf_math.less_equal(step, high)
                )
                result += in_range(inside) * value
            return result

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}
