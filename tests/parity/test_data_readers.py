"""The file datasets against TensorFlow: each program writes its files in a fresh directory
under a temporary one (TensorFlow's run first, then ferroflow's), reads them back through
`TextLineDataset`, `FixedLengthRecordDataset`, `CsvDataset`, `make_csv_dataset` and
`Dataset.list_files`, and returns the elements in order (dtypes and shapes compared) and the
error classes of bad files (missing, corrupted, malformed CSV lines, wrong record lengths)."""

import pytest

from .harness import assert_parity


def _elements(tf, make):
    """The elements of ``make()`` (a dataset) in order, or the class of its error (with the
    elements read before it)."""
    out = []
    try:
        for x in make():
            out.append(x)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out.append(type(e).__name__)
    return out


def _text_lines(tf, root):
    import gzip
    import os
    import tempfile
    import zlib

    base = tempfile.mkdtemp(dir=root)

    def write(name, data):
        path = os.path.join(base, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    a = write("a.txt", b"l1\r\nl2\rx\n\nl4\r\r\nlast\r")
    b = write("b.txt", b"b1\nb2\nb3\n")
    e = write("e.txt", b"")
    r = write("r.txt", b"x\n\r")
    g = write("a.gz", gzip.compress(b"g1\ng2\n", mtime=0) + gzip.compress(b"g3", mtime=0))
    z = write("a.z", zlib.compress(b"z1\nz2"))
    bad = write("bad.gz", b"not gzip\n")
    T = tf.data.TextLineDataset
    cases = [
        lambda: T(a),
        lambda: T([a, b, e, r]),
        lambda: T([a, b], num_parallel_reads=2),
        lambda: T([a, b, g], num_parallel_reads=1),
        lambda: T(tf.constant([b, a])),
        lambda: T(tf.data.Dataset.from_tensor_slices([b, a])),
        lambda: T(g, compression_type="GZIP"),
        lambda: T(z, compression_type="ZLIB", buffer_size=1),
        lambda: T(g, compression_type="ZLIB"),
        lambda: T(bad, compression_type="GZIP"),
        lambda: T(g, compression_type="BAD"),
        lambda: T(a, buffer_size=-1),
        lambda: T(os.path.join(base, "missing.txt")),
        lambda: T([b, os.path.join(base, "missing.txt")]),
        lambda: T(base),
        lambda: T(3),
        lambda: T(tf.data.Dataset.range(3)),
        lambda: T([a, b], num_parallel_reads=0),
        lambda: T(a).map(lambda line: (tf.strings.length(line), tf.strings.upper(line))),
        lambda: T([a, b]).batch(3),
    ]
    out = [_elements(tf, c) for c in cases]
    ds = T([a, b])
    out += [repr(ds), ds.element_spec, ds.cardinality()]
    return out


def test_text_line_dataset(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _text_lines, (str(tmp_path),), helpers=[_elements])


def _fixed_length(tf, root):
    import gzip
    import os
    import tempfile
    import zlib

    base = tempfile.mkdtemp(dir=root)

    def write(name, data):
        path = os.path.join(base, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    body = b"HHabcdefghiFF"
    r = write("r.bin", body)
    g = write("r.gz", gzip.compress(body))
    z = write("r.z", zlib.compress(body))
    F = tf.data.FixedLengthRecordDataset
    cases = [
        lambda: F(r, 3, header_bytes=2, footer_bytes=2),
        lambda: F(r, 13),
        lambda: F(r, 4, header_bytes=2, footer_bytes=3),
        lambda: F([r, r], 3, header_bytes=2, footer_bytes=2, num_parallel_reads=2),
        lambda: F(g, 3, header_bytes=2, footer_bytes=2, compression_type="GZIP"),
        lambda: F(z, 9, header_bytes=2, footer_bytes=2, compression_type="ZLIB"),
        lambda: F(r, 4, header_bytes=2, footer_bytes=2),
        lambda: F(r, 20),
        lambda: F(g, 4, header_bytes=2, footer_bytes=2, compression_type="GZIP"),
        lambda: F(r, 0),
        lambda: F(r, 3, header_bytes=-1),
        lambda: F(r, 3, footer_bytes=-1),
        lambda: F(os.path.join(base, "missing"), 3),
        lambda: F(r, 3, header_bytes=2, footer_bytes=2).map(
            lambda x: tf.io.decode_raw(x, tf.uint8)
        ),
    ]
    out = [_elements(tf, c) for c in cases]
    out.append(repr(F(r, 3)))
    return out


def test_fixed_length_record_dataset(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _fixed_length, (str(tmp_path),), helpers=[_elements])


def _csv(tf, root):
    import gzip
    import os
    import tempfile

    base = tempfile.mkdtemp(dir=root)

    def write(name, data):
        path = os.path.join(base, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    c = write("c.csv", b'h1,h2,h3\n1,2.5,a\n3,,"b,c"\n4,5,"multi\nline"\r\n6,7,"q""x"')
    g = write("c.gz", gzip.compress(b"1,2\n3,4\n"))
    C = tf.data.experimental.CsvDataset
    i64 = tf.constant([7], tf.int64)
    files = []
    for k, text in enumerate(
        (
            b'1,"ab"c,3\n',
            b'1,a"b,3\n',
            b'1,"ab',
            b"1,x,3\n",
            b"1,,3\n",
            b"1,2,3\n4,5\n",
            b"1,2,3\r\n4,5,6\r\n",
            b"1,2,3,",
            b" 1 ,2,3\n\n",
            b"x,2,3\n1,2,3\n",
        )
    ):
        files.append(write(f"d{k}.csv", text))
    cases = [
        lambda: C(c, [tf.int32, [0.0], ["z"]], header=True),
        lambda: C(c, [i64, ["z"]], header=True, select_cols=[0, 2]),
        lambda: C(c, [[0], ["z"]], header=True, exclude_cols=[1]),
        lambda: C([c, c], [[0], [0.0], ["z"]], header=True, na_value="5"),
        lambda: C(c, [[0], [0.0], ["z"]], header=False),
        lambda: C(c, [[0], [0.0]], header=True),
        lambda: C(c, [[0], [0.0], ["z"], [0]], header=True),
        lambda: C(c, [[0], [0.0], ["z"]], header=True, use_quote_delim=False),
        lambda: C(g, [tf.int64, tf.float64], compression_type="GZIP"),
        lambda: C(c, [[0], ["z"]], select_cols=[1, 0]),
        lambda: C(c, [[0], ["z"]], select_cols=[0]),
        lambda: C(c, [[0], ["z"]], select_cols=[0, 1], exclude_cols=[2]),
        lambda: C(c, [[0]], field_delim="||"),
        lambda: C(c, [tf.bool]),
        lambda: C(os.path.join(base, "missing.csv"), [[0]]),
    ]
    cases += [lambda f=f: C(f, [[0], [0], [0]]) for f in files]
    cases.append(lambda: C(files[8], [[0], [""], [0]], header=True))
    cases.append(lambda: C(files[:6], [[0], [0], [0]]).ignore_errors())
    out = [_elements(tf, make) for make in cases]
    ds = C(c, [[0], [0.0], ["z"]], header=True)
    out += [repr(ds), ds.element_spec]
    return out


def test_csv_dataset(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _csv, (str(tmp_path),), helpers=[_elements])


def _list_files(tf, root):
    import os
    import tempfile

    base = tempfile.mkdtemp(dir=root)
    for name in ("c.txt", "a.txt", "b.txt", "d.csv", "e.txt"):
        with open(os.path.join(base, name), "w") as f:
            f.write(name)
    cut = len(base)

    def names(ds):
        return [x.numpy()[cut:] for x in ds]

    pattern = os.path.join(base, "*.txt")
    out = [
        names(tf.data.Dataset.list_files(pattern, shuffle=False)),
        names(tf.data.Dataset.list_files([pattern, os.path.join(base, "*.csv")], shuffle=False)),
        tf.data.Dataset.list_files(pattern, shuffle=False).element_spec,
    ]
    ds = tf.data.Dataset.list_files(pattern, seed=7)
    out += [names(ds), names(ds)]
    tf.random.set_seed(3)
    ds = tf.data.Dataset.list_files(pattern)
    out += [names(ds), names(ds)]
    try:
        tf.data.Dataset.list_files(os.path.join(base, "*.none"))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out.append(type(e).__name__)
    lines = tf.data.Dataset.list_files(pattern, shuffle=False).interleave(
        tf.data.TextLineDataset, cycle_length=2
    )
    out.append(list(lines))
    return out


def test_list_files(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _list_files, (str(tmp_path),))


def _make_csv(tf, root):
    import os
    import tempfile

    base = tempfile.mkdtemp(dir=root)
    rows = ["a,b,name,label"] + [f"{i},{i * 0.5},n{i},{i % 2}" for i in range(7)]
    with open(os.path.join(base, "one.csv"), "w") as f:
        f.write("\n".join(rows[:5]) + "\n")
    with open(os.path.join(base, "two.csv"), "w") as f:
        f.write("\n".join([rows[0], "9,,x,1", "10,2e40,y,0", "3000000000,1.5,z,1"]) + "\n")
    with open(os.path.join(base, "bad.txt"), "w") as f:
        f.write("a,b\n1,2\nx,3\n4,5\n6,7\n")
    pattern = os.path.join(base, "*.csv")
    make = tf.data.experimental.make_csv_dataset
    out = [
        list(make(pattern, 3, label_name="label", num_epochs=1, shuffle=False)),
        list(make(pattern, 2, num_epochs=2, shuffle=False, select_columns=["name", 0])),
        list(make(pattern, 4, num_epochs=1, shuffle_seed=5, num_parallel_reads=2)),
        list(
            make(
                os.path.join(base, "one.csv"),
                2,
                column_names=["w", "x", "y", "z"],
                column_defaults=[tf.int64, tf.float64, "?", 0],
                header=True,
                num_epochs=1,
                shuffle=False,
            )
        ),
        list(make(pattern, 5, shuffle=False).take(2)),
        list(
            make(
                os.path.join(base, "bad.txt"),
                2,
                column_defaults=[[0], [0]],
                num_epochs=1,
                shuffle=False,
                ignore_errors=True,
            )
        ),
    ]
    for bad in (
        lambda: make(os.path.join(base, "*.none"), 2),
        lambda: make(pattern, 2, label_name="nope"),
        lambda: make(pattern, 2, header=False),
        lambda: make(pattern, 2, select_columns=["a", "a"]),
        lambda: make(pattern, 2, compression_type="ZLIB"),
    ):
        try:
            bad()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_make_csv_dataset(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _make_csv, (str(tmp_path),))


def _tfrecords(tf, root, writer_name, write):
    """With ``write``, the ``writer_name`` framework writes TFRecord files (compressed or not,
    damaged or not) and both return None; then both read them."""
    import os

    base = os.path.join(root, "tfrecords")
    os.makedirs(base, exist_ok=True)
    records = [b"", b"a", b"bc" * 100, bytes(range(256))]
    kinds = {"plain": "", "zlib": "ZLIB", "gzip": "GZIP"}
    if write:
        if tf.__name__ != writer_name:
            return None
        for name, kind in kinds.items():
            with tf.io.TFRecordWriter(os.path.join(base, name), kind) as w:
                for r in records:
                    w.write(r)
        with open(os.path.join(base, "plain"), "rb") as f:
            data = bytearray(f.read())
        with open(os.path.join(base, "truncated"), "wb") as f:
            f.write(data[:-3])
        data[30] ^= 1  # inside the third record's data
        with open(os.path.join(base, "corrupted"), "wb") as f:
            f.write(data)
        return None
    R = tf.data.TFRecordDataset
    paths = {name: os.path.join(base, name) for name in list(kinds) + ["truncated", "corrupted"]}
    cases = [lambda n=n, k=k: R(paths[n], compression_type=k) for n, k in kinds.items()]
    cases += [
        lambda: R([paths["plain"], paths["gzip"]], compression_type=None),
        lambda: R([paths["zlib"], paths["zlib"]], "ZLIB", num_parallel_reads=2),
        lambda: R(paths["plain"], buffer_size=1),
        lambda: R(paths["truncated"]),
        lambda: R(paths["corrupted"]),
        lambda: R(paths["gzip"], compression_type="ZLIB"),
        lambda: R(os.path.join(base, "missing")),
        lambda: R(paths["plain"]).batch(3),
    ]
    out = [_elements(tf, c) for c in cases]
    out.append(repr(R(paths["plain"])))
    return out


def _has_tfrecord_reader():
    from ferroflow import _core

    return hasattr(_core, "TFRecordReader")


@pytest.mark.skipif(not _has_tfrecord_reader(), reason="_core.TFRecordReader not built yet")
@pytest.mark.parametrize("writer", ["tensorflow", "ferroflow"])
def test_tfrecord_dataset(tf_oracle, tmp_path, writer):
    # The writer's run (TensorFlow's goes first) writes the files, then both read them.
    assert_parity(tf_oracle, _tfrecords, (str(tmp_path), writer, True), helpers=[_elements])
    assert_parity(tf_oracle, _tfrecords, (str(tmp_path), writer, False), helpers=[_elements])


def _batched_features(tf, root, write):
    """TensorFlow writes TFRecord files of Examples; both parse them in batches."""
    import os

    base = os.path.join(root, "examples")
    os.makedirs(base, exist_ok=True)
    if write:
        if tf.__name__ != "tensorflow":
            return None
        t = tf.train
        for k in range(3):
            with tf.io.TFRecordWriter(os.path.join(base, f"part{k}.tfrecord")) as w:
                for i in range(4):
                    n = 10 * k + i
                    feature = {
                        "x": t.Feature(float_list=t.FloatList(value=[n, n + 0.5])),
                        "y": t.Feature(int64_list=t.Int64List(value=[n % 3])),
                        "v": t.Feature(bytes_list=t.BytesList(value=[b"w"] * (n % 3))),
                    }
                    example = t.Example(features=t.Features(feature=feature))
                    w.write(example.SerializeToString())
        return None
    features = {
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "y": tf.io.FixedLenFeature([], tf.int64),
        "v": tf.io.VarLenFeature(tf.string),
    }
    make = tf.data.experimental.make_batched_features_dataset
    pattern = os.path.join(base, "*.tfrecord")
    out = [
        list(make(pattern, 5, features, label_key="y", num_epochs=1, shuffle=False)),
        list(make(pattern, 4, features, num_epochs=2, shuffle_seed=3, reader_num_threads=2)),
        list(make(pattern, 4, features, shuffle=False).take(4)),
    ]
    parse = tf.data.experimental.parse_example_dataset(features)
    serialized = tf.data.TFRecordDataset(os.path.join(base, "part0.tfrecord")).batch(3)
    parsed = serialized.apply(parse)
    out += [parsed.element_spec, list(parsed)]
    for bad in (
        lambda: make(pattern, 2, features, label_key="nope"),
        lambda: tf.data.Dataset.range(3).apply(
            tf.data.experimental.parse_example_dataset(features)
        ),
    ):
        try:
            bad()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.skipif(not _has_tfrecord_reader(), reason="_core.TFRecordReader not built yet")
def test_batched_features(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _batched_features, (str(tmp_path), True))
    assert_parity(tf_oracle, _batched_features, (str(tmp_path), False))
