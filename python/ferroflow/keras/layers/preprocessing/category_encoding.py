"""Keras 3's `CategoryEncoding`: integer features as one-hot, multi-hot or count vectors."""

from ferroflow import _tracing
from ferroflow.array_ops import cast, convert_to_tensor
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.preprocessing._base import keras_tensor
from ferroflow.keras.layers.preprocessing._encoding import encode_categorical
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["CategoryEncoding"]


class CategoryEncoding(Layer):
    """Encodes integer features in ``[0, num_tokens)`` as `one_hot`, `multi_hot` or `count`
    vectors (`count` optionally weighted by ``count_weights``)."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError(
                "num_tokens must be set to use this layer. If the number of tokens is not "
                "known beforehand, use the IntegerLookup layer instead."
            )
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def __call__(self, inputs, **kwargs):
        # Keras's `DataLayer.__call__` takes its input alone positionally.
        return super().__call__(inputs, **kwargs)

    def _as_input(self, value):
        # Keras hands this layer its inputs as given (`_convert_input_args = False`).
        return value

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(
                    "`count_weights` is not used when `output_mode` is not `'count'`. "
                    f"Received `count_weights={count_weights}`."
                )
            if isinstance(count_weights, SparseTensor):
                # Sparse weights go with a sparse input (`tf.sparse.bincount`'s rule).
                count_weights = count_weights.with_values(
                    cast(count_weights.values, self.compute_dtype)
                )
            else:
                count_weights = convert_to_tensor(count_weights, dtype=self.compute_dtype)
        if not isinstance(inputs, SparseTensor):
            inputs = convert_to_tensor(inputs)
        if self.sparse and self.output_mode != "one_hot" and _tracing.tracing():
            inputs = self._graph_input(inputs)
        return encode_categorical(
            inputs,
            self.output_mode,
            self.num_tokens,
            self.compute_dtype,
            count_weights,
            sparse=self.sparse,
        )

    def _graph_input(self, inputs):
        """Keras's `DataLayer` inside a `tf.function` converts its input to the compute
        dtype; its sparse counting (`tf.sparse.bincount`) then refuses float indices with a
        TypeError. Only the sparse counts see the difference: the dense and one-hot paths
        convert the indices back to integers."""
        dtype = self.compute_dtype
        if isinstance(inputs, SparseTensor):
            return inputs.with_values(cast(inputs.values, dtype))
        return cast(inputs, dtype)

    def compute_output_shape(self, input_shape):
        if input_shape is not None and len(input_shape) == 0:
            return (self.num_tokens,)
        if self.output_mode == "one_hot":
            if input_shape[-1] != 1 or len(input_shape) == 1:
                return tuple(input_shape) + (self.num_tokens,)
            return tuple(input_shape[:-1]) + (self.num_tokens,)
        return tuple(input_shape[:-1]) + (self.num_tokens,)

    def compute_output_spec(self, inputs, count_weights=None):
        return keras_tensor(
            self.compute_output_shape(inputs.shape), self.compute_dtype, sparse=self.sparse
        )

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config
