"""TFRecord files against TensorFlow, both directions and all three compressions: ferroflow
writes files in the test process and both frameworks read them back (TensorFlow through
``tf.data.TFRecordDataset``); each framework writes its own file in the program and reads it
(uncompressed files are byte-identical); damaged files give the same errors."""

import os

import numpy as np
import pytest

from .harness import assert_parity

RECORDS = [b"", b"hello", bytes(range(256)) * 40, b"\x00" * 3]


def _write_read(tf, root, records):
    import os

    out = {}
    for compression in ["", "ZLIB", "GZIP"]:
        path = os.path.join(root, f"{tf.__name__}-{compression or 'none'}.tfrecord")
        options = tf.io.TFRecordOptions(compression_type=compression, compression_level=9)
        with tf.io.TFRecordWriter(path, options) as writer:
            for r in records:
                writer.write(r)
            writer.flush()
        read = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression)]
        out[compression] = read == records
        if not compression:
            with open(path, "rb") as f:
                out["bytes"] = f.read()
    writer = tf.io.TFRecordWriter(os.path.join(root, "closed.tfrecord"))
    writer.write("text is UTF-8")
    writer.close()
    writer.close()
    errors = []
    for call in (lambda: writer.write(b"x"), lambda: writer.flush()):
        try:
            call()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            errors.append((type(e).__name__, str(e)))
    for bad in ("zlib", "FOO", 3):
        try:
            tf.io.TFRecordOptions(compression_type=bad)
        except ValueError as e:
            errors.append(str(e))
    opts = tf.io.TFRecordOptions("GZIP")
    get = tf.io.TFRecordOptions.get_compression_type_string
    errors.append([get(opts), get(None), get("ZLIB"), get(1), get(2), get(0)])
    # A missing directory, a file where a directory should be, a directory where the file.
    with open(os.path.join(root, "plain"), "w") as f:
        f.write("x")
    for bad in (("missing", "dir", "x.tfrecord"), ("plain", "x.tfrecord"), ("missing",)):
        path = os.path.join(root, *bad)
        if bad == ("missing",):
            os.makedirs(path, exist_ok=True)
        try:
            tf.io.TFRecordWriter(path)
        except Exception as e:  # noqa: BLE001
            errors.append((type(e).__name__, str(e).replace(root, "ROOT")))
        try:
            list(tf.data.TFRecordDataset(path))
        except Exception as e:  # noqa: BLE001
            message = str(e).split("}}")[-1].split(" [Op:")[0].strip()
            errors.append((type(e).__name__, message.replace(root, "ROOT")))
    return out, errors


def test_each_framework_writes_and_reads(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _write_read, args=(str(tmp_path), RECORDS))


def _read_files(tf, paths):
    out = []
    for path, compression in paths:
        try:
            out.append([r.numpy() for r in tf.data.TFRecordDataset(path, compression)])
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            message = str(e).split("}}")[-1].split(" [Op:")[0].strip()
            if message.startswith("inflate()"):
                # zlib's detail after "inflate() failed with error -3:" is its own wording.
                message = "inflate() failed"
            out.append((type(e).__name__, message))
    return out


def test_tensorflow_reads_ferroflows_files(tf_oracle, tmp_path):
    import ferroflow as tf

    paths = []
    for compression in ["", "ZLIB", "GZIP"]:
        path = os.path.join(tmp_path, f"ff-{compression or 'none'}.tfrecord")
        with tf.io.TFRecordWriter(path, compression) as writer:
            for r in RECORDS:
                writer.write(r)
        paths.append((path, compression))
    assert_parity(tf_oracle, _read_files, args=(paths,))


def test_damaged_files_are_data_loss(tf_oracle, tmp_path):
    import ferroflow as tf

    good = os.path.join(tmp_path, "good.tfrecord")
    with tf.io.TFRecordWriter(good) as writer:
        writer.write(b"hello")
        writer.write(b"world!")
    data = open(good, "rb").read()
    rng = np.random.default_rng(0)
    cases = [data[:n] for n in (5, 12, 14, 20, 21, 30, 33, 40)]
    for i in [0, 9, 13, 18, 22, 30, 35, 41] + list(rng.integers(0, len(data), 4)):
        flipped = bytearray(data)
        flipped[int(i)] ^= 0x5A
        cases.append(bytes(flipped))
    paths = []
    for k, case in enumerate(cases):
        path = os.path.join(tmp_path, f"bad{k}.tfrecord")
        open(path, "wb").write(case)
        paths.append((path, ""))
    garbage = os.path.join(tmp_path, "garbage.z")
    open(garbage, "wb").write(b"not a zlib stream at all")
    paths += [(garbage, "ZLIB"), (garbage, "GZIP"), (os.path.join(tmp_path, "absent"), "")]
    assert_parity(tf_oracle, _read_files, args=(paths,))


@pytest.mark.parametrize("size", [0, 1, 100_000])
def test_reader_iterates_in_rust(tmp_path, size):
    import ferroflow as tf
    from ferroflow import _core

    path = os.path.join(tmp_path, "r.tfrecord")
    with tf.io.TFRecordWriter(path, "GZIP") as writer:
        for i in range(size % 7 + 3):
            writer.write(bytes([i]) * size)
    reader = _core.TFRecordReader(path, "GZIP", 16)
    assert [len(r) for r in reader] == [size] * (size % 7 + 3)
    many = _core.TFRecordReader(path, "GZIP").read_many(2)
    assert len(many) == 2
