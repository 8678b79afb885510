"""The checkpoint edge names of tf_keras (Keras 2), resolved on Keras 3 models and layers, so
that checkpoints written by `tf.train.Checkpoint(model=...)` or `model.save_weights` under
Keras 2 restore into the same architecture here.

Keras 2 names a model's layers ``layer-N`` (the Nth of `model.layers`) and ``layer_with_weights-N``
(the Nth of those layers that have weights), and a layer's weights by their public attribute
(``kernel``, ``embeddings``), where Keras 3 tracks private ones (``_kernel``). TensorFlow 2.21,
whose `tf.keras` is Keras 3, leaves such checkpoints unmatched; ferroflow reads them. Only
restoring looks these names up: checkpoints are written with Keras 3's names."""

import inspect
import re

from ferroflow.train.trackable import MISSING, is_trackable

_LAYER = re.compile(r"layer-(\d+)\Z")
_LAYER_WITH_WEIGHTS = re.compile(r"layer_with_weights-(\d+)\Z")


def model_child(model, name):
    """The layer a Keras 2 edge ``layer-N`` / ``layer_with_weights-N`` names, or MISSING."""
    for pattern, layers in (
        (_LAYER, lambda: model.layers),
        (_LAYER_WITH_WEIGHTS, lambda: [layer for layer in model.layers if layer.weights]),
    ):
        match = pattern.match(name)
        if match:
            index, candidates = int(match.group(1)), layers()
            return candidates[index] if index < len(candidates) else MISSING
    return layer_child(model, name)


def layer_child(layer, name):
    """A public property of the layer holding a trackable value (a weight), or MISSING."""
    if name.startswith("_") or not isinstance(
        inspect.getattr_static(type(layer), name, None), property
    ):
        return MISSING
    try:
        value = getattr(layer, name)
    except Exception:  # noqa: BLE001 - an unbuilt layer's property may raise: nothing there
        return MISSING
    return value if is_trackable(value) else MISSING
