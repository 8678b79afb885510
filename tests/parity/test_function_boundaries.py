"""Gradients at tf.function boundaries against TensorFlow, where ferroflow gave other numbers
with no error:
- a nested tf.function's arguments are its own inputs (TensorFlow traces it as its own
  graph): `tf.gradients(a * b, a)` inside it, called with one tensor as both arguments, is b,
  not 2b; a tape inside it stops at its arguments; a tape around the call still reaches
  through it;
- an eager float tensor a function closes over is a captured input, whether the function was
  first traced with a tape open or not: gradients of a later call under a tape reach it,
  through plain ops, a staged cond and a staged while_loop (the first trace used to fold it
  into a constant);
- a staged while_loop whose integer output is the target gives zeros for a float value its
  body reads by closure, as TensorFlow's While gradient does (`tf.gradients` and a tape inside
  the function), and None from a tape outside the function;
- control flow over a tensor whose value ferroflow knows while tracing (a constant, a closed-over
  eager tensor) is staged as TensorFlow's is: `tf.while_loop` over constant loop variables,
  `tf.cond`/`tf.switch_case`/`tf.case` on a constant, AutoGraph's `if`/`while` on one. Their
  gradients then give zeros where TensorFlow's do (ferroflow ran them as Python and gave None),
  and `tf.cond` on a Python bool inside a function is TensorFlow's TypeError."""

import pytest

from .harness import assert_parity

NESTED = [
    "same_tensor_twice",
    "argument_from_outer_op",
    "outer_tape_through_nested",
    "dict_argument",
]
CLOSURE = ["plain", "cond", "while_loop", "traced_under_tape_first"]
WHILE_INTEGER = ["gradients", "tape_inside", "tape_inside_cast", "tape_outside"]
KNOWN_VALUE = ["while_loop", "cond", "switch_case", "case", "autograph_if", "autograph_while"]


def _nested(tf, name, device):
    with tf.device(device):

        @tf.function
        def product_gradient(a, b):
            return tf.gradients(a * b, a)[0]

        @tf.function
        def square_gradient(a):
            return tf.gradients(a * a, a)[0]

        @tf.function
        def taped_square(a):
            with tf.GradientTape() as tape:
                tape.watch(a)
                y = a * a
            return tape.gradient(y, a)

        @tf.function
        def dict_gradient(d, scale=1.0):
            return tf.gradients(d["a"] * d["b"][0] * scale, d["a"])[0]

        @tf.function
        def outer(x):
            if name == "dict_argument":
                return dict_gradient({"b": [x], "a": x}, scale=2.0)
            if name == "same_tensor_twice":
                return product_gradient(x, x), taped_square(x)
            if name == "argument_from_outer_op":
                return square_gradient(x * 3.0), taped_square(x * 3.0)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = square_gradient(x) * x + taped_square(x) * x * x
            return tape.gradient(y, x)

        return outer(tf.constant([1.0, 2.0]))


def _closure(tf, name, device):
    with tf.device(device):
        w = tf.constant(2.0)
        n = tf.constant(3)

        @tf.function
        def f():
            if name == "plain":
                return w * w + 1.0
            if name == "cond":
                return tf.cond(n > 2, lambda: w * w, lambda: w)
            if name == "while_loop":
                return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * w), [0, 1.0])[1]
            return w * w * w

        if name == "traced_under_tape_first":
            with tf.GradientTape() as first:
                first.watch(w)
                y0 = f()
            before = first.gradient(y0, w)
        else:
            f()  # the first trace: no tape open
            before = None
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = f()
        return y, tape.gradient(y, w), before


def _while_integer(tf, name, device):
    with tf.device(device):
        c = tf.constant(2.0)

        def loop(c):
            def body(i, s):
                return i + 1, s + tf.cast(c * 2.0, tf.int32)

            return tf.while_loop(lambda i, s: i < 3, body, [tf.constant(0), tf.constant(0)])[1]

        @tf.function
        def with_gradients(c):
            return tf.gradients(loop(c), c)

        @tf.function
        def with_tape(c, cast):
            with tf.GradientTape() as tape:
                tape.watch(c)
                s = loop(c)
                if cast:
                    s = tf.cast(s, tf.float32)
            return tape.gradient(s, c)

        if name == "gradients":
            return with_gradients(c)
        if name == "tape_inside":
            return with_tape(c, False)
        if name == "tape_inside_cast":
            return with_tape(c, True)
        with tf.GradientTape() as tape:
            tape.watch(c)
            s = tf.function(loop)(c)
        return tape.gradient(s, c)


