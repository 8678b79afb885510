"""What Keras 3's preprocessing layers share: the `adapt` loop over arrays, lists, tensors and
batched `tf.data` datasets, and `host_call`, which runs a numpy function over tensor values --
at once when eager, as a `tf.numpy_function` node inside a `tf.function` trace (vocabulary
lookups are hash-table work that ferroflow's kernels do not have; TensorFlow runs them on the
host too)."""

import numpy as np

from ferroflow import _tracing
from ferroflow.array_ops import convert_to_tensor, ensure_shape, is_tensor
from ferroflow.keras.layers.layer import Layer

__all__ = ["PreprocessingLayer", "adapt_batches", "host_call", "keras_tensor", "to_numpy"]


def _is_dataset(data):
    from ferroflow.data.dataset import Dataset

    return isinstance(data, Dataset)


def adapt_batches(data, steps, convert):
    """The batches `adapt` feeds to `update_state`, as Keras reads ``data``: each element of a
    `tf.data.Dataset` (the first ``steps``), each item of another iterable that is not a list,
    tuple, array or tensor, else the whole of ``data`` as one batch made by ``convert``."""
    if _is_dataset(data):
        if steps is not None:
            data = data.take(steps)
        yield from data
    elif hasattr(data, "__iter__") and not (
        isinstance(data, (list, tuple, np.ndarray, str, bytes)) or is_tensor(data)
    ):
        for i, batch in enumerate(data):
            if steps is not None and i >= steps:
                break
            yield batch
    else:
        yield convert(data)


def to_numpy(value):
    """A tensor's (or array-like's) values as a numpy array."""
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def host_call(fn, inputs, dtype, shape=None):
    """``fn`` (numpy arrays in, one numpy array out) applied to the tensors ``inputs``; the
    result is a ``dtype`` tensor of static shape ``shape`` (default: the first input's)."""
    if not _tracing.tracing():
        return convert_to_tensor(fn(*[to_numpy(x) for x in inputs]), dtype=dtype)
    from ferroflow.script_ops import numpy_function

    out = numpy_function(fn, list(inputs), dtype, stateful=False)
    return ensure_shape(out, inputs[0].shape if shape is None else shape)


def keras_tensor(shape, dtype, sparse=False):
    """The functional API's output of a layer that states it (Keras's `compute_output_spec`:
    these layers are not run on symbolic inputs, so a layer without its vocabulary yet can
    be part of a model)."""
    from ferroflow.keras.layers.input_layer import KerasTensor

    return KerasTensor(tuple(shape), dtype=dtype, sparse=sparse)


class PreprocessingLayer(Layer):
    """A layer whose state `adapt` computes from data: `reset_state`, then `update_state` on
    each batch, then `finalize_state`."""

    def _adapt_convert(self, data):
        return data

    def adapt(self, data, steps=None):
        """Computes the layer's state from ``data``: a batched `tf.data.Dataset`, an iterable
        of batches, or an array, list or tensor taken as one batch."""
        self.reset_state()
        for batch in adapt_batches(data, steps, self._adapt_convert):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        raise NotImplementedError

    def reset_state(self):
        pass

    def finalize_state(self):
        pass
