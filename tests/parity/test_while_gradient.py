"""Gradients through a staged `tf.while_loop` recorded by a GradientTape inside a tf.function
(ferroflow's backward `While`, src/graph/control_grad.rs), against TensorFlow: loops over float
and mixed-dtype variables, captures, variables read in the body, maximum_iterations, zero
iterations, nesting, loops inside tf.cond, AutoGraph `for` loops over tf.range, TensorArrays,
map_fn/scan of unknown size, second-order and persistent tapes, unconnected sources (a staged
loop gives zeros, as TensorFlow's), eager tensors captured by closure, random ops in the body
(the gradient must see the forward pass's numbers: such cases return residuals that are zero
whatever was drawn). Every case also runs
eagerly (the tape over the same Python function outside tf.function), so the staged
gradients are compared with eager ones as well as with TensorFlow's."""

import pytest

from .harness import assert_parity

CASE_NAMES = [
    "float_and_capture",
    "mixed_dtypes",
    "variable_in_body",
    "maximum_iterations",
    "zero_iterations",
    "nested",
    "inside_cond",
    "autograph_for",
    "tensor_array",
    "map_fn_unknown",
    "scan_unknown",
    "second_order",
    "persistent_twice",
    "unconnected",
    "identity_body",
    "closure_capture",
    "cond_integer_target",
    "random_in_body",
    "dropout_in_body",
    "random_second_order",
    "random_nested",
    "string_loop_var",
    "random_in_cond_in_body",
    "gathered_rows",
    "function_under_eager_tape",
]


