"""`tf.data.Dataset.load` reads ferroflow's pickled layout with an unpickler that rebuilds only
containers, numpy values and spec classes: a hostile file that names any other callable (here
`os.system`) is DataLossError, and nothing it names runs."""

import os
import pickle

import ferroflow as tf
import pytest


class _RunsACommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_hostile_saved_dataset_runs_nothing(tmp_path):
    saved = tmp_path / "saved"
    tf.data.Dataset.range(3).save(str(saved))
    assert list(tf.data.Dataset.load(str(saved)).as_numpy_iterator()) == [0, 1, 2]
    (file,) = [p for p in saved.iterdir() if p.is_file()]
    marker = tmp_path / "ran"
    file.write_bytes(pickle.dumps({"element_spec": _RunsACommand(marker), "elements": []}))
    with pytest.raises(tf.errors.DataLossError):
        tf.data.Dataset.load(str(saved))
    assert not marker.exists()


def test_a_truncated_saved_dataset_is_data_loss(tmp_path):
    saved = tmp_path / "saved"
    tf.data.Dataset.range(3).save(str(saved))
    (file,) = [p for p in saved.iterdir() if p.is_file()]
    file.write_bytes(file.read_bytes()[:10])
    with pytest.raises(tf.errors.DataLossError):
        tf.data.Dataset.load(str(saved))


def test_a_hostile_cache_file_runs_nothing(tmp_path):
    cache = str(tmp_path / "cache")
    assert list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator()) == [0, 1, 2]
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert files
    marker = tmp_path / "ran"
    for file in files:
        file.write_bytes(pickle.dumps([_RunsACommand(marker)]))
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator())
    assert not marker.exists()
