"""`tf.io.write_graph` against TensorFlow: the same GraphDef gives the same file bytes, as text
and as binary, and the directory is made when missing."""

import pytest

from .harness import assert_parity


def _write(tf, folder, as_text):
    import os

    graph = tf.compat.v1.GraphDef()
    node = graph.node.add(name="scale", op="Mul", input=["x", "factor"])
    node.attr["T"].type = 1
    node.attr["value"].f = 0.1
    node.attr["shape"].list.i.extend([2, 3])
    graph.node.add(name="x", op="Placeholder")
    graph.versions.producer = 2474
    side = os.path.join(folder, tf.__name__, "made", "here")
    path = tf.io.write_graph(graph, side, "graph.pbtxt" if as_text else "graph.pb", as_text)
    with open(path, "rb") as f:
        contents = f.read()
    return os.path.relpath(path, folder).split(os.sep)[1:], contents, sorted(os.listdir(side))


@pytest.mark.parametrize("as_text", [True, False])
def test_write_graph(tf_oracle, tmp_path, as_text):
    assert_parity(tf_oracle, _write, (str(tmp_path), as_text))
