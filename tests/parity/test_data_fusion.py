"""Differential tests of the fused input pipelines (data/_fusion.py): consecutive maps run as
one graph, a batch after a map stacks the map's outputs in Rust, a batch after a TFRecord
reader reads whole batches of records. Each program compares elements, specs and errors with
TensorFlow's unfused kernels over pipelines that hit every branch: composites between and
after the maps, tuple and dict elements, partial and dropped last batches, batches spanning
files, outputs whose shapes differ, failing elements and damaged files; text lines read in
batches across files, empty files and compression."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _write(tf, path, count, start=0):
    train = tf.train
    with tf.io.TFRecordWriter(path) as writer:
        for n in range(start, start + count):
            feature = {
                "x": train.Feature(float_list=train.FloatList(value=[n * 0.5, -n])),
                "k": train.Feature(int64_list=train.Int64List(value=[n])),
                "ids": train.Feature(int64_list=train.Int64List(value=list(range(n % 4)))),
                "name": train.Feature(bytes_list=train.BytesList(value=[b"r%d" % n])),
                "rv": train.Feature(int64_list=train.Int64List(value=[n] * (n % 3))),
            }
            example = train.Example(features=train.Features(feature=feature))
            writer.write(example.SerializeToString())


def _spec(tf):
    return {
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "k": tf.io.FixedLenFeature([], tf.int64),
        "ids": tf.io.VarLenFeature(tf.int64),
        "name": tf.io.FixedLenFeature([], tf.string, default_value=""),
        "r": tf.io.RaggedFeature(tf.int64, value_key="rv"),
    }


def _show(tf, element):
    def leaf(v):
        if isinstance(v, tf.SparseTensor):
            return ("sparse", v.indices.numpy(), v.values.numpy(), v.dense_shape.numpy())
        if isinstance(v, tf.RaggedTensor):
            return ("ragged", v.to_list())
        return (v.dtype.name, v.numpy())

    return tf.nest.map_structure(leaf, element, expand_composites=False)


def _pipelines(tf, device, folder):
    import os

    paths = [os.path.join(folder, f"part{i}.tfrecord") for i in range(3)]
    for i, (path, count) in enumerate(zip(paths, (7, 0, 12))):
        _write(tf, path, count, start=100 * i)
    spec = _spec(tf)
    auto = tf.data.AUTOTUNE

    def keys(batch):
        return tf.io.parse_example(batch, {"k": spec["k"]})["k"]

    out = []
    with tf.device(device):
        records = tf.data.TFRecordDataset(paths)
        parsed = records.map(lambda s: tf.io.parse_single_example(s, spec), num_parallel_calls=2)
        pipelines = {
            # Record bytes differ (protobuf writes map entries in no set order): the records
            # of each batch are compared by their keys.
            "read-batch": records.batch(5).map(keys),
            "read-batch-drop": records.batch(4, drop_remainder=True).map(keys),
            "read-batch-one": records.batch(1).take(3).map(keys),
            "read-batch-big": records.batch(100).map(keys),
            "parse-batch": records.map(
                lambda s: tf.io.parse_single_example(s, {k: spec[k] for k in ("x", "ids", "name")})
            ).batch(3),
            "parse-map-batch": parsed.map(lambda p: (p["x"] * 2.0, p["k"] + 1, p["ids"])).batch(
                4, drop_remainder=True
            ),
            "parse-map-map-batch": parsed.map(lambda p: {"s": p["x"] + 1.0, "r": p["r"]})
            .map(lambda d: (d["s"], tf.reduce_sum(tf.cast(d["r"], tf.float32)) * 2.0))
            .batch(6),
            "batch-parse": records.batch(8).map(lambda s: tf.io.parse_example(s, spec)),
            "tuple-maps": tf.data.Dataset.range(10)
            .map(lambda n: (n, tf.fill([2], n)))
            .map(lambda a, b: (b * 2, a), num_parallel_calls=auto)
            .map(lambda b, a: {"b": b, "a": a + 1})
            .batch(4),
        }
        for name, ds in pipelines.items():
            out.append((name, repr(ds.element_spec), [_show(tf, e) for e in ds]))
        # TensorFlow fuses map and batch by default: its MapAndBatch kernel copies elements
        # of as many values into the first one's shape, and names the sizes of others in its
        # error (which two depends on which element its threads finish first); unfused,
        # `batch` names the component and the shapes.
        unfused = tf.data.Options()
        unfused.experimental_optimization.map_and_batch_fusion = False
        no_defaults = tf.data.Options()
        no_defaults.experimental_optimization.apply_default_optimizations = False
        varying = tf.data.Dataset.range(5).map(lambda n: tf.range(n % 2 + 1)).batch(3)
        reshaped = tf.data.Dataset.range(2).map(
            lambda n: tf.reshape(tf.range(2), tf.stack([2 - n, 1 + n]))
        )
        # Which element's shape the batch takes varies from run to run under TensorFlow: the
        # batch's size and values are compared.
        out.append([(int(e.shape[0]), tf.reshape(e, [-1]).numpy()) for e in reshaped.batch(2)])
        for ds in (
            varying,
            varying.with_options(unfused),
            varying.with_options(no_defaults),
            reshaped.batch(2).with_options(unfused),
            # TensorFlow fuses only a plain batch: a parallel batch keeps batch's rules.
            reshaped.batch(2, num_parallel_calls=2),
            tf.data.Dataset.range(5)
            .map(lambda n: tf.range(n % 2 + 1))
            .batch(3, num_parallel_calls=2),
        ):
            try:
                out.append([_show(tf, e) for e in ds])
            except Exception as e:  # noqa: BLE001 - compared by class and message
                message = str(e).split("}} ")[-1].split(" [Op")[0]
                out.append((type(e).__name__, message.split(". Shapes are")[0]))
        failing = tf.data.Dataset.range(6).map(
            lambda n: tf.debugging.check_numerics(1.0 / tf.cast(3 - n, tf.float32), "inf")
        )
        got = []
        iterator = iter(failing.batch(2))
        for _ in range(3):
            try:
                got.append(_show(tf, next(iterator)))
            except StopIteration:
                got.append("end")
            except Exception as e:  # noqa: BLE001 - compared by class
                got.append(type(e).__name__)
        out.append(got)
    return out


def _random_and_damaged(tf, device, folder):
    import os

    out = []
    with tf.device(device):
        # A map that assigns a variable is stateful: it runs element after element, unfused.
        counter = tf.Variable(0, dtype=tf.int64)
        counted = (
            tf.data.Dataset.range(40)
            .map(lambda n: n * 2)
            .map(lambda n: (n, counter.assign_add(1)))
            .map(lambda n, c: n + c * 1000)
            .batch(8)
        )
        out.append([e.numpy() for e in counted])
        # `reduce` applies the dataset's options too: unfused, plain batch's error.
        unfused = tf.data.Options()
        unfused.experimental_optimization.map_and_batch_fusion = False
        reshaped = tf.data.Dataset.range(2).map(
            lambda n: tf.reshape(tf.range(2), tf.stack([2 - n, 1 + n]))
        )
        try:
            out.append(reshaped.batch(2).with_options(unfused).reduce(0, lambda s, b: s + 1))
        except Exception as e:  # noqa: BLE001 - compared by class
            out.append(type(e).__name__)
        tf.random.set_seed(7)
        noisy = (
            tf.data.Dataset.range(6)
            .map(lambda n: tf.cast(n, tf.float32))
            .map(lambda x: x + tf.random.uniform([], seed=3))
            .map(lambda x: x * 2.0)
            .batch(4)
        )
        first = [e.numpy().tolist() for e in noisy]
        second = [e.numpy().tolist() for e in noisy]
        out.append(("epochs repeat", first == second, [len(b) for b in first]))
        path = os.path.join(folder, "damaged.tfrecord")
        _write(tf, path, 6)
        with open(path, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        with open(path, "wb") as f:
            f.write(data)
        for size in (2, 10):
            got = []
            iterator = iter(tf.data.TFRecordDataset(path).batch(size))
            for _ in range(4):
                try:
                    got.append(int(next(iterator).shape[0]))
                except StopIteration:
                    got.append("end")
                    break
                except Exception as e:  # noqa: BLE001 - compared by class
                    got.append(type(e).__name__)
            out.append(got)
        try:
            list(tf.data.TFRecordDataset(os.path.join(folder, "missing.tfrecord")).batch(2))
        except Exception as e:  # noqa: BLE001 - compared by class
            out.append(type(e).__name__)
    return out


def _agrees_without_raising(tf_oracle, program, args, helpers):
    """The program agrees with TensorFlow, and TensorFlow's run did not raise (a program that
    raises under both would agree without testing anything)."""
    expected = assert_parity(tf_oracle, program, args=args, helpers=helpers)
    assert expected[0] != "raised", expected


@pytest.mark.parametrize("device", DEVICES)
def test_fused_pipelines_match_tensorflow(tf_oracle, device, tmp_path):
    helpers = (_write, _spec, _show)
    _agrees_without_raising(tf_oracle, _pipelines, (device, str(tmp_path)), helpers)


@pytest.mark.parametrize("device", DEVICES)
def test_fusion_keeps_random_draws_and_reader_errors(tf_oracle, device, tmp_path):
    _agrees_without_raising(tf_oracle, _random_and_damaged, (device, str(tmp_path)), (_write,))


def _text_batches(tf, device, folder):
    import gzip
    import os

    texts = [b"one two\r\nthree\n\nfour five six\n", b"", b"last line without break", b"\n\n"]
    paths = []
    for i, text in enumerate(texts):
        paths.append(os.path.join(folder, f"t{i}.txt"))
        with open(paths[-1], "wb") as f:
            f.write(text)
    zipped = os.path.join(folder, "z.txt.gz")
    with gzip.open(zipped, "wb") as f:
        f.write(b"a\nb\nc")
    out = []
    with tf.device(device):
        lines = tf.data.TextLineDataset(paths)
        for ds in (
            lines.batch(2),
            lines.batch(3, drop_remainder=True),
            lines.batch(100),
            lines.batch(2).map(tf.strings.split),
            tf.data.TextLineDataset(zipped, compression_type="GZIP").batch(2),
        ):
            out.append([_show(tf, e) for e in ds])
        try:
            list(tf.data.TextLineDataset(os.path.join(folder, "missing.txt")).batch(2))
        except Exception as e:  # noqa: BLE001 - compared by class
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_text_lines_read_in_batches(tf_oracle, device, tmp_path):
    _agrees_without_raising(tf_oracle, _text_batches, (device, str(tmp_path)), (_show,))
