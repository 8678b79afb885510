"""`tf.keras.preprocessing.text`: Keras's legacy text utilities (word splitting, hashing,
`Tokenizer`), pure Python as in Keras."""

import collections
import hashlib
import json
import warnings

import numpy as np

__all__ = [
    "Tokenizer",
    "hashing_trick",
    "one_hot",
    "text_to_word_sequence",
    "tokenizer_from_json",
]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """The words of ``input_text``: every character of ``filters`` becomes ``split``, then
    the text is split on ``split`` (empty pieces dropped)."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [word for word in input_text.split(split) if word]


def one_hot(input_text, n, filters=_FILTERS, lower=True, split=" ", analyzer=None):
    """`hashing_trick` with Python's ``hash``: each word to an index in [1, n)."""
    return hashing_trick(
        input_text,
        n,
        hash_function=hash,
        filters=filters,
        lower=lower,
        split=split,
        analyzer=analyzer,
    )


def hashing_trick(
    text, n, hash_function=None, filters=_FILTERS, lower=True, split=" ", analyzer=None
):
    """Each word of ``text`` to ``hash(word) % (n - 1) + 1`` (``hash_function`` None: Python's
    ``hash``; ``"md5"``: the MD5 digest as an integer)."""
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":

        def hash_function(word):
            return int(hashlib.md5(word.encode()).hexdigest(), 16)

    if analyzer is None:
        words = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    else:
        words = analyzer(text)
    return [hash_function(word) % (n - 1) + 1 for word in words]


class Tokenizer:
    """Keras's legacy text tokenizer: builds a word index from texts (most frequent first,
    from 1; ``oov_token`` first when given) and turns texts into index sequences or matrices."""

    def __init__(
        self,
        num_words=None,
        filters=_FILTERS,
        lower=True,
        split=" ",
        char_level=False,
        oov_token=None,
        analyzer=None,
        **kwargs,
    ):
        if "nb_words" in kwargs:
            warnings.warn(
                "The `nb_words` argument in `Tokenizer` has been renamed `num_words`.",
                stacklevel=2,
            )
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {str(kwargs)}")
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = collections.defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _tokens(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                return [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower, split=self.split)

    def fit_on_texts(self, texts):
        """Counts the words of ``texts`` and rebuilds ``word_index``."""
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for token in tokens:
                self.word_counts[token] = self.word_counts.get(token, 0) + 1
            for token in set(tokens):
                self.word_docs[token] += 1
        # A stable sort: equally frequent words keep their first-seen order.
        by_count = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token]) + [
            word for word, _ in by_count
        ]
        self.word_index = {word: i for i, word in enumerate(vocabulary, start=1)}
        self.index_word = {i: word for word, i in self.word_index.items()}
        for word, count in list(self.word_docs.items()):
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences):
        """Counts the documents each index appears in (for ``"tfidf"``)."""
        self.document_count += len(sequences)
        for sequence in sequences:
            for index in set(sequence):
                self.index_docs[index] += 1

    def texts_to_sequences(self, texts):
        """Each text as a list of word indices."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        """Yields each text as a list of word indices (words beyond ``num_words`` or unknown
        become the OOV index, or are dropped without ``oov_token``)."""
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            indices = []
            for token in self._tokens(text):
                i = self.word_index.get(token)
                if i is not None and not (self.num_words and i >= self.num_words):
                    indices.append(i)
                elif self.oov_token is not None and (i is None or oov is not None):
                    indices.append(oov)
            yield indices

    def sequences_to_texts(self, sequences):
        """Each index sequence as a text (words joined by spaces)."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """Yields each index sequence as a text."""
        oov = self.word_index.get(self.oov_token)
        for sequence in sequences:
            words = []
            for index in sequence:
                word = self.index_word.get(index)
                if word is not None and not (self.num_words and index >= self.num_words):
                    words.append(word)
                elif self.oov_token is not None and (word is None or oov is not None):
                    words.append(self.index_word[oov])
            yield " ".join(words)

    def texts_to_matrix(self, texts, mode="binary"):
        """`sequences_to_matrix` of the texts' sequences."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A ``(len(sequences), num_words)`` float64 matrix: per row the ``"binary"``
        presence, ``"count"``, ``"freq"`` or ``"tfidf"`` of each index."""
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError(
                "Specify a dimension (`num_words` argument), or fit on some text data first."
            )
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        matrix = np.zeros((len(sequences), num_words))
        for row, sequence in enumerate(sequences):
            if not sequence:
                continue
            counts = collections.Counter(j for j in sequence if j < num_words)
            for j, c in counts.items():
                if mode == "count":
                    matrix[row][j] = c
                elif mode == "freq":
                    matrix[row][j] = c / len(sequence)
                elif mode == "binary":
                    matrix[row][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    matrix[row][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return matrix

    def get_config(self):
        """The tokenizer's settings and vocabularies (the latter as JSON strings)."""
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs):
        """``{"class_name": "Tokenizer", "config": ...}`` as JSON (`tokenizer_from_json`)."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def tokenizer_from_json(json_string):
    """The `Tokenizer` of `Tokenizer.to_json`'s string."""
    config = json.loads(json_string).get("config")
    loaded = {
        key: json.loads(config.pop(key))
        for key in ("word_counts", "word_docs", "index_docs", "index_word", "word_index")
    }
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = loaded["word_counts"]
    tokenizer.word_docs = loaded["word_docs"]
    tokenizer.index_docs = {int(k): v for k, v in loaded["index_docs"].items()}
    tokenizer.word_index = loaded["word_index"]
    tokenizer.index_word = {int(k): v for k, v in loaded["index_word"].items()}
    return tokenizer
