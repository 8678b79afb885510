"""Regression tests against TensorFlow for bilinear resizing's gradient: ResizeBilinearGrad sums
a double image's gradient in double, as TensorFlow's kernel does (ferroflow summed in float32
and widened: other low bits), and half and bfloat16 ones in float32, rounding once; and
TensorFlow declares ResizeBilinearGrad not differentiable, so a second derivative through a
resize is None there (ferroflow computed one), on every path: the host kernel, the GPU's
gathers, and a size known only when the graph runs."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _gradient_sums(tf):
    import numpy as np

    rng = np.random.default_rng(3)
    image = rng.uniform(-4, 4, size=(2, 3, 2, 3))
    weights = tf.constant(rng.uniform(-1, 1, size=(2, 17, 13, 3)), tf.float32)
    out = []
    with tf.device("CPU:0"):
        for dtype in ["float16", "bfloat16", "float64", "float32"]:
            x = tf.cast(tf.constant(image), dtype)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.image.resize(x, [17, 13]) * weights
            g = tape.gradient(y, x)
            out.append((dtype, g.dtype.name, g.numpy().astype(np.float64)))
    return out


def test_gradient_sums_in_the_image_dtype(tf_oracle):
    # Bit for bit: TensorFlow's kernel runs on the host, and so does ferroflow's.
    assert_parity(tf_oracle, _gradient_sums, rtol=0, atol=0)


def _second_derivatives(tf, device):
    import numpy as np

    image = np.random.default_rng(5).uniform(-4, 4, size=(2, 3, 2, 3)).astype(np.float32)

    def second(x, size):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                r = tf.image.resize(x, size)
                y = r * r
            g = inner.gradient(y, x)
            s = tf.reduce_sum(g * g)
        return g, outer.gradient(s, x) is None

    out = []
    with tf.device(device):
        x = tf.constant(image)
        g, none = second(x, [17, 13])
        out.append(("eager", g.numpy(), none))
        traced = tf.function(lambda x: second(x, [17, 13]))
        g, none = traced(x)
        out.append(("traced", g.numpy(), none))
        dynamic = tf.function(
            lambda x, size: second(x, size),
            input_signature=[
                tf.TensorSpec([2, None, None, 3], tf.float32),
                tf.TensorSpec([2], tf.int32),
            ],
        )
        g, none = dynamic(x, tf.constant([17, 13]))
        out.append(("dynamic size", g.numpy(), none))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_second_derivative_through_resize_is_none(tf_oracle, device):
    expected = assert_parity(tf_oracle, _second_derivatives, args=(device,), rtol=1e-4, atol=1e-4)
    assert expected[0] != "raised", expected
    # TensorFlow's answer is None on every path (`True`: a Python bool eagerly, a bool tensor
    # from a tf.function).
    nones = [bool(entry[1][2][-1]) for entry in expected[1]]
    assert nones == [True] * 3, expected
