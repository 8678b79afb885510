"""tf.nn.depthwise_conv2d / separable_conv2d, tf.compat.v1.nn.fused_batch_norm and
tf.nn.batch_normalization on the CPU and on the GPU (when one is visible), against direct numpy
references of TensorFlow's formulas (tests/parity compares the same ops with TensorFlow itself);
also what TensorFlow's CPU kernels cannot be compared on: NCHW depthwise convolution, and the
reserve outputs of FusedBatchNormV3."""

import ferroflow as tf
import numpy as np
import pytest
from ferroflow import _core


def _padded(x, kernel, strides, dilations, padding):
    """x zero-padded as TensorFlow pads it, and the output size."""
    pads, out = [], []
    for axis in range(2):
        size, k, s, d = x.shape[1 + axis], kernel[axis], strides[axis], dilations[axis]
        span = (k - 1) * d + 1
        if padding == "SAME":
            o = -(-size // s)
            total = max((o - 1) * s + span - size, 0)
            pads.append((total // 2, total - total // 2))
        elif padding == "VALID":
            pads.append((0, 0))
        else:
            pads.append(tuple(padding[1 + axis]))
        out.append((size + sum(pads[-1]) - span) // s + 1)
    return np.pad(x, [(0, 0), pads[0], pads[1], (0, 0)]), out


def _depthwise_reference(x, f, strides, dilations, padding):
    xp, (oh, ow) = _padded(x, f.shape[:2], strides, dilations, padding)
    n, c, m = x.shape[0], x.shape[3], f.shape[3]
    y = np.zeros((n, oh, ow, c, m))
    for a in range(f.shape[0]):
        for b in range(f.shape[1]):
            r0, c0 = a * dilations[0], b * dilations[1]
            window = xp[:, r0 : r0 + oh * strides[0] : strides[0], c0 : c0 + ow * strides[1]]
            y += window[:, :, :: strides[1]][..., None] * f[a, b]
    return y.reshape(n, oh, ow, c * m)


def _depthwise_gradients_reference(x, f, weights, strides, dilations, padding):
    """d sum(y * weights) / d(x, f)."""
    xp, (oh, ow) = _padded(x, f.shape[:2], strides, dilations, padding)
    n, c, m = x.shape[0], x.shape[3], f.shape[3]
    w = weights.reshape(n, oh, ow, c, m)
    dxp, df = np.zeros_like(xp), np.zeros_like(f)
    for a in range(f.shape[0]):
        for b in range(f.shape[1]):
            r0, c0 = a * dilations[0], b * dilations[1]
            rows = slice(r0, r0 + oh * strides[0], strides[0])
            cols = slice(c0, c0 + ow * strides[1], strides[1])
            df[a, b] = np.einsum("nijc,nijcm->cm", xp[:, rows, cols], w)
            dxp[:, rows, cols] += np.einsum("nijcm,cm->nijc", w, f[a, b])
    before = [
        _pad_before(x.shape[1 + axis], f.shape[axis], strides[axis], dilations[axis], padding, axis)
        for axis in range(2)
    ]
    dx = dxp[:, before[0] : before[0] + x.shape[1], before[1] : before[1] + x.shape[2]]
    return dx, df


def _pad_before(size, k, s, d, padding, axis):
    if padding == "SAME":
        o = -(-size // s)
        return max((o - 1) * s + (k - 1) * d + 1 - size, 0) // 2
    if padding == "VALID":
        return 0
    return padding[1 + axis][0]


# (input shape, filter shape, strides [rows, cols], dilations, padding)
CASES = [
    ((2, 5, 5, 3), (3, 3, 3, 2), (1, 1), (1, 1), "SAME"),
    ((2, 6, 5, 3), (3, 3, 3, 1), (2, 2), (1, 1), "SAME"),
    ((1, 7, 6, 2), (2, 3, 2, 3), (2, 1), (1, 1), "VALID"),
    ((2, 6, 7, 2), (3, 2, 2, 2), (1, 1), (1, 1), [[0, 0], [1, 2], [0, 1], [0, 0]]),
    ((1, 8, 8, 2), (3, 3, 2, 2), (1, 1), (2, 2), "SAME"),
    ((1, 9, 8, 2), (3, 2, 2, 1), (1, 1), (2, 3), "VALID"),
    ((2, 4, 5, 4), (1, 1, 4, 3), (1, 1), (1, 1), "VALID"),
]


def _case(i, seed=0):
    rng = np.random.default_rng(seed + i)
    xs, fs, strides, dilations, padding = CASES[i]
    x = rng.standard_normal(xs).astype(np.float32)
    f = rng.standard_normal(fs).astype(np.float32)
    return x, f, strides, dilations, padding


@pytest.mark.parametrize("i", range(len(CASES)))
def test_depthwise_matches_the_direct_sum(device, i):
    x, f, strides, dilations, padding = _case(i)
    y = tf.nn.depthwise_conv2d(x, f, [1, *strides, 1], padding, dilations=list(dilations))
    assert y.device.endswith(device)
    expected = _depthwise_reference(x, f, strides, dilations, padding)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_depthwise_gradients_match_the_direct_sum(device, i):
    x, f, strides, dilations, padding = _case(i)
    xt, ft = tf.constant(x), tf.constant(f)
    with tf.GradientTape() as tape:
        tape.watch([xt, ft])
        y = tf.nn.depthwise_conv2d(xt, ft, [1, *strides, 1], padding, dilations=list(dilations))
        weights = np.arange(np.prod(y.shape), dtype=np.float32).reshape(y.shape) % 7 - 3
        loss = tf.reduce_sum(y * weights)
    gx, gf = tape.gradient(loss, [xt, ft])
    assert gx.device.endswith(device) and gf.device.endswith(device)
    dx, df = _depthwise_gradients_reference(x, f, weights, strides, dilations, padding)
    np.testing.assert_allclose(gx.numpy(), dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gf.numpy(), df, rtol=1e-4, atol=1e-4)


def test_depthwise_of_a_non_contiguous_input(device):
    x, f, *_ = _case(0)
    strided = tf.transpose(tf.constant(np.transpose(x, [0, 2, 1, 3])), [0, 2, 1, 3])
    y = tf.nn.depthwise_conv2d(strided, f, [1, 1, 1, 1], "SAME")
    expected = _depthwise_reference(x, f, (1, 1), (1, 1), "SAME")
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_depthwise_channels_first_is_a_transposed_channels_last(device):
    """TensorFlow's CPU kernel aborts on NCHW; ferroflow runs it as conv2d does."""
    x, f, *_ = _case(1)
    pads = [[0, 0], [0, 0], [1, 0], [2, 1]]
    nchw = tf.nn.depthwise_conv2d(np.transpose(x, [0, 3, 1, 2]), f, [1, 1, 2, 2], pads, "NCHW")
    nhwc = tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], [[0, 0], [1, 0], [2, 1], [0, 0]])
    np.testing.assert_allclose(np.transpose(nchw.numpy(), [0, 2, 3, 1]), nhwc.numpy(), rtol=1e-6)


def test_separable_is_depthwise_then_pointwise(device):
    x, f, *_ = _case(0)
    pointwise = np.random.default_rng(9).standard_normal((1, 1, 6, 4)).astype(np.float32)
    y = tf.nn.separable_conv2d(x, f, pointwise, [1, 1, 1, 1], "SAME")
    expected = _depthwise_reference(x, f, (1, 1), (1, 1), "SAME") @ pointwise[0, 0]
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-4)


def test_dilated_strided_depthwise_warns_and_follows_the_formula():
    x, f, *_ = _case(4)
    with pytest.warns(UserWarning, match="all values of strides must be 1"):
        y = tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME", dilations=[2, 2])
    expected = _depthwise_reference(x, f, (2, 2), (2, 2), "SAME")
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_depthwise_saved_graph_reads_back():
    x, f, *_ = _case(2)

    @tf.function
    def model(x):
        return tf.nn.depthwise_conv2d(x, f, [1, 2, 1, 1], "VALID")

    graph = model.get_concrete_function(tf.TensorSpec([None, 7, 6, 2])).graph
    types = [op.type for op in graph.get_operations()]
    assert types.count("DepthwiseConv2dNative") == 1
    np.testing.assert_allclose(
        model(x).numpy(), _depthwise_reference(x, f, (2, 1), (1, 1), "VALID"), rtol=1e-5
    )


# --- batch normalisation -------------------------------------------------------------------


def _norm_case(shape, seed=0):
    rng = np.random.default_rng(seed)
    c = shape[-1]
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32)
    scale, offset, mean = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
    variance = (np.abs(rng.standard_normal(c)) + 0.5).astype(np.float32)
    return x, scale, offset, mean, variance


def _batch_norm_reference(x, scale, offset, mean, variance, eps, training, factor=1.0):
    """(y, running mean, running variance, reserve 1, reserve 2) of channels-last x."""
    axes = tuple(range(x.ndim - 1))
    if not training:
        y = (x - mean) / np.sqrt(variance + eps) * scale + offset
        return y, mean, variance, mean, variance
    batch_mean, batch_var = x.mean(axis=axes), x.var(axis=axes)
    n = x.size // x.shape[-1]
    unbiased = batch_var * n / max(n - 1, 1)
    y = (x - batch_mean) / np.sqrt(batch_var + eps) * scale + offset
    if factor != 1.0:
        running = (
            (1 - factor) * mean + factor * batch_mean,
            (1 - factor) * variance + factor * unbiased,
        )
    else:
        running = (batch_mean, unbiased)
    return (y, *running, batch_mean, batch_var)


@pytest.mark.parametrize("training, factor", [(True, 1.0), (True, 0.25), (False, 1.0)])
def test_fused_batch_norm_outputs(device, training, factor):
    x, scale, offset, mean, variance = _norm_case((2, 3, 2, 4))
    outputs = _core.fused_batch_norm(
        x, scale, offset, mean, variance, 0.01, factor, "NHWC", training
    )
    # In inference the statistics are the inputs, passed through where they are.
    computed = outputs[:5] if training else outputs[:1]
    assert len(outputs) == 6 and all(o.device.endswith(device) for o in computed)
    expected = _batch_norm_reference(x, scale, offset, mean, variance, 0.01, training, factor)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    assert outputs[5].shape == (0,) and outputs[5].dtype == tf.float32


def test_fused_batch_norm_of_a_non_contiguous_channels_first_input(device):
    x, scale, offset, *_ = _norm_case((2, 3, 2, 4), seed=1)
    # NCHW data made from a transposed (strided) view.
    nchw = tf.transpose(tf.constant(x), [0, 3, 1, 2])
    y, mean, variance = tf.compat.v1.nn.fused_batch_norm(nchw, scale, offset, data_format="NCHW")
    expected = _batch_norm_reference(x, scale, offset, None, None, 0.001, True)
    np.testing.assert_allclose(np.transpose(y.numpy(), [0, 2, 3, 1]), expected[0], rtol=1e-5)
    np.testing.assert_allclose(mean.numpy(), expected[1], rtol=1e-5)
    np.testing.assert_allclose(variance.numpy(), expected[2], rtol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_gradients(device, training):
    x, scale, offset, mean, variance = _norm_case((3, 2, 2, 3), seed=2)
    eps = 0.001
    sources = [tf.constant(v) for v in (x, scale, offset, mean, variance)]
    weights = np.arange(x.size, dtype=np.float32).reshape(x.shape) % 5 - 2
    with tf.GradientTape() as tape:
        tape.watch(sources)
        y, _, _ = tf.compat.v1.nn.fused_batch_norm(*sources, epsilon=eps, is_training=training)
        loss = tf.reduce_sum(y * weights)
    gx, gscale, goffset, gmean, gvariance = tape.gradient(loss, sources)
    assert gmean is None and gvariance is None
    assert gx.device.endswith(device)
    axes = (0, 1, 2)
    if training:
        m, v = x.mean(axis=axes), x.var(axis=axes)
    else:
        m, v = mean, variance
    inv = 1 / np.sqrt(v + eps)
    x_hat = (x - m) * inv
    np.testing.assert_allclose(goffset.numpy(), weights.sum(axis=axes), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gscale.numpy(), (weights * x_hat).sum(axis=axes), rtol=1e-4)
    if training:
        n = x.size // x.shape[-1]
        centred = weights - weights.sum(axis=axes) / n - x_hat * (weights * x_hat).sum(axes) / n
        dx = scale * inv * centred
    else:
        dx = weights * scale * inv
    np.testing.assert_allclose(gx.numpy(), dx, rtol=1e-4, atol=1e-5)


def test_batch_normalization(device):
    x, scale, offset, mean, variance = _norm_case((4, 3), seed=3)
    y = tf.nn.batch_normalization(x, mean, variance, offset, scale, 0.001)
    assert y.device.endswith(device)
    expected = (x - mean) / np.sqrt(variance + 0.001) * scale + offset
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_compat_v1_nn_holds_only_fused_batch_norm():
    assert tf.compat.v1.nn.__all__ == ["fused_batch_norm"]
    assert "nn" in tf.compat.v1.__all__
    from ferroflow.compat.v1.nn import fused_batch_norm

    assert fused_batch_norm is tf.compat.v1.nn.fused_batch_norm
