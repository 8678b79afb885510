"""Random ops draw fresh numbers on every call, eagerly and inside `tf.function`.

The stateful generators' numbers differ between the frameworks, so these programs return facts
about the draws (do two calls differ, are the values in range, what dtype and shape) rather than
the draws themselves."""

from .harness import parity


@parity
def test_uniform_fresh_across_traced_calls(tf):
    tf.random.set_seed(3)

    @tf.function
    def f():
        return tf.random.uniform([16], minval=2.0, maxval=3.0)

    a, b = f(), f()
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "in_range": bool(tf.reduce_all((a >= 2.0) & (a < 3.0))),
        "dtype": a.dtype,
        "shape": a.shape,
        "traces": f.experimental_get_tracing_count(),
    }


@parity
def test_uniform_fresh_eagerly_and_reproducible_with_seed(tf):
    tf.random.set_seed(5)
    a = tf.random.uniform([8])
    b = tf.random.uniform([8])
    tf.random.set_seed(5)
    c = tf.random.uniform([8])
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "reseeded_repeats": bool(tf.reduce_all(a == c)),
    }


@parity
def test_normal_and_int_uniform_in_traced_loop(tf):
    tf.random.set_seed(11)

    @tf.function
    def f():
        previous, current = tf.zeros([32]), tf.zeros([32])
        for _ in tf.range(3):
            previous = current
            current = tf.random.normal([32])
        ints = tf.random.uniform([64], minval=0, maxval=5, dtype=tf.int32)
        return tf.stack([previous, current]), ints

    (n1, i1), (n2, i2) = f(), f()
    return {
        "loop_iterations_differ": bool(tf.reduce_any(n1[0] != n1[1])),
        "calls_differ": bool(tf.reduce_any(n1 != n2)),
        "ints_differ": bool(tf.reduce_any(i1 != i2)),
        "int_dtype": i1.dtype,
        "ints_in_range": bool(tf.reduce_all((i1 >= 0) & (i1 < 5))),
        "shapes": (n1.shape, i1.shape),
    }


@parity
def test_draws_collected_in_tensor_array(tf):
    tf.random.set_seed(12)

    @tf.function
    def f():
        draws = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            draws = draws.write(i, tf.random.normal([32]))
        return draws.stack()

    a, b = f(), f()
    return {
        "loop_iterations_differ": bool(tf.reduce_any(a[0] != a[1])),
        "calls_differ": bool(tf.reduce_any(a != b)),
        "shape": a.shape,
    }


@parity
def test_dropout_fresh_across_traced_calls(tf):
    tf.random.set_seed(7)
    x = tf.ones([4, 64])

    @tf.function
    def f(x):
        return tf.nn.dropout(x, rate=0.5)

    a, b = f(x), f(x)
    kept = tf.boolean_mask(a, a != 0.0)
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "kept_values_scaled": bool(tf.reduce_all(kept == 2.0)),
        "some_dropped": bool(tf.reduce_any(a == 0.0)),
        "some_kept": bool(tf.reduce_any(a != 0.0)),
        "dtype": a.dtype,
        "shape": a.shape,
    }


@parity
def test_dropout_fresh_eagerly(tf):
    tf.random.set_seed(7)
    x = tf.ones([4, 64])
    a, b = tf.nn.dropout(x, rate=0.25), tf.nn.dropout(x, rate=0.25)
    kept = tf.boolean_mask(a, a != 0.0)
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "kept_values_scaled": bool(tf.reduce_all(tf.abs(kept - 1.0 / 0.75) < 1e-6)),
    }


@parity
def test_shuffle_fresh_across_traced_calls(tf):
    tf.random.set_seed(13)
    x = tf.range(32)

    @tf.function
    def f(x):
        return tf.random.shuffle(x)

    a, b = f(x), f(x)
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "is_permutation": bool(tf.reduce_all(tf.sort(a) == x)),
        "dtype": a.dtype,
        "shape": a.shape,
    }


@parity
def test_shuffle_rows_eagerly(tf):
    tf.random.set_seed(17)
    x = tf.reshape(tf.range(40), [20, 2])
    a, b = tf.random.shuffle(x), tf.random.shuffle(x)
    return {
        "calls_differ": bool(tf.reduce_any(a != b)),
        "rows_intact": bool(tf.reduce_all(a[:, 1] == a[:, 0] + 1)),
        "shape": a.shape,
    }


@parity
def test_stateless_uniform_repeats(tf):
    @tf.function
    def f(seed):
        return tf.random.stateless_uniform([8], seed=seed)

    eager = tf.random.stateless_uniform([8], seed=[1, 2])
    a, b = f(tf.constant([1, 2])), f(tf.constant([1, 2]))
    c = f(tf.constant([1, 3]))
    return {
        "same_seed_same_values": bool(tf.reduce_all(a == b)),
        "traced_equals_eager": bool(tf.reduce_all(a == eager)),
        "other_seed_differs": bool(tf.reduce_any(a != c)),
    }


@parity
def test_dropout_in_cond_gradient_uses_the_forward_mask(tf):
    # The gradient of a tf.cond branch recomputes the branch: a random op there must give the
    # gradient the numbers the forward pass drew, on every call.
    tf.random.set_seed(21)
    x = tf.Variable(tf.ones([64]))

    @tf.function
    def step(flag):
        with tf.GradientTape() as tape:
            y = tf.cond(flag, lambda: tf.nn.dropout(x * 1.0, rate=0.5), lambda: x * 3.0)
            loss = tf.reduce_sum(y)
        g = tape.gradient(loss, x)
        kept = tf.where(y != 0, 2.0, 0.0)
        return tf.reduce_all(tf.equal(g, kept)), tf.reduce_any(tf.equal(y, 0.0))

    return [step(tf.constant(True)) for _ in range(4)] + [step(tf.constant(False))]
