"""What the `keras.datasets` loaders share: the cached file (never downloaded), Keras's
restricted unpickling of its archives, the seeded shuffle and split, and the word-index
sequence processing of imdb and reuters."""

import io
import json
import pickle
import zipfile

import numpy as np

from ferroflow.keras.utils.file_utils import get_file

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_ALLOWED_PICKLE_GLOBALS = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
    }
)


def cached(fname, origin, **kwargs):
    """The path of ``fname`` in the Keras cache (``datasets``); a file that is not there is
    `get_file`'s error (ferroflow does not download). Keras's hashes are not checked: a
    mismatch could only lead to a download."""
    return get_file(fname, origin=origin, **kwargs)


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickles NumPy arrays only, as Keras does for its dataset files."""

    def find_class(self, module, name):
        if (module, name) in _ALLOWED_PICKLE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"Refusing to deserialize `{module}.{name}` while loading a Keras dataset. The "
            "file may be corrupted or malicious."
        )


def _npy_member(fp):
    try:
        return np.lib.format.read_array(fp, allow_pickle=False)
    except ValueError:
        # Ragged sequences are stored as object arrays: read them with the restricted unpickler.
        fp.seek(0)
        version = np.lib.format.read_magic(fp)
        if version[0] == 1:
            np.lib.format.read_array_header_1_0(fp)
        elif version[0] in (2, 3):
            np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"Unsupported `.npy` file version: {version}.") from None
        return RestrictedUnpickler(fp).load()


def load_npz(path):
    """The arrays of an ``.npz`` file, object arrays included (restricted unpickling)."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                with archive.open(member) as raw:
                    arrays[member[: -len(".npy")]] = _npy_member(io.BytesIO(raw.read()))
    return arrays


def check_test_split(test_split):
    """Keras's check of ``test_split``."""
    if not (0 <= test_split < 1):
        raise ValueError(
            f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 "
            "(exclusive of 1)."
        )


def shuffled(seed, *arrays):
    """``arrays`` in one permutation drawn from ``np.random.RandomState(seed)``."""
    rng = np.random.RandomState(seed)
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return [a[indices] for a in arrays]


def split(x, y, test_split):
    """((x_train, y_train), (x_test, y_test)) with the last ``test_split`` for testing."""
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def load_regression(fname, seed, test_split, limit=None):
    """boston_housing / california_housing: ``x``/``y`` from the cached npz, shuffled, split."""
    check_test_split(test_split)
    path = cached(fname, f"{ORIGIN}{fname}")
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    if limit is not None:
        x, y = x[:limit], y[:limit]
    x, y = shuffled(seed, x, y)
    return split(x, y, test_split)


def remove_long_seq(maxlen, seq, label):
    """The sequences shorter than ``maxlen``, with their labels."""
    kept = [(x, y) for x, y in zip(seq, label) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def index_words(xs, start_char, index_from):
    """Each sequence's word ids offset by ``index_from``, after ``start_char``."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return [list(x) for x in xs]


def limit_words(xs, num_words, skip_top, oov_char):
    """Words outside [skip_top, num_words) replaced by ``oov_char`` (dropped when None)."""
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def word_index(fname):
    """The word -> index dictionary of a text dataset, from the Keras cache."""
    with open(cached(fname, f"{ORIGIN}{fname}")) as f:
        return json.load(f)
