"""AutoGraph converts the functions a tf.function calls, recursively, as TensorFlow's does:
an `if`/`for`/`while` on a tensor inside a helper (a plain function, a method, a nested
function, a helper reached from a lambda or through another helper or functools.partial) is
staged as in the body itself. ferroflow converted only the decorated function, so these
programs raised where TensorFlow runs them. A helper marked do_not_convert stays Python: both
frameworks refuse its `if` on a symbolic tensor with the same exception class."""

import pytest

from .harness import assert_parity

CASES = [
    "helper_if",
    "helper_for_range",
    "method",
    "nested_def",
    "through_lambda",
    "chain",
    "partial",
    "early_return",
    "do_not_convert",
    "gradient_through_helper",
]


def _program(tf, name, device):
    import functools

    def sign_scale(x, scale=2.0):
        if x > 0:
            return x * scale
        return -x

    def running_sum(x, n):
        s = tf.zeros_like(x)
        for i in tf.range(n):
            s += x * tf.cast(i, x.dtype)
        return s

    def outer_helper(x):
        return sign_scale(x) + running_sum(x, 3)

    class Model:
        def __init__(self):
            self.w = tf.Variable(3.0)

        def step(self, x):
            while x < 10.0:
                x = x * 2.0 + self.w
            return x

    @tf.autograph.experimental.do_not_convert
    def unconverted(x):
        if x > 0:
            return x
        return -x

    model = Model()

    @tf.function
    def f(x):
        if name == "helper_if":
            return sign_scale(x)
        if name == "helper_for_range":
            return running_sum(x, tf.constant(4))
        if name == "method":
            return model.step(x)
        if name == "nested_def":

            def clipped(v):
                if v > 1.0:
                    v = tf.constant(1.0)
                return v

            return clipped(x)
        if name == "through_lambda":
            return tf.cond(x > -100.0, lambda: sign_scale(x), lambda: x)
        if name == "chain":
            return outer_helper(x)
        if name == "partial":
            return functools.partial(sign_scale, scale=3.0)(x)
        if name == "early_return":
            return sign_scale(x, scale=tf.constant(0.5))
        if name == "do_not_convert":
            return unconverted(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = outer_helper(x)
        return y, tape.gradient(y, x)

    with tf.device(device):
        out = []
        for value in (1.5, -2.0):
            try:
                out.append(f(tf.constant(value)))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", CASES)
def test_autograph_converts_callees(tf_oracle, name, device):
    assert_parity(tf_oracle, _program, (name, device))
