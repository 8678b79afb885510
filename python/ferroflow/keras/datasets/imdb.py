"""`keras.datasets.imdb`: review word-id sequences from the Keras cache (``imdb.npz``)."""

import numpy as np

from ferroflow.keras.datasets import _cache

__all__ = ["get_word_index", "load_data"]


def load_data(
    path="imdb.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
    **kwargs,
):
    """((x_train, y_train), (x_test, y_test)): object arrays of word-id lists, and labels."""
    f = _cache.load_npz(_cache.cached(path, f"{_cache.ORIGIN}imdb.npz"))
    rng = np.random.RandomState(seed)
    parts = []
    for x, y in ((f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])):
        indices = np.arange(len(x))
        rng.shuffle(indices)  # one generator for both halves, as Keras draws them
        parts.append((_cache.index_words(x[indices], start_char, index_from), y[indices]))
    (x_train, labels_train), (x_test, labels_test) = parts
    if maxlen:
        x_train, labels_train = _cache.remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = _cache.remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(
                f"After filtering for sequences shorter than maxlen={maxlen}, no sequence "
                "was kept. Increase maxlen."
            )
    xs = _cache.limit_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    return (
        (np.array(xs[:idx], dtype="object"), labels[:idx]),
        (np.array(xs[idx:], dtype="object"), labels[idx:]),
    )


def get_word_index(path="imdb_word_index.json"):
    """The word -> index dictionary (from the Keras cache)."""
    return _cache.word_index(path)
