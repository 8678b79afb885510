"""`tf.tensor_scatter_nd_add` (TensorFlow's TensorScatterAdd) and the graph rewrite that makes
`x + tf.scatter_nd(...)` one (src/graph/passes/scatter_add.rs), against TensorFlow: rows and
elements, repeated indices, int and float dtypes, gradients, eagerly and traced, and an add
that broadcasts (left alone); bad indices raise TensorFlow's exception class."""

import pytest

from .harness import assert_parity


def _program(tf, device, dtype_name):
    dtype = getattr(tf, dtype_name)
    x = tf.reshape(tf.cast(tf.range(12), dtype), [4, 3])
    rows = tf.constant([[3], [0], [3]])
    row_updates = tf.cast(tf.reshape(tf.range(9), [3, 3]) * 10, dtype)
    points = tf.constant([[1, 2], [1, 2], [0, 0]], tf.int64)
    point_updates = tf.cast(tf.constant([1, 2, 3]), dtype)

    def sums(x):
        by_rows = tf.tensor_scatter_nd_add(x, rows, row_updates)
        by_points = tf.tensor_scatter_nd_add(x, points, point_updates)
        # The pattern the graph passes rewrite, and one they must leave (a broadcast add).
        spelled_out = x + tf.scatter_nd(rows, row_updates, [4, 3])
        broadcast = x[0] + tf.scatter_nd(rows, row_updates, [4, 3])
        return by_rows, by_points, spelled_out, broadcast

    with tf.device(device):
        # Traced twice: the tensor as itself, and bound from a nested dict argument.
        by_dict = tf.function(lambda d: sums(d["inputs"]["x"]))
        return sums(x), tf.function(sums)(x), by_dict({"inputs": {"x": x}})


def _gradient(tf, device):
    x = tf.reshape(tf.range(12.0), [4, 3])
    u = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    rows = tf.constant([[2], [2]])

    def grads(x, u):
        with tf.GradientTape() as tape:
            tape.watch([x, u])
            y = tf.tensor_scatter_nd_add(x, rows, u * u)
            z = x * 2.0 + tf.scatter_nd(rows, u * u, [4, 3])
            loss = tf.reduce_sum(y * y) + tf.reduce_sum(tf.sin(z))
        return loss, tape.gradient(loss, [x, u])

    with tf.device(device):
        by_dict = tf.function(lambda d: grads(d["x"], d["rest"]["u"]))
        return grads(x, u), tf.function(grads)(x, u), by_dict({"x": x, "rest": {"u": u}})


def _bad_index(tf, device):
    x = tf.zeros([2, 2])

    @tf.function
    def f(x):
        return x + tf.scatter_nd(tf.constant([[5]]), tf.ones([1, 2]), [2, 2])

    with tf.device(device):
        return tf.tensor_scatter_nd_add(x, tf.constant([[5]]), tf.ones([1, 2])), f(x)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_scatter_adds_match_tensorflow(tf_oracle, device, dtype):
    assert_parity(tf_oracle, _program, (device, dtype), rtol=0, atol=0)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_scatter_add_gradients_match_tensorflow(tf_oracle, device):
    assert_parity(tf_oracle, _gradient, (device,), rtol=1e-6, atol=1e-6)


def test_an_index_out_of_range_raises_tensorflows_error(tf_oracle):
    # CPU only: on a GPU TensorFlow documents that an out-of-range index is ignored, which
    # ferroflow's GPU scatter does too (the oracle here is TensorFlow's CPU build).
    assert_parity(tf_oracle, _bad_index, ("CPU:0",))


def _signs_and_order(tf, device):
    x = tf.constant([-0.0, -0.0, 1.0])
    with tf.device(device):
        kept = tf.tensor_scatter_nd_add(x, [[0]], [-0.0])
        traced = tf.function(lambda d: tf.tensor_scatter_nd_add(d["x"], [[0]], [-0.0]))({"x": x})
        # (Not `x + scatter_nd` traced: TensorFlow's graph optimizer drops an add of a constant
        # zero there and keeps -0.0, where eagerly the add makes it +0.0, as ferroflow does.)
        # Updates to one place go into the tensor one after another: ((1 + 1e8) + 1) - 1e8.
        order = tf.tensor_scatter_nd_add(
            tf.constant([1.0]), [[0], [0], [0]], tf.constant([1e8, 1.0, -1e8])
        )
        bits = [tf.bitcast(t, tf.int32) for t in (kept, traced)]
        return bits, order


def test_signed_zeros_and_the_order_of_updates_match_tensorflow(tf_oracle):
    # CPU only: on a GPU TensorScatterAdd runs as scatter_nd and an add (and TensorFlow's GPU
    # kernel adds in no fixed order).
    assert_parity(tf_oracle, _signs_and_order, ("CPU:0",), rtol=0, atol=0)
