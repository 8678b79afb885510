"""Keras 3's `Normalization` (features shifted and scaled by a mean and variance, given or
learned by `adapt`, or the inverse) and `Rescaling` (``x * scale + offset``)."""

import math

import numpy as np

from ferroflow import math as _math
from ferroflow.array_ops import broadcast_to, cast, convert_to_tensor, reshape
from ferroflow.keras import _backend_config as backend_config
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.preprocessing._base import to_numpy

__all__ = ["Normalization", "Rescaling"]


def _batch_of(element):
    return element[0] if isinstance(element, tuple) else element


class Normalization(Layer):
    """Normalizes features to mean 0 and variance 1 along ``axis`` (or undoes it: ``invert``)."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        if (mean is not None) != (variance is not None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(
                    "When setting values directly, `mean` and `variance` must have the same "
                    f"shape. Received: mean shape {np.shape(mean)} and variance shape "
                    f"{np.shape(variance)}"
                )
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(
                    "The rank of `mean` must be less than or equal to the number of axes "
                    f"({len(self.axis)}). Received: mean shape {np.shape(mean)} for axis "
                    f"{self.axis}"
                )

    def build(self, input_shape):
        if input_shape is None:
            return
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(
                "All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                f"ndim={ndim}, while axis={self.axis}"
            )
        self._keep_axis = tuple(sorted(d if d >= 0 else d + ndim for d in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(
                    "All `axis` values to be kept must have a known shape. Received "
                    f"axis={self.axis}, inputs.shape={input_shape}, with unknown axis at "
                    f"index {d}"
                )
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        self._mean_and_var_shape = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                name="mean", shape=self._mean_and_var_shape, initializer="zeros", trainable=False
            )
            self.adapt_variance = self.add_weight(
                name="variance",
                shape=self._mean_and_var_shape,
                initializer="ones",
                trainable=False,
            )
            self.count = self.add_weight(
                name="count", shape=(), dtype="int64", initializer="zeros", trainable=False
            )
            self.built = True
            self.finalize_state()
            return
        mean = np.asarray(self.input_mean, np.float64)
        variance = np.asarray(self.input_variance, np.float64)
        if mean.ndim:
            expanded = [1] * ndim
            for i in range(1, mean.ndim + 1):
                expanded[self._keep_axis[-i]] = mean.shape[-i]
            mean, variance = mean.reshape(expanded), variance.reshape(expanded)
        self.mean = cast(broadcast_to(convert_to_tensor(mean), self._broadcast_shape), self.dtype)
        self.variance = cast(
            broadcast_to(convert_to_tensor(variance), self._broadcast_shape), self.dtype
        )
        self.built = True

    def adapt(self, data):
        """Computes the mean and variance of ``data`` (an array or tensor, a batched
        `tf.data.Dataset`, or an iterable of batches) along the reduced axes."""
        from ferroflow.data.dataset import Dataset

        batches = None
        if isinstance(data, np.ndarray) or hasattr(data, "numpy"):
            input_shape = tuple(data.shape)
        elif isinstance(data, Dataset):
            spec = _batch_of(data.element_spec)
            if len(spec.shape) == 1:
                data = data.batch(128)
                spec = _batch_of(data.element_spec)
            input_shape = tuple(spec.shape.as_list())
            batches = (_batch_of(b) for b in data)
        elif hasattr(data, "__iter__"):
            items = list(data)
            if not items:
                raise ValueError(
                    "adapt() received an empty iterable (no batches). Expected at least one "
                    "batch. Pass a non-empty iterable of arrays or tensors, e.g. "
                    "layer.adapt([x]) or layer.adapt(list_of_batches)."
                )
            input_shape = tuple(np.shape(to_numpy(_batch_of(items[0]))))
            batches = (_batch_of(b) for b in items)
        else:
            raise TypeError(
                f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, backend "
                "tensors, `tf.data.Dataset`, `keras.utils.PyDataset`, and iterables of "
                "batches (e.g. list, generator)."
            )
        if not self.built:
            self.build(input_shape)
        else:
            for d in self._keep_axis:
                if input_shape[d] != self._build_input_shape[d]:
                    raise ValueError(
                        f"The layer was built with input_shape={self._build_input_shape}, but "
                        "adapt() is being called with data with an incompatible shape, "
                        f"data.shape={input_shape}"
                    )
        if batches is None:
            values = to_numpy(data)
            total_mean = np.mean(values, axis=self._reduce_axis)
            total_var = np.var(values, axis=self._reduce_axis)
        else:
            total_mean = np.zeros(self._mean_and_var_shape, np.float32)
            total_var = np.zeros(self._mean_and_var_shape, np.float32)
            total_count = 0
            for batch in batches:
                batch = to_numpy(batch).astype(self.dtype)
                mean = np.mean(batch, axis=self._reduce_axis)
                var = np.var(batch, axis=self._reduce_axis)
                count = math.prod(batch.shape[d] for d in self._reduce_axis)
                total_count += count
                weight = float(count) / total_count
                existing = 1.0 - weight
                new_mean = total_mean * existing + mean * weight
                total_var = (total_var + (total_mean - new_mean) ** 2) * existing + (
                    var + (mean - new_mean) ** 2
                ) * weight
                total_mean = new_mean
        self.adapt_mean.assign(np.asarray(total_mean, self.dtype))
        self.adapt_variance.assign(np.asarray(total_var, self.dtype))
        self.finalize_state()

    def finalize_state(self):
        if self.input_mean is not None or not self.built:
            return
        self.mean = cast(reshape(self.adapt_mean, self._broadcast_shape), self.dtype)
        self.variance = cast(reshape(self.adapt_variance, self._broadcast_shape), self.dtype)

    def load_own_variables(self, store):
        """Keras's loading: the adapted mean, variance and count, then the derived state."""
        for i, variable in enumerate(self._own_weights):
            variable.assign(store[str(i)])
        self.finalize_state()

    def get_build_config(self):
        if self._build_input_shape:
            return {"input_shape": list(self._build_input_shape)}
        return None

    def build_from_config(self, config):
        if config:
            self.build(config["input_shape"])

    def call(self, inputs):
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using it.")
        inputs = cast(convert_to_tensor(inputs), self.dtype)
        scale = _math.maximum(_math.sqrt(self.variance), backend_config.epsilon())
        if self.invert:
            return self.mean + inputs * scale
        return (inputs - self.mean) / scale

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "axis": self.axis,
                "invert": self.invert,
                "mean": np.array(self.input_mean).tolist(),
                "variance": np.array(self.input_variance).tolist(),
            }
        )
        return config


