"""Keras 3's hashing layers: `Hashing` puts values into ``num_bins`` bins by FarmHash
fingerprint (`tf.strings.to_hash_bucket_fast`, or the keyed SipHash of
`to_hash_bucket_strong` with a ``salt``), `HashedCrossing` bins the cross of several features
(`tf.sparse.cross_hashed`)."""

from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow import sparse_ops
from ferroflow.array_ops import (
    cast,
    convert_to_tensor,
    expand_dims,
    ones_like,
    reshape,
    squeeze,
    where,
    zeros_like,
)
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.preprocessing._base import keras_tensor
from ferroflow.keras.layers.preprocessing._encoding import encode_categorical
from ferroflow.keras.layers.preprocessing.index_lookup import _map_values, _validate_choice
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["HashedCrossing", "Hashing"]


def _squeeze_last(inputs):
    """``inputs`` without its last axis of size 1 (a sparse tensor's indices lose a column)."""
    if isinstance(inputs, SparseTensor):
        return sparse_ops.reshape(inputs, inputs.dense_shape[:-1])
    return squeeze(inputs, axis=-1)


class Hashing(Layer):
    """Hashes strings or integers into ``num_bins`` bins (bin 0 kept for ``mask_value``)."""

    def __init__(
        self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs
    ):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(
                "The `num_bins` for `Hashing` cannot be `None` or non-positive values. "
                f"Received: num_bins={num_bins}."
            )
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError(
                "When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or "
                f"'in64'. Received: dtype={kwargs['dtype']}"
            )
        accepted = ("int", "one_hot", "multi_hot", "count")
        if output_mode not in accepted:
            raise ValueError(
                f"Invalid value for argument `output_mode`. Expected one of {accepted}. "
                f"Received: output_mode={output_mode}"
            )
        if sparse and output_mode == "int":
            raise ValueError(
                '`sparse` may only be true if `output_mode` is `"one_hot"`, '
                f'`"multi_hot"`, or `"count"`. Received: sparse={sparse} and '
                f"output_mode={output_mode}"
            )
        self.num_bins = num_bins
        self.mask_value = mask_value
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = sparse
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError(
                    "The `salt` argument for `Hashing` can only be a tuple of size 2 "
                    f"integers, or a single integer. Received: salt={salt}."
                )
        self.built = True

    def _as_input(self, value):
        return value

    def _hash_values_to_bins(self, values):
        from ferroflow import strings

        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = _math.equal(values, self.mask_value)
        if values.dtype.is_floating:
            values = cast(values, "int64")
        if values.dtype != _dtypes.string:
            values = strings.as_string(values)
        if self.strong_hash:
            values = strings.to_hash_bucket_strong(values, bins, key=self.salt)
        else:
            values = strings.to_hash_bucket_fast(values, bins)
        if mask is not None:
            values = values + ones_like(values)
            values = where(mask, zeros_like(values), values)
        return values

    def call(self, inputs):
        if not hasattr(inputs, "flat_values") and not hasattr(inputs, "dense_shape"):
            inputs = convert_to_tensor(inputs)
        if self.output_mode == "one_hot" and inputs.shape[-1] == 1:
            inputs = _squeeze_last(inputs)
        indices = _map_values(self._hash_values_to_bins, inputs)
        return encode_categorical(
            indices, self.output_mode, self.num_bins, self.dtype, sparse=self.sparse
        )

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_bins,)
        return tuple(input_shape[:-1]) + (self.num_bins,)

    def compute_output_spec(self, inputs):
        return keras_tensor(self.compute_output_shape(inputs.shape), self.dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_bins": self.num_bins,
                "salt": self.salt,
                "mask_value": self.mask_value,
                "output_mode": self.output_mode,
                "sparse": self.sparse,
            }
        )
        return config


def _is_composite(value):
    return hasattr(value, "flat_values") or isinstance(value, SparseTensor)


class HashedCrossing(Layer):
    """Hashes the cross of two or more categorical features into ``num_bins`` bins."""

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None, **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype, **kwargs)
        _validate_choice(output_mode, ("int", "one_hot"), "HashedCrossing", "output_mode")
        self.num_bins = num_bins
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def _as_input(self, value):
        return value

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                "`HashedCrossing` should be called on a list or tuple of inputs. "
                f"Received: inputs={inputs}"
            )
        if len(inputs) < 2:
            raise ValueError(
                "`HashedCrossing` should be called on at least two inputs. "
                f"Received: inputs={inputs}"
            )
        inputs = [x if _is_composite(x) else convert_to_tensor(x) for x in inputs]
        first_shape = tuple(inputs[0].shape)
        rank = len(first_shape)
        if rank > 2 or (rank == 2 and first_shape[-1] != 1):
            raise ValueError(
                "All `HashedCrossing` inputs should have shape `()`, `(batch_size)` or "
                f"`(batch_size, 1)`. Received: inputs={inputs}"
            )
        if not all(tuple(x.shape) == first_shape for x in inputs[1:]):
            raise ValueError(
                f"All `HashedCrossing` inputs should have equal shape. Received: inputs={inputs}"
            )
        if any(_is_composite(x) for x in inputs):
            raise ValueError(
                f"All `HashedCrossing` inputs should be dense tensors. Received: inputs={inputs}"
            )
        if not all(x.dtype.is_integer or x.dtype == _dtypes.string for x in inputs):
            raise ValueError(
                "All `HashedCrossing` inputs should have an integer or string dtype. "
                f"Received: inputs={inputs}"
            )
        if rank < 2:
            inputs = [expand_dims(x, -1) for x in inputs]
        if rank < 1:
            inputs = [expand_dims(x, -1) for x in inputs]
        from ferroflow import sparse as _sparse

        outputs = _sparse.to_dense(_sparse.cross_hashed(inputs, self.num_bins))
        if rank == 1:
            outputs = squeeze(outputs, axis=1)
        elif rank == 0:
            outputs = reshape(outputs, [])
        return encode_categorical(
            outputs, self.output_mode, self.num_bins, self.dtype, sparse=self.sparse
        )

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape[0])
        if input_shape[0] and input_shape[0][-1] != 1:
            return tuple(input_shape[0]) + (self.num_bins,)
        return tuple(input_shape[0])[:-1] + (self.num_bins,)

    def compute_output_spec(self, inputs):
        # Keras's spec from `compute_output_shape`: never marked sparse, as Keras's.
        shapes = tuple(tuple(x.shape) for x in inputs)
        return keras_tensor(self.compute_output_shape(shapes), self.dtype)

    def get_config(self):
        return {
            "num_bins": self.num_bins,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "name": self.name,
            "dtype": self.dtype,
        }
