"""A `Dataset.save` that fails part way leaves nothing a reader could take for a whole save:
no run directory, no metadata, no temporary file (fault injection: these failures cannot be
provoked from a TensorFlow program, so this is not a differential test)."""

import os

import ferroflow as tf
import pytest
from ferroflow.data import _save, _snappy


def _entries(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_shard_that_fails_to_close_removes_its_run(tmp_path, monkeypatch):
    def broken(data, path):
        raise OSError("disk full")

    monkeypatch.setattr(_snappy, "compress_file", broken)
    folder = str(tmp_path / "saved")
    dataset = tf.data.Dataset.range(4)
    with pytest.raises(OSError, match="disk full"):
        dataset.save(folder, compression="SNAPPY", shard_func=lambda x: x % 2)
    # Neither shard's run nor any metadata: `load` finds no finished save.
    assert _entries(folder) == []


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
