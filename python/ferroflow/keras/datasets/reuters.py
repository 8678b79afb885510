"""`keras.datasets.reuters`: newswire word-id sequences from the Keras cache (``reuters.npz``)."""

import numpy as np

from ferroflow.keras.datasets import _cache

__all__ = ["get_label_names", "get_word_index", "load_data"]

_LABELS = (
    "cocoa grain veg-oil earn acq wheat copper housing money-supply coffee sugar trade "
    "reserves ship cotton carcass crude nat-gas cpi money-fx interest gnp meal-feed alum "
    "oilseed gold tin strategic-metal livestock retail ipi iron-steel rubber heat jobs lei "
    "bop zinc orange pet-chem dlr gas silver wpi hog lead"
).split()


def load_data(
    path="reuters.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    test_split=0.2,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
):
    """((x_train, y_train), (x_test, y_test)): object arrays of word-id lists, and topics."""
    f = _cache.load_npz(_cache.cached(path, f"{_cache.ORIGIN}reuters.npz"))
    xs, labels = _cache.shuffled(seed, f["x"], f["y"])
    if start_char is not None or index_from:
        xs = _cache.index_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = _cache.remove_long_seq(maxlen, xs, labels)
    xs = _cache.limit_words(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    return (
        (np.array(xs[:idx], dtype="object"), np.array(labels[:idx])),
        (np.array(xs[idx:], dtype="object"), np.array(labels[idx:])),
    )


def get_word_index(path="reuters_word_index.json"):
    """The word -> index dictionary (from the Keras cache)."""
    return _cache.word_index(path)


def get_label_names():
    """The 46 topic names, in label order."""
    return tuple(_LABELS)
