"""`keras.config`: Keras 3's global settings as TensorFlow 2.21 exposes them: the numeric
defaults (`keras/_backend_config.py` holds them once), the dtype policy, debugging caps on
`fit`, and switches for flash attention, logging, traceback filtering and unsafe
deserialization."""

import os

from ferroflow.keras._backend_config import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from ferroflow.keras.dtype_policies import dtype_policy, set_dtype_policy
from ferroflow.keras.saving.serialization_lib import enable_unsafe_deserialization
from ferroflow.keras.utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)

__all__ = [
    "backend",
    "disable_flash_attention",
    "disable_interactive_logging",
    "disable_traceback_filtering",
    "dtype_policy",
    "enable_flash_attention",
    "enable_interactive_logging",
    "enable_traceback_filtering",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_flash_attention_enabled",
    "is_interactive_logging_enabled",
    "is_nnx_enabled",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_backend",
    "set_dtype_policy",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]

_BACKENDS = ("tensorflow", "jax", "torch", "numpy", "openvino")

# Keras reads these environment variables once, at import.
_max_epochs = int(os.environ["KERAS_MAX_EPOCHS"]) if "KERAS_MAX_EPOCHS" in os.environ else None
_max_steps_per_epoch = (
    int(os.environ["KERAS_MAX_STEPS_PER_EPOCH"])
    if "KERAS_MAX_STEPS_PER_EPOCH" in os.environ
    else None
)
_flash_attention = None
_traceback_filtering = True


def backend():
    """The backend Keras runs on: TensorFlow's API, which ferroflow implements."""
    return "tensorflow"


def set_backend(backend):
    """Keras reloads itself on another backend; ferroflow's Keras runs only on ferroflow, so
    only "tensorflow" is accepted."""
    if backend not in _BACKENDS:
        raise ValueError(
            "Available backends are ('tensorflow', 'jax', 'torch', 'numpy' and 'openvino'). "
            f"Received: backend={backend}"
        )
    if backend != "tensorflow":
        raise NotImplementedError(
            f"ferroflow's Keras runs on ferroflow (the 'tensorflow' backend); it cannot switch "
            f"to the {backend!r} backend."
        )


def is_nnx_enabled():
    """Flax NNX support (a JAX-backend feature) is never on here."""
    return False


def set_max_epochs(max_epochs):
    """Caps the epochs of every `fit` (a debugging aid); None removes the cap."""
    global _max_epochs
    _max_epochs = max_epochs


def max_epochs():
    return _max_epochs


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Caps the steps of every epoch of `fit` (a debugging aid); None removes the cap."""
    global _max_steps_per_epoch
    _max_steps_per_epoch = max_steps_per_epoch


def max_steps_per_epoch():
    return _max_steps_per_epoch


def enable_flash_attention():
    """Lets attention layers use flash attention where they can (Keras's "enabled" is the
    default, undecided state)."""
    global _flash_attention
    _flash_attention = None


def disable_flash_attention():
    global _flash_attention
    _flash_attention = False


def is_flash_attention_enabled():
    """True or False once set; None (decide per layer) by default, as in Keras."""
    return _flash_attention


def enable_traceback_filtering():
    global _traceback_filtering
    _traceback_filtering = True


def disable_traceback_filtering():
    global _traceback_filtering
    _traceback_filtering = False


def is_traceback_filtering_enabled():
    return _traceback_filtering
