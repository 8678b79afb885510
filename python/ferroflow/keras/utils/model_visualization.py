"""`tf.keras.utils.plot_model` and `model_to_dot`. Without pydot (and graphviz) they raise
Keras's ImportError (or, in IPython, print its message); ferroflow does not draw the graph yet,
so with pydot present they raise NotImplementedError rather than draw something else."""

import sys

from ferroflow.keras.utils.progbar import print_msg

try:
    import pydot
except ImportError:
    pydot = None

__all__ = ["model_to_dot", "plot_model"]

_UNBUILT = (
    "This model has not yet been built. Build the model first by calling `build()` or by "
    "calling the model on a batch of data."
)
_NOT_DRAWN = "ferroflow cannot draw model graphs yet (model_to_dot/plot_model with pydot)."


def _graphviz_works():
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except (OSError, pydot.PydotException):
        return False


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, **kwargs):
    """A pydot graph of ``model`` (needs pydot)."""
    if not model.built:
        raise ValueError(_UNBUILT)
    if pydot is None:
        raise ImportError("You must install pydot (`pip install pydot`) for model_to_dot to work.")
    raise NotImplementedError(_NOT_DRAWN)


def _missing(message):
    # Keras prints instead of raising inside IPython, so that notebooks keep running.
    if "IPython.core.magics.namespace" in sys.modules:
        print_msg(message)
        return True
    raise ImportError(message)


def plot_model(model, to_file="model.png", show_shapes=False, **kwargs):
    """Draws ``model`` to ``to_file`` (needs pydot and graphviz)."""
    if not model.built:
        raise ValueError(_UNBUILT)
    if pydot is None:
        if _missing("You must install pydot (`pip install pydot`) for `plot_model` to work."):
            return None
    elif not _graphviz_works() and _missing(
        "You must install graphviz (see instructions at https://graphviz.gitlab.io/download/) "
        "for `plot_model` to work."
    ):
        return None
    raise NotImplementedError(_NOT_DRAWN)
