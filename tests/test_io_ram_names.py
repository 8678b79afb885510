"""`ram://` names that ferroflow's folder-backed ram file system cannot hold (a NUL byte, a part
longer than 255 bytes) raise a typed UnimplementedError naming the ram:// name, instead of the
OS's OSError/ValueError naming the private folder. TensorFlow's in-memory map holds them, so
this is not a differential test: it pins ferroflow's documented refusal."""

import ferroflow as tf
import pytest


@pytest.mark.parametrize("name", ["ram://" + "x" * 300, "ram://dir/a\x00b"])
def test_names_the_folder_cannot_hold_are_typed_errors(name):
    with pytest.raises(tf.errors.UnimplementedError, match="ram file system") as raised:
        with tf.io.gfile.GFile(name, "w") as f:
            f.write("x")
    assert "ferroflow-ram-" not in str(raised.value)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.io.gfile.exists(name)


def test_long_names_in_several_parts_still_work():
    name = "ram://names/" + "/".join(["y" * 200] * 3)
    with tf.io.gfile.GFile(name, "w") as f:
        f.write("x")
    assert tf.io.gfile.exists(name)
