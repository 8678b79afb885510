"""Keras 3's `Discretization`: values bucketed by boundaries, given or estimated by `adapt` as
approximate quantiles (Keras's mergeable summaries, so `adapt` over batches gives Keras's
boundaries)."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import manip_ops
from ferroflow.array_ops import cast, convert_to_tensor, reshape, shape
from ferroflow.keras.layers.preprocessing._base import (
    PreprocessingLayer,
    adapt_batches,
    keras_tensor,
    to_numpy,
)
from ferroflow.keras.layers.preprocessing._encoding import encode_categorical
from ferroflow.keras.layers.preprocessing.index_lookup import _validate_choice
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["Discretization"]


def _summarize(values, epsilon):
    """Keras's summary of a batch: every ``1/epsilon``-th sorted value, with its weight."""
    values = np.sort(np.reshape(values, [-1]))
    step = max(np.size(values) / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1) :: int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _compress(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


def _merge(a, b, epsilon):
    merged = np.concatenate((a, b), axis=1)
    return _compress(np.take(merged, np.argsort(merged[0]), axis=1), epsilon)


class Discretization(PreprocessingLayer):
    """Buckets continuous features by ``bin_boundaries``, or by ``num_bins`` quantiles that
    `adapt` estimates."""

    def __init__(
        self,
        bin_boundaries=None,
        num_bins=None,
        epsilon=0.01,
        output_mode="int",
        sparse=False,
        dtype=None,
        name=None,
    ):
        super().__init__(name=name, dtype=dtype)
        if sparse and output_mode == "int":
            raise ValueError(
                "`sparse=True` may only be used if `output_mode` is `'one_hot'`, "
                f"`'multi_hot'`, or `'count'`. Received: sparse={sparse} and "
                f"output_mode={output_mode}"
            )
        _validate_choice(
            output_mode, ("int", "one_hot", "multi_hot", "count"), "Discretization", "output_mode"
        )
        if num_bins is not None and num_bins < 0:
            raise ValueError(
                f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`"
            )
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. Received: "
                f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self.summary = None if bin_boundaries else np.array([[], []], dtype="float32")
        self.built = True

    def __call__(self, inputs, **kwargs):
        # Keras's `DataLayer.__call__` takes its input alone positionally.
        return super().__call__(inputs, **kwargs)

    @property
    def output_dtype(self):
        return self.compute_dtype if self.output_mode != "int" else "int32"

    def adapt(self, data, steps=None):
        """Estimates ``num_bins`` quantile boundaries from ``data`` (an array or tensor, a
        batched `tf.data.Dataset`, or an iterable of batches)."""
        if self.num_bins is None:
            raise ValueError(
                "Cannot adapt a Discretization layer that has been initialized with "
                "`bin_boundaries`, use `num_bins` instead."
            )
        self.reset_state()
        if isinstance(data, (list, tuple)):
            batches = data if steps is None else data[:steps]
        else:
            batches = adapt_batches(data, steps, lambda d: d)
        for batch in batches:
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        data = to_numpy(data).astype("float32")
        self.summary = _merge(_summarize(data, self.epsilon), self.summary, self.epsilon)

    def finalize_state(self):
        if self.num_bins is None:
            return
        self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def reset_state(self):
        if self.num_bins is not None:
            self.summary = np.array([[], []], dtype="float32")

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(
                "You need to either pass the `bin_boundaries` argument at construction time "
                "or call `adapt(dataset)` before you can start using the `Discretization` "
                "layer."
            )
        if isinstance(inputs, SparseTensor):
            # A sparse input's values are bucketed; its indices stay.
            indices = inputs.with_values(self._bucketize(inputs.values))
        else:
            indices = self._bucketize(convert_to_tensor(inputs))
        return encode_categorical(
            indices,
            self.output_mode,
            len(self.bin_boundaries) + 1,
            self.output_dtype,
            sparse=self.sparse,
        )

    def _bucketize(self, inputs):
        # Bucketize keeps its boundaries as float32 attributes and compares in the input's
        # precision (integers exactly, here as float64).
        dtype = inputs.dtype if inputs.dtype.is_floating else _dtypes.float64
        values = cast(inputs, dtype)
        boundaries = np.asarray(self.bin_boundaries, np.float32).astype(dtype.as_numpy_dtype)
        flat = reshape(values, [-1])
        indices = manip_ops.searchsorted(convert_to_tensor(boundaries), flat, side="right")
        return reshape(indices, shape(values))

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return tuple(input_shape[:-1]) + (depth,)
            return tuple(input_shape) + (depth,)
        if input_shape and len(input_shape) >= 2:
            return (input_shape[0],) + tuple(input_shape[2:]) + (depth,)
        return (depth,)

    def compute_output_spec(self, inputs):
        return keras_tensor(self.compute_output_shape(inputs.shape), self.output_dtype)

    def get_config(self):
        return {
            "bin_boundaries": self.bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "name": self.name,
            "dtype": self.dtype,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = boundaries
            return layer
        return cls(**config)
