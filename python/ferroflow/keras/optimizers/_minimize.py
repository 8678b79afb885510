"""tf.keras 2's `Optimizer.compute_gradients` (behind `minimize`, which Keras 3 dropped): the
loss is a callable, evaluated under a fresh tape, or a tensor already recorded on ``tape``."""

from ferroflow.backprop import GradientTape

__all__ = ["compute_gradients"]


def compute_gradients(loss, var_list, tape=None):
    if not callable(loss) and tape is None:
        raise ValueError(
            "`tape` is required when a `Tensor` loss is passed. "
            f"Received: loss={loss}, tape={tape}."
        )
    if tape is None:
        tape = GradientTape()
    if callable(loss):
        with tape:
            if not callable(var_list):
                tape.watch(var_list)
            loss = loss()
            if callable(var_list):
                var_list = var_list()
    elif callable(var_list):
        var_list = var_list()
    var_list = list(var_list)
    grads = tape.gradient(loss, var_list)
    return list(zip(grads, var_list))
