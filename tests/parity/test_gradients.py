"""Gradients of activations, pooling and losses at their awkward points, taken three ways: eagerly,
from a tape outside a `tf.function`, and from a tape inside one."""

from .harness import parity


def three_ways(tf, fn, x):
    """Gradients of sum(fn(x) * weights) w.r.t. x: eager, outer tape over a traced call, inside."""
    x = tf.convert_to_tensor(x)

    def loss(x):
        y = fn(x)
        weights = tf.reshape(tf.cast(tf.range(1, tf.size(y) + 1), y.dtype), tf.shape(y))
        return tf.reduce_sum(y * weights)

    with tf.GradientTape() as tape:
        tape.watch(x)
        value = loss(x)
    eager = tape.gradient(value, x)

    traced = tf.function(loss)
    with tf.GradientTape() as tape:
        tape.watch(x)
        outer_value = traced(x)
    outer = tape.gradient(outer_value, x)

    @tf.function
    def inside(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = loss(x)
        return value, tape.gradient(value, x)

    inside_value, inside_grad = inside(x)
    return {
        "value": value,
        "eager": eager,
        "outer_tape_value": outer_value,
        "outer_tape": outer,
        "inside_value": inside_value,
        "inside": inside_grad,
    }


@parity(helpers=[three_ways])
def test_relu_gradient_at_zero(tf):
    return three_ways(tf, tf.nn.relu, [-2.0, -0.0, 0.0, 0.5, 3.0])


@parity(helpers=[three_ways])
def test_relu6_gradient_at_edges(tf):
    return three_ways(tf, tf.nn.relu6, [-1.0, 0.0, 3.0, 6.0, 7.0])


@parity(helpers=[three_ways])
def test_leaky_relu_gradient(tf):
    return three_ways(tf, lambda x: tf.nn.leaky_relu(x, alpha=0.1), [-3.0, 0.0, 2.0])


@parity(helpers=[three_ways])
def test_elu_gradient_large_inputs(tf):
    return three_ways(tf, tf.nn.elu, [-100.0, -1.0, 0.0, 1.0, 100.0])


@parity(helpers=[three_ways])
def test_selu_gradient_large_inputs(tf):
    return three_ways(tf, tf.nn.selu, [-100.0, -1.0, 0.0, 1.0, 100.0])


@parity(helpers=[three_ways])
def test_softplus_gradient_extremes(tf):
    return three_ways(tf, tf.nn.softplus, [-100.0, -1.0, 0.0, 1.0, 100.0])


@parity(helpers=[three_ways])
def test_gelu_gradient(tf):
    def both(x):
        return tf.stack([tf.nn.gelu(x), tf.nn.gelu(x, approximate=True)])

    return three_ways(tf, both, [-10.0, -1.0, 0.0, 0.5, 10.0])


@parity(helpers=[three_ways])
def test_softmax_gradient(tf):
    return three_ways(tf, tf.nn.softmax, [[1.0, 2.0, 3.0], [100.0, 0.0, -100.0]])


# Near saturation the gradient 1 - tanh(x)**2 turns one float32 ulp of tanh(x) into about
# 1e-7 absolute, and TensorFlow's own float32 tanh differs in that last bit between CPUs: for
# tanh(5.0) it gave ferroflow's 0.9999093 on the machine earlier sessions ran on and 0.99990916
# on an AMD EPYC with AVX-512. The tolerance is absolute: a few ulps times the test's weights.
@parity(helpers=[three_ways], atol=2e-5)
def test_sigmoid_and_tanh_gradient_saturated(tf):
    return three_ways(
        tf, lambda x: tf.stack([tf.sigmoid(x), tf.tanh(x)]), [-100.0, -5.0, 0.0, 5.0, 100.0]
    )


@parity(helpers=[three_ways])
def test_max_pool_gradient_with_ties(tf):
    def pool(x):
        return tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")

    return three_ways(tf, pool, tf.ones([1, 2, 2, 1]))


@parity(helpers=[three_ways])
def test_max_pool_gradient_overlapping_windows(tf):
    def pool(x):
        return tf.nn.max_pool2d(x, ksize=2, strides=1, padding="SAME")

    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 3.0, 0.0], [2.0, 1.0, 1.0]])
    return three_ways(tf, pool, tf.reshape(x, [1, 3, 3, 1]))


@parity(helpers=[three_ways])
def test_reduce_max_gradient_with_ties(tf):
    return three_ways(tf, lambda x: tf.reduce_max(x, axis=1), [[1.0, 4.0, 4.0], [2.0, 2.0, 2.0]])


