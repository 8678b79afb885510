"""What every `keras.applications` builder shares: the argument checks, the input tensor, the
classifier head, and ImageNet weights read from the Keras cache (``~/.keras/models``) in the
legacy Keras ``.h5`` layout, matched to the model's layers by name. ferroflow does not
download: a weight file that is not in the cache is an error naming where to put it."""

import os
import warnings

from ferroflow.keras import activations, backend, layers
from ferroflow.keras.saving.weight_files import import_h5py
from ferroflow.keras.utils.file_utils import get_file


def channels_first():
    """Whether the models are built channels first (`keras.config.image_data_format`)."""
    return backend.image_data_format() == "channels_first"


def bn_axis():
    """The channel axis as Keras's builders that write ``3`` for channels last give it."""
    return 1 if channels_first() else 3


def channel_axis():
    """The channel axis as Keras's builders that write ``-1`` for channels last give it."""
    return 1 if channels_first() else -1


def spatial(shape):
    """(rows, cols) of an image shape without its batch dimension."""
    return (shape[1], shape[2]) if channels_first() else (shape[0], shape[1])


def refuse_channels_first(family):
    """Keras's error for the families it builds channels last only."""
    if channels_first():
        raise ValueError(
            f"{family} does not support the `channels_first` image data format. Switch to "
            "`channels_last` by editing your local config file at ~/.keras/keras.json"
        )


def check_weights(weights, include_top, classes, known=("imagenet",)):
    """Keras's checks of ``weights`` and ``classes`` before a build."""
    if not (weights in {*known, None} or (isinstance(weights, str) and os.path.exists(weights))):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), "
            "'imagenet' (pre-training on ImageNet), or the path to the weights file to be "
            f"loaded.  Received: weights={weights}"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            "If using `weights='imagenet'` with `include_top=True`, `classes` should be "
            f"1000.  Received classes={classes}"
        )


def _warn_channels(count):
    if count not in {1, 3}:
        warnings.warn(
            "This model usually expects 1 or 3 input channels. However, it was passed an "
            f"input_shape with {count} input channels.",
            stacklevel=3,
        )


def obtain_input_shape(
    input_shape, default_size, min_size, require_flatten, weights=None, data_format=None
):
    """The model's input shape in ``data_format`` (default: the image data format),
    validated as Keras validates it."""
    first = (data_format or backend.image_data_format()) == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        _warn_channels(input_shape[0] if first else input_shape[-1])
        if first:
            default_shape = (input_shape[0], default_size, default_size)
        else:
            default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (
            (3, default_size, default_size) if first else (default_size, default_size, 3)
        )
    if weights == "imagenet" and require_flatten:
        # Keras compares as given: a list never equals the default tuple.
        if input_shape is not None and input_shape != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, "
                f"`input_shape` should be {default_shape}.  Received: input_shape={input_shape}"
            )
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels, size = (
            (input_shape[0], input_shape[1:]) if first else (input_shape[-1], input_shape[:2])
        )
        if channels != 3 and weights == "imagenet":
            raise ValueError(
                f"The input must have 3 channels; Received `input_shape={input_shape}`"
            )
        if any(d is not None and d < min_size for d in size):
            raise ValueError(
                f"Input size must be at least {min_size}x{min_size}; Received: "
                f"input_shape={input_shape}"
            )
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            "If `include_top` is True, you should specify a static `input_shape`. "
            f"Received: input_shape={input_shape}"
        )
    return input_shape


def model_input(input_tensor, shape):
    """(the image tensor the layers start from, the model's inputs). A tensor that is not a
    Keras tensor goes through `keras.Input(tensor=...)` as in Keras, which refuses it."""
    if input_tensor is None:
        image = layers.Input(shape=shape)
        return image, image
    if backend.is_keras_tensor(input_tensor):
        image = input_tensor
    else:
        image = layers.Input(tensor=input_tensor, shape=shape)
    return image, _source_inputs(input_tensor)


def _source_inputs(tensor):
    """The `keras.Input` tensors ``tensor`` depends on, as Keras's `get_source_inputs`."""
    from ferroflow.keras.layers.input_layer import InputLayer

    if not hasattr(tensor, "_keras_history"):
        return tensor
    layer = tensor._keras_history[0]
    if isinstance(layer, InputLayer):
        return tensor
    found = []
    for node_input in _node_inputs(tensor):
        for source in _flatten(_source_inputs(node_input)):
            if all(source is not seen for seen in found):
                found.append(source)
    return found


