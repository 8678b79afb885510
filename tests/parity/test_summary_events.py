"""tf.summary against TensorFlow: the same program writes an event log under each framework;
TensorBoard's reader (in TensorFlow's environment) reads both logs, whose summaries must be
equal (tags, steps, plugin metadata, tensors; PNG images compared as pixels), and each
framework reads both logs back with `tf.compat.v1.train.summary_iterator`."""

import os
import re
import socket

from ._outcomes import error_classes
from ._tensorboard import read_event_files
from .harness import assert_parity


def write_log(tf, root):
    """Every summary kind, eagerly, plus the results and errors TensorFlow gives."""
    import os

    import numpy as np

    def error(thunk):
        return error_classes([thunk])[0]

    rs = np.random.RandomState(0)
    writer = tf.summary.create_file_writer(os.path.join(root, tf.__name__))
    out = [bool(tf.summary.scalar("no_writer", 1.0, step=0)), tf.summary.experimental.get_step()]
    out.append(error(lambda: tf.summary.scalar("bad_step", 1.0, step=[1, 2])))
    with writer.as_default(step=3):
        out.append(bool(tf.summary.scalar("loss", 0.5)))
        tf.summary.scalar("loss", tf.constant(7, tf.int32), step=4)
        tf.summary.scalar("described", np.float64(2.5), description="a description", step=5)
        tf.summary.histogram("h", [1.0, 2.0, 2.5, 9.0])
        tf.summary.histogram("h_int", tf.range(100), buckets=7)
        tf.summary.histogram("h_empty", tf.zeros([0]))
        tf.summary.histogram("h_const", [3.0, 3.0])
        tf.summary.histogram("h_zero_buckets", [1.0, 2.0], buckets=0)
        tf.summary.histogram("h_normal", rs.randn(1000).astype("float32"))
        tf.summary.histogram("h_inf", [1.0, np.inf, 2.0], buckets=4)
        tf.summary.histogram("h_wide", np.array([1e308, -1e308]), buckets=4)
        tf.summary.text("t", "hello")
        tf.summary.text("t2", [["a", "b"], ["c", "\u00e9"]])
        tf.summary.image("img", rs.rand(4, 4, 5, 3).astype("float32"), max_outputs=3)
        tf.summary.image("img_u8", (rs.rand(2, 3, 2, 1) * 255).astype("uint8"))
        tf.summary.image("img_rgba", rs.uniform(-0.5, 1.5, [1, 2, 2, 4]).astype("float32"))
        tf.summary.audio("aud", rs.uniform(-1.2, 1.2, [2, 50, 2]).astype("float32"), 8000, 1)
        tf.summary.audio("aud_empty", np.zeros([0, 4, 1], "float32"), 16000)
        out.append(bool(tf.summary.write("gen", tf.constant([1, 2]))))
        meta = tf.compat.v1.SummaryMetadata(display_name="shown")
        meta.plugin_data.plugin_name = "custom"
        meta.plugin_data.content = b"\x01\x02"
        tf.summary.write("gen_meta", tf.constant([[1.5]], tf.float64), metadata=meta)
        tf.summary.write("gen_bytes", tf.constant(True), metadata=meta.SerializeToString())
        tf.summary.write("lazy", lambda: tf.constant(9, tf.int64), step=6)
        raw = tf.compat.v1.Summary()
        raw.value.add(tag="raw", simple_value=1.5)
        tf.summary.experimental.write_raw_pb(raw.SerializeToString(), step=8)
        with tf.name_scope("outer"):
            tf.summary.scalar("inner", 1)
            with tf.summary.experimental.summary_scope("my op", "Default") as (tag, _):
                out.append(tag)
        with tf.summary.record_if(False):
            out.append(bool(tf.summary.scalar("never", 1)))
            out.append(bool(tf.summary.should_record_summaries()))
        with tf.summary.record_if(lambda: tf.constant(False)):
            out.append(bool(tf.summary.histogram("never_h", [1.0])))
        out.append(bool(tf.summary.should_record_summaries()))
        out.append(error(lambda: tf.summary.image("rank3", np.zeros([2, 2, 3], "float32"))))
        out.append(error(lambda: tf.summary.audio("rank2", np.zeros([2, 2], "float32"), 8000)))
        out.append(error(lambda: tf.summary.text("number", 1.0)))
        out.append(error(lambda: tf.summary.scalar("vector", [1.0, 2.0])))
        out.append(error(lambda: tf.summary.audio("mp3", np.zeros([1, 2, 1]), 8, encoding="mp3")))
        for clips in (np.zeros([1, 4, 1]), tf.zeros([1, 4, 1], tf.int32)):
            out.append(error(lambda clips=clips: tf.summary.audio("dtype", clips, 8000)))
        out.append(error(lambda: tf.summary.write(3, tf.constant([1]))))
        out.append(error(lambda: tf.summary.experimental.write_raw_pb(b"\xff\xff", step=1)))
        tf.summary.write(["listed"], tf.constant([1]))
        for rate in (8000.0, tf.constant(8000.0)):
            out.append(error(lambda rate=rate: tf.summary.audio("rate", tf.zeros([1, 4, 1]), rate)))
        tf.summary.flush()
    with writer.as_default():
        out.append(error(lambda: tf.summary.scalar("stepless", 1.0)))
        tf.summary.experimental.set_step(11)
        tf.summary.scalar("set_step", 1.0)
        tf.summary.experimental.set_step(None)
    out.append(bool(tf.summary.should_record_summaries()))
    with tf.summary.create_noop_writer().as_default():
        out.append(bool(tf.summary.scalar("noop", 1.0, step=1)))
    with writer.as_default(step=1):
        writer.close()
        out.append(error(lambda: tf.summary.scalar("closed", 1.0)))
    writer.close()
    out.append(error(lambda: writer.as_default()))
    out.append(error(lambda: tf.summary.create_file_writer(None)))
    out.append(error(lambda: tf.summary.flush(writer="x")))
    suffixed = tf.summary.create_file_writer(os.path.join(root, tf.__name__, "sfx"), 5, 10, ".x")
    with suffixed.as_default(step=1):
        tf.summary.scalar("a", 1.0)
    suffixed.close()
    return out


