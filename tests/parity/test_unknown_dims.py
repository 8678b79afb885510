"""Functions traced with an unknown dimension (`TensorSpec([None, ...])`): the static shapes seen
while tracing, the values for several batch sizes, and the tracing count, against TensorFlow.

Each program traces once and then runs on other sizes: an op that baked the example's size into
the graph gives a wrong value, an error or a second trace here.
"""

import pytest

from .harness import assert_parity

SIZES = (2, 5, 1)

# name -> body: `x` is a [None, 3] float32 argument; the body returns one tensor.
BODIES = {
    "identity": "tf.identity(x)",
    "reshape_flat": "tf.reshape(x, [-1])",
    "reshape_batch_list": "tf.reshape(x, [tf.shape(x)[0], -1])",
    "reshape_shape_tensor": "tf.reshape(x, tf.shape(x))",
    "reshape_gathered": "tf.reshape(x, tf.gather(tf.shape(x), [1, 0]))",
    "reshape_3d": "tf.reshape(x, [tf.shape(x)[0], 3, 1])",
    "fill_shape": "tf.fill(tf.shape(x), 2.5)",
    "zeros_shape": "tf.zeros(tf.shape(x))",
    "ones_batch": "tf.ones([tf.shape(x)[0], 2])",
    "broadcast_to_shape": "tf.broadcast_to(tf.constant([1.0, 2.0, 3.0]), tf.shape(x))",
    "uniform_shape": "tf.shape(tf.random.uniform(tf.shape(x)))",
    "normal_batch": "tf.shape(tf.random.normal([tf.shape(x)[0], 4]))",
    "zeros_like": "tf.zeros_like(x) + 1.0",
    "expand_dims": "tf.expand_dims(x, 0)",
    "squeeze": "tf.squeeze(tf.expand_dims(x, 1), 1)",
    "reduce_mean_0": "tf.reduce_mean(x, 0)",
    "reduce_mean_all": "tf.reduce_mean(x)",
    "reduce_variance": "tf.math.reduce_variance(x, 0)",
    "batch_size_float": "tf.reduce_sum(x) / tf.cast(tf.shape(x)[0], tf.float32)",
    "size": "tf.size(x)",
    "shape": "tf.shape(x)",
    "concat": "tf.concat([x, x * 2.0], 0)",
    "stack": "tf.stack([x, x], 1)",
    "tile": "tf.tile(x, [2, 1])",
    "transpose": "tf.transpose(x)",
    "slice_rows": "x[1:]",
    "gather": "tf.gather(x, [0, 2], axis=1)",
    "softmax": "tf.nn.softmax(x)",
    "matmul": "tf.matmul(x, tf.ones([3, 2]))",
    "one_hot_argmax": "tf.one_hot(tf.argmax(x, 1), 3)",
    "split": "tf.split(x, 3, axis=1)[1]",
    "unstack_cols": "tf.unstack(x, axis=1)[0]",
    "broadcast_add": "x + tf.reduce_mean(x, 1, keepdims=True)",
    "tensordot": "tf.tensordot(x, tf.ones([3, 2]), [[1], [0]])",
    "tensordot_outer": "tf.tensordot(x, tf.range(2.0), 0)",
    "tensordot_batch": "tf.tensordot(tf.reshape(x, [-1, 1, 3]), tf.ones([3, 1, 2]), [[2], [0]])",
    "tensordot_empty": "tf.tensordot(x, tf.ones([3, 0]), 1)",
}


