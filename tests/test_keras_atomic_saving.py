"""Keras's file writers replace their target atomically: a save that dies midway (an
exception, or the process killed) leaves the previous file whole and no temporary file beside it.
Covers `.keras` archives, `.weights.h5`, legacy `.h5`, ModelCheckpoint and BackupAndRestore."""

import os
import subprocess
import sys
import textwrap

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras.saving import file_utils, legacy_h5

X = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)
Y = np.linspace(0.0, 1.0, 8, dtype=np.float32).reshape(4, 2)


class Crash(Exception):
    """Stands for the process dying mid-save."""


def model(seed=0):
    inputs = tf.keras.Input((3,))
    m = tf.keras.Model(inputs, tf.keras.layers.Dense(2, name="dense")(inputs))
    m.set_weights([np.full((3, 2), 0.5 + seed, np.float32), np.arange(2, dtype=np.float32)])
    return m


def fail_before_rename(monkeypatch):
    """The bytes reach the temporary file, then the save fails before the rename."""

    def sync(path):
        if not os.path.isdir(path):
            raise Crash(path)

    monkeypatch.setattr(file_utils, "_sync", sync)


def fail_inside_h5(monkeypatch):
    """The HDF5 writer fails after it wrote the first layer's weights."""
    real = legacy_h5._save_subset
    calls = []

    def save_subset(group, variables):
        calls.append(group)
        if len(calls) > 1:
            raise Crash(group.name)
        real(group, variables)

    monkeypatch.setattr(legacy_h5, "_save_subset", save_subset)


def read(path):
    with open(path, "rb") as f:
        return f.read()


SAVERS = {
    "model.keras": lambda m, p: m.save(p),
    "model.weights.h5": lambda m, p: m.save_weights(p),
    "legacy.h5": lambda m, p: m.save(p),
}


@pytest.mark.parametrize(
    "name, failure",
    [(name, fail_before_rename) for name in sorted(SAVERS)] + [("legacy.h5", fail_inside_h5)],
)
def test_failed_save_leaves_previous_file(tmp_path, monkeypatch, name, failure):
    path = str(tmp_path / name)
    SAVERS[name](model(0), path)
    before = read(path)
    failure(monkeypatch)
    with pytest.raises(Crash):
        SAVERS[name](model(1), path)
    monkeypatch.undo()
    assert read(path) == before
    assert sorted(os.listdir(tmp_path)) == [name]
    restored = model(2)
    if name.endswith(".weights.h5"):
        restored.load_weights(path)
    else:
        restored = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(restored.get_weights()[0], np.full((3, 2), 0.5, np.float32))


@pytest.mark.parametrize("name", sorted(SAVERS))
def test_first_save_failing_leaves_nothing(tmp_path, monkeypatch, name):
    fail_before_rename(monkeypatch)
    with pytest.raises(Crash):
        SAVERS[name](model(0), str(tmp_path / name))
    assert os.listdir(tmp_path) == []


def test_new_file_has_ordinary_permissions(tmp_path):
    path = tmp_path / "m.keras"
    model().save(str(path))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask


def test_killed_process_leaves_previous_file(tmp_path):
    """A process killed (`os._exit`) inside the HDF5 writer: the old file is untouched."""
    path = tmp_path / "legacy.h5"
    model(0).save(str(path))
    before = read(path)
    program = textwrap.dedent(f"""
        import os
        import numpy as np
        import ferroflow as tf
        from ferroflow.keras.saving import legacy_h5

        def save_subset(group, variables):
            os._exit(3)

        legacy_h5._save_subset = save_subset
        inputs = tf.keras.Input((3,))
        m = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
        m.save({str(path)!r})
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr.decode()
    assert read(path) == before


def compiled(seed=0):
    m = model(seed)
    m.compile(optimizer="sgd", loss="mse")
    return m


def test_model_checkpoint_failure_keeps_last_checkpoint(tmp_path, monkeypatch):
    path = str(tmp_path / "ckpt.keras")
    m = compiled()
    m.fit(X, Y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.ModelCheckpoint(path)])
    before = read(path)
    fail_before_rename(monkeypatch)
    with pytest.raises(Crash):
        m.fit(X, Y, epochs=1, verbose=0, callbacks=[tf.keras.callbacks.ModelCheckpoint(path)])
    monkeypatch.undo()
    assert read(path) == before
    assert os.listdir(tmp_path) == ["ckpt.keras"]
    tf.keras.models.load_model(path)


def test_backup_and_restore_failure_keeps_last_backup(tmp_path, monkeypatch):
    backup = tmp_path / "backup"
    callback = tf.keras.callbacks.BackupAndRestore(
        str(backup), double_checkpoint=True, delete_checkpoint=False
    )
    m = compiled()
    m.fit(X, Y, epochs=2, verbose=0, callbacks=[callback])
    files = sorted(os.listdir(backup))
    contents = {name: read(backup / name) for name in files}
    fail_before_rename(monkeypatch)
    callback = tf.keras.callbacks.BackupAndRestore(
        str(backup), double_checkpoint=True, delete_checkpoint=False
    )
    with pytest.raises(Crash):
        compiled().fit(X, Y, epochs=4, verbose=0, callbacks=[callback])
    monkeypatch.undo()
    assert sorted(os.listdir(backup)) == files
    assert {name: read(backup / name) for name in files} == contents
    # Training resumes from the intact backup: epoch 2 of 3.
    history = compiled().fit(
        X,
        Y,
        epochs=3,
        verbose=0,
        callbacks=[tf.keras.callbacks.BackupAndRestore(str(backup), delete_checkpoint=False)],
    )
    assert history.epoch == [2]
