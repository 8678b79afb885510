"""`keras.applications.imagenet_utils`: ImageNet input preprocessing (caffe, tf and torch
modes) and the decoding of 1000-class predictions with the class index from the Keras cache."""

import json

import numpy as np

from ferroflow.keras import backend
from ferroflow.keras.applications import _common
from ferroflow.keras.applications._common import cached_file, correct_pad

__all__ = ["correct_pad", "decode_predictions", "obtain_input_shape", "preprocess_input"]

CLASS_INDEX = None
CLASS_INDEX_PATH = (
    "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
)
_CAFFE_MEAN = [103.939, 116.779, 123.68]
_TORCH_MEAN = [0.485, 0.456, 0.406]
_TORCH_STD = [0.229, 0.224, 0.225]


def obtain_input_shape(
    input_shape, default_size, min_size, data_format, require_flatten, weights=None
):
    """Keras's input-shape validation with Keras's signature (``data_format`` before
    ``require_flatten``)."""
    return _common.obtain_input_shape(
        input_shape, default_size, min_size, require_flatten, weights, data_format=data_format
    )


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocesses a batch of images (values in [0, 255]) for an ImageNet model: "caffe"
    (RGB to BGR, minus the channel means), "tf" (scaled to [-1, 1]) or "torch" (scaled to
    [0, 1], then normalized per channel). A float NumPy array is written over."""
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(
            f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}"
        )
    if data_format is None:
        data_format = backend.image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "Expected data_format to be one of `channels_first` or `channels_last`. "
            f"Received: data_format={data_format}"
        )
    if isinstance(x, np.ndarray):
        return _numpy_input(x, data_format, mode)
    return _tensor_input(x, data_format, mode)


def _channel_shape(ndim, data_format):
    """The broadcast shape of a per-channel vector."""
    if data_format == "channels_first":
        return (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    return (1,) * (ndim - 1) + (3,)


def _numpy_input(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        x = _reverse_channels(x, data_format)
        mean, std = _CAFFE_MEAN, None
    # Channel by channel, in the array's dtype, as Keras subtracts (same rounding).
    axis = (0 if x.ndim == 3 else 1) if data_format == "channels_first" else x.ndim - 1
    for c in range(3):
        index = [slice(None)] * x.ndim
        index[axis] = c
        x[tuple(index)] -= mean[c]
        if std is not None:
            x[tuple(index)] /= std[c]
    return x


def _reverse_channels(x, data_format):
    if data_format == "channels_first":
        return x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
    return x[..., ::-1]


def _tensor_input(x, data_format, mode):
    import ferroflow as tf

    ndim = len(x.shape)
    if mode == "tf":
        x = x / 127.5
        return x - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        if data_format == "channels_first":
            axis = 0 if ndim == 3 else 1
        else:
            axis = ndim - 1
        x = tf.stack([tf.gather(x, i, axis=axis) for i in (2, 1, 0)], axis=axis)
        mean, std = _CAFFE_MEAN, None
    shape = _channel_shape(ndim, data_format)
    x = x + tf.reshape(tf.constant(-np.array(mean), dtype=x.dtype), shape)
    if std is not None:
        std_shape = (-1, 1, 1) if data_format == "channels_first" else shape
        x = x / tf.reshape(tf.constant(np.array(std), dtype=x.dtype), std_shape)
    return x


def decode_predictions(preds, top=5):
    """The ``top`` (class id, description, score) tuples of each row of ImageNet
    predictions, best first; the class index is read from the Keras cache."""
    global CLASS_INDEX
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Received array with shape: {preds.shape}"
        )
    if CLASS_INDEX is None:
        path = cached_file("imagenet_class_index.json", CLASS_INDEX_PATH)
        with open(path) as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in np.asarray(preds):
        best = pred.argsort()[-top:][::-1]
        row = [(*CLASS_INDEX[str(i)], pred[i]) for i in best]
        row.sort(key=lambda item: item[2], reverse=True)
        results.append(row)
    return results
