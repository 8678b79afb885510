"""Listings of ``ram://`` read only the folders of the store they list: `listdir`, `glob` and
`walk` cost what they list, not the whole store (they walked every folder of it). TensorFlow's
map cannot show this, so it is counted here, in folder reads (`os.scandir`)."""

import ferroflow as tf
import pytest
from ferroflow.io import _ram_filesystem

OTHERS = 60  # folders elsewhere in the store, each holding a file


@pytest.fixture(scope="module")
def store():
    for i in range(OTHERS):
        with tf.io.gfile.GFile(f"ram://cost/other{i}/sub/f", "w") as f:
            f.write("x")
    tf.io.gfile.mkdir("ram://cost/p/q")  # an entry: walk goes into it
    for name in ["ram://cost/p/q/f1", "ram://cost/p/q/f2", "ram://cost/p/q/sub/f3"]:
        with tf.io.gfile.GFile(name, "w") as f:
            f.write("x")


@pytest.fixture
def scans(monkeypatch):
    """The folders read from now on."""
    read = []
    scandir = _ram_filesystem.os.scandir

    def counted(path):
        read.append(path)
        return scandir(path)

    monkeypatch.setattr(_ram_filesystem.os, "scandir", counted)
    return read


@pytest.mark.parametrize(
    "listing, result, most",
    [
        (lambda: tf.io.gfile.listdir("ram://cost/p/q"), ["f1", "f2"], 4),
        (
            lambda: tf.io.gfile.glob("ram://cost/p/q/*"),
            ["ram://cost/p/q/f1", "ram://cost/p/q/f2"],
            1,
        ),
        (lambda: tf.io.gfile.glob("ram://cost/p/*/f1"), ["ram://cost/p/q/f1"], 1),
        (lambda: tf.io.gfile.glob("ram://cost/p/q/sub/f3"), ["ram://cost/p/q/sub/f3"], 0),
        (lambda: len(list(tf.io.gfile.walk("ram://cost/p"))), 2, 8),
        (lambda: tf.io.gfile.isdir("ram://cost/p"), True, 3),
    ],
)
def test_listings_read_only_the_folders_they_list(store, scans, listing, result, most):
    assert listing() == result
    assert len(scans) <= most, scans


def test_a_glob_reads_each_folder_its_components_reach(store, scans):
    found = tf.io.gfile.glob("ram://cost/*/sub/f")
    assert len(found) == OTHERS
    assert len(scans) == 1, scans  # "cost" is listed; "sub" and "f" are looked up