def read_back(tf, root):
    """Both logs read with `summary_iterator` (step, tag, plugin, dtype, shape, values) and
    with `tf.data.TFRecordDataset` and `tf.compat.v1.Event.FromString`."""
    import glob
    import os

    import numpy as np

    numeric = {1: "<f4", 2: "<f8", 3: "<i4", 9: "<i8", 10: "?"}
    result = {}
    for name in ("tensorflow", "ferroflow"):
        (path,) = glob.glob(os.path.join(root, name, "events.out.tfevents.*"))
        rows = []
        for event in tf.compat.v1.train.summary_iterator(path):
            if event.file_version:
                rows.append(event.file_version)
            for value in event.summary.value:
                tensor = value.tensor
                shape = [d.size for d in tensor.tensor_shape.dim]
                if value.metadata.plugin_data.plugin_name == "images":
                    content = list(tensor.string_val[:2])  # the PNG encoders differ
                elif tensor.dtype == 7:
                    content = list(tensor.string_val)
                elif tensor.dtype in numeric:
                    content = np.frombuffer(tensor.tensor_content, numeric[tensor.dtype]).tolist()
                else:
                    content = value.simple_value
                rows.append(
                    (
                        event.step,
                        value.tag,
                        value.metadata.plugin_data.plugin_name,
                        tensor.dtype,
                        shape,
                        content,
                    )
                )
        result[name] = rows
        # The same records through tf.data and the Event message class.
        events = [tf.compat.v1.Event.FromString(r.numpy()) for r in tf.data.TFRecordDataset(path)]
        result[name + " via TFRecordDataset"] = [
            (e.step, [v.tag for v in e.summary.value]) for e in events
        ]
    return result


def _file_name_pattern(suffix):
    host = re.escape(socket.gethostname())
    return re.compile(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.\d+\.\d+{re.escape(suffix)}")


def test_event_logs_match_tensorflow(tf_oracle, tmp_path):
    assert_parity(tf_oracle, write_log, args=(str(tmp_path),), helpers=[error_classes])
    logs = read_event_files(tmp_path / "tensorflow", tmp_path / "ferroflow")
    theirs, ours = logs[str(tmp_path / "tensorflow")], logs[str(tmp_path / "ferroflow")]
    assert sorted(theirs) == sorted(ours) == [".", "sfx"]
    for sub, suffix in ((".", ".v2"), ("sfx", ".x")):
        [(their_name, their_records)] = theirs[sub]
        [(our_name, our_records)] = ours[sub]
        assert _file_name_pattern(suffix).fullmatch(their_name), their_name
        assert _file_name_pattern(suffix).fullmatch(our_name), our_name
        assert our_records[0] == ("file_version", "brain.Event:2", their_records[0][2], True)
        assert len(our_records) == len(their_records)
        for mine, expected in zip(our_records, their_records):
            assert mine == expected
    assert_parity(tf_oracle, read_back, args=(str(tmp_path),))


def test_the_file_exists_from_creation(tmp_path):
    import ferroflow as tf

    writer = tf.summary.create_file_writer(str(tmp_path / "new" / "dir"))
    [name] = os.listdir(tmp_path / "new" / "dir")
    assert _file_name_pattern(".v2").fullmatch(name)
    assert os.path.getsize(tmp_path / "new" / "dir" / name) > 0
    writer.close()
