"""tf.nn convolution and pooling, tf.image.extract_patches: values, gradients and errors
against TensorFlow 2.21's (numbers recorded from tensorflow-cpu with the same inputs), on the
CPU and on the GPU when one is visible."""

import ferroflow as tf
import numpy as np
import pytest

X = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
ONES = np.ones((3, 3, 1, 1), np.float32)


def _random_case():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 4, 3)).astype(np.float32)
    f = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    return x, f, rng


@pytest.mark.parametrize(
    "strides, padding, dilations, expected",
    [
        (2, "SAME", 1, [16, 33, 28, 69, 117, 87, 76, 123, 88]),
        (1, "VALID", 1, [63, 72, 81, 108, 117, 126, 153, 162, 171]),
        (
            1,
            "SAME",
            2,
            [28, 32, 48, 32, 36, 48, 52, 78, 52, 56, 72, 78, 117]
            + [78, 84, 48, 52, 78, 52, 56, 68, 72, 108, 72, 76],
        ),
        ([1, 2, 2, 1], [[0, 0], [1, 0], [0, 2], [0, 0]], 1, [27, 39, 15, 108, 126, 45]),
    ],
)
def test_conv2d_matches_tensorflow(device, strides, padding, dilations, expected):
    y = tf.nn.conv2d(X, ONES, strides, padding, dilations=dilations)
    assert y.device.endswith(device)
    np.testing.assert_allclose(y.numpy().ravel(), expected, rtol=1e-6)


def test_same_padding_puts_the_odd_pad_after(device):
    x6 = np.arange(36, dtype=np.float32).reshape(1, 6, 6, 1)
    y = tf.nn.conv2d(x6, ONES, 2, "SAME")
    np.testing.assert_allclose(y.numpy().ravel(), [63, 81, 63, 171, 189, 135, 168, 180, 126])


def test_conv2d_gradients_match_tensorflow(device):
    x, f, _ = _random_case()
    xt, ft = tf.constant(x), tf.constant(f)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([xt, ft])
        y = tf.nn.conv2d(xt, ft, [2, 1], "SAME")
        s = tf.reduce_sum(y * y)
    gx, gf = tape.gradient(s, [xt, ft])
    assert y.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(float(tf.reduce_sum(y)), -62.54353332519531, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(gx)), 590.843994140625, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(gx * gx)), 93054.9765625, rtol=1e-5)
    np.testing.assert_allclose(
        gx.numpy().ravel()[:5],
        [0.69375855, -4.35042620, 11.33844376, 17.43583298, 0.40030527],
        rtol=1e-5,
    )
    np.testing.assert_allclose(float(tf.reduce_sum(gf)), -137.52549743652344, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(gf * gf)), 89400.8125, rtol=1e-5)
    np.testing.assert_allclose(
        gf.numpy().ravel()[:5],
        [48.24104309, 69.00765991, 38.34653855, -25.93437576, 2.14142084],
        rtol=1e-5,
    )