def _case(tf, name, device):
    v = tf.Variable([0.5, -1.5])
    x = tf.constant([0.3, 0.7])
    c = tf.constant(1.1)
    n = tf.constant(4)
    k = tf.constant(1.3)  # read by closure: an eager tensor the traced function captures

    def float_and_capture(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            (y,) = tf.while_loop(lambda y: tf.reduce_sum(y) < 20.0, lambda y: (y * c + 1.0,), [x])
        return y, tape.gradient(y, [x, c])

    def mixed_dtypes(x, c, n):
        x64 = tf.cast(x, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch([x, c, x64, n])
            i, a, b = tf.while_loop(
                lambda i, a, b: i < n,
                lambda i, a, b: (i + 1, a * tf.cos(a) + c, b * tf.cast(c, tf.float64) + 0.5),
                [tf.constant(0), x, x64],
            )
            y = tf.reduce_sum(a) + tf.cast(tf.reduce_sum(b), tf.float32) * tf.cast(i, tf.float32)
        return y, tape.gradient(y, [x, c, x64, n])

    def variable_in_body(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(
                lambda i, y: i < n, lambda i, y: (i + 1, y * v + tf.sin(v)), [0, x]
            )
            loss = tf.reduce_sum(y * y)
        return loss, tape.gradient(loss, [x, v])

    def maximum_iterations(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            (y,) = tf.while_loop(
                lambda y: True, lambda y: [tf.tanh(y * c)], [x], maximum_iterations=n
            )
        return y, tape.gradient(y, [x, c])

    def zero_iterations(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            i, y = tf.while_loop(lambda i, y: i < 0, lambda i, y: (i + 1, y * c), [n, x])
        return i, y, tape.gradient(y, [x, c])

    def nested(x, c, n):
        def outer_body(i, y):
            _, z = tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * c + 0.1), [0, y])
            return i + 1, tf.sin(z)

        with tf.GradientTape() as tape:
            tape.watch([x, c])
            _, y = tf.while_loop(lambda i, y: i < n, outer_body, [0, x])
        return y, tape.gradient(y, [x, c])

    def inside_cond(x, c, n):
        def looped():
            return tf.while_loop(lambda y: tf.reduce_max(y) < 5.0, lambda y: [y * c + 0.5], [x])[0]

        with tf.GradientTape() as tape:
            tape.watch([x, c])
            y = tf.cond(n > 2, looped, lambda: x * c)
        return y, tape.gradient(y, [x, c])

    def autograph_for(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            y = x
            for i in tf.range(n):
                y = y * c + tf.cast(i, tf.float32) * x
        return y, tape.gradient(y, [x, c])

    def tensor_array(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            ta = tf.TensorArray(tf.float32, size=n)
            y = x
            for i in tf.range(n):
                y = tf.sin(y) * c
                ta = ta.write(i, y)
            s = ta.stack()
        return s, tape.gradient(s, [x, c])

    def map_fn_unknown(x, c, n):
        xs = tf.reshape(tf.range(1.0, 7.0), [3, 2]) / 4.0
        with tf.GradientTape() as tape:
            tape.watch([xs, c])
            y = tf.map_fn(lambda r: tf.exp(r) * c, xs)
        return y, tape.gradient(y, [xs, c])

    def scan_unknown(x, c, n):
        xs = tf.reshape(tf.range(1.0, 7.0), [3, 2]) / 4.0
        with tf.GradientTape() as tape:
            tape.watch([xs, c])
            y = tf.scan(lambda a, r: a * r + c, xs, initializer=tf.ones([2]))
        return y, tape.gradient(y, [xs, c])

    def second_order(x, c, n):
        with tf.GradientTape() as outer:
            outer.watch([x, c])
            with tf.GradientTape() as inner:
                inner.watch(x)
                _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * y * c), [0, x])
            g = inner.gradient(y, x)
        return g, outer.gradient(g, [x, c])

    def persistent_twice(x, c, n):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, c])
            _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y) * c), [0, x])
            z = tf.reduce_sum(y)
        return tape.gradient(y, x), tape.gradient(z, [x, c]), tape.gradient(y, c)

    def unconnected(x, c, n):
        d = tf.constant(2.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, c, d])
            i, y, w = tf.while_loop(
                lambda i, y, w: i < n, lambda i, y, w: (i + 1, y * c, w * d), [0, x, x]
            )
        zero = tf.UnconnectedGradients.ZERO
        return (
            tape.gradient(y, [x, c, d]),
            tape.gradient(y, [x, c, d], unconnected_gradients=zero),
            tape.gradient(i, [x, c]),
            tape.gradient(i, [x, c], unconnected_gradients=zero),
        )

    def identity_body(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            _, y, z = tf.while_loop(
                lambda i, y, z: i < n, lambda i, y, z: (i + 1, y, z * c), [0, x, x]
            )
        return tape.gradient([y, z], [x, c])

    def closure_capture(x, c, n):
        # Was None staged: `k`, first read inside the loop body, became a constant of the
        # body graph, so the While node did not take it as an input and the tape never
        # reached it.
        with tf.GradientTape() as tape:
            tape.watch([x, k])
            _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * k), [0, x])
            z = tf.cond(n > 2, lambda: y * k, lambda: y)
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(n):
                ta = ta.write(i, tf.reduce_sum(z) * k)
            s = ta.stack()
        return z, s, tape.gradient([z, s], [x, k])

    def cond_integer_target(x, c, n):
        # A staged Cond's integer output gives None (TensorFlow's If gradient), unlike a
        # While's, which gives zeros.
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, c])
            y, k = tf.cond(
                n > 2,
                lambda: (x * c, tf.cast(x, tf.int32)),
                lambda: (x, tf.cast(x * 3.0, tf.int32)),
            )
        return tape.gradient(k, [x, c]), tape.gradient(y, [x, c])

    def residual(got, want):
        # Zero up to float32 rounding whatever was drawn, relative to the expected magnitude
        # (draws differ between the frameworks, so only residuals can be compared).
        return (got - want) / (1.0 + tf.abs(want))

    def random_in_body(x, c, n):
        # Was wrong staged: the gradient ran the body again and drew other numbers than the
        # forward pass. y = x r1 r2 ... rn, so dy/dx = y / x.
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(
                lambda i, y: i < n,
                lambda i, y: (i + 1, y * tf.random.uniform([2], 0.5, 1.5)),
                [0, x],
            )
        return residual(tape.gradient(y, x) * x, y)

    def dropout_in_body(x, c, n):
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            _, y = tf.while_loop(
                lambda i, y: i < n, lambda i, y: (i + 1, tf.nn.dropout(y * c, 0.5)), [0, x]
            )
        gx, gc = tape.gradient(y, [x, c])
        # y = x c^n (masks, scale): dy/dx = y / x, and dy/dc summed is n sum(y) / c.
        return residual(gx * x, y), residual(gc * c, tf.cast(n, tf.float32) * tf.reduce_sum(y))

    def random_second_order(x, c, n):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                _, y = tf.while_loop(
                    lambda i, y: i < 2,
                    lambda i, y: (i + 1, y * y * tf.random.uniform([2], 0.9, 1.1)),
                    [0, x],
                )
            g = inner.gradient(y, x)
        h = outer.gradient(g, x)
        # y = x^4 R: dy/dx = 4 y / x, d2y/dx2 = 12 y / x^2.
        return residual(g * x, 4.0 * y), residual(h * x * x, 12.0 * y)

    def random_nested(x, c, n):
        # The inner loop's draws are kept by the outer loop for the inner gradient's replay.
        def outer_body(i, y):
            _, z = tf.while_loop(
                lambda j, z: j < i + 1,
                lambda j, z: (j + 1, z * tf.random.uniform([2], 0.5, 1.5)),
                [0, y],
            )
            return i + 1, z * c

        with tf.GradientTape() as tape:
            tape.watch([x, c])
            _, y = tf.while_loop(lambda i, y: i < 3, outer_body, [0, x])
        gx, gc = tape.gradient(y, [x, c])
        # y = x c^3 R: dy/dx = y / x, dy/dc summed = 3 sum(y) / c.
        return residual(gx * x, y), residual(gc * c, 3.0 * tf.reduce_sum(y))

    def string_loop_var(x, c, n):
        # A string loop variable is kept (and read back) like any other.
        with tf.GradientTape() as tape:
            tape.watch([x, c])
            _, y, s = tf.while_loop(
                lambda i, y, s: i < n,
                lambda i, y, s: (i + 1, tf.sin(y) * c, s + "a"),
                [0, x, tf.constant("s")],
            )
        return y, s, tape.gradient(y, [x, c])

    def random_in_cond_in_body(x, c, n):
        # A branch in a differentiated body runs again in the replay: its draws must still be
        # the forward pass's.
        def body(i, y):
            drawn = tf.cond(i >= 0, lambda: y * tf.random.uniform([2], 0.5, 1.5), lambda: y)
            return i + 1, drawn

        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(lambda i, y: i < n + 2, body, [0, x])
        return residual(tape.gradient(y, x) * x, y)

    def gathered_rows(x, c, n):
        # Each iteration gathers rows of a captured matrix (an RNN reading its inputs, one row
        # twice): the matrix's gradient gets the rows added in, one scatter-add per iteration.
        xs = tf.stack([x * float(k) for k in range(1, 6)])
        with tf.GradientTape() as tape:
            tape.watch([xs, c])

            def body(t, h):
                pair = tf.gather(xs, tf.stack([t, t // 2]))
                return t + 1, tf.tanh(h * c + tf.gather(xs, t)) + tf.reduce_sum(pair * pair, 0)

            _, h = tf.while_loop(lambda t, h: t < n + 1, body, [0, tf.zeros([2])])
        return h, tape.gradient(h, [xs, c])

    def function_under_eager_tape(x, c, n):
        # A tf.function taking a loop's gradient, called under a tape: the tape watches the
        # graph run op by op, so it must see the values the loop keeps for its gradient.
        @tf.function
        def inner(x, c, n):
            with tf.GradientTape() as tape:
                tape.watch([x, c])
                _, y = tf.while_loop(
                    lambda i, y: i < n, lambda i, y: (i + 1, y * c + tf.sin(y)), [0, x]
                )
            return tape.gradient(y, [x, c])

        with tf.GradientTape() as outer:
            outer.watch([x, c])
            gx, gc = inner(x, c, n)
            loss = tf.reduce_sum(gx * gx) + gc * gc
        return gx, gc, outer.gradient(loss, [x, c])

    fn = locals()[name]
    with tf.device(device):
        eager = fn(x, c, n)
        staged = tf.function(fn)(x, c, n)
        if name.startswith("random") or name in (
            "dropout_in_body",
            "string_loop_var",
            "gathered_rows",
        ):
            # The same traced gradients with the tensors bound from a nested dict argument.
            by_dict = tf.function(lambda d: fn(d["x"], d["rest"]["c"], d["rest"]["n"]))
            staged = (staged, by_dict({"x": x, "rest": {"c": c, "n": n}}))
        if name in ("map_fn_unknown", "scan_unknown"):
            spec = [tf.TensorSpec([None, 2], tf.float32)]

            @tf.function(input_signature=spec)
            def unknown(xs):
                with tf.GradientTape() as tape:
                    tape.watch([xs, c])
                    if name == "map_fn_unknown":
                        y = tf.map_fn(lambda r: tf.exp(r) * c, xs)
                    else:
                        y = tf.scan(lambda a, r: a * r + c, xs, initializer=tf.ones([2]))
                return y, tape.gradient(y, [xs, c])

            xs = tf.reshape(tf.range(1.0, 7.0), [3, 2]) / 4.0
            return eager, staged, unknown(xs), unknown(xs[:0])
        return eager, staged


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", CASE_NAMES)
def test_while_gradient(tf_oracle, name, device):
    assert_parity(tf_oracle, _case, (name, device), rtol=1e-5, atol=1e-6)