def _program(tf, body, sizes):
    shapes = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        y = eval(body, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        shapes.append(y.shape.as_list() if y.shape.rank is not None else None)
        return y

    values = [f(tf.reshape(tf.range(n * 3, dtype=tf.float32), [n, 3])) for n in sizes]
    return shapes, values, f.experimental_get_tracing_count()


@pytest.mark.parametrize("name", sorted(BODIES))
def test_unknown_batch(tf_oracle, name):
    assert_parity(tf_oracle, _program, (BODIES[name], SIZES))


def _gradient_program(tf, body, sizes):
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = eval(body, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        return tape.gradient(y, x)

    values = [f(tf.reshape(tf.range(n * 3, dtype=tf.float32), [n, 3])) for n in sizes]
    return values, f.experimental_get_tracing_count()


GRADIENT_BODIES = {
    "reduce_mean": "tf.reduce_mean(x * x)",
    "reshape": "tf.reduce_sum(tf.reshape(x, [-1]) * tf.range(3.0)[0])",
    "reshape_batch": "tf.reduce_sum(tf.reshape(x, [tf.shape(x)[0], 3, 1]) ** 2)",
    "broadcast": "tf.reduce_sum(x * tf.reduce_mean(x, 0))",
    "softmax": "tf.reduce_sum(tf.nn.softmax(x) * tf.range(3.0))",
    "expand_squeeze": "tf.reduce_sum(tf.squeeze(tf.expand_dims(x, 0)) ** 3)",
    "slice": "tf.reduce_sum(x[:, 1:] * 2.0)",
    "concat": "tf.reduce_sum(tf.concat([x, x * x], 1))",
    "concat_rows": "tf.reduce_sum(tf.concat([x, x * x], 0) * 2.0)",
    "tile_rows": "tf.reduce_sum(tf.tile(x, [2, 1]) ** 2)",
    "gather_rows": "tf.reduce_sum(tf.gather(x, [0, 0]) * x[0])",
    "gather_cols": "tf.reduce_sum(tf.gather(x, [2, 0, 2], axis=1) ** 2)",
    "unstack_cols": "tf.reduce_sum(tf.unstack(x, axis=1)[0] ** 2)",
    "where_broadcast": "tf.reduce_sum(tf.where(x > 2.0, x, tf.zeros([3])) ** 2)",
    "self_product": "tf.reduce_sum(x * tf.reverse(x, [0]))",
    "bias_add": "tf.reduce_sum(tf.nn.relu(tf.matmul(x, tf.ones([3, 2])) + tf.ones([2])))",
    "pad_constant": "tf.reduce_sum(tf.pad(x, [[1, 2], [0, 1]]) ** 2)",
    "pad_reflect_cols": "tf.reduce_sum(tf.pad(x, [[0, 0], [1, 1]], mode='REFLECT') ** 2)",
    "concat_three": "tf.reduce_sum(tf.concat([x * 3.0, x[:1], x], 0) ** 2)",
    "tile_zero": "tf.reduce_sum(tf.tile(x, [2, 0])) + tf.reduce_sum(x)",
}


@pytest.mark.parametrize("name", sorted(GRADIENT_BODIES))
def test_unknown_batch_gradient(tf_oracle, name):
    assert_parity(tf_oracle, _gradient_program, (GRADIENT_BODIES[name], SIZES))


def _broadcast_gradient_program(tf, order):
    # x's unknown size broadcasts against y's 4 when it is 1: the gradient is summed over that
    # axis for a batch of 1 and not for a batch of 4, whichever size was traced first.
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def grads(x):
        y = tf.reshape(tf.range(12, dtype=tf.float32), [4, 3])
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(x * y)
        return tape.gradient(loss, x)

    values = [grads(tf.ones([n, 3])) for n in order]
    return values, grads.experimental_get_tracing_count()


@pytest.mark.parametrize("order", [(4, 1, 4), (1, 4, 1)])
def test_broadcast_gradient_against_a_known_size(tf_oracle, order):
    assert_parity(tf_oracle, _broadcast_gradient_program, (order,))


def _two_unknown_sizes_program(tf, pairs):
    # Both sizes unknown: which operand broadcasts is known only when the graph runs (TensorFlow
    # computes the axes with BroadcastGradientArgs then); one trace serves every pair.
    @tf.function(
        input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([None, 1], tf.float32)]
    )
    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            loss = tf.reduce_sum(x * y * tf.range(1.0, 3.0)[:, None][:1])
        return tape.gradient(loss, [x, y])

    values = [grads(tf.range(1.0, m + 1.0), tf.ones([n, 1]) * 3.0) for m, n in pairs]
    return values, grads.experimental_get_tracing_count()


@pytest.mark.parametrize("pairs", [((4, 1), (1, 4), (4, 4), (1, 1)), ((1, 1), (1, 5), (5, 1))])
def test_broadcast_gradient_between_unknown_sizes(tf_oracle, pairs):
    assert_parity(tf_oracle, _two_unknown_sizes_program, (pairs,))


def _unstack_program(tf, num):
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return tf.unstack(x, num=num)

    try:
        return f(tf.ones([2, 3]))
    except ValueError as e:
        # TensorFlow's message adds the user-code frames and the class name.
        return type(e).__name__, str(e).strip().splitlines()[-1].split("ValueError: ")[-1]


@pytest.mark.parametrize("num", [None, 2])
def test_unstack_along_an_unknown_size_needs_num(tf_oracle, num):
    assert_parity(tf_oracle, _unstack_program, (num,))


def _broadcast_to_shape_gradient_program(tf, pairs):
    # broadcast_to(x, tf.shape(y)): the target is known only when the graph runs. The graph is
    # first traced from the signature alone (unknown sizes stand as 1 there), so the summed
    # axes must not come from that stand-in's size.
    spec = tf.TensorSpec([None], tf.float32)

    @tf.function(input_signature=[spec, spec])
    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.broadcast_to(x, tf.shape(y)) * y)
        return tape.gradient(loss, x)

    grads.get_concrete_function()
    values = [grads(tf.ones([m]), tf.range(1.0, n + 1.0)) for m, n in pairs]
    return values, grads.experimental_get_tracing_count()


def test_broadcast_to_a_run_time_shape_sums_its_gradient(tf_oracle):
    assert_parity(tf_oracle, _broadcast_to_shape_gradient_program, (((1, 4), (3, 3), (1, 1)),))


def _unstack_num_program(tf):
    # With num, one graph serves the sizes that match it; another size fails when it runs.
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return tf.unstack(x * 2.0, num=2)

    out = []
    for n in (2, 3, 2):
        try:
            out.append(f(tf.reshape(tf.range(n * 3.0), [n, 3])))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out, f.experimental_get_tracing_count()


def test_unstack_with_num_along_an_unknown_size(tf_oracle):
    assert_parity(tf_oracle, _unstack_num_program)
