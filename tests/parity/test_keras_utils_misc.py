"""`tf.keras.utils` helpers against TensorFlow 2.21's Keras: `pad_sequences`, `normalize`,
`standardize_dtype`, `Config`, `is_keras_tensor`, `get_source_inputs`, interactive logging,
`timeseries_dataset_from_array`, `get_file` from local origins, and `PyDataset` feeding `fit`,
`evaluate` and `predict` (with worker threads and processes)."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity


def _arrays_and_helpers(tf):
    import numpy as np

    U = tf.keras.utils
    seqs = [[1, 2, 3], [4], [], [5, 6, 7, 8, 9]]
    out = [
        U.pad_sequences(seqs),
        U.pad_sequences(seqs, maxlen=3, padding="post", truncating="post", value=-1),
        U.pad_sequences([[[1, 2]], [[3, 4], [5, 6]]], dtype="float32"),
        U.pad_sequences([["a", "b"], ["c"]], dtype=object, value="_"),
    ]
    x = np.array([[3.0, 4.0], [0.0, 0.0]], "float32")
    out += [U.normalize(x), U.normalize(x, axis=0, order=1), U.normalize(tf.constant(x))]
    out += [U.standardize_dtype(d) for d in (None, "float16", int, float, bool, tf.int8)]
    config = U.Config(a=1, b="x")
    config.c = [1, 2]
    config["d"] = 4.0
    out += [config.as_dict(), list(config), len(config), "a" in config, config.get("z", 0)]
    config.freeze()
    inp = tf.keras.Input((3,))
    other = tf.keras.Input((3,))
    y = tf.keras.layers.Dense(2)(tf.keras.layers.Add()([inp, other]))
    sources = U.get_source_inputs(y)
    out += [len(sources), sources[0] is inp, sources[1] is other]
    out += [U.is_keras_tensor(inp), U.is_keras_tensor(tf.constant(1.0)), U.is_keras_tensor(1)]
    out.append(U.is_interactive_logging_enabled())
    U.disable_interactive_logging()
    out.append(U.is_interactive_logging_enabled())
    U.enable_interactive_logging()
    out.append(
        error_classes(
            [
                lambda: U.pad_sequences(5),
                lambda: U.pad_sequences([1, 2]),
                lambda: U.pad_sequences([[1]], padding="mid"),
                lambda: U.pad_sequences([[1]], truncating="mid"),
                lambda: U.pad_sequences([["a"]], value="x"),
                lambda: U.pad_sequences([[[1, 2]], [[1, 2, 3]]]),
                lambda: U.standardize_dtype("float"),
                lambda: U.standardize_dtype("foo"),
                lambda: config.__setattr__("e", 1),
                lambda: config.pop("a"),
                lambda: config.missing,
            ]
        )
    )
    return out


def test_arrays_and_helpers(tf_oracle):
    assert_parity(tf_oracle, _arrays_and_helpers, (), helpers=[error_classes])


def _timeseries(tf):
    import numpy as np

    U = tf.keras.utils
    data = np.arange(40, dtype="float32").reshape(20, 2)
    targets = np.arange(20) * 10
    out = []
    for kwargs in (
        {"sequence_length": 4, "batch_size": 3},
        {"sequence_length": 3, "sequence_stride": 2, "sampling_rate": 2, "batch_size": 4},
        {"sequence_length": 2, "start_index": 3, "end_index": 12, "batch_size": None},
    ):
        with_targets = U.timeseries_dataset_from_array(data, targets, **kwargs)
        out.append([list(map(np.asarray, b)) for b in with_targets])
        out.append(with_targets.element_spec)
        plain = U.timeseries_dataset_from_array(data, None, **kwargs)
        out.append([np.asarray(b) for b in plain])
    out.append(
        error_classes(
            [
                lambda: U.timeseries_dataset_from_array(data, None, 3, start_index=-1),
                lambda: U.timeseries_dataset_from_array(data, None, 3, start_index=30),
                lambda: U.timeseries_dataset_from_array(data, None, 3, end_index=25),
                lambda: U.timeseries_dataset_from_array(data, None, 3, sampling_rate=0),
                lambda: U.timeseries_dataset_from_array(data, None, 3, sequence_stride=20),
                lambda: U.timeseries_dataset_from_array(data, None, 3, format="np"),
            ]
        )
    )
    return out


def test_timeseries_dataset_from_array(tf_oracle):
    assert_parity(tf_oracle, _timeseries, (), helpers=[error_classes])


def _get_file(tf, root):
    import os
    import tarfile

    U = tf.keras.utils
    side = "tf" if hasattr(tf, "__git_version__") and "ferroflow" not in tf.__name__ else "ff"
    base = os.path.join(root, side)
    os.makedirs(base, exist_ok=True)
    source = os.path.join(base, "data.txt")
    with open(source, "w") as f:
        f.write("hello")
    archive = os.path.join(base, "pack.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(source, arcname="inner/data.txt")
    cache = os.path.join(base, "cache")
    out = []
    path = U.get_file("copy.txt", "file://" + source, cache_dir=cache)
    out.append(os.path.relpath(path, cache))
    with open(path) as f:
        out.append(f.read())
    md5 = "5d41402abc4b2a76b9719d911017c592"
    out.append(
        os.path.relpath(U.get_file("copy.txt", "file://x", cache_dir=cache, md5_hash=md5), cache)
    )
    extracted = U.get_file("pack.tar.gz", "file://" + archive, cache_dir=cache, extract=True)
    out.append(os.path.relpath(extracted, cache))
    out.append(sorted(os.listdir(os.path.join(extracted, "inner"))))
    out.append(
        error_classes(
            [
                lambda: U.get_file("a.txt"),
                lambda: U.get_file("sub/a.txt", "file://" + source, cache_dir=cache),
                lambda: U.get_file(
                    "b.txt", "file://" + source, cache_dir=cache, file_hash="0" * 64
                ),
            ]
        )
    )
    return out


def test_get_file_from_local_origins(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _get_file, (str(tmp_path),), helpers=[error_classes])


def _py_dataset(tf, workers, use_multiprocessing):
    import random

    import numpy as np

    class Batches(tf.keras.utils.PyDataset):
        def __init__(self, x, y, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y = x, y
            self.epochs_ended = 0

        def __len__(self):
            return 4

        def __getitem__(self, index):
            return self.x[index * 4 : index * 4 + 4], self.y[index * 4 : index * 4 + 4]

        def on_epoch_end(self):
            self.epochs_ended += 1

    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype("float32")
    y = rng.rand(16, 1).astype("float32")
    data = Batches(x, y, workers=workers, use_multiprocessing=use_multiprocessing)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.set_weights([np.array([[0.5], [-1.0], [0.25]], "float32"), np.zeros(1, "float32")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    random.seed(3)
    history = model.fit(data, epochs=3, verbose=0)
    out = [history.history, model.get_weights(), data.epochs_ended]
    out.append(model.evaluate(data, verbose=0))
    out.append(model.predict(data, verbose=0))
    out += [data.workers, data.use_multiprocessing, data.max_queue_size, data.num_batches]
    return out


@pytest.mark.parametrize(
    "workers,use_multiprocessing", [(1, False), (2, False), (2, True)], ids=["1", "2", "mp"]
)
def test_py_dataset_in_fit(tf_oracle, workers, use_multiprocessing):
    assert_parity(tf_oracle, _py_dataset, (workers, use_multiprocessing), rtol=1e-5, atol=1e-6)


def _plot_model_without_pydot(tf):
    U = tf.keras.utils
    built = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    unbuilt = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    return error_classes(
        [
            lambda: U.plot_model(built),
            lambda: U.model_to_dot(built),
            lambda: U.plot_model(unbuilt),
            lambda: U.model_to_dot(unbuilt),
        ]
    )


def test_plot_model_without_pydot(tf_oracle):
    assert_parity(tf_oracle, _plot_model_without_pydot, (), helpers=[error_classes])


def _split_dataset(tf):
    import random

    import numpy as np

    U = tf.keras.utils
    x = np.arange(20, dtype="float32").reshape(10, 2)
    y = np.arange(10)
    out = []

    def listed(pair):
        return [[tf.nest.map_structure(np.asarray, e) for e in part] for part in pair]

    out.append(listed(U.split_dataset(x, left_size=0.8)))
    out.append(listed(U.split_dataset((x, y), left_size=3, right_size=4)))
    out.append(listed(U.split_dataset([x, y], right_size=0.3, shuffle=True, seed=2)))
    batched = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    left, right = U.split_dataset(batched, left_size=6)
    out += [listed((left, right)), left.element_spec]
    random.seed(0)
    out.append(listed(U.split_dataset(x, left_size=5, shuffle=True)))
    out.append(
        error_classes(
            [
                lambda: U.split_dataset(x),
                lambda: U.split_dataset({"a": x}, left_size=2),
                lambda: U.split_dataset(x, left_size="2"),
                lambda: U.split_dataset(x, left_size=10),
                lambda: U.split_dataset(x, left_size=0.6, right_size=0.6),
                lambda: U.split_dataset(x, left_size=6, right_size=6),
                lambda: U.split_dataset([x, y[:5]], left_size=2),
                lambda: U.split_dataset([], left_size=2),
            ]
        )
    )
    return out


def test_split_dataset(tf_oracle):
    assert_parity(tf_oracle, _split_dataset, (), helpers=[error_classes])
