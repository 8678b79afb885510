"""Which maps tf.data fuses and parallelises: those whose graphs TensorFlow calls stateless.
`ReadFile` is stateless in TensorFlow's op registry (though never folded into a constant
here, since a file may change between runs), so an image pipeline's `read_file` map fuses
with the maps after it and runs on the pool; a random op or a variable keeps a map apart."""

import os

import ferroflow as tf
from ferroflow.data import _fusion


def _files(folder, count):
    for i in range(count):
        with open(os.path.join(folder, f"{i:02d}.txt"), "wb") as f:
            f.write(b"x" * (i + 1))
    return tf.data.Dataset.list_files(os.path.join(folder, "*.txt"), shuffle=False)


def test_maps_that_read_files_fuse_and_run_in_parallel(tmp_path):
    files = _files(str(tmp_path), 5)
    lengths = files.map(lambda p: tf.strings.length(tf.io.read_file(p)))
    doubled = lengths.map(lambda n: n * 2)
    fn, threads, source = _fusion.map_chain(doubled)
    assert source is files, "the two maps were not fused"
    assert threads == (os.cpu_count() or 1)
    assert [int(x) for x in doubled] == [2, 4, 6, 8, 10]


def test_a_file_rewritten_between_epochs_is_read_again(tmp_path):
    files = _files(str(tmp_path), 2)
    lengths = files.map(lambda p: tf.strings.length(tf.io.read_file(p)))
    assert [int(x) for x in lengths] == [1, 2]
    with open(os.path.join(str(tmp_path), "00.txt"), "wb") as f:
        f.write(b"yyyyyyy")
    assert [int(x) for x in lengths] == [7, 2]


def test_random_maps_stay_apart(tmp_path):
    files = _files(str(tmp_path), 3)
    noisy = files.map(lambda p: tf.random.uniform([]))
    _, _, source = _fusion.map_chain(noisy.map(lambda x: x + 1.0))
    assert source is noisy, "a random map was fused"
    _, threads, _ = _fusion.map_chain(noisy)
    assert threads is None, "a random map was parallelised"
