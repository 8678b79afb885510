"""`tf.keras.callbacks` during `fit`, `evaluate` and `predict`, against TensorFlow 2.21's
Keras 3 (hook order and the callbacks' decisions recorded from the TensorFlow oracle with the
same fixed initial weights and data)."""

import csv
import math

import ferroflow as tf
import numpy as np
import pytest
from test_keras_fit import data, make


def close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


class Recorder(tf.keras.callbacks.Callback):
    """Records every hook called, with its batch or epoch and its logs' keys."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        attribute = object.__getattribute__(self, name)
        if not (name.startswith("on_") and callable(attribute)):
            return attribute

        def hook(*args, **kwargs):
            logs = kwargs.get("logs", args[-1] if args else None)
            numbers = [a for a in args if isinstance(a, int)]
            keys = sorted(logs) if isinstance(logs, dict) else logs
            object.__getattribute__(self, "calls").append([name, *numbers, keys])
            return attribute(*args, **kwargs)

        return hook


def _epoch_calls(epoch):
    calls = [["on_epoch_begin", epoch, []]]
    for batch in range(3):
        calls += [
            ["on_train_batch_begin", batch, []],
            ["on_batch_begin", batch, []],
            ["on_train_batch_end", batch, ["loss", "mae"]],
            ["on_batch_end", batch, ["loss", "mae"]],
        ]
    calls += [
        ["on_test_begin", []],
        ["on_test_batch_begin", 0, []],
        ["on_test_batch_end", 0, ["loss", "mae"]],
        ["on_test_end", ["loss", "mae"]],
        ["on_epoch_end", epoch, ["loss", "mae", "val_loss", "val_mae"]],
    ]
    return calls


def test_hooks_fire_in_keras_order():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    recorder = Recorder()
    model.fit(
        x,
        y,
        batch_size=16,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(x[:10], y[:10]),
        callbacks=[recorder],
    )
    assert recorder.calls == [
        ["on_train_begin", []],
        *_epoch_calls(0),
        *_epoch_calls(1),
        ["on_train_end", ["loss", "mae", "val_loss", "val_mae"]],
    ]
    assert recorder.model is model
    assert recorder.params == {"verbose": 0, "epochs": 2, "steps": 3}

    recorder.calls = []
    model.evaluate(x, y, batch_size=20, verbose=0, callbacks=[recorder])
    assert recorder.calls == [
        ["on_test_begin", []],
        ["on_test_batch_begin", 0, []],
        ["on_test_batch_end", 0, ["loss", "mae"]],
        ["on_test_batch_begin", 1, []],
        ["on_test_batch_end", 1, ["loss", "mae"]],
        ["on_test_end", ["loss", "mae"]],
    ]
    recorder.calls = []
    model.predict(x, batch_size=20, verbose=0, callbacks=[recorder])
    assert [c[:2] for c in recorder.calls] == [
        ["on_predict_begin", []],
        ["on_predict_batch_begin", 0],
        ["on_predict_batch_end", 0],
        ["on_predict_batch_begin", 1],
        ["on_predict_batch_end", 1],
        ["on_predict_end", []],
    ]
    assert recorder.params == {"verbose": 0, "epochs": 1, "steps": 2}


def test_lambda_callback_logs_are_floats_and_running_means():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    events = []
    callback = tf.keras.callbacks.LambdaCallback(
        on_train_begin=lambda logs: events.append(("train_begin",)),
        on_epoch_begin=lambda epoch, logs: events.append(("epoch_begin", epoch)),
        on_train_batch_begin=lambda batch, logs: events.append(("batch_begin", batch)),
        on_train_batch_end=lambda batch, logs: events.append(("batch_end", batch, logs["loss"])),
        on_epoch_end=lambda epoch, logs: events.append(("epoch_end", epoch, logs["loss"])),
        on_train_end=lambda logs: events.append(("train_end",)),
    )
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0, callbacks=[callback])
    assert [e[:2] for e in events] == [
        ("train_begin",),
        ("epoch_begin", 0),
        ("batch_begin", 0),
        ("batch_end", 0),
        ("batch_begin", 1),
        ("batch_end", 1),
        ("batch_begin", 2),
        ("batch_end", 2),
        ("epoch_end", 0),
        ("train_end",),
    ]
    batch_losses = [e[2] for e in events if e[0] == "batch_end"]
    assert all(type(v) is float for v in batch_losses)
    # The last batch's running mean is the epoch's loss.
    close(batch_losses[-1], 3.7775111198425293)
    close(events[-2][2], 3.7775111198425293)


def test_early_stopping_stops_and_restores_best_weights():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.3), loss="mse")
    stopper = tf.keras.callbacks.EarlyStopping(
        monitor="loss", patience=2, restore_best_weights=True
    )
    bias_after_epoch = []
    recorder = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: bias_after_epoch.append(model.get_weights()[3].copy())
    )
    history = model.fit(
        x, y, batch_size=8, epochs=20, shuffle=False, verbose=0, callbacks=[recorder, stopper]
    )
    close(
        history.history["loss"],
        [
            3.340541124343872,
            4.64371395111084,
            2.0842704772949,
            1.7048895359,
            3.807469129,
            6.61603164,
        ],
    )
    assert (stopper.stopped_epoch, stopper.best_epoch) == (5, 3)
    assert model.stop_training
    np.testing.assert_array_equal(model.get_weights()[3], bias_after_epoch[3])
    close(model.get_weights()[3], [-1.5395293235778809])


def test_early_stopping_min_delta_and_start_from_epoch(recwarn):
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    stopper = tf.keras.callbacks.EarlyStopping(
        monitor="val_loss", min_delta=0.05, patience=1, start_from_epoch=1
    )
    history = model.fit(
        x,
        y,
        batch_size=8,
        epochs=30,
        shuffle=False,
        verbose=0,
        callbacks=[stopper],
        validation_data=(x[30:], y[30:]),
    )
    assert len(history.history["loss"]) == 4 and stopper.stopped_epoch == 3
    close(stopper.best, 0.021635331213474274)

    missing = tf.keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[missing])
    assert any("val_accuracy" in str(w.message) for w in recwarn)
    with pytest.raises(ValueError, match="automatically determine"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.EarlyStopping("xyz")])


def test_reduce_lr_on_plateau_and_learning_rate_scheduler():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    reducer = tf.keras.callbacks.ReduceLROnPlateau(
        monitor="loss", factor=0.5, patience=1, min_delta=10.0, cooldown=1
    )
    history = model.fit(x, y, batch_size=8, epochs=6, shuffle=False, verbose=0, callbacks=[reducer])
    close(
        history.history["loss"],
        [
            3.661024570464,
            1.809773087501,
            0.885451018810,
            0.549607634544,
            0.427133172750,
            0.375320255756,
        ],
    )
    close(history.history["learning_rate"], [0.05, 0.05, 0.025, 0.0125, 0.00625, 0.003125])

    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    scheduler = tf.keras.callbacks.LearningRateScheduler(
        lambda epoch, lr: lr * 0.5 if epoch > 0 else lr
    )
    history = model.fit(
        x, y, batch_size=8, epochs=3, shuffle=False, verbose=0, callbacks=[scheduler]
    )
    close(history.history["loss"], [3.661024570464, 1.874905347824, 1.309727072715])
    close(history.history["learning_rate"], [0.05, 0.025, 0.0125])


def test_model_checkpoint_formats_paths_and_saves_best_only(tmp_path, monkeypatch):
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    saved = []
    monkeypatch.setattr(
        model, "save_weights", lambda path, overwrite=True: saved.append(("weights", path))
    )
    monkeypatch.setattr(model, "save", lambda path, overwrite=True: saved.append(("model", path)))
    pattern = str(tmp_path / "ckpt" / "w_{epoch:02d}_{val_loss:.2f}.weights.h5")
    every = tf.keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True)
    history = model.fit(
        x[:30],
        y[:30],
        batch_size=10,
        epochs=3,
        shuffle=False,
        verbose=0,
        validation_data=(x[30:], y[30:]),
        callbacks=[every],
    )
    expected = [
        ("weights", str(tmp_path / "ckpt" / f"w_{e + 1:02d}_{v:.2f}.weights.h5"))
        for e, v in enumerate(history.history["val_loss"])
    ]
    assert saved == expected
    assert (tmp_path / "ckpt").is_dir()

    saved.clear()
    best = tf.keras.callbacks.ModelCheckpoint(
        str(tmp_path / "best.keras"), monitor="loss", save_best_only=True
    )
    # A learning rate that makes the loss go up and down: only improvements are saved.
    model.compile(optimizer=tf.keras.optimizers.SGD(0.3), loss="mse")
    model.set_weights(make().get_weights())
    history = model.fit(x, y, batch_size=8, epochs=6, shuffle=False, verbose=0, callbacks=[best])
    losses = history.history["loss"]
    improved = [i for i, v in enumerate(losses) if v < min(losses[:i], default=math.inf)]
    assert improved == [0, 2, 3]
    assert saved == [("model", str(tmp_path / "best.keras"))] * 3
    close(best.best, min(losses))

    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "w.h5x"), save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "model"))
    with pytest.raises(KeyError, match="Failed to format"):
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "{nope}.keras"))._get_file_path(
            0, None, {}
        )


def test_terminate_on_nan():
    x, y = data()
    y = y.copy()
    y[20] = np.nan
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(
        x,
        y,
        batch_size=8,
        epochs=5,
        shuffle=False,
        verbose=0,
        callbacks=[tf.keras.callbacks.TerminateOnNaN()],
    )
    assert len(history.history["loss"]) == 1 and math.isnan(history.history["loss"][0])
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 2"):
        model.fit(
            x,
            y,
            batch_size=8,
            shuffle=False,
            verbose=0,
            callbacks=[tf.keras.callbacks.TerminateOnNaN(raise_error=True)],
        )


def test_csv_logger(tmp_path):
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    path = tmp_path / "log.csv"
    history = model.fit(
        x,
        y,
        batch_size=16,
        epochs=2,
        shuffle=False,
        verbose=0,
        callbacks=[tf.keras.callbacks.CSVLogger(str(path))],
    )
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["epoch", "loss", "mae", "val_loss", "val_mae"]
    assert [r[0] for r in rows[1:]] == ["0", "1"] and rows[1][3:] == ["NA", "NA"]
    close([float(r[1]) for r in rows[1:]], history.history["loss"])

    model.fit(
        x,
        y,
        epochs=1,
        verbose=0,
        callbacks=[tf.keras.callbacks.CSVLogger(str(path), separator=";", append=True)],
    )
    with open(path) as f:
        lines = f.read().splitlines()
    assert len(lines) == 4 and lines[3].startswith("0;")


def test_callback_list_reads_logs_only_for_batch_hooks():
    class EpochOnly(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.logs = logs

    quiet = EpochOnly()
    callbacks = tf.keras.callbacks.CallbackList([quiet])
    assert callbacks._batch_callbacks["on_train_batch_end"] == []
    tensor_logs = {"loss": tf.constant(2.5)}
    callbacks.on_train_batch_end(0, tensor_logs)
    callbacks.on_epoch_end(0, {"b": tf.constant(1.0), "a": {"c": tf.constant(3.0)}})
    assert quiet.logs == {"c": 3.0, "b": 1.0}

    class BatchReader(tf.keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            self.logs = logs

    reader = BatchReader()
    callbacks = tf.keras.callbacks.CallbackList([reader])
    callbacks.on_train_batch_end(4, tensor_logs)
    assert reader.logs == {"loss": 2.5} and type(reader.logs["loss"]) is float
