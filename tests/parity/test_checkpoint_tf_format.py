"""Checkpoints move between TensorFlow and ferroflow in both directions (issue 22).

Each program runs under both frameworks on the same files. In the first direction the
TensorFlow run writes the checkpoint and restores it; the ferroflow run (which comes second)
restores TensorFlow's files: their results must agree. In the other direction ferroflow writes
in the test process and both frameworks restore its files. Restores assert what TensorFlow's
users assert (`assert_existing_objects_matched`, `assert_consumed`), and the inspection API
(`load_checkpoint`, `list_variables`, the raw object graph entry) must agree too.
"""

import pytest

from .harness import assert_parity, make_request, run_ferroflow

DEVICES = ["CPU:0", "GPU:0"]


def _module_values(tf, np):
    """A module with one variable of each dtype a checkpoint commonly holds, nested in lists
    and dicts, and the values to give it."""

    class Net(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.zeros([3, 2]))
            self.b = tf.Variable(tf.zeros([2], tf.float64))
            self.steps = tf.Variable(tf.constant(0, tf.int64))
            self.names = tf.Variable([b"", b"", b""])
            self.flags = tf.Variable([False, False])
            self.half = tf.Variable(tf.zeros([2], tf.float16))
            self.small = tf.Variable(tf.zeros([2], tf.uint8))
            self.layers = [tf.Variable(tf.zeros([2])), {"inner": tf.Variable(0), "x.y/z": None}]

    values = {
        "w": np.arange(6, dtype=np.float32).reshape(3, 2) / 4,
        "b": np.array([1e-300, -2.5]),
        "steps": np.int64(2**40 + 3),
        "names": np.array([b"alpha", b"", b"\xff" * 300], dtype=object),
        "flags": np.array([True, False]),
        "half": np.array([0.5, -65504], np.float16),
        "small": np.array([0, 255], np.uint8),
    }
    return Net, values


def _fill(net, values, np):
    for name, value in values.items():
        getattr(net, name).assign(value)
    net.layers[0].assign(np.array([7.0, -7.0], np.float32))
    net.layers[1]["inner"].assign(42)


def _restored(tf, net, prefix, status):
    import numpy as np

    status.assert_existing_objects_matched()
    status.assert_consumed()
    reader = tf.train.load_checkpoint(prefix)
    # Sorted: TensorFlow's maps come in its hash table's order.
    shapes = dict(sorted(reader.get_variable_to_shape_map().items()))
    dtypes = {k: v.name for k, v in sorted(reader.get_variable_to_dtype_map().items())}
    graph = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    keys = sorted(k for k in shapes if k != "_CHECKPOINTABLE_OBJECT_GRAPH")
    return {
        "values": [np.asarray(v.numpy()) for v in [*net.trainable_variables, net.steps]],
        "inner": net.layers[1]["inner"].numpy(),
        "listing": tf.train.list_variables(prefix),
        "shapes": shapes,
        "dtypes": dtypes,
        "stored": {k: reader.get_tensor(k) for k in keys},
        "graph_is_bytes": type(graph).__name__,
        "graph": graph,
    }


def restore_tensorflows_module(tf, root, device):
    import os

    import numpy as np

    with tf.device(device):
        Net, values = _module_values(tf, np)
        prefix = os.path.join(root, "module")
        if tf.__name__ == "tensorflow":
            written = Net()
            _fill(written, values, np)
            tf.train.Checkpoint(net=written).write(prefix)
        net = Net()
        status = tf.train.Checkpoint(net=net).read(prefix)
        return _restored(tf, net, prefix, status)


HELPERS = [_module_values, _fill, _restored]


@pytest.mark.parametrize("device", DEVICES)
def test_ferroflow_restores_a_tensorflow_checkpoint(tf_oracle, tmp_path, device):
    expected = assert_parity(
        tf_oracle, restore_tensorflows_module, args=(str(tmp_path), device), helpers=HELPERS
    )
    assert expected[0] != "raised", expected


def write_module(tf, root):
    import os

    import numpy as np

    Net, values = _module_values(tf, np)
    net = Net()
    _fill(net, values, np)
    return tf.train.Checkpoint(net=net).write(os.path.join(root, "module"))


def restore_module(tf, root, device):
    import os

    import numpy as np

    with tf.device(device):
        Net, _ = _module_values(tf, np)
        net = Net()
        prefix = os.path.join(root, "module")
        return _restored(tf, net, prefix, tf.train.Checkpoint(net=net).read(prefix))


@pytest.mark.parametrize("device", DEVICES)
def test_tensorflow_restores_a_ferroflow_checkpoint(tf_oracle, tmp_path, device):
    run_ferroflow(make_request(write_module, args=(str(tmp_path),), helpers=HELPERS))
    expected = assert_parity(
        tf_oracle, restore_module, args=(str(tmp_path), device), helpers=HELPERS
    )
    assert expected[0] != "raised", expected


def _keras_model(tf):
    inputs = tf.keras.Input((4,))
    x = tf.keras.layers.Dense(8, activation="relu")(inputs)
    x = tf.keras.layers.BatchNormalization()(x)
    outputs = tf.keras.layers.Dense(3)(x)
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    return model


def _keras_restored(tf, model, status, np):
    status.assert_existing_objects_matched()
    model.optimizer.build(model.trainable_variables)
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    return {
        "predictions": np.asarray(model(x, training=False)),
        "iterations": int(model.optimizer.iterations.numpy()),
        "optimizer": [np.asarray(v.numpy()) for v in model.optimizer.variables],
        "weights": [np.asarray(w) for w in model.get_weights()],
    }