def _flatten(item):
    return item if isinstance(item, list) else [item]


def _node_inputs(tensor):
    layer, node_index, _ = tensor._keras_history
    return layer._inbound_nodes[node_index].input_tensors


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only a softmax or linear classifier."""
    if weights is None:
        return
    found = activations.get(classifier_activation)
    if found not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the "
            "`classifier_activation` argument when using pretrained weights, with "
            f"`include_top=True`; Received: classifier_activation={found}"
        )


def pooled(x, pooling, avg_name="avg_pool", max_name="max_pool"):
    """The ``pooling`` option of a headless model."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def average_head(x, include_top, pooling, classes, classifier_activation, weights, **names):
    """Global average pooling then the ``predictions`` Dense layer, or ``pooling``."""
    if not include_top:
        return pooled(x, pooling, **names)
    x = layers.GlobalAveragePooling2D(name=names.get("avg_name", "avg_pool"))(x)
    return predictions(x, classes, classifier_activation, weights)


def unnamed_average_head(x, include_top, pooling, classes, classifier_activation, weights):
    """`average_head` whose pooling layers keep their default names."""
    return average_head(
        x,
        include_top,
        pooling,
        classes,
        classifier_activation,
        weights,
        avg_name=None,
        max_name=None,
    )


def predictions(x, classes, classifier_activation, weights):
    """The ``predictions`` Dense classifier."""
    validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)


def correct_pad(inputs, kernel_size):
    """The zero padding before a strided 'valid' convolution that makes it 'same'-like."""
    size = inputs.shape[2:4] if channels_first() else inputs.shape[1:3]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def finish(model, weights, file_name=None, origin=None):
    """Loads ``weights`` into the built model: ImageNet weights from the Keras cache
    (``file_name``), or a weight file's path."""
    if weights == "imagenet" and file_name is not None:
        path = cached_file(file_name, origin + file_name)
        load_legacy_h5_weights(model, path)
    elif weights is not None and weights != "imagenet":
        if str(weights).endswith(".weights.h5") or not str(weights).endswith(".h5"):
            model.load_weights(weights)
        else:
            load_legacy_h5_weights(model, weights)
    return model


def cached_file(file_name, origin, cache_subdir="models"):
    """The path of ``file_name`` in the Keras cache; raises when it is not there (the error
    of `keras.utils.get_file`, which never downloads in ferroflow). Keras's file hashes are
    not checked: a mismatch could only lead to a download, which ferroflow does not do."""
    return get_file(file_name, origin, cache_subdir=cache_subdir)


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def load_legacy_h5_weights(model, path):
    """Sets each layer's weights from a legacy Keras ``.h5`` weight file (a group per layer,
    each with a ``weight_names`` attribute listing its datasets in the layer's order).

    Layers are matched by name; when some default-named layer (``normalization_1`` after an
    earlier build in the session) is not in the file, by order, as Keras's loader matches."""
    h5py = import_h5py("reading Keras application weights")
    with h5py.File(path, "r") as f:
        group = f["model_weights"] if "model_weights" in f and "layer_names" not in f.attrs else f
        stored = {}
        for name in (_text(n) for n in group.attrs["layer_names"]):
            g = group[name]
            values = [g[_text(w)][()] for w in g.attrs["weight_names"]]
            if values:
                stored[name] = values
    weighted = [layer for layer in model.layers if layer.weights]
    if all(layer.name in stored for layer in weighted):
        pairs = [(layer, layer.name) for layer in weighted]
    elif len(stored) == len(weighted):
        pairs = list(zip(weighted, stored))
    else:
        raise ValueError(
            f"Weight file {path} contains {len(stored)} layers with weights, into a model with "
            f"{len(weighted)} layers with weights."
        )
    for layer, name in pairs:
        values = stored[name]
        if len(values) != len(layer.weights):
            raise ValueError(
                f"Layer '{layer.name}' expects {len(layer.weights)} weights, but the file "
                f"{path} has {len(values)} for '{name}'."
            )
        layer.set_weights(values)