class Rescaling(Layer):
    """Multiplies inputs by ``scale`` and adds ``offset`` (e.g. ``1 / 255`` for images)."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True
        self.built = True

    def call(self, inputs):
        scale = cast(convert_to_tensor(self.scale), self.dtype)
        offset = cast(convert_to_tensor(self.offset), self.dtype)
        if scale.shape.rank and backend_config.image_data_format() == "channels_first":
            # Keras puts a per-channel scale on the channel axis of a channels-first image.
            scale = reshape(scale, tuple(scale.shape) + (1,) * (3 - scale.shape.rank))
        return cast(inputs, self.dtype) * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": _plain(self.scale), "offset": _plain(self.offset)})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("scale", "offset"):
            config[key] = _unplain(config[key])
        return super().from_config(config)


def _plain(value):
    """A scale or offset as Keras serializes it: numbers as they are, arrays as Keras's
    ``__numpy__`` records."""
    if isinstance(value, (int, float)):
        return value
    array = to_numpy(value)
    return {
        "class_name": "__numpy__",
        "config": {"value": array.tolist(), "dtype": array.dtype.name},
    }


def _unplain(value):
    """`_plain`'s inverse: a ``__numpy__`` record back to its array."""
    if isinstance(value, dict) and value.get("class_name") == "__numpy__":
        return np.asarray(value["config"]["value"], dtype=value["config"]["dtype"])
    return value
