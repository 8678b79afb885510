"""tf.summary inside `tf.function` and from Keras's TensorBoard callback, against TensorFlow:
the summaries are written on every call of a traced function (with that call's values, step
variable and `record_if` condition), and `fit` with the callback writes Keras's train/ and
validation/ logs; TensorBoard's reader compares them with TensorFlow's."""

import pytest

from ._tensorboard import read_event_files, same_records
from .harness import assert_parity


def traced_writes(tf, root, device):
    import os

    writer = tf.summary.create_file_writer(os.path.join(root, tf.__name__))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f(x):
        with writer.as_default():
            tf.summary.scalar("x", x, step=step)
            tf.summary.histogram("hx", x * tf.range(5.0), step=step)
            tf.summary.image("im", tf.reshape(tf.range(12.0) / 12.0 * x, [1, 2, 2, 3]), step=step)
            tf.summary.text("tx", tf.strings.as_string(x), step=step)
            tf.summary.audio("au", tf.reshape(tf.range(6.0) / 6.0 * x, [1, 6, 1]), 100, step=step)
            with tf.summary.record_if(lambda: step % 2 == 0):
                recorded = tf.summary.scalar("even", x * 2, step=step)
        step.assign_add(1)
        return recorded

    @tf.function
    def g(x):
        return tf.summary.scalar("default_step", x)

    with tf.device(device):
        results = [bool(f(tf.constant(v))) for v in [1.0, 2.0, 0.5]]
        with writer.as_default(step=step):
            results += [bool(g(tf.constant(4.0))), bool(g(tf.constant(5.0)))]
            step.assign(20)
            results.append(bool(g(tf.constant(6.0))))
    writer.close()
    return results


def fit_with_tensorboard(tf, root):
    import os

    import numpy as np

    x = np.linspace(-1, 1, 40).astype("float32")[:, None]
    y = 2 * x + 1
    model = tf.keras.Sequential(
        [
            tf.keras.Input((1,)),
            tf.keras.layers.Dense(3, activation="relu"),
            tf.keras.layers.Dense(1),
        ]
    )
    model.set_weights(
        [
            np.array([[0.5, -0.3, 0.8]], "float32"),
            np.array([0.1, 0.0, -0.1], "float32"),
            np.array([[0.2], [0.4], [-0.6]], "float32"),
            np.array([0.05], "float32"),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    logs = os.path.join(root, tf.__name__)
    board = tf.keras.callbacks.TensorBoard(logs, histogram_freq=1, update_freq=2, write_images=True)
    history = model.fit(
        x,
        y,
        epochs=2,
        batch_size=16,
        validation_data=(x[:8], y[:8]),
        callbacks=[board],
        verbose=0,
        shuffle=False,
    )
    epochs = tf.keras.callbacks.TensorBoard(os.path.join(logs, "by_epoch"))
    model.fit(x, y, epochs=1, batch_size=20, callbacks=[epochs], verbose=0, shuffle=False)
    return history.history


def test_queue_and_default_writers(tf_oracle, tmp_path):
    assert_parity(tf_oracle, queue_and_defaults, args=(str(tmp_path),))
    _compare(tmp_path)


def _compare(root, skip_tags=()):
    logs = read_event_files(root / "tensorflow", root / "ferroflow")
    theirs, ours = logs[str(root / "tensorflow")], logs[str(root / "ferroflow")]
    assert sorted(theirs) == sorted(ours)
    for sub in theirs:
        [(_, their_records)] = theirs[sub]
        [(_, our_records)] = ours[sub]
        assert [r[:3] for r in our_records] == [r[:3] for r in their_records], sub
        for mine, expected in zip(our_records, their_records):
            if mine[1] not in skip_tags:
                assert same_records(mine, expected), (mine, expected)
    return theirs


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_traced_function_writes_each_call(tf_oracle, tmp_path, device):
    assert_parity(tf_oracle, traced_writes, args=(str(tmp_path), device))
    _compare(tmp_path)


def test_keras_tensorboard_callback(tf_oracle, tmp_path):
    assert_parity(tf_oracle, fit_with_tensorboard, args=(str(tmp_path),))
    # The model's JSON differs in one place: ferroflow's Sequential records the batch size it
    # was built with in build_config (TensorFlow's keeps None); compared below without it.
    theirs = _compare(tmp_path, skip_tags=("keras",))
    assert sorted(theirs) == [".", "by_epoch/train", "train", "validation"] or sorted(theirs) == [
        "by_epoch/train",
        "train",
        "validation",
    ]
    import json

    logs = read_event_files(tmp_path / "tensorflow", tmp_path / "ferroflow")
    configs = []
    for name in ("tensorflow", "ferroflow"):
        [(_, records)] = logs[str(tmp_path / name)]["train"]
        [keras_record] = [r for r in records if r[1] == "keras"]
        assert keras_record[2:4] == ("graph_keras_model", b"1")
        config = json.loads(keras_record[5][0][0])
        config["build_config"].pop("input_dtype", None)
        config["build_config"]["input_shape"][0] = None
        configs.append(config)
    assert configs[0] == configs[1]


def queue_and_defaults(tf, root):
    """When queued summaries reach the file (``max_queue``, flush, close), `set_as_default`
    (on a thread of its own: the default writer is per thread) and steps kept in variables."""
    import glob
    import os
    import threading

    logdir = os.path.join(root, tf.__name__)
    writer = tf.summary.create_file_writer(logdir, max_queue=3, flush_millis=10**7)
    (path,) = glob.glob(os.path.join(logdir, "events*"))

    def records():
        return len(list(tf.compat.v1.train.summary_iterator(path)))

    counts = []
    with writer.as_default(step=1):
        for i in range(5):
            tf.summary.scalar("queued", float(i))
            counts.append(records())
        tf.summary.flush()
        counts.append(records())
        tf.summary.scalar("queued", 5.0)
    counts.append(records())  # leaving as_default flushes

    def on_thread():
        writer.set_as_default(step=tf.Variable(7, dtype=tf.int64))
        tf.summary.scalar("thread", 1.0)
        counts.append(int(tf.summary.experimental.get_step()))

    thread = threading.Thread(target=on_thread)
    thread.start()
    thread.join()
    counts.append(bool(tf.summary.should_record_summaries()))  # not on this thread
    steps = []
    for event in tf.compat.v1.train.summary_iterator(path):
        steps.extend((event.step, value.tag) for value in event.summary.value)
    writer.close()
    counts.append(records())
    return counts, steps
