"""tf.GradientTape's API as TensorFlow defines it: watching, persistence, structures, unconnected
gradients, recording control, jacobians, custom gradients."""

import ferroflow as tf
import numpy as np
import pytest


def test_variables_are_watched_when_accessed_and_constants_are_not():
    w = tf.Variable(2.0)
    c = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = w * c
    dw, dc = tape.gradient(y, [w, c])
    assert float(dw) == 3.0 and dc is None


def test_watch_accessed_variables_false_watches_only_what_is_asked():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * a + b * b
    da, db = tape.gradient(y, [a, b])
    assert float(da) == 2.0 and db is None
    assert tape.watched_variables() == (a,)


def test_non_trainable_variables_are_not_watched():
    w = tf.Variable(2.0)
    step = tf.Variable(1.0, trainable=False)
    with tf.GradientTape() as tape:
        y = w * step
    assert tape.watched_variables() == (w,)
    assert tape.gradient(y, step) is None


def test_watch_takes_nested_structures_and_rejects_other_objects():
    x = {"a": tf.constant(1.0), "b": [tf.constant(2.0), tf.constant(3.0)]}
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x["a"] * x["b"][0] * x["b"][1]
    g = tape.gradient(y, x)
    assert set(g) == {"a", "b"} and isinstance(g["b"], list)
    assert [float(g["a"]), float(g["b"][0]), float(g["b"][1])] == [6.0, 3.0, 2.0]
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            tape.watch("x")


def test_sources_as_tuple_and_dict_of_variables():
    w, b = tf.Variable([1.0, 2.0]), tf.Variable(0.5)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w * 3.0 + b)
    grads = tape.gradient(y, {"w": w, "b": (b,)})
    np.testing.assert_array_equal(grads["w"].numpy(), [3.0, 3.0])
    assert float(grads["b"][0]) == 2.0


def test_a_non_persistent_tape_gives_one_set_of_gradients():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used"):
        tape.gradient(y, x)


def test_a_persistent_tape_answers_many_times():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(z, x)) == 108.0
    assert float(tape.gradient(y, x)) == 6.0
    del tape


def test_non_scalar_targets_give_the_gradient_of_their_sum():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        total = tf.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), tape.gradient(total, x).numpy())
    # A list of targets is summed as well.
    np.testing.assert_array_equal(tape.gradient([y, x], x).numpy(), [3.0, 5.0])


def test_output_gradients_weight_the_targets():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    np.testing.assert_array_equal(g.numpy(), [20.0, 400.0])


