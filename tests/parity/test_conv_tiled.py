"""Convolutions and poolings large enough that ferroflow's CPU kernels split them into many
cache-sized tiles (im2col one tile at a time, filter gradients summed in groups, input
gradients scattered per image), against TensorFlow: the outputs and the gradients to the image
and the filter, eagerly and in a traced training step, for float32 and float64. Geometries are
drawn from a seeded generator (kernel 1..5, stride 1..3, dilation 1..2, SAME/VALID, channels
1..40), so that tile edges fall inside windows, rows and images."""

import numpy as np
import pytest

from .harness import assert_parity


def _geometries(count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        k = [int(rng.integers(1, 6)), int(rng.integers(1, 6))]
        stride = int(rng.integers(1, 4))
        dilation = 1 if stride > 1 else int(rng.integers(1, 3))
        size = [int(rng.integers(8, 33)), int(rng.integers(8, 33))]
        padding = ["SAME", "VALID"][int(rng.integers(0, 2))]
        span = [(k[i] - 1) * dilation + 1 for i in range(2)]
        if padding == "VALID" and any(size[i] < span[i] for i in range(2)):
            continue
        channels = [int(rng.integers(1, 41)), int(rng.integers(1, 34))]
        batch = int(rng.integers(1, 5))
        out.append((batch, size, channels, k, stride, dilation, padding))
    return out


GEOMETRIES = _geometries(8, 23)


def _convolutions(tf, geometry, dtype):
    import numpy as np

    batch, size, (c_in, c_out), k, stride, dilation, padding = geometry
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal((batch, *size, c_in)).astype(dtype))
    f = tf.constant(rng.standard_normal((*k, c_in, c_out)).astype(dtype))

    def conv(x, f):
        return tf.nn.conv2d(x, f, stride, padding, dilations=dilation)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, f])
        y = conv(x, f)
        weights = tf.cos(tf.reshape(tf.range(tf.size(y), dtype=y.dtype), tf.shape(y)))
        loss = tf.reduce_sum(y * weights)
    dx, df = tape.gradient(loss, [x, f])

    @tf.function
    def traced(x, f):
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            loss = tf.reduce_sum(conv(x, f) * weights)
        return tape.gradient(loss, [x, f])

    pools = []
    window = [min(k[0] + 1, size[0]), min(k[1] + 1, size[1])]
    for pool in (tf.nn.max_pool2d, tf.nn.avg_pool2d):
        with tf.GradientTape() as tape:
            tape.watch(x)
            p = pool(x, window, stride, padding)
            s = tf.reduce_sum(
                p * tf.cos(tf.reshape(tf.range(tf.size(p), dtype=p.dtype), tf.shape(p)))
            )
        pools += [p, tape.gradient(s, x)]
    return [y, dx, df, *traced(x, f), *pools]


@pytest.mark.parametrize(
    "geometry", GEOMETRIES, ids=lambda g: "-".join(map(str, g)).replace(" ", "")
)
def test_tiled_convolutions_float32(tf_oracle, geometry):
    assert_parity(tf_oracle, _convolutions, (geometry, "float32"), rtol=2e-4, atol=2e-3)


@pytest.mark.parametrize(
    "geometry", GEOMETRIES[:3], ids=lambda g: "-".join(map(str, g)).replace(" ", "")
)
def test_tiled_convolutions_float64(tf_oracle, geometry):
    assert_parity(tf_oracle, _convolutions, (geometry, "float64"), rtol=1e-10, atol=1e-9)