def test_conv2d_equals_a_direct_sum():
    """An independent reference: the textbook loop over windows (VALID, strided, dilated)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 8, 3))
    f = rng.standard_normal((3, 2, 3, 5))
    y = tf.nn.conv2d(x, f, [2, 3], "VALID", dilations=[2, 1]).numpy()
    oh, ow = (9 - 5) // 2 + 1, (8 - 2) // 3 + 1
    expected = np.zeros((2, oh, ow, 5))
    for i in range(oh):
        for j in range(ow):
            window = x[:, i * 2 : i * 2 + 5 : 2, j * 3 : j * 3 + 2, :]
            expected[:, i, j, :] = np.einsum("nhwc,hwco->no", window, f)
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


def test_conv1d_matches_tensorflow(device):
    _, _, rng = _random_case()
    x1 = rng.standard_normal((2, 7, 3)).astype(np.float32)
    f1 = rng.standard_normal((3, 3, 2)).astype(np.float32)
    y = tf.nn.conv1d(x1, f1, 2, "SAME")
    assert y.shape == (2, 4, 2)
    np.testing.assert_allclose(
        y.numpy().ravel()[:6],
        [0.53800052, 5.37607336, 1.64579916, 0.07415975, 3.19474220, -1.35101593],
        rtol=1e-5,
    )


def test_pooling_matches_tensorflow(device):
    np.testing.assert_allclose(
        tf.nn.avg_pool2d(X, 2, 2, "SAME").numpy().ravel(),
        [4.0, 6.0, 7.5, 14.0, 16.0, 17.5, 21.5, 23.5, 25.0],
    )
    # Padding never wins a max pool, even over negative values.
    np.testing.assert_allclose(
        tf.nn.max_pool2d(-X, 2, 2, "SAME").numpy().ravel(),
        [-1, -3, -5, -11, -13, -15, -21, -23, -25],
    )


def test_pooling_gradients_match_tensorflow(device):
    x, _, _ = _random_case()
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        m = tf.nn.max_pool2d(xt, 3, 2, "SAME")
        a = tf.nn.avg_pool2d(xt, 3, 2, "SAME")
        s = tf.reduce_sum(m * m) + tf.reduce_sum(a * a * a)
    g = tape.gradient(s, xt)
    assert m.shape == a.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(float(tf.reduce_sum(m)), 47.464786529541016, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(a)), 5.50751256942749, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(g)), 111.85037994384766, rtol=1e-5)
    np.testing.assert_allclose(float(tf.reduce_sum(g * g)), 704.8888549804688, rtol=1e-5)


def test_max_pool_gradient_goes_to_the_first_maximum(device):
    z = tf.zeros([1, 4, 4, 1])
    with tf.GradientTape() as tape:
        tape.watch(z)
        m = tf.nn.max_pool2d(z, 2, 2, "VALID")
    expected = [1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(tape.gradient(m, z).numpy().ravel(), expected)


def test_extract_patches_matches_tensorflow(device):
    p = tf.image.extract_patches(X, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
    assert p.shape == (1, 3, 3, 4)
    expected = [1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 16, 17, 13, 14, 18, 19]
    expected += [15, 0, 20, 0, 21, 22, 0, 0, 23, 24, 0, 0, 25, 0, 0, 0]
    np.testing.assert_array_equal(p.numpy().ravel(), expected)


def test_channels_first_is_a_transposed_channels_last():
    x, f, _ = _random_case()
    nchw = tf.nn.conv2d(np.transpose(x, [0, 3, 1, 2]), f, 1, "SAME", data_format="NCHW")
    nhwc = tf.nn.conv2d(x, f, 1, "SAME")
    np.testing.assert_allclose(np.transpose(nchw.numpy(), [0, 2, 3, 1]), nhwc.numpy(), rtol=1e-6)


def test_integer_convolution():
    y = tf.nn.conv2d(X.astype(np.int32), ONES.astype(np.int32), 2, "SAME")
    assert y.dtype == tf.int32
    np.testing.assert_array_equal(y.numpy().ravel(), [16, 33, 28, 69, 117, 87, 76, 123, 88])


def test_convolution_in_a_traced_training_step():
    x, f, _ = _random_case()
    w = tf.Variable(f)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
            loss = tf.reduce_mean(y * y)
        return loss, tape.gradient(loss, w)

    with tf.GradientTape() as tape:
        y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME")), 2, 2, "VALID")
        loss = tf.reduce_mean(y * y)
    eager = (loss, tape.gradient(loss, w))
    traced = step(tf.constant(x))
    np.testing.assert_allclose(traced[0].numpy(), eager[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(traced[1].numpy(), eager[1].numpy(), rtol=1e-5, atol=1e-6)


def test_second_derivative_through_patches():
    x = tf.constant(np.linspace(-1, 1, 16).reshape(1, 4, 4, 1))
    f = tf.constant(np.full((2, 2, 1, 1), 0.5))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.conv2d(x, f, 1, "SAME") ** 3)
        g = inner.gradient(y, x)
        gs = tf.reduce_sum(g)
    gg = outer.gradient(gs, x)
    # Finite differences of the first derivative's sum.
    eps, base = 1e-6, x.numpy()
    numeric = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        bumped = base.copy()
        bumped[idx] += eps
        with tf.GradientTape() as t:
            xb = tf.constant(bumped)
            t.watch(xb)
            yb = tf.reduce_sum(tf.nn.conv2d(xb, f, 1, "SAME") ** 3)
        numeric[idx] = (float(tf.reduce_sum(t.gradient(yb, xb))) - float(gs)) / eps
    np.testing.assert_allclose(gg.numpy(), numeric, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: tf.nn.conv2d(X, np.ones((3, 3, 2, 1), np.float32), 1, "SAME"),
            tf.errors.InvalidArgumentError,
            "input depth must be evenly divisible by filter depth: 1 vs 2",
        ),
        (
            lambda: tf.nn.conv2d(X, ONES, 1, "FOO"),
            tf.errors.InvalidArgumentError,
            "Value for attr 'padding'",
        ),
        (
            lambda: tf.nn.conv2d(X, np.ones((7, 7, 1, 1), np.float32), 1, "VALID"),
            tf.errors.InvalidArgumentError,
            "Computed output size would be negative: -1 [input_size: 5, effective_filter_size: 7, "
            "stride: 1]",
        ),
        (
            lambda: tf.nn.max_pool2d(X, 7, 1, "VALID"),
            tf.errors.InvalidArgumentError,
            "Computed output size would be negative",
        ),
        (
            lambda: tf.nn.conv2d(X[0], ONES, 1, "SAME"),
            tf.errors.InvalidArgumentError,
            "4-dimensional",
        ),
        (
            lambda: tf.nn.conv2d(X, ONES[0], 1, "SAME"),
            tf.errors.InvalidArgumentError,
            "filter must be 4",
        ),
        (lambda: tf.nn.max_pool2d(X, 2, [2, 2, 2, 2], "SAME"), ValueError, "batch and depth"),
        (lambda: tf.nn.conv2d(X, ONES, 0, "SAME"), ValueError, "positive"),
        (
            lambda: tf.nn.avg_pool2d(X.astype(np.int32), 2, 2, "SAME"),
            tf.errors.InvalidArgumentError,
            "attr 'T'",
        ),
    ],
)
def test_bad_arguments_raise_typed_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_second_derivative_through_max_pooling_reads_the_first_maxima(device):
    rng = np.random.default_rng(5)
    x = tf.constant(rng.standard_normal((2, 4, 6, 3)).astype(np.float32))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.max_pool2d(x, 2, 2, "VALID") ** 2)
        g = inner.gradient(y, x)
        s = tf.reduce_sum(g)
    gg = outer.gradient(s, x).numpy()
    # d/dx sum(2 * max * onehot) = 2 at each window's maximum.
    windows = x.numpy().reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 5, 2, 4).reshape(2, 2, 3, 3, 4)
    expected = np.zeros((2, 4, 6, 3), np.float32)
    for n, r, c, ch in np.ndindex(2, 2, 3, 3):
        k = int(np.argmax(windows[n, r, c, ch]))
        expected[n, 2 * r + k // 2, 2 * c + k % 2, ch] = 2.0
    np.testing.assert_allclose(gg, expected)


def test_a_specialised_concrete_function_refuses_other_sizes():
    # An einsum diagonal over an unknown size reads the example's size (1) for its identity.
    def diagonal(x):
        return tf.einsum("ii->i", x)

    spec = tf.TensorSpec([None, None], tf.float32)
    cf = tf.function(diagonal).get_concrete_function(spec)
    with pytest.raises(ValueError, match="traced at shapes"):
        cf(tf.ones([3, 3]))


def test_a_mean_over_an_unknown_size_serves_every_size():
    cf = tf.function(tf.reduce_mean).get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert float(cf(tf.constant([1.0, 2.0, 3.0]))) == 2.0
    assert float(cf(tf.constant([1.0, 5.0]))) == 3.0


def test_one_dimensional_arguments_take_the_width_entry():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 9)).astype(np.float32)  # NCW
    f = rng.standard_normal((3, 3, 4)).astype(np.float32)
    ncw = tf.nn.conv1d(x, f, [1, 1, 2], "VALID", data_format="NCW")
    nwc = tf.nn.conv1d(np.transpose(x, [0, 2, 1]), f, np.int64(2), "VALID")
    np.testing.assert_allclose(np.transpose(ncw.numpy(), [0, 2, 1]), nwc.numpy(), rtol=1e-6)


def test_enormous_windows_are_refused():
    with pytest.raises(tf.errors.InvalidArgumentError, match="too large"):
        tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([5, 1, 1, 1]), 1, "SAME", dilations=[2**62, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="too large"):
        tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 2**32, 1, "SAME")


@pytest.mark.parametrize("pad", [200_000, 2**32 - 1])
def test_huge_explicit_padding_raises_instead_of_allocating_or_wrapping(device, pad):
    """Explicit padding is unbounded: an output too large to allocate (or whose element count
    would wrap) is ResourceExhaustedError on either device, not an abort or an empty tensor."""
    x = tf.ones([1, 1, 1, 1])
    padding = [[0, 0], [0, pad], [0, pad], [0, 0]]
    with pytest.raises((tf.errors.ResourceExhaustedError, tf.errors.InvalidArgumentError)):
        tf.nn.conv2d(x, tf.ones([1, 1, 1, 1]), 1, padding)
