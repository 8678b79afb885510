"""tf.function with dimensions the signature leaves unknown: a graph that only ever treats the
unknown size symbolically (a mean's count, expand_dims's target shape, tf.size, zeros_like and
shapes from tf.shape are computed when it runs) serves every size with one trace; one whose body
read the example's size (unstacking along it) is specialised and traced again per shape, so
every call gives the eager result."""

import ferroflow as tf
import numpy as np
import pytest

CASES = {
    "expand_dims": lambda x: tf.expand_dims(x, 1),
    "newaxis": lambda x: x[:, tf.newaxis],
    "squeeze": lambda x: tf.squeeze(tf.expand_dims(x, 1), axis=1),
    "stack": lambda x: tf.stack([x, x]),
    "one_hot": lambda x: tf.one_hot(tf.cast(x, tf.int32), 3),
    "matmul": lambda x: tf.matmul(x[:, None], tf.ones([1, 4])),
    "size": lambda x: tf.size(x),
    "zeros_like": lambda x: tf.zeros_like(x),
    "reshape": lambda x: tf.reshape(x, [-1, 1]),
    "reduce_mean": lambda x: tf.reduce_mean(x),
    "conv2d": lambda x: tf.nn.conv2d(
        tf.reshape(x, [-1, 1, 1, 1]), tf.ones([1, 1, 1, 2]), 1, "SAME"
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_size_gives_the_eager_result(name):
    body = CASES[name]
    traced = tf.function(body, input_signature=[tf.TensorSpec([None], tf.float32)])
    for values in ([1.0, 2.0, 0.0], [1.0, 2.0, 0.0, 1.0, 1.0], [2.0]):
        x = tf.constant(values)
        np.testing.assert_array_equal(np.asarray(traced(x)), np.asarray(body(x)), err_msg=name)


def test_size_independent_graphs_trace_once():
    traced = tf.function(
        lambda x: tf.reduce_sum(x * 2.0 + 1.0, axis=0),
        input_signature=[tf.TensorSpec([None, 3], tf.float32)],
    )
    for n in (1, 4, 9):
        np.testing.assert_allclose(traced(tf.ones([n, 3])).numpy(), [3.0 * n] * 3)
    assert traced.experimental_get_tracing_count() == 1


def test_reduce_retracing_specialises_a_mean():
    traced = tf.function(lambda x: tf.reduce_mean(x), reduce_retracing=True)
    for n in (2, 3, 5, 8):
        assert float(traced(tf.range(n, dtype=tf.float32))) == pytest.approx((n - 1) / 2)


def test_a_broadcast_between_two_unknown_sizes_sums_as_tensorflow_does():
    # Both sizes unknown while tracing: which operand broadcasts is known only when the graph
    # runs, so the gradient's axes come from BroadcastGradientArgs then. x of 1 row against y of
    # 4 sums x's gradient over the rows; one trace serves both.
    spec = tf.TensorSpec([None, 3], tf.float32)

    @tf.function(input_signature=[spec, spec])
    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(x * y)
        return tape.gradient(loss, x)

    np.testing.assert_array_equal(grads(tf.ones([4, 3]), tf.ones([4, 3])).numpy(), np.ones([4, 3]))
    y = tf.reshape(tf.range(12.0), [4, 3])
    np.testing.assert_array_equal(grads(tf.ones([1, 3]), y).numpy(), [[18.0, 22.0, 26.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        grads(tf.ones([2, 3]), y)
    assert grads.experimental_get_tracing_count() == 1


GRADIENT_BODIES = {
    "slice": lambda x: x[1:3] * 2.0,
    "gather_rows": lambda x: tf.gather(x, [0, 1]),
    "gather_cols": lambda x: tf.gather(x, [2, 0], axis=1),
    "tile": lambda x: tf.tile(x, [2, 1]) ** 2,
    "concat_rows": lambda x: tf.concat([x, x * 2.0], 0) ** 2,
    "concat_cols": lambda x: tf.concat([x, x * 2.0], 1) ** 2,
    "pad_constant": lambda x: tf.pad(x, [[1, 1], [0, 0]]) ** 2,
    "pad_reflect": lambda x: tf.pad(x, [[1, 1], [0, 0]], mode="REFLECT"),
    "tensordot": lambda x: tf.tensordot(x, tf.ones([3, 2]), [[1], [0]]) ** 2,
    "tensordot_3d": lambda x: tf.tensordot(tf.reshape(x, [-1, 1, 3]), tf.ones([3, 2]), 1),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_BODIES))
def test_gradients_of_selections_hold_for_every_size_from_one_graph(name):
    # The gradients of slices, gathers, tiles, concats and pads read no example size: one
    # graph (no hidden specialised retrace) gives every size's gradient, as eager mode does.
    body = GRADIENT_BODIES[name]

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(body(x))
        # A gather's gradient is IndexedSlices, as in TensorFlow: compare it dense.
        return tf.convert_to_tensor(tape.gradient(loss, x))

    traced = tf.function(grad, input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for n in (3, 4, 6):
        x = tf.reshape(tf.range(n * 3.0), [n, 3])
        np.testing.assert_allclose(traced(x).numpy(), grad(x).numpy(), rtol=1e-6)
    assert len(traced._concrete) == 1, "a size read while tracing specialised the graph"
    # Tracing from the signature alone (unknown sizes stand as 1) needs no example value.
    assert traced.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]
