"""`tf.data.experimental.SqlDataset` (SQLite rows as tuples of scalars of the output types,
bools, floats read as ints, a single type, column-count, query and driver errors) and
`prefetch_to_device`/`copy_to_device` and `TFRecordWriter` against TensorFlow."""

from ._data_cases import describe_datasets, describe_value
from .harness import assert_parity


def _sql_and_devices(tf):
    import os
    import sqlite3
    import tempfile

    database = os.path.join(tempfile.mkdtemp(), "t.db")
    connection = sqlite3.connect(database)
    connection.execute("create table t (a integer, b text, c real)")
    connection.executemany(
        "insert into t values (?, ?, ?)", [(1, "x", 0.5), (2, "yy", 1.5), (3, "", -2.0)]
    )
    connection.commit()
    connection.close()
    sql = f"E.SqlDataset('sqlite', {database!r}, "
    cases = [
        ("rows", sql + "'select a, b, c from t', (tf.int64, tf.string, tf.float64))"),
        ("one_type", sql + "'select a from t', tf.int32)"),
        ("one_tuple", sql + "'select a from t', (tf.int32,))"),
        ("bool", sql + "'select a > 1 from t', (tf.bool,))"),
        ("float_as_int", sql + "'select c from t', (tf.int64,))"),
        ("float32", sql + "'select c, a from t', (tf.float32, tf.int16))"),
        ("small_ints", sql + "'select a, a, a from t', (tf.int16, tf.uint8, tf.uint16))"),
        ("column_count", sql + "'select a, b from t', (tf.int64,))"),
        ("bad_query", sql + "'select nope from t', (tf.int64,))"),
        ("driver", f"E.SqlDataset('mysql', {database!r}, 'select a from t', (tf.int64,))"),
        ("prefetch_to_device", "D.range(3).apply(E.prefetch_to_device('/cpu:0'))"),
        ("prefetch_to_device_buffer", "D.range(3).apply(E.prefetch_to_device('/cpu:0', 2))"),
        ("copy_to_device", "D.range(3).map(lambda x: x * 2).apply(E.copy_to_device('/cpu:0'))"),
    ]
    return describe_datasets(tf, cases, "CPU:0")


def test_sql_dataset_and_device_copies(tf_oracle):
    assert_parity(
        tf_oracle,
        _sql_and_devices,
        (),
        helpers=[describe_value, describe_datasets],
    )


def _tfrecord_writer(tf):
    """`experimental.TFRecordWriter` writes a dataset of strings: the file's bytes (equal to
    TensorFlow's), the records read back, GZIP, and the refusal of non-string elements."""
    import os
    import tempfile

    root = tempfile.mkdtemp()
    D = tf.data.Dataset
    plain = os.path.join(root, "plain.tfrecord")
    tf.data.experimental.TFRecordWriter(plain).write(D.from_tensor_slices(["a", "bb", ""]))
    with open(plain, "rb") as f:
        raw = f.read()
    packed = os.path.join(root, "packed.tfrecord.gz")
    tf.data.experimental.TFRecordWriter(packed, "GZIP").write(D.from_tensor_slices(["q", "rr"]))
    try:
        tf.data.experimental.TFRecordWriter(plain).write(D.range(3))
        refused = None
    except Exception as e:  # noqa: BLE001 - the class is compared
        refused = type(e).__name__
    return {
        "bytes": raw,
        "records": [r.numpy() for r in tf.data.TFRecordDataset(plain)],
        "gzip": [r.numpy() for r in tf.data.TFRecordDataset(packed, "GZIP")],
        "refused": refused,
    }


def test_tfrecord_writer(tf_oracle):
    assert_parity(tf_oracle, _tfrecord_writer)