def restore_tensorflows_keras(tf, root, device, how):
    import os

    import numpy as np

    with tf.device(device):
        directory = os.path.join(root, "keras")
        if tf.__name__ == "tensorflow":
            tf.keras.utils.set_random_seed(1)
            model = _keras_model(tf)
            x = np.random.default_rng(0).normal(size=(32, 4)).astype(np.float32)
            model.fit(x, x[:, :3] * 2, epochs=2, batch_size=8, verbose=0)
            checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
            tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2).save()
        model = _keras_model(tf)
        if how == "model and optimizer":
            checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
        else:  # the model alone: the optimizer's values are left unused
            checkpoint = tf.train.Checkpoint(model=model)
        status = checkpoint.restore(tf.train.latest_checkpoint(directory))
        result = _keras_restored(tf, model, status, np)
        result["latest"] = os.path.basename(tf.train.latest_checkpoint(directory))
        return result


@pytest.mark.parametrize("how", ["model and optimizer", "model"])
@pytest.mark.parametrize("device", DEVICES)
def test_ferroflow_restores_a_tensorflow_keras_checkpoint(tf_oracle, tmp_path, device, how):
    expected = assert_parity(
        tf_oracle,
        restore_tensorflows_keras,
        args=(str(tmp_path), device, how),
        helpers=[_keras_model, _keras_restored],
    )
    assert expected[0] != "raised", expected


def write_keras(tf, root):
    import os

    import numpy as np

    tf.keras.utils.set_random_seed(1)
    model = _keras_model(tf)
    x = np.random.default_rng(0).normal(size=(32, 4)).astype(np.float32)
    model.fit(x, x[:, :3] * 2, epochs=2, batch_size=8, verbose=0)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    return tf.train.CheckpointManager(checkpoint, os.path.join(root, "keras"), 2).save()


def restore_keras(tf, root, device):
    import os

    import numpy as np

    with tf.device(device):
        model = _keras_model(tf)
        checkpoint = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
        status = checkpoint.restore(tf.train.latest_checkpoint(os.path.join(root, "keras")))
        return _keras_restored(tf, model, status, np)


@pytest.mark.parametrize("device", DEVICES)
def test_tensorflow_restores_a_ferroflow_keras_checkpoint(tf_oracle, tmp_path, device):
    run_ferroflow(
        make_request(write_keras, args=(str(tmp_path),), helpers=[_keras_model, _keras_restored])
    )
    expected = assert_parity(
        tf_oracle,
        restore_keras,
        args=(str(tmp_path), device),
        helpers=[_keras_model, _keras_restored],
    )
    assert expected[0] != "raised", expected


def damaged_checkpoints(tf, root, with_classes):
    """Each framework writes its own checkpoint, then reads damaged copies. TensorFlow's
    Python reader loses most error codes (it raises a bare OpError, or IndexError for a short
    data file); ferroflow raises DataLossError, an OpError, as the issue asks. So what is
    compared is that each damage is refused and the gist of the message; the test checks
    ferroflow's classes itself."""
    import os
    import shutil

    v = tf.Variable([1.0, 2.0, 3.0])
    prefix = tf.train.Checkpoint(v=v).write(os.path.join(root, tf.__name__, "ckpt"))
    index, data = prefix + ".index", prefix + ".data-00000-of-00001"
    originals = {path: open(path, "rb").read() for path in (index, data)}
    outcomes = {}

    gists = ["not an sstable (bad magic number)", "Checksum does not match", "block checksum"]

    def attempt(name):
        try:
            tf.train.Checkpoint(v=tf.Variable([0.0, 0.0, 0.0])).read(prefix)
            outcomes[name] = "read"
        except Exception as e:  # noqa: BLE001 - the class is checked by the test
            refused = isinstance(e, (tf.errors.OpError, IndexError))
            gist = [g for g in gists if g in str(e)]
            outcomes[name] = (refused, gist, type(e).__name__) if with_classes else (refused, gist)
        for path, content in originals.items():
            with open(path, "wb") as f:
                f.write(content)

    for name, path, damage in [
        ("index cut in half", index, lambda b: b[: len(b) // 2]),
        ("index emptied", index, lambda b: b""),
        ("index block flipped", index, lambda b: bytes([b[0] ^ 1]) + b[1:]),
        ("magic flipped", index, lambda b: b[:-1] + bytes([b[-1] ^ 1])),
        ("data cut", data, lambda b: b[:-3]),
        ("data flipped", data, lambda b: b[:-1] + bytes([b[-1] ^ 1])),
    ]:
        with open(path, "wb") as f:
            f.write(damage(originals[path]))
        attempt(name)
    os.remove(data)
    attempt("data missing")
    shutil.rmtree(os.path.join(root, tf.__name__))
    return outcomes


def test_damaged_checkpoints_are_refused_as_tensorflow_refuses_them(tf_oracle, tmp_path):
    import ferroflow

    ours = damaged_checkpoints(ferroflow, str(tmp_path), with_classes=True)
    assert {outcome[2] for outcome in ours.values()} == {"DataLossError"}, ours
    expected = assert_parity(tf_oracle, damaged_checkpoints, args=(str(tmp_path), False))
    assert expected[0] != "raised", expected