def test_unconnected_gradients_none_or_zero():
    x, z = tf.Variable([1.0, 2.0]), tf.Variable([[5.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
    assert tape.gradient(y, z) is None
    zero = tape.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.shape == (1, 1) and float(zero[0, 0]) == 0.0
    assert tape.gradient(y, z, unconnected_gradients="zero").shape == (1, 1)


def test_integer_sources_have_no_gradient():
    x = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is None
    v = tf.Variable(2)
    with tf.GradientTape() as tape:
        y = tf.cast(v, tf.float32) * 2.0
    assert tape.gradient(y, v) is None


def test_gradient_flows_through_casts_between_float_types_only():
    x = tf.constant([1.5, 2.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        through_double = tf.cast(x, tf.float64) * 2.0
        through_int = tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert tape.gradient(through_double, x).dtype == tf.float32
    assert tape.gradient(through_int, x) is None


def test_stop_recording_and_stop_gradient():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
        with tape.stop_recording():
            z = x * x * x
        w = tf.stop_gradient(x * x) * x
    assert float(tape.gradient(y, x)) == 4.0
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(w, x)) == 4.0
    with pytest.raises(ValueError, match="Tape must be recording"):
        with tape.stop_recording():
            pass


def test_reset_forgets_what_was_recorded():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        tape.reset()
        z = x * 5.0
    assert float(tape.gradient(z, x)) == 5.0
    assert y.numpy() == 4.0


def test_gradient_inside_the_context_stops_a_non_persistent_tape():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        g = tape.gradient(y, x)
        z = g * x  # not recorded any more
    assert float(g) == 4.0 and float(z) == 8.0


def test_nested_tapes_give_higher_order_derivatives():
    x = tf.Variable(1.5)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x**3
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    assert float(dy) == pytest.approx(3 * 1.5**2)
    assert float(d2y) == pytest.approx(6 * 1.5)


def test_third_derivative_with_three_tapes():
    x = tf.constant(0.7)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert float(d3) == pytest.approx(-np.cos(0.7), rel=1e-6)


def test_relu_and_maximum_split_ties_as_tensorflow():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        relu = tf.nn.relu(x - 2.0)
        maximum = tf.maximum(x, 2.0)
    ties = tf.constant([[1.0, 4.0], [4.0, 0.0]])
    with tf.GradientTape() as max_tape:
        max_tape.watch(ties)
        reduce_max = tf.reduce_max(ties)
    # TensorFlow: relu' is 0 at 0; maximum sends ties to x; reduce_max shares ties equally.
    np.testing.assert_array_equal(tape.gradient(relu, x).numpy(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(tape.gradient(maximum, x).numpy(), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(max_tape.gradient(reduce_max, ties).numpy(), [[0, 0.5], [0.5, 0]])


def test_jacobian_of_a_vector_function():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stack([x[0] * x[1], x[2] ** 2])
    j = tape.jacobian(y, x)
    np.testing.assert_allclose(j.numpy(), [[2.0, 1.0, 0.0], [0.0, 0.0, 6.0]], rtol=1e-6)


def test_jacobian_shapes_follow_target_and_source():
    w = tf.Variable(tf.ones([3, 2]))
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w
    j = tape.jacobian(y, w)
    assert j.shape == (1, 2, 3, 2)
    np.testing.assert_array_equal(j.numpy()[0, 1, :, 1], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(j.numpy()[0, 1, :, 0], [0.0, 0.0, 0.0])
    assert tape.jacobian(y, tf.Variable(1.0)) is None


def test_batch_jacobian_per_example():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.concat([x * x, tf.reduce_sum(x, axis=1, keepdims=True)], axis=1)
    j = tape.batch_jacobian(y, x)
    assert j.shape == (3, 3, 2)
    np.testing.assert_array_equal(j.numpy()[1], [[6.0, 0.0], [0.0, 8.0], [1.0, 1.0]])


def test_custom_gradient_replaces_the_chain_rule():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0  # the chain rule would give nan


def test_custom_gradient_with_several_inputs_and_variables():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def scaled(x, y):
        def grad(upstream, variables):
            return (upstream * 10.0, upstream * 20.0), [upstream * 30.0 for _ in variables]

        return x * y * v, grad

    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        out = scaled(a, b)
    assert float(out) == 6.0
    assert [float(g) for g in tape.gradient(out, [a, b, v])] == [10.0, 20.0, 30.0]


def test_custom_gradient_that_reads_variables_needs_a_variables_argument():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def uses_variable(x):
        return x * v, lambda dy: dy

    with tf.GradientTape():
        with pytest.raises(TypeError, match="must accept a keyword argument 'variables'"):
            uses_variable(tf.constant(1.0))


def test_custom_gradient_errors_reach_the_caller_unchanged():
    @tf.custom_gradient
    def broken(x):
        def grad(dy):
            raise KeyError("from the user's gradient")

        return x * 2.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = broken(x)
    with pytest.raises(KeyError, match="from the user's gradient"):
        tape.gradient(y, x)


def test_custom_gradient_is_differentiable_twice():
    @tf.custom_gradient
    def cube(x):
        return x**3, lambda dy: dy * 3.0 * x * x

    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_sources_must_be_tensors_or_variables():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
        tape.gradient(y, [1.0])


def test_tapes_keep_no_gradient_ops_on_the_tape_itself():
    # The backward pass is not recorded on the tape being differentiated: asking twice on a
    # persistent tape gives the same answer.
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.tanh(x))
    first = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), first)


def test_the_spectral_norm_says_its_gradient_is_missing():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.norm(x, ord=2, axis=[0, 1])
    with pytest.raises(tf.errors.UnimplementedError, match="spectral norm"):
        tape.gradient(y, x)


def test_output_gradients_must_have_the_targets_shape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(tf.errors.InvalidArgumentError, match="output_gradients"):
        tape.gradient(y, x, output_gradients=tf.constant([1.0]))
