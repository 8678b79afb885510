"""A `Dataset.save` that fails part way leaves nothing a reader could take for a whole save:
its run and unfinalized metadata stay, as TensorFlow leaves them, and `load` raises a typed
error there instead of reading part of it; no temporary file stays (fault injection: these
failures cannot be provoked from a TensorFlow program, so this is not a differential test)."""

import os

import ferroflow as tf
import pytest
from ferroflow.data import _save, _snappy


def _entries(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_shard_that_fails_to_close_leaves_no_loadable_save(tmp_path, monkeypatch):
    def broken(data, path):
        raise OSError("disk full")

    monkeypatch.setattr(_snappy, "compress_file", broken)
    folder = str(tmp_path / "saved")
    dataset = tf.data.Dataset.range(4)
    with pytest.raises(OSError, match="disk full"):
        dataset.save(folder, compression="SNAPPY", shard_func=lambda x: x % 2)
    # TensorFlow's save writes the spec and unfinalized metadata first and leaves them.
    assert _entries(folder)[-2:] == ["dataset_spec.pb", "snapshot.metadata"]
    monkeypatch.undo()
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.data.Dataset.load(folder, compression="SNAPPY"))


def test_a_failed_atomic_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError("read-only")

    monkeypatch.setattr(_save.os, "replace", refuse)
    target = tmp_path / "file.pb"
    with pytest.raises(PermissionError):
        _save._write_atomically(str(target), b"contents")
    assert os.listdir(tmp_path) == []


def test_a_save_that_closes_cleanly_still_loads(tmp_path):
    folder = str(tmp_path / "saved")
    tf.data.Dataset.range(4).save(folder, compression="SNAPPY", shard_func=lambda x: x % 2)
    loaded = sorted(int(x) for x in tf.data.Dataset.load(folder, compression="SNAPPY"))
    assert loaded == [0, 1, 2, 3]
