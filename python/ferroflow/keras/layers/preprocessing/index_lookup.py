"""Keras 3's lookup layers, `StringLookup` and `IntegerLookup`: a vocabulary (given, read from a
file, or learned by `adapt` as the most frequent tokens, ties broken by the larger token first)
maps tokens to indices, after the mask index and the OOV indices, or indices back to tokens
(``invert``); the indices can come out encoded (`one_hot`, `multi_hot`, `count`, `tf_idf`)."""

import collections
import itertools
import os

import numpy as np

from ferroflow import _tracing
from ferroflow import dtypes as _dtypes
from ferroflow import errors as _errors
from ferroflow.array_ops import (
    cast,
    convert_to_tensor,
    ensure_shape,
    expand_dims,
    gather_nd,
    is_tensor,
    reshape,
    shape,
    squeeze,
    unique,
    where,
)
from ferroflow.keras.layers.preprocessing._base import (
    PreprocessingLayer,
    host_call,
    keras_tensor,
    to_numpy,
)
from ferroflow.keras.layers.preprocessing._encoding import DROPPED, encode_categorical
from ferroflow.sparse_ops import to_dense as sparse_to_dense
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["IntegerLookup", "StringLookup"]

# From this many tokens a call deduplicates before looking up (below, the extra ops cost more
# than the repeated dict lookups save).
_DEDUPE_FROM = 32768

_OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def _validate_choice(value, allowed, caller, arg):
    if value not in allowed:
        raise ValueError(
            f"The `{arg}` argument of layer {caller} received an invalid value `{value}`. "
            f"Allowed values are: {', '.join(repr(a) for a in allowed)}."
        )


def _as_list(value):
    if is_tensor(value):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return value


def _is_ragged(value):
    return hasattr(value, "flat_values") and hasattr(value, "with_flat_values")


def _map_values(fn, inputs):
    """``fn`` on a dense tensor, or on a ragged or sparse tensor's values."""
    if _is_ragged(inputs):
        return inputs.with_flat_values(fn(inputs.flat_values))
    if hasattr(inputs, "indices") and hasattr(inputs, "dense_shape"):
        from ferroflow.sparse_tensor import SparseTensor

        return SparseTensor(inputs.indices, fn(inputs.values), inputs.dense_shape)
    return fn(inputs)


