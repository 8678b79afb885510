"""Keras 3's `TextVectorization`: strings standardized (lowercased, punctuation stripped),
split (on whitespace or into characters), grouped into n-grams, then looked up in a vocabulary
by a `StringLookup` with the mask token ``""`` -- index sequences padded or cut to
``output_sequence_length``, or multi-hot, count or TF-IDF vectors."""

from ferroflow.array_ops import (
    concat,
    convert_to_tensor,
    expand_dims,
    pad,
    shape,
    squeeze,
    stack,
    zeros,
    zeros_like,
)
from ferroflow.keras.layers.preprocessing._base import (
    PreprocessingLayer,
    adapt_batches,
    keras_tensor,
)
from ferroflow.keras.layers.preprocessing.index_lookup import (
    StringLookup,
    _as_list,
    _is_ragged,
    _validate_choice,
)

__all__ = ["TextVectorization"]

# Keras's punctuation class, applied after lowercasing.
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'

_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")


def _validate_callable_choice(value, allowed, arg):
    if value is None or callable(value):
        return
    _validate_choice(value, allowed, "TextVectorization", arg)


class TextVectorization(PreprocessingLayer):
    """Turns strings into sequences of token indices or into token-count vectors."""

    def __init__(
        self,
        max_tokens=None,
        standardize="lower_and_strip_punctuation",
        split="whitespace",
        ngrams=None,
        output_mode="int",
        output_sequence_length=None,
        pad_to_max_tokens=False,
        vocabulary=None,
        idf_weights=None,
        sparse=False,
        ragged=False,
        encoding="utf-8",
        name=None,
        **kwargs,
    ):
        _validate_callable_choice(standardize, _STANDARDIZE, "standardize")
        _validate_callable_choice(split, _SPLIT, "split")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _validate_choice(
            output_mode,
            ("int", "one_hot", "multi_hot", "count", "tf_idf"),
            "TextVectorization",
            "output_mode",
        )
        if not (
            ngrams is None
            or isinstance(ngrams, int)
            or isinstance(ngrams, tuple)
            and all(isinstance(item, int) for item in ngrams)
        ):
            raise ValueError(
                f"`ngrams` must be None, an integer, or a tuple of integers. Received: "
                f"ngrams={ngrams}"
            )
        if output_mode == "int" and not (
            output_sequence_length is None or isinstance(output_sequence_length, int)
        ):
            raise ValueError(
                "`output_sequence_length` must be either None or an integer when "
                f"`output_mode` is 'int'. Received: output_sequence_length="
                f"{output_sequence_length}"
            )
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(
                "`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                f"Received output_sequence_length={output_sequence_length}."
            )
        if ragged and output_mode != "int":
            raise ValueError(
                "`ragged` must not be true if `output_mode` is `'int'`. Received: "
                f"ragged={ragged} and output_mode={output_mode}"
            )
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._max_tokens = max_tokens
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = ragged
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens,
            mask_token="",
            output_mode=output_mode,
            sparse=sparse,
            has_input_vocabulary=self._has_input_vocabulary,
            encoding=encoding,
            vocabulary_size=vocabulary_size,
        )
        self.built = True

    @property
    def compute_dtype(self):
        return "string"

    @property
    def variable_dtype(self):
        return "string"

    def _as_input(self, value):
        # Strings are never autocast; lists and arrays become string tensors in `_preprocess`.
        return value

    # --- adapt and vocabulary -------------------------------------------------------------

    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary (and document frequencies in `tf_idf` mode) from ``data``:
        a batched `tf.data.Dataset`, an iterable of batches, a list or array of strings."""
        self.reset_state()

        def one_batch(data):
            data = convert_to_tensor(data, dtype="string")
            return data[:, None] if data.shape.rank == 1 else data

        for batch in adapt_batches(data, steps, one_batch):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data):
        self._lookup_layer.update_state(self._preprocess(data))

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def reset_state(self):
        self._lookup_layer.reset_state()

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary, index 0 the padding token ``""`` and index 1 ``[UNK]``."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The size of the vocabulary, padding and OOV tokens included."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (and the IDF weights in `tf_idf` mode) directly."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)

    # --- calls --------------------------------------------------------------------------------

    def _preprocess(self, inputs):
        from ferroflow import strings

        if not _is_ragged(inputs):
            inputs = convert_to_tensor(inputs, dtype="string")
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = strings.lower(inputs)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = strings.regex_replace(inputs, _PUNCTUATION, "")
        if callable(self._standardize):
            inputs = self._standardize(inputs)
        if self._split is not None:
            if inputs.shape.rank > 1:
                if inputs.shape[-1] != 1:
                    raise ValueError(
                        "When using `TextVectorization` to tokenize strings, the input rank "
                        "must be 1 or the last shape dimension must be 1. Received: "
                        f"inputs.shape={inputs.shape} with rank={inputs.shape.rank}"
                    )
                inputs = squeeze(inputs, axis=-1)
            if self._split == "whitespace":
                inputs = strings.split(inputs)
            elif self._split == "character":
                inputs = strings.unicode_split(inputs, "UTF-8")
            else:
                inputs = self._split(inputs)
        if self._ngrams is not None:
            inputs = strings.ngrams(inputs, ngram_width=self._ngrams, separator=" ")
        return inputs

    def call(self, inputs):
        lookups = self._lookup_layer.call(self._preprocess(inputs))
        if self._output_mode != "int":
            return lookups
        length = self._output_sequence_length
        if _is_ragged(lookups):
            if self._ragged:
                return lookups if length is None else lookups[:, :length]
            dims = lookups.shape.as_list()
            dims[-1] = length
            return lookups.to_tensor(default_value=0, shape=dims)
        if length is None:
            return lookups
        outputs = lookups[..., :length]
        if self._ragged:
            return outputs
        missing = length - shape(outputs)[-1]
        rank = outputs.shape.rank
        last = expand_dims(stack([zeros_like(missing), missing]), 0)
        paddings = concat([zeros([rank - 1, 2], missing.dtype), last], axis=0)
        outputs = pad(outputs, paddings)
        dims = lookups.shape.as_list()
        dims[-1] = length
        from ferroflow.array_ops import ensure_shape

        return ensure_shape(outputs, dims)

    def compute_output_shape(self, input_shape):
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        if self._split is None:
            if len(input_shape) <= 1:
                input_shape = tuple(input_shape) + (1,)
        else:
            input_shape = tuple(input_shape) + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    def compute_output_spec(self, inputs):
        dtype = "int64" if self._output_mode == "int" else "float32"
        return keras_tensor(self.compute_output_shape(inputs.shape), dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "max_tokens": self._lookup_layer.max_tokens,
                "standardize": self._standardize,
                "split": self._split,
                "ngrams": self._ngrams_arg,
                "output_mode": self._output_mode,
                "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens,
                "sparse": self._lookup_layer.sparse,
                "ragged": self._ragged,
                "vocabulary": _as_list(self._lookup_layer.input_vocabulary),
                "idf_weights": _as_list(self._lookup_layer.input_idf_weights),
                "encoding": self._encoding,
                "vocabulary_size": self.vocabulary_size(),
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return super().from_config(config)
