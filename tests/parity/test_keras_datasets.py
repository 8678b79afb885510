"""`keras.datasets` against Keras 3 under TensorFlow 2.21: small files written in Keras's
formats into a temporary Keras cache, loaded by both (Keras's hash checks are bypassed on
its side, since the files are fakes), and the error for a file that is not cached."""

import ferroflow as ff
import numpy as np
import pytest

from .harness import assert_parity


def _write_cache(home):
    """Fake cached dataset files in Keras's formats (deterministic, so both sides agree)."""
    import gzip
    import io
    import os
    import pickle
    import tarfile

    import numpy as np

    rng = np.random.RandomState(0)
    d = os.path.join(home, "datasets")
    os.makedirs(os.path.join(d, "fashion-mnist"), exist_ok=True)
    u8 = lambda *s: rng.randint(0, 256, s).astype("uint8")  # noqa: E731
    np.savez(
        os.path.join(d, "mnist.npz"),
        x_train=u8(5, 28, 28),
        y_train=u8(5),
        x_test=u8(3, 28, 28),
        y_test=u8(3),
    )
    for name, n, body in (("train", 4, 0), ("t10k", 2, 0)):
        with gzip.open(os.path.join(d, "fashion-mnist", f"{name}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(b"\0" * 8 + u8(n).tobytes())
        with gzip.open(os.path.join(d, "fashion-mnist", f"{name}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(b"\0" * 16 + u8(n, 28, 28).tobytes() + bytes(body))
    for fname, count in (("boston_housing.npz", 11), ("california_housing.npz", 9)):
        np.savez(os.path.join(d, fname), x=rng.rand(count, 4), y=rng.rand(count))

    def seqs(n):
        out = np.empty(n, dtype=object)
        for i in range(n):
            out[i] = [int(v) for v in rng.randint(1, 30, rng.randint(2, 9))]
        return out

    np.savez(
        os.path.join(d, "imdb.npz"),
        x_train=seqs(6),
        y_train=rng.randint(0, 2, 6),
        x_test=seqs(5),
        y_test=rng.randint(0, 2, 5),
    )
    np.savez(os.path.join(d, "reuters.npz"), x=seqs(10), y=rng.randint(0, 46, 10))

    def batch(n, **labels):
        data = {b"data": np.zeros((n, 3 * 32 * 32), "uint8")}
        data[b"data"][:3] = u8(min(n, 3), 3 * 32 * 32)  # mostly zeros: compresses fast
        data.update({k.encode(): list(rng.randint(0, 10, n)) for k in labels})
        return pickle.dumps(data)

    for archive, inner, members in (
        (
            "cifar-10-batches-py-target_archive",
            "cifar-10-batches-py",
            {
                **{f"data_batch_{i}": batch(10000, labels=1) for i in range(1, 6)},
                "test_batch": batch(3, labels=1),
            },
        ),
        (
            "cifar-100-python-target_archive",
            "cifar-100-python",
            {
                "train": batch(4, fine_labels=1, coarse_labels=1),
                "test": batch(2, fine_labels=1, coarse_labels=1),
            },
        ),
    ):
        with tarfile.open(os.path.join(d, archive), "w:gz") as tar:
            for member, payload in members.items():
                info = tarfile.TarInfo(f"{inner}/{member}")
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))


def _load_all(tf, home):
    import os

    os.environ["KERAS_HOME"] = home
    write_cache(home)  # noqa: F821 - a helper the harness defines in the program
    if tf.__name__ == "tensorflow":
        from keras.src.backend import config
        from keras.src.utils import file_utils

        file_utils.validate_file = lambda *a, **k: True  # the files are fakes
        config._KERAS_DIR = home  # Keras reads KERAS_HOME once, at import
    D = tf.keras.datasets
    out = [
        D.mnist.load_data(),
        D.fashion_mnist.load_data(),
        D.boston_housing.load_data(),
        D.boston_housing.load_data(test_split=0.5, seed=7),
        D.california_housing.load_data(),
        D.california_housing.load_data(version="small", test_split=0.3),
        D.cifar100.load_data(),
        D.cifar100.load_data(label_mode="coarse"),
        D.reuters.get_label_names(),
    ]
    (x, y), (xt, yt) = D.cifar10.load_data()
    out.append((x.shape, x.dtype.name, y.shape, x[::5000], y[::997], xt, yt))
    for kwargs in (
        {},
        {"num_words": 12, "skip_top": 4},
        {"maxlen": 6, "oov_char": None},
        {"start_char": None, "index_from": 0, "seed": 5},
    ):
        for loader in (D.imdb, D.reuters):
            (a, b), (c, e) = loader.load_data(**kwargs)
            out.append(([list(s) for s in a], b, [list(s) for s in c], e, a.dtype.name))
    for bad in (
        lambda: D.boston_housing.load_data(test_split=1.0),
        lambda: D.cifar100.load_data(label_mode="x"),
        lambda: D.california_housing.load_data(version="x"),
        lambda: D.imdb.load_data(maxlen=1),
    ):
        try:
            bad()
        except ValueError as e:
            out.append(str(e))
    return out


def test_datasets_from_the_cache(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _load_all, (str(tmp_path),), helpers=[_write_cache_helper()])


def _write_cache_helper():
    import inspect

    return inspect.getsource(_write_cache).replace("def _write_cache(", "def write_cache(", 1)


def test_missing_dataset_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    for loader in (
        ff.keras.datasets.mnist.load_data,
        ff.keras.datasets.cifar10.load_data,
        ff.keras.datasets.imdb.get_word_index,
    ):
        with pytest.raises(Exception, match="does not download"):
            loader()
    assert np.__name__ == "numpy"