class IndexLookup(PreprocessingLayer):
    """The machinery `StringLookup` and `IntegerLookup` share (Keras's `IndexLookup`)."""

    _string_keys = True

    def __init__(
        self,
        max_tokens,
        num_oov_indices,
        mask_token,
        oov_token,
        vocabulary_dtype,
        vocabulary=None,
        idf_weights=None,
        invert=False,
        output_mode="int",
        sparse=False,
        pad_to_max_tokens=False,
        oov_method="floormod",
        name=None,
        salt=None,
        **kwargs,
    ):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(
                f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}"
            )
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(
                "If pad_to_max_tokens is True, must set `max_tokens`. "
                f"Received: max_tokens={max_tokens}"
            )
        if num_oov_indices < 0:
            raise ValueError(
                "`num_oov_indices` must be greater than or equal to 0. "
                f"Received: num_oov_indices={num_oov_indices}"
            )
        _validate_choice(oov_method, ("floormod", "farmhash"), type(self).__name__, "oov_method")
        if salt is not None:
            if _dtypes.as_dtype(vocabulary_dtype).is_integer and oov_method != "farmhash":
                raise ValueError(
                    "`salt` can only be used when `oov_method='farmhash'`. "
                    f"Received: oov_method={oov_method}"
                )
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                salt = list(salt)
            elif isinstance(salt, int):
                salt = [salt, salt]
            else:
                raise ValueError(
                    "The `salt` argument for `IndexLookup` can only be a tuple of 2 integers, "
                    f"or a single integer. Received: salt={salt}."
                )
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _validate_choice(output_mode, _OUTPUT_MODES, type(self).__name__, "output_mode")
        if invert and output_mode != "int":
            raise ValueError(
                "`output_mode` must be `'int'` when `invert` is true. "
                f"Received: output_mode={output_mode}"
            )
        if sparse and output_mode == "int":
            raise ValueError(
                "`sparse` may only be true if `output_mode` is `'one_hot'`, "
                "`'multi_hot'`, `'count'` or `'tf_idf'`. "
                f"Received: sparse={sparse} and output_mode={output_mode}"
            )
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(
                "`idf_weights` should only be set if `output_mode` is `'tf_idf'`. "
                f"Received: idf_weights={idf_weights} and output_mode={output_mode}"
            )
        frozen_size = kwargs.pop("vocabulary_size", None)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")
        super().__init__(name=name)
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = _dtypes.as_dtype(vocabulary_dtype).name
        self.oov_method = oov_method
        self.salt = salt
        self._frozen_vocab_size = frozen_size
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = has_input_vocabulary
        self._tokens = []
        self._index = {}
        self.idf_weights = None
        if output_mode == "tf_idf" and has_input_vocabulary and idf_weights is None:
            raise ValueError(
                "When specifying the `vocabulary` argument, in TF-IDF output mode, the "
                "`idf_weights` argument must also be provided."
            )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.reset_state()
        self.built = True

    def _as_input(self, value):
        # Keras hands a lookup its inputs as given (`_convert_input_args = False`).
        return value

    # --- indices ------------------------------------------------------------------------------

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def _key(self, token):
        """A token as the lookup dict keys it (bytes for strings, int for integers)."""
        if self._string_keys:
            return token.encode(self._encoding) if isinstance(token, str) else bytes(token)
        return int(token)

    def _token_out(self, key):
        # Keras reads learned tokens back from a table export: numpy scalars.
        return np.str_(key.decode(self._encoding)) if self._string_keys else np.int64(key)

    def vocabulary_size(self):
        """The size of the vocabulary, mask and OOV indices included."""
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary: a token's index is the index the layer maps it to (with
        ``include_special_tokens``, else without the mask and OOV tokens)."""
        start = self._token_start_index()
        vocab = [self.oov_token] * start + [self._token_out(k) for k in self._tokens]
        if self.mask_token is not None and self.output_mode == "int":
            vocab[0] = self.mask_token
        return vocab if include_special_tokens else vocab[start:]

    def _set_tokens(self, keys):
        self._tokens = list(keys)
        start = self._token_start_index()
        self._index = {k: i + start for i, k in enumerate(self._tokens)}

    def _record_vocabulary_size(self):
        size = self.vocabulary_size()
        if (
            self.output_mode != "int"
            and not self.pad_to_max_tokens
            and self._frozen_vocab_size is not None
            and size != self._frozen_vocab_size
        ):
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "the vocabulary size cannot be changed after the layer is called. Old vocab "
                f"size is {self._frozen_vocab_size}, new vocab size is {size}"
            )
        self._frozen_vocab_size = size

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (a sequence, a 1-D array or tensor, or the path of a file with
        one token a line) and, in `tf_idf` mode, the IDF weights."""
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(
                "`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                f"output_mode={self.output_mode} and idf_weights={idf_weights}"
            )
        if isinstance(vocabulary, str):
            if not os.path.exists(vocabulary):
                raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
            if self.output_mode == "tf_idf":
                raise ValueError(
                    "output_mode `'tf_idf'` does not support loading a vocabulary from file."
                )
            with open(vocabulary, "rb") as f:
                lines = f.read().split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()
            self._set_tokens([line if self._string_keys else int(line) for line in lines])
            self._record_vocabulary_size()
            return
        tokens = [self._key(t) for t in _as_list(vocabulary)]
        if not tokens:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        oov_start, token_start = self._oov_start_index(), self._token_start_index()
        special = [self.mask_token] * oov_start + [self.oov_token] * self.num_oov_indices
        special_keys = [self._key(t) for t in special]
        found_special = tokens[:token_start] == special_keys
        if found_special:
            tokens = tokens[token_start:]
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(
                "The passed vocabulary has at least one repeated term. Please uniquify your "
                f"dataset. The repeated terms are: {[self._token_out(t) for t in repeated]}"
            )
        for kind, token, checked in (
            ("mask", self.mask_token, True),
            ("OOV", self.oov_token, self.invert),
        ):
            if checked and token is not None and self._key(token) in tokens:
                raise ValueError(
                    f"Found reserved {kind} token at unexpected location in `vocabulary`. "
                    "Note that passed `vocabulary` does not need to include the OOV and mask "
                    "tokens. Either remove all mask and OOV tokens, or include them only at "
                    f"the start of the vocabulary in precisely this order: {special}. "
                    f"Received: {kind.lower()}_token={token} at vocabulary index "
                    f"{tokens.index(self._key(token))}"
                )
        if self.max_tokens is not None and token_start + len(tokens) > self.max_tokens:
            raise ValueError(
                "Attempted to set a vocabulary larger than the maximum vocab size. Received "
                f"vocabulary size is {token_start + len(tokens)}; `max_tokens` is "
                f"{self.max_tokens}."
            )
        self._set_tokens(tokens)
        self._record_vocabulary_size()
        if self.output_mode == "tf_idf":
            weights = np.asarray(_as_list(idf_weights))
            if len(weights) != len(_as_list(vocabulary)):
                raise ValueError(
                    "`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                    f"{len(weights)}; len(vocabulary) is {len(_as_list(vocabulary))}"
                )
            if weights.ndim != 1:
                raise ValueError(
                    f"TF-IDF data must be a 1-index array. Received: type(idf_weights)="
                    f"{type(idf_weights)}"
                )
            front = 0 if found_special else token_start
            front_value = 0 if found_special else np.average(weights)
            back = self.max_tokens - front - len(weights) if self.pad_to_max_tokens else 0
            self._set_idf(
                np.pad(weights, (front, back), "constant", constant_values=(front_value, 0))
            )

    def _set_idf(self, weights):
        self.idf_weights = convert_to_tensor(np.asarray(weights, np.float32))

    # --- saving -------------------------------------------------------------------------------

    def save_own_variables(self, store):
        """Keras's variables of a lookup: the IDF weights in `tf_idf` mode, else none."""
        if self.output_mode == "tf_idf":
            store["idf_weights"] = to_numpy(self.idf_weights)

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf":
            self._set_idf(store["idf_weights"])

    def save_assets(self, dir_path):
        """Writes a learned vocabulary (special tokens included) to ``vocabulary.txt``."""
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(w) for w in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        values = lines if self._string_keys else [int(line) for line in lines]
        weights = to_numpy(self.idf_weights) if self.output_mode == "tf_idf" else None
        self.set_vocabulary(values, idf_weights=weights)

    # --- adapt --------------------------------------------------------------------------------

    def _adapt_convert(self, data):
        data = self._as_tensor(data, self.vocabulary_dtype)
        return expand_dims(data, -1) if data.shape.rank == 1 else data

    def reset_state(self):
        if self._has_input_vocabulary:
            return
        self._token_counts = collections.Counter()
        self._document_counts = collections.Counter()
        self._num_documents = 0

    def _flat_rows(self, data):
        """``data``'s tokens as one list of keys, and the row starts (rows along its leading
        axis) as a list of ``rows + 1`` offsets."""
        if _is_ragged(data) and data.ragged_rank == 1:
            flat = to_numpy(data.flat_values).reshape(-1)
            splits = to_numpy(data.row_splits).tolist()
        elif _is_ragged(data):
            rows = [np.ravel(np.asarray(row, dtype=object)) for row in data.to_list()]
            flat = np.concatenate(rows) if rows else np.zeros([0], object)
            splits = np.concatenate([[0], np.cumsum([r.size for r in rows])]).tolist()
        else:
            values = to_numpy(data)
            if values.ndim < 2:
                values = values.reshape(1, -1)
            flat = values.reshape(-1)
            width = flat.size // max(values.shape[0], 1)
            splits = list(range(0, flat.size + 1, width)) if width else [0] * (len(values) + 1)
        return self._keys(flat), splits

    def _keys(self, flat):
        """A 1-D numpy array of tokens as a list of dict keys."""
        keys = flat.tolist()
        if flat.dtype == object and self._string_keys:
            return keys  # already bytes: a string tensor's values
        return [self._key(t) for t in keys]

    def update_state(self, data):
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' after setting a static vocabulary via "
                "`vocabulary` argument or `set_vocabulary()` method."
            )
        data = self._as_tensor(data, self.vocabulary_dtype)
        flat, splits = self._flat_rows(data)
        self._token_counts.update(flat)
        if self.output_mode == "tf_idf":
            for begin, end in zip(splits[:-1], splits[1:]):
                self._document_counts.update(set(flat[begin:end]))
            self._num_documents += len(splits) - 1

    def finalize_state(self):
        if self._has_input_vocabulary or not self._token_counts:
            self._record_vocabulary_size()
            return
        counts = self._token_counts
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(self._key(special), None)
        # Keras sorts by count, then token, both descending (`lexsort(...)[::-1]`).
        ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            ranked = ranked[: self.max_tokens - self._token_start_index()]
        self._set_tokens([k for k, _ in ranked])
        if self.output_mode == "tf_idf":
            document_counts = np.array([self._document_counts[k] for k, _ in ranked], np.float64)
            idf = np.log(1 + self._num_documents / (1 + document_counts)).astype(np.float32)
            idf = np.pad(
                idf, (self._token_start_index(), 0), constant_values=np.mean(idf, dtype=np.float32)
            )
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - idf.size), constant_values=0)
            self._set_idf(idf)
        self.reset_state()
        self._record_vocabulary_size()

    # --- calls --------------------------------------------------------------------------------

    def _as_tensor(self, inputs, dtype):
        if _is_ragged(inputs) or (hasattr(inputs, "indices") and hasattr(inputs, "values")):
            return inputs
        if is_tensor(inputs):
            dtype = _dtypes.as_dtype(dtype)
            return inputs if inputs.dtype == dtype else cast(inputs, dtype)
        return convert_to_tensor(inputs, dtype=dtype)

    def _lookup_values(self, values):
        """Indices of a numpy array of keys: mask, vocabulary, else -1 (or the one OOV index)."""
        flat = values.reshape(-1)
        oov_default = self._oov_start_index() if self.num_oov_indices == 1 else -1
        get = self._index.get
        # map + fromiter: the loop stays in C (twice as fast as a comprehension).
        lookups = map(get, self._keys(flat), itertools.repeat(oov_default))
        out = np.fromiter(lookups, np.int64, flat.size)
        out = out.reshape(flat.shape)
        if self.mask_token is not None:
            mask_value = 0 if self.output_mode == "int" else DROPPED
            out[flat == self._key(self.mask_token)] = mask_value
        if self.num_oov_indices == 0 and (out == -1).any():
            found = flat[out == -1]
            raise _errors.InvalidArgumentError(
                None,
                None,
                "When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values "
                f"{found}, consider setting `num_oov_indices=1`.",
            )
        return out.reshape(values.shape)

    def _invert_values(self, values):
        """Tokens of a numpy array of indices."""
        flat = values.reshape(-1)
        start = self._token_start_index()
        oov = self._key(self.oov_token)
        tokens = self._tokens
        out = [tokens[i - start] if start <= i < start + len(tokens) else oov for i in flat]
        if self._string_keys:
            result = np.array(out + [b""], dtype=object)[:-1]
        else:
            result = np.array(out, dtype=np.int64)
        if self.mask_token is not None:
            result[flat == 0] = self._key(self.mask_token)
        return result.reshape(values.shape)

    def _lookup_dense(self, inputs):
        if self.invert:
            return host_call(self._invert_values, [inputs], self.vocabulary_dtype)
        size = inputs.shape.num_elements()
        if size is not None and size < _DEDUPE_FROM and not _tracing.tracing():
            lookups = host_call(self._lookup_values, [inputs], "int64")
        else:
            lookups = self._lookup_distinct(inputs)
        return self._hash_oov(inputs, lookups)

    def _lookup_distinct(self, inputs):
        """Tokens repeat: each distinct one is looked up once (`unique` runs in the core),
        and the indices are spread back over the positions."""
        flat = reshape(inputs, [-1])
        distinct, positions = unique(flat)
        lookups = host_call(
            lambda keys, where: self._lookup_values(keys)[where],
            [distinct, positions],
            "int64",
            shape=flat.shape,
        )
        return ensure_shape(reshape(lookups, shape(inputs)), inputs.shape)

    def _hash_oov(self, inputs, lookups):
        """Several OOV indices: unknown tokens go to one by hash (integers by value)."""
        if self.num_oov_indices > 1:
            if not self._string_keys and self.oov_method != "farmhash":
                hashed = inputs % self.num_oov_indices
            else:
                from ferroflow import strings

                keys = inputs if self._string_keys else strings.as_string(inputs)
                if self.salt is not None:
                    hashed = strings.to_hash_bucket_strong(keys, self.num_oov_indices, self.salt)
                else:
                    hashed = strings.to_hash_bucket_fast(keys, self.num_oov_indices)
            hashed = cast(hashed, "int64") + self._oov_start_index()
            lookups = where(lookups == -1, hashed, lookups)
        return lookups

    def _depth(self):
        if self.pad_to_max_tokens:
            return self.max_tokens
        if self._frozen_vocab_size is None:
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "you must set the layer's vocabulary before calling it. Either pass a "
                "`vocabulary` argument to the layer, or call `adapt` with some sample data."
            )
        return self._frozen_vocab_size

    def call(self, inputs):
        if self.output_mode != "int":
            self._depth()
        inputs = self._as_tensor(inputs, "int64" if self.invert else self.vocabulary_dtype)
        scalar = not _is_ragged(inputs) and inputs.shape.rank == 0
        if scalar:
            inputs = expand_dims(inputs, -1)
        lookups = _map_values(self._lookup_dense, inputs)
        if self.output_mode == "int":
            return squeeze(lookups, -1) if scalar else lookups
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        output = encode_categorical(lookups, mode, self._depth(), "int64", sparse=self.sparse)
        if self.output_mode == "tf_idf":
            if self.idf_weights is None:
                raise ValueError(
                    "When `output_mode` is `'tf_idf'`, `idf_weights` must be provided."
                )
            if isinstance(output, SparseTensor):
                # Keras's sparse-times-dense: the weights gathered at the sparse indices (so
                # a batched output fails there, as under TensorFlow).
                weights = gather_nd(self.idf_weights, output.indices)
                return output.with_values(cast(output.values, "float32") * weights)
            output = cast(output, "float32") * self.idf_weights
        return output

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        input_shape = tuple(input_shape)
        if self.output_mode == "one_hot":
            if len(input_shape) > 1 and input_shape[-1] == 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,)

    def compute_output_spec(self, inputs):
        # Keras says int64 in "int" mode even when `invert` gives tokens, and floatx else.
        dtype = "int64" if self.output_mode == "int" else "float32"
        return keras_tensor(self.compute_output_shape(inputs.shape), dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "invert": self.invert,
                "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices,
                "oov_token": self.oov_token,
                "mask_token": self.mask_token,
                "output_mode": self.output_mode,
                "sparse": self.sparse,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype,
                "idf_weights": _as_list(self.input_idf_weights),
                "vocabulary": _as_list(self.input_vocabulary),
                "vocabulary_size": self._frozen_vocab_size,
                "oov_method": self.oov_method,
                "salt": self.salt,
            }
        )
        return config


