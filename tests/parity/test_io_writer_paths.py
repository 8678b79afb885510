"""Writers given a path that is not a string, against TensorFlow: TypeError or
InvalidArgumentError, never a file named by the value's `str` in the working directory (the
fuzzer found `tf.io.TFRecordWriter(7)` and `tf.summary.create_file_writer(())` doing that)."""

from .harness import assert_parity


def _attempts(tf):
    import os

    out = []
    writers = {
        "TFRecordWriter": lambda p: tf.io.TFRecordWriter(p).close(),
        "create_file_writer": lambda p: tf.summary.create_file_writer(p).flush(),
        "write_file": lambda p: tf.io.write_file(p, "x"),
        "data.experimental.TFRecordWriter": lambda p: tf.data.experimental.TFRecordWriter(p).write(
            tf.data.Dataset.from_tensors(b"x")
        ),
    }
    for name, write in writers.items():
        for path in (7, True, (), None):
            try:
                write(path)
                out.append((name, repr(path), "wrote"))
            except Exception as e:
                out.append((name, repr(path), type(e).__name__))
    out.append(sorted(os.listdir(".")))
    return out


def _junk_paths(tf, folder):
    import os

    previous = os.getcwd()
    os.chdir(folder)
    try:
        return _attempts(tf)
    finally:
        os.chdir(previous)


def test_writers_refuse_paths_that_are_not_strings(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _junk_paths, (str(tmp_path),), helpers=[_attempts])
