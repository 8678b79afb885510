"""`BackupAndRestore`, `SwapEMAWeights`, `RemoteMonitor` and `TensorBoard` against TensorFlow
2.21's Keras: a `fit` interrupted and run again resumes from the backup (same history and
weights as Keras), EMA weights swapped in for `evaluate`/`predict` and at epoch ends, the
errors Keras gives, and TensorBoard's arguments (its logs are compared in
`test_summary_function.py`)."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity


def _model(tf, optimizer):
    import numpy as np

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.set_weights([np.arange(6, dtype="float32").reshape(3, 2) / 6.0, np.zeros(2, "float32")])
    model.compile(optimizer=optimizer, loss="mse")
    return model


def _backup_and_restore(tf, root, save_freq):
    import os

    import numpy as np

    side = "ferroflow" if "ferroflow" in tf.__name__ else "tensorflow"
    backup_dir = os.path.join(root, side, "backup")
    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype("float32")
    y = rng.rand(16, 2).astype("float32")

    class Interrupt(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2:
                raise RuntimeError("interrupted")

    out = []
    model = _model(tf, tf.keras.optimizers.Adam(0.05))
    backup = tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq=save_freq)
    try:
        model.fit(
            x, y, batch_size=4, epochs=4, shuffle=False, verbose=0, callbacks=[backup, Interrupt()]
        )
    except RuntimeError as e:
        out.append(str(e))
    out.append(sorted(os.listdir(backup_dir)))
    with open(os.path.join(backup_dir, "training_metadata.json")) as f:
        out.append(f.read())
    resumed = _model(tf, tf.keras.optimizers.Adam(0.05))
    history = resumed.fit(
        x, y, batch_size=4, epochs=4, shuffle=False, verbose=0, callbacks=[backup]
    )
    out += [history.history, history.epoch, resumed.get_weights(), os.path.exists(backup_dir)]
    out.append([v.numpy() for v in resumed.optimizer.variables])
    out.append(
        error_classes(
            [
                lambda: tf.keras.callbacks.BackupAndRestore(""),
                lambda: tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq="batch"),
            ]
        )
    )
    return out


@pytest.mark.parametrize("save_freq", ["epoch", 3])
def test_backup_and_restore_resumes(tf_oracle, tmp_path, save_freq):
    # The backup is a `.weights.h5` file, as in Keras: it needs h5py.
    pytest.importorskip("h5py")
    assert_parity(
        tf_oracle,
        _backup_and_restore,
        (str(tmp_path), save_freq),
        rtol=1e-5,
        atol=1e-6,
        helpers=[_model, error_classes],
    )


def _swap_ema(tf, device):
    import numpy as np

    rng = np.random.RandomState(1)
    x = rng.rand(16, 3).astype("float32")
    y = rng.rand(16, 2).astype("float32")
    out = []
    with tf.device(device):
        for swap_on_epoch in (False, True):
            optimizer = tf.keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5)
            model = _model(tf, optimizer)
            swap = tf.keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch)
            history = model.fit(
                x,
                y,
                batch_size=4,
                epochs=2,
                shuffle=False,
                verbose=0,
                validation_data=(x[:8], y[:8]),
                callbacks=[swap],
            )
            out += [history.history, model.get_weights()]
            out.append(model.evaluate(x, y, verbose=0, callbacks=[swap]))
            out.append(model.get_weights())
            out.append(model.predict(x[:4], verbose=0, callbacks=[swap]))
            out.append(model.get_weights())
        plain = _model(tf, tf.keras.optimizers.SGD(0.1))
        plain.fit(x, y, epochs=1, verbose=0)
        out.append(
            error_classes(
                [
                    lambda: plain.evaluate(
                        x, y, verbose=0, callbacks=[tf.keras.callbacks.SwapEMAWeights()]
                    )
                ]
            )
        )
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_swap_ema_weights(tf_oracle, device):
    assert_parity(
        tf_oracle, _swap_ema, (device,), rtol=1e-5, atol=1e-6, helpers=[_model, error_classes]
    )


def _remote_monitor_and_tensorboard(tf):
    C = tf.keras.callbacks
    monitor = C.RemoteMonitor(root="http://localhost:1", send_as_json=True)
    out = [monitor.root, monitor.path, monitor.field, monitor.send_as_json]
    board = C.TensorBoard(log_dir="/tmp/none", update_freq="batch", profile_batch="2,4")
    out += [board.log_dir, board.update_freq, board.histogram_freq, board.write_graph]
    out.append(
        error_classes(
            [
                lambda: C.TensorBoard(profile_batch=-1),
                lambda: C.TensorBoard(profile_batch=(3, 1)),
                lambda: C.TensorBoard(profile_batch=(1, 2, 3)),
            ]
        )
    )
    return out


def test_remote_monitor_and_tensorboard_arguments(tf_oracle):
    assert_parity(tf_oracle, _remote_monitor_and_tensorboard, (), helpers=[_model, error_classes])
