"""The (gradient, variable) pairs an optimizer is handed: dropping missing gradients as Keras 3
does (a warning for some, ValueError for all). `tf.IndexedSlices` gradients go on as they are
(see `_ops`)."""

import warnings

__all__ = ["filter_empty_gradients"]


def filter_empty_gradients(grads, variables):
    """(grads, variables) without the pairs whose gradient is None."""
    kept = [(g, v) for g, v in zip(grads, variables) if g is not None]
    if not kept:
        raise ValueError("No gradients provided for any variable.")
    missing = [_display_name(v) for g, v in zip(grads, variables) if g is None]
    if missing:
        warnings.warn(
            f"Gradients do not exist for variables {missing} when minimizing the loss."
            " If using `model.compile()`, did you forget to provide a `loss` argument?",
            stacklevel=3,
        )
    return [g for g, _ in kept], [v for _, v in kept]


def _display_name(variable):
    return getattr(variable, "path", None) or variable.name