def _known_value(tf, name, device):
    with tf.device(device):
        x = tf.constant(2.0)
        y = tf.constant(5.0)
        always = tf.constant(True)

        def staged(x, y):
            if name == "while_loop":
                i, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + y), [0, 0.0])
                return i, s * x
            if name == "cond":
                return tf.cond(always, lambda: x * 2.0, lambda: y * 3.0)
            if name == "switch_case":
                return tf.switch_case(tf.constant(1), [lambda: y * 3.0, lambda: x * 2.0])
            if name == "case":
                return tf.case([(tf.constant(False), lambda: y), (always, lambda: x * 4.0)])
            if name == "autograph_if":
                if always:
                    out = x * 2.0
                else:
                    out = y * 3.0
                return out
            i = tf.constant(0)
            s = tf.constant(0.0)
            while i < 3:
                i += 1
                s += y
            return i, s * x

        @tf.function
        def f(x, y):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, y])
                out = tf.nest.flatten(staged(x, y))
            return out, [tape.gradient(o, [x, y]) for o in out]

        @tf.function
        def python_bool(x):
            return tf.cond(True, lambda: x, lambda: x * 2.0)

        try:
            python_bool(x)
            refused = None
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            refused = type(e).__name__
        return f(x, y), refused


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", KNOWN_VALUE)
def test_control_flow_on_known_values_is_staged(tf_oracle, name, device):
    assert_parity(tf_oracle, _known_value, (name, device))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", NESTED)
def test_nested_function_inputs(tf_oracle, name, device):
    assert_parity(tf_oracle, _nested, (name, device), rtol=1e-6)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", CLOSURE)
def test_closure_capture_any_trace_order(tf_oracle, name, device):
    assert_parity(tf_oracle, _closure, (name, device), rtol=1e-6)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", WHILE_INTEGER)
def test_while_integer_target(tf_oracle, name, device):
    assert_parity(tf_oracle, _while_integer, (name, device))


def _refusals(tf, name, device):
    def ag_while_int():
        x = tf.constant(3)
        n = tf.constant(0)
        while x:
            x -= 1
            n += 1
        return n

    programs = {
        "autograph_while_int": ag_while_int,
        "while_loop_int": lambda: tf.while_loop(lambda i: 3 - i, lambda i: i + 1, [tf.constant(0)]),
        "while_loop_float": lambda: tf.while_loop(
            lambda i: 3.0 - i, lambda i: i + 1.0, [tf.constant(0.0)]
        ),
        "cond_int": lambda: tf.cond(tf.constant(1), lambda: 1, lambda: 2),
        "case_no_true_predicate": lambda: tf.case(
            [(tf.constant(False), lambda: tf.constant(1)), (tf.constant(False), lambda: 2)]
        ),
        "pad_negative_zero": lambda: (
            1.0 / tf.pad(tf.constant([1.0]), [[1, 0]], constant_values=-0.0)
        ),
    }
    with tf.device(device):
        try:
            return tf.function(programs[name])()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__


REFUSALS = [
    "autograph_while_int",
    "while_loop_int",
    "while_loop_float",
    "cond_int",
    "case_no_true_predicate",
    "pad_negative_zero",
]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", REFUSALS)
def test_staged_conditions_refuse_what_tensorflow_refuses(tf_oracle, name, device):
    """A loop condition that is not a bool raised in TensorFlow and stopped ferroflow's staged
    loop at once (0 iterations); a traced tf.case with no true predicate returned its last
    branch; a pad with -0.0 padded with -0.0 (TensorFlow's Pad pads with +0)."""
    assert_parity(tf_oracle, _refusals, (name, device))
