"""Saved graphs name their ops: version 2 nodes are `{"op": TensorFlow name, "attrs": {...}}`,
read back through the op registry; version 1 files (Rust enum values) still load; a version
from the future, an unknown op or attributes that do not fit raise typed errors."""

import json
import os
import shutil

import ferroflow as tf
import numpy as np
import pytest

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "saved_model_v1")
X = [[1.0, 2.0], [-1.0, 0.5], [3.0, -4.0]]
# What the fixture's function returned when ferroflow (format version 1) saved it.
EXPECTED_V1 = [
    [0.15446527302265167, 0.8455346822738647, 5.899999618530273, 1.0],
    [0.03557119891047478, 0.9644288420677185, 3.299999952316284, 1.0],
    [0.7502601146697998, 0.24973991513252258, 1.100000023841858, 0.0],
]


class Model(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
        self.b = tf.Variable([0.1, -0.2])

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        h = tf.nn.relu(tf.matmul(x, self.w) + self.b)
        s = tf.reduce_sum(h, axis=1, keepdims=True)
        y = tf.where(h > 0.5, h, tf.zeros_like(h))
        top = tf.cast(tf.argmax(h, axis=1)[:, None], tf.float32)
        return tf.concat([tf.nn.softmax(y), s, top], axis=1)


def graph_nodes(meta):
    return meta["concrete_functions"][0]["graph"]["nodes"]


def test_version_1_files_still_load():
    loaded = tf.saved_model.load(FIXTURE)
    np.testing.assert_allclose(loaded(tf.constant(X)).numpy(), EXPECTED_V1, rtol=1e-6)


def test_version_2_nodes_name_ops_and_attributes(tmp_path):
    m = Model()
    tf.saved_model.save(m, tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "saved_model.json").read_text())
    assert meta["version"] == 2
    ops = [n["kind"]["primitive"] for n in graph_nodes(meta) if "primitive" in n["kind"]]
    names = [o["op"] for o in ops]
    for expected in ["BatchMatMulV2", "AddV2", "Relu", "Sum", "SelectV2", "Softmax", "ArgMax",
                     "StridedSlice", "Cast", "ConcatV2"]:  # fmt: skip
        assert expected in names, (expected, names)
    registry = {name for _, row in tf._core.op_registry() for name in row}
    assert set(names) <= registry
    by_name = {o["op"]: o["attrs"] for o in ops}
    assert by_name["Sum"]["axes"] == [1] and by_name["Sum"]["keepdims"] is True
    assert by_name["ArgMax"]["axis"] == 1
    loaded = tf.saved_model.load(tmp_path / "m")
    np.testing.assert_allclose(loaded(tf.constant(X)).numpy(), m(tf.constant(X)).numpy())


def rewrite(src, dst, change):
    shutil.copytree(src, dst)
    path = os.path.join(dst, "saved_model.json")
    with open(path) as f:
        meta = json.load(f)
    change(meta)
    with open(path, "w") as f:
        json.dump(meta, f)


def test_a_future_version_names_the_versions(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")

    def future(meta):
        meta["version"] = 99

    rewrite(tmp_path / "m", tmp_path / "future", future)
    with pytest.raises(tf.errors.UnimplementedError, match="version 99.*versions 1 to 2"):
        tf.saved_model.load(tmp_path / "future")


def first_primitive(meta, name):
    return next(n for n in graph_nodes(meta) if n["kind"].get("primitive", {}).get("op") == name)


@pytest.mark.parametrize(
    "change",
    [
        lambda node: node["kind"]["primitive"].__setitem__("op", "NoSuchOp"),
        lambda node: node["kind"]["primitive"]["attrs"].__setitem__("axes", "one"),
        lambda node: node["kind"]["primitive"]["attrs"].__setitem__("axes", [5]),
        lambda node: node["kind"]["primitive"].__setitem__("op", "Transpose"),
        lambda node: node.__setitem__("inputs", []),
    ],
    ids=["unknown op", "attribute type", "axis out of range", "another op", "no inputs"],
)
def test_damaged_nodes_are_data_loss(tmp_path, change):
    tf.saved_model.save(Model(), tmp_path / "m")
    rewrite(tmp_path / "m", tmp_path / "bad", lambda meta: change(first_primitive(meta, "Sum")))
    with pytest.raises(tf.errors.DataLossError):
        tf.saved_model.load(tmp_path / "bad")


def test_zeros_like_in_a_saved_function_keeps_the_batch_unknown(tmp_path):
    # Regression: zeros_like baked the traced example's size into the graph, so the saved
    # function accepted only that batch size.
    class Masked(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            return tf.where(x > 0, x, tf.zeros_like(x)) + tf.ones_like(x)

    tf.saved_model.save(Masked(), tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "saved_model.json").read_text())
    assert meta["concrete_functions"][0]["inputs"][0]["dims"] == [None, 2]
    loaded = tf.saved_model.load(tmp_path / "m")
    for n in (1, 3, 4):
        x = np.linspace(-1, 1, 2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(loaded(tf.constant(x)).numpy(), np.maximum(x, 0) + 1)
