"""Staged loops whose variables have no value (or None) before the loop: AutoGraph traces one
iteration to learn their types, starts them from zeros, and checks when the graph runs that the
loop iterated; what it cannot define raises, with TensorFlow's messages."""

from .harness import parity


@parity
def test_values_first_assigned_in_loop_bodies(tf):
    @tf.function
    def for_range(n):
        for i in tf.range(n):
            square = i * i
            pair = (tf.cast(i, tf.float32) / 2.0, {"count": 7, "flag": True, "scale": 2.5})
        return square, pair

    @tf.function
    def while_tensor(n):
        i = tf.constant(0)
        total = None
        while i < n:
            doubled = i * 2
            total = tf.cast(doubled, tf.float32) + 0.5
            i += 1
        return doubled, total

    @tf.function
    def over_tensor(items):
        for item in items:
            last = item * 2.0
        return last

    @tf.function
    def growing(n):
        for i in tf.range(n):
            items = tf.range(i + 1)
        return items

    @tf.function
    def nested(n):
        for i in tf.range(n):
            for j in tf.range(i + 1):
                inner = i * 10 + j
            outer = inner
        return outer

    @tf.function
    def range_target(n):
        for i in tf.range(2, n):  # noqa: B007 - read after the loop
            pass
        return i

    return (
        for_range(tf.constant(4)),
        while_tensor(tf.constant(3)),
        over_tensor(tf.constant([1.0, 2.0, 3.0])),
        growing(tf.constant(3)),
        growing(tf.constant(1)),
        growing.experimental_get_tracing_count(),
        nested(tf.constant(3)),
        range_target(tf.constant(5)),
        range_target(tf.constant(2)),
    )


@parity
def test_loop_that_runs_zero_times_fails_when_the_graph_runs(tf):
    import re

    @tf.function
    def last_values(n):
        for i in tf.range(n):
            y = tf.cast(i, tf.float32)
            x = i
        return y, x

    @tf.function
    def last_item(items):
        for item in items:
            last = item
        return last

    def assertion(fn, *args):
        try:
            return ("ok", fn(*args))
        except tf.errors.InvalidArgumentError as e:
            return re.search(r"assertion failed: \[[^\]]*\]", str(e)).group(0)

    return (
        assertion(last_values, tf.constant(0)),
        assertion(last_values, tf.constant(2)),
        last_values.experimental_get_tracing_count(),
        assertion(last_item, tf.zeros([0])),
    )


@parity
def test_loop_variables_autograph_cannot_define(tf):
    def message(fn, name):
        try:
            fn(tf.constant(2))
        except ValueError as e:
            text = " ".join(str(e).split())
            return text[text.index(f"'{name}'") :]
        return "no error"

    @tf.function
    def unsupported(n):
        for _ in tf.range(n):
            text = "abc"
        return text

    @tf.function
    def stays_none(n):
        for _ in tf.range(n):
            value = None
        return value

    @tf.function
    def none_throughout(n):
        value = None
        for _ in tf.range(n):
            value = None
        return value

    @tf.function
    def read_first(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total = total + seen  # noqa: F821 - the previous iteration's
            seen = i  # noqa: F841
        return total

    @tf.function
    def two(n):
        for _ in tf.range(n):
            b = "z"
            a = None
        return b, a

    return [
        message(unsupported, "text"),
        message(stays_none, "value"),
        message(none_throughout, "value"),
        message(read_first, "seen"),
        message(two, "a"),
    ]


@parity
def test_none_before_a_loop_that_does_not_carry_it(tf):
    @tf.function
    def f(n):
        scratch = None
        for i in tf.range(n):
            scratch = i * 2  # noqa: F841 - dead after the loop
        return n

    return f(tf.constant(2))
