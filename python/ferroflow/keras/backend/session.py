"""`tf.keras.backend.clear_session`, which resets the state Keras keeps between models."""

import gc

__all__ = ["clear_session"]


def clear_session(free_memory=True):
    """Resets the global state Keras keeps (Keras 3's `keras.backend.clear_session`): the
    counters behind automatic names start again, so the next `Dense` layer is ``dense`` again,
    and likewise for input tensors, losses, metrics and optimizers; the global dtype policy is
    forgotten (the next one follows floatx again). With `free_memory`, runs Python's garbage
    collector, freeing what only old models and layers held."""
    from ferroflow.keras import _naming as loss_naming
    from ferroflow.keras import dtype_policies
    from ferroflow.keras.backend import common
    from ferroflow.keras.layers import layer
    from ferroflow.keras.optimizers import _naming as optimizer_naming

    layer.reset_names()
    loss_naming.reset_names()
    optimizer_naming.reset_names()
    common.reset_uids()
    dtype_policies.reset_global_policy()
    if free_memory:
        gc.collect()