class StringLookup(IndexLookup):
    """Maps strings to integer indices through a vocabulary (Keras 3's `StringLookup`)."""

    _string_keys = True

    def __init__(
        self,
        max_tokens=None,
        num_oov_indices=1,
        mask_token=None,
        oov_token="[UNK]",
        vocabulary=None,
        idf_weights=None,
        invert=False,
        output_mode="int",
        pad_to_max_tokens=False,
        sparse=False,
        encoding="utf-8",
        name=None,
        salt=None,
        **kwargs,
    ):
        self._encoding = encoding
        self.encoding = encoding
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=mask_token,
            oov_token=oov_token,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            sparse=sparse,
            name=name,
            salt=salt,
            vocabulary_dtype="string",
            **kwargs,
        )

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config


class IntegerLookup(IndexLookup):
    """Maps integers to contiguous indices through a vocabulary (Keras 3's `IntegerLookup`)."""

    _string_keys = False

    def __init__(
        self,
        max_tokens=None,
        num_oov_indices=1,
        mask_token=None,
        oov_token=-1,
        vocabulary=None,
        vocabulary_dtype="int64",
        idf_weights=None,
        invert=False,
        output_mode="int",
        sparse=False,
        pad_to_max_tokens=False,
        oov_method="floormod",
        salt=None,
        name=None,
        **kwargs,
    ):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(
                "If `max_tokens` is set for `IntegerLookup`, it must be greater than 1. "
                f"Received: max_tokens={max_tokens}"
            )
        if num_oov_indices < 0:
            raise ValueError(
                "The value of `num_oov_indices` argument for `IntegerLookup` must >= 0. "
                f"Received: num_oov_indices={num_oov_indices}"
            )
        if vocabulary_dtype != "int64":
            raise ValueError(
                "Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                f"vocabulary_dtype={vocabulary_dtype}"
            )
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=mask_token,
            oov_token=oov_token,
            vocabulary=vocabulary,
            vocabulary_dtype=vocabulary_dtype,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            sparse=sparse,
            pad_to_max_tokens=pad_to_max_tokens,
            oov_method=oov_method,
            salt=salt,
            name=name,
            **kwargs,
        )

    def _as_tensor(self, inputs, dtype):
        if isinstance(inputs, SparseTensor):
            # Keras's IntegerLookup reads a sparse input through numpy: its dense form, whose
            # implicit zeros are looked up too.
            inputs = sparse_to_dense(inputs)
        return super()._as_tensor(inputs, dtype)

    def get_config(self):
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config
