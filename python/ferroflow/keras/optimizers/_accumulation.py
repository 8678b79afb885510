"""Keras 3's gradient accumulation (``gradient_accumulation_steps=n``): n - 1 steps only add
their gradients to per-variable accumulators; every n-th step applies the mean of the n
gradients (clipped and with weight decay, as a normal step) and resets the accumulators. The
choice is a `tf.cond` on the step counter, so it also works inside a `tf.function`. An
IndexedSlices gradient is made dense (repeated rows summed) when added to its accumulator."""

from ferroflow import array_ops, control_flow
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops

__all__ = ["apply_accumulated"]


def apply_accumulated(optimizer, grads, variables):
    steps = optimizer.gradient_accumulation_steps
    is_update_step = tf_math.equal(tf_math.floormod(optimizer._iterations + 1, steps), 0)
    accumulators = [
        optimizer._accumulated_gradients[optimizer._get_variable_index(v)] for v in variables
    ]

    def update():
        mean = [(_ops.densify(g) + acc) / steps for g, acc in zip(grads, accumulators)]
        optimizer._apply_clipped_step(mean, variables)
        for acc in optimizer._accumulated_gradients:
            acc.assign(array_ops.zeros(acc.shape.as_list(), dtype=acc.dtype))

    def accumulate():
        for g, acc in zip(grads, accumulators):
            acc.assign(_ops.densify(g) + acc)

    control_flow.cond(is_update_step, update, accumulate)