@parity
def test_sigmoid_cross_entropy_gradient(tf):
    labels = tf.constant([0.0, 1.0, 0.5, 1.0, 0.0])
    logits = tf.constant([-100.0, -1.0, 0.0, 1.0, 100.0])

    def loss(logits):
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    with tf.GradientTape() as tape:
        tape.watch(logits)
        value = tf.reduce_sum(loss(logits))
    eager = tape.gradient(value, logits)

    @tf.function
    def inside(logits):
        with tf.GradientTape() as tape:
            tape.watch(logits)
            value = tf.reduce_sum(loss(logits))
        return tape.gradient(value, logits)

    return loss(logits), eager, inside(logits)


@parity
def test_softmax_cross_entropy_gradient(tf):
    labels = tf.constant([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    logits = tf.constant([[50.0, -50.0, 0.0], [1.0, 2.0, 3.0]])
    sparse = tf.constant([2, 0])

    @tf.function
    def grads(logits):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(logits)
            dense = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            by_index = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=logits)
        return dense, by_index, tape.gradient(dense, logits), tape.gradient(by_index, logits)

    return grads(logits)


@parity
def test_second_derivative_through_function(tf):
    @tf.function
    def f(x):
        return tf.nn.softplus(x) * x

    x = tf.constant([-2.0, 0.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


@parity
def test_second_derivative_through_a_decomposed_composite(tf):
    """Gelu's gradient runs its parts again: an outer tape must see them depend on x."""
    x = tf.constant([-1.5, -0.3, 0.4, 2.0])
    results = []
    for approximate in (False, True):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.nn.gelu(x, approximate=approximate))
            g = inner.gradient(y, x)
        results.append((g, outer.gradient(g, x)))
    return results


@parity
def test_stop_gradient_in_a_function_sees_each_call(tf):
    # Regression: a traced stop_gradient became a constant holding the first call's numbers.
    @tf.function
    def f(x):
        return tf.stop_gradient(x) * 2.0 + x

    a, b = tf.constant([1.0, 2.0]), tf.constant([5.0, -7.0])
    with tf.GradientTape() as tape:
        tape.watch(b)
        y = tf.reduce_sum(f(b))
    return f(a), f(b), tape.gradient(y, b)


@parity
def test_gradients_through_decomposed_composites_inside_a_function(tf):
    # Regression: gelu's and avg_pool's gradients taken inside a traced step were the first
    # call's gradients on every later call (the decomposition's inputs became constants).
    @tf.function
    def grads(x, image):
        with tf.GradientTape() as tape:
            tape.watch([x, image])
            y = tf.reduce_sum(tf.nn.gelu(x) ** 2)
            y += tf.reduce_sum(tf.nn.avg_pool2d(image, 2, 2, "VALID") ** 2)
        return tape.gradient(y, [x, image])

    def image(k):
        return tf.reshape(tf.range(16, dtype=tf.float32) * k, [1, 4, 4, 1])

    first = grads(tf.constant([0.5, -1.0, 2.0]), image(1.0))
    second = grads(tf.constant([3.0, 0.1, -2.0]), image(-0.5))
    return first, second, grads.experimental_get_tracing_count()


@parity(helpers=[three_ways])
def test_complex_abs_gradient(tf):
    """|z| of complex z: the gradient is the real upstream times z / |z|, 0 at 0 (ferroflow
    raised InvalidArgumentError mixing float64 and complex128)."""
    return {
        dtype: three_ways(tf, tf.abs, tf.constant([3 + 4j, 1 - 1j, 0j, -2j], dtype))
        for dtype in (tf.complex64, tf.complex128)
    }


@parity(helpers=[three_ways])
def test_masked_sqrt_rsqrt_reciprocal_gradient_is_zero(tf):
    # tf.where(x > 0, sqrt(x), 0) at x = 0 sends a zero upstream into an infinite derivative:
    # TensorFlow's SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 there, not NaN (a silent NaN
    # in ferroflow before, e.g. through UnitNormalization of a zero vector).
    def masked(x):
        safe = x > 0
        return tf.stack(
            [
                tf.where(safe, tf.sqrt(x), 0.0),
                tf.where(safe, tf.math.rsqrt(x), 0.0),
                tf.where(safe, tf.math.reciprocal(x), 0.0),
                tf.minimum(tf.math.rsqrt(tf.square(x)), 1e12),
            ]
        )

    return three_ways(tf, masked, [0.0, 0.25, 4.0, -0.0])
