"""`JaxLayer`, `FlaxLayer` and `TorchModuleWrapper`: Keras's wrappers of JAX functions, Flax
modules and PyTorch modules. Keras under TensorFlow runs the JAX ones through jax2tf and the
PyTorch one only on its torch backend; ferroflow can run neither, so each fails as Keras under
TensorFlow 2.21 does when the library is missing (the same exception and message), and says
ferroflow cannot run it when the library is present."""

import importlib.util

from ferroflow.keras.layers.layer import Layer

__all__ = ["FlaxLayer", "JaxLayer", "TorchModuleWrapper"]


def _unsupported(what):
    return NotImplementedError(
        f"ferroflow cannot run {what}: its ops are ferroflow's own, not JAX's or PyTorch's."
    )


class JaxLayer(Layer):
    """A layer wrapping a JAX function (``call_fn``) with its parameters and state."""

    def __init__(self, call_fn, init_fn=None, params=None, state=None, seed=None, **kwargs):
        if importlib.util.find_spec("jax") is None:
            raise ImportError(
                "This requires the jax module. You can install it via `pip install jax`"
            )
        raise _unsupported("a JAX function")


class FlaxLayer(JaxLayer):
    """A layer wrapping a Flax module."""

    def __init__(self, module, method=None, variables=None, **kwargs):
        import flax  # noqa: F401 - Keras imports it first, so a missing Flax fails the same way

        raise _unsupported("a Flax module")


class TorchModuleWrapper(Layer):
    """A layer wrapping a `torch.nn.Module` (Keras's torch backend only)."""

    def __init__(self, module, name=None, output_shape=None, **kwargs):
        import torch.nn  # noqa: F401 - Keras imports it first, so a missing torch fails the same way

        raise _unsupported("a PyTorch module")
