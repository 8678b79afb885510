"""Keras 3's exponential moving average of the model's variables (``use_ema=True``): updated after
each step, and written back into the variables every ``ema_overwrite_frequency`` steps or by
`finalize_variable_values`."""

from ferroflow import array_ops, control_flow
from ferroflow import math as tf_math

__all__ = ["maybe_overwrite", "overwrite_with_average", "update_moving_average"]


def update_moving_average(optimizer, variables):
    """average <- m * average + (1 - m) * variable, where m is 0 on the first step (so the
    average starts at the variable's value) and ``ema_momentum`` after."""
    for variable, average in zip(variables, optimizer._model_variables_moving_average):
        not_first_step = tf_math.not_equal(optimizer.iterations, 0)
        momentum = array_ops.cast(not_first_step, variable.dtype) * optimizer.ema_momentum
        average.assign(momentum * average + (1 - momentum) * variable)


def maybe_overwrite(optimizer, variables):
    """Every ``ema_overwrite_frequency`` steps, copies the averages into the variables."""
    if not optimizer.ema_overwrite_frequency:
        return
    due = tf_math.equal(
        tf_math.floormod(optimizer.iterations + 1, optimizer.ema_overwrite_frequency), 0
    )
    control_flow.cond(due, lambda: overwrite_with_average(optimizer, variables), lambda: None)


def overwrite_with_average(optimizer, variables):
    averages = optimizer._model_variables_moving_average
    if len(variables) != len(averages):
        raise ValueError(
            f"The length of model variables ({len(variables)}) "
            "to override does not match the length of model variables "
            "stored in the optimizer "
            f"({len(averages)}). Please "
            "check if the optimizer was called on your model."
        )
    for variable, average in zip(variables, averages):
        variable.assign(average)
