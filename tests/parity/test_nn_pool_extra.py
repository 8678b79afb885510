"""3-D pooling, `pool`/`with_space_to_batch`, `dilation2d`/`erosion2d`, `max_pool_with_argmax`,
`depth_to_space`/`space_to_depth` and `space_to_batch` of `tf.nn` against TensorFlow: values,
dtypes, shapes, a traced call and gradients (to the first maximum where TensorFlow's kernels
route them so), on CPU and GPU, and the errors of TensorFlow 2.21's CPU kernels."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _run(tf, case, device, dtype):
    """One case eagerly, traced, and the gradients of a weighted sum of its floating outputs."""
    import numpy as np

    rng = np.random.default_rng(11)

    def a(*shape):
        return tf.constant(rng.standard_normal(shape).astype(dtype))

    def conv_op(inp, num, padding):
        return tf.nn.conv2d(inp, tf.ones([3, 3, 3, 2], inp.dtype), 1, padding)

    x5, x, f = a(2, 5, 6, 7, 3), a(2, 7, 6, 3), a(3, 2, 3)
    cases = {
        "max3d_same": (x5, lambda x: tf.nn.max_pool3d(x, 2, 2, "SAME")),
        "max3d_valid": (
            x5,
            lambda x: tf.nn.max_pool3d(x, [1, 3, 2, 2, 1], [1, 2, 1, 2, 1], "VALID"),
        ),
        "avg3d_same": (x5, lambda x: tf.nn.avg_pool3d(x, 3, 2, "SAME")),
        "avg3d_valid": (x5, lambda x: tf.nn.avg_pool3d(x, [2, 3, 3], [1, 2, 2], "VALID")),
        "pool_max_dilated": (x, lambda x: tf.nn.pool(x, [2, 2], "MAX", dilations=[2, 3])),
        "pool_avg_dilated": (x, lambda x: tf.nn.pool(x, [3, 2], "AVG", dilations=[2, 1])),
        "pool_avg_strided": (x, lambda x: tf.nn.pool(x, [2, 2], "AVG", [2, 2], "SAME")),
        "pool_1d": (
            a(2, 9, 3),
            lambda x: tf.nn.pool(x, [3], "MAX", padding="VALID", dilations=[2]),
        ),
        "pool_3d": (x5, lambda x: tf.nn.pool(x, [2, 2, 2], "AVG", [1, 2, 1], "SAME")),
        "with_s2b_same": (
            x,
            lambda x: tf.nn.with_space_to_batch(x, [2, 2], "SAME", conv_op, filter_shape=[3, 3]),
        ),
        "with_s2b_valid": (x, lambda x: tf.nn.with_space_to_batch(x, [2, 1], "VALID", conv_op)),
        "dilation_same": (
            x,
            lambda x: tf.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
        ),
        "dilation_valid": (
            x,
            lambda x: tf.nn.dilation2d(x, f, [1, 2, 2, 1], "VALID", "NHWC", [1, 1, 2, 1]),
        ),
        "dilation_rates": (
            x,
            lambda x: tf.nn.dilation2d(x, f, [1, 2, 1, 1], "SAME", "NHWC", [1, 2, 1, 1]),
        ),
        "erosion": (x, lambda x: tf.nn.erosion2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])),
        "argmax_same": (x, lambda x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")),
        "argmax_valid": (
            x,
            lambda x: tf.nn.max_pool_with_argmax(
                x, 3, [1, 2, 1, 1], "VALID", include_batch_in_index=True
            ),
        ),
        "depth_to_space": (a(2, 2, 3, 8), lambda x: tf.nn.depth_to_space(x, 2)),
        "space_to_depth": (a(2, 4, 6, 3), lambda x: tf.nn.space_to_depth(x, 2)),
        "space_to_depth_3": (a(1, 6, 3, 2), lambda x: tf.nn.space_to_depth(x, 3)),
        "space_to_batch": (x, lambda x: tf.nn.space_to_batch(x, [2, 2], [[1, 0], [0, 0]])),
    }
    x, fn = cases[case]
    with tf.device(device):
        eager = fn(x)
        traced = tf.function(fn)(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nest.flatten(fn(x))[0]
            weights = tf.reshape(tf.cast(tf.range(tf.size(y)), y.dtype) / 5.0, tf.shape(y))
            total = tf.reduce_sum(y * tf.cos(weights))
        grad = tape.gradient(total, x)
    return eager, traced, grad


CASES = [
    "max3d_same",
    "max3d_valid",
    "avg3d_same",
    "avg3d_valid",
    "pool_max_dilated",
    "pool_avg_dilated",
    "pool_avg_strided",
    "pool_1d",
    "pool_3d",
    "with_s2b_same",
    "with_s2b_valid",
    "dilation_same",
    "dilation_valid",
    "dilation_rates",
    "erosion",
    "argmax_same",
    "argmax_valid",
    "depth_to_space",
    "space_to_depth",
    "space_to_depth_3",
    "space_to_batch",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_pool_extra_float32(tf_oracle, case, device):
    assert_parity(tf_oracle, _run, (case, device, "float32"), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("case", ["dilation_same", "argmax_same", "depth_to_space", "erosion"])
def test_pool_extra_float64(tf_oracle, case):
    assert_parity(tf_oracle, _run, (case, "CPU:0", "float64"), rtol=1e-12, atol=1e-12)


def _ties(tf, device):
    """Equal values in a window: the gradient goes to the first, as TensorFlow's kernels."""
    x = tf.constant([[[[1.0], [1.0], [0.0]], [[1.0], [1.0], [2.0]], [[3.0], [3.0], [3.0]]]])
    f = tf.zeros([2, 2, 1])
    with tf.device(device):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, f])
            pooled, argmax = tf.nn.max_pool_with_argmax(x, 2, 1, "VALID")
            dilated = tf.nn.dilation2d(x, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])
        return (
            pooled,
            argmax,
            tape.gradient(pooled, x),
            dilated,
            tape.gradient(dilated, x),
            tape.gradient(dilated, f),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_window_maxima_ties(tf_oracle, device):
    assert_parity(tf_oracle, _ties, (device,))


def _non_finite(tf, device):
    """-inf and NaN in windows, as TensorFlow's kernels scan them: MaxPoolWithArgmax keeps its
    first inside tap (even NaN or -inf; padding never wins), Dilation2D only takes values
    above the dtype's lowest (NaN skipped, a window of -inf gives lowest), and so does
    MaxPool3D."""
    import numpy as np

    inf, nan = np.inf, np.nan
    x = tf.constant([[[[nan], [1.0], [-inf]], [[3.0], [-inf], [-inf]], [[-inf], [-inf], [-inf]]]])
    f = tf.zeros([2, 2, 1])
    with tf.device(device):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, f])
            same = tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")
            wide = tf.nn.max_pool_with_argmax(x, 3, 1, "SAME", include_batch_in_index=True)
            dilated = tf.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])
            eroded = tf.nn.erosion2d(-x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])
            cube = tf.nn.max_pool3d(tf.reshape(x[:, :2, :2], [1, 2, 2, 1, 1]), 2, 1, "SAME")
        return (
            cube,
            tape.gradient(cube, x),
            same,
            wide,
            tape.gradient(tf.reduce_sum(wide.output), x),
            dilated,
            eroded,
            tape.gradient(dilated[0, :2, :2], [x, f]),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_window_maxima_non_finite(tf_oracle, device):
    assert_parity(tf_oracle, _non_finite, (device,))


def _max_pool_non_finite(tf, device, dtype):
    """MaxPool (2-D and 1-D, its gradient too) over NaN and -inf, as TensorFlow's CPU kernel:
    only values above the dtype's lowest count, so NaN never propagates and a window of -inf
    or NaN pools to the lowest finite value (once NaN-propagating here, silently)."""
    import numpy as np

    inf, nan = np.inf, np.nan
    rows = [[nan, 1.0, -inf, -inf], [2.0, nan, -inf, -inf], [0.5, -1.0, nan, nan], [3, inf, nan, 1]]
    x = tf.constant(np.array(rows, dtype).reshape(1, 4, 4, 1))
    with tf.device(device):
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = [
                tf.nn.max_pool2d(x, 2, 2, "VALID"),
                tf.nn.max_pool2d(x, 3, 1, "SAME"),
                tf.nn.max_pool1d(tf.reshape(x, [1, 16, 1]), 2, 2, "VALID"),
            ]
            loss = tf.add_n([tf.reduce_sum(tf.where(o > -1e30, o, 0.0)) for o in out[:2]])
        return out, tape.gradient(loss, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_non_finite(tf_oracle, device, dtype):
    assert_parity(tf_oracle, _max_pool_non_finite, (device, dtype))


def _integers(tf):
    x = tf.reshape(tf.constant([3, -1, 4, 1, -5, 9, 2, 6, 5, 3, -5, 8, 9, 7, 9, 3]), [1, 4, 4, 1])
    return (
        tf.nn.dilation2d(
            x, tf.constant([[[1], [-2]], [[0], [3]]]), [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]
        ),
        tf.nn.max_pool_with_argmax(x, 2, 2, "SAME"),
        tf.nn.max_pool_with_argmax(tf.cast(x, tf.float32), 3, 1, "SAME", output_dtype=tf.int32),
        tf.nn.depth_to_space(tf.reshape(x, [1, 2, 2, 4]), 2),
        tf.nn.space_to_depth(x, 2),
    )


def test_integer_windows(tf_oracle):
    assert_parity(tf_oracle, _integers)


def _errors(tf, which):
    x5 = tf.ones([1, 4, 4, 4, 2])
    x = tf.ones([1, 4, 5, 3])
    if which == "max3d_float64":
        return tf.nn.max_pool3d(tf.cast(x5, tf.float64), 2, 2, "SAME")
    if which == "max3d_float16":
        return tf.nn.max_pool3d(tf.cast(x5, tf.float16), 2, 2, "SAME")
    if which == "avg3d_float64":
        return tf.nn.avg_pool3d(tf.cast(x5, tf.float64), 2, 2, "SAME")
    if which == "avg3d_int":
        return tf.nn.avg_pool3d(tf.cast(x5, tf.int32), 2, 2, "SAME")
    if which == "pool_same_dilated":
        return tf.nn.pool(x, [2, 2], "MAX", padding="SAME", dilations=[2, 2])
    if which == "pool_stride_and_dilation":
        return tf.nn.pool(x, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2])
    if which == "pool_type":
        return tf.nn.pool(x, [2, 2], "MIN")
    if which == "dilation_format":
        return tf.nn.dilation2d(x, tf.ones([2, 2, 3]), [1, 1, 1, 1], "SAME", "NCHW", [1, 1, 1, 1])
    if which == "erosion_format":
        return tf.nn.erosion2d(x, tf.ones([2, 2, 3]), [1, 1, 1, 1], "SAME", "NCHW", [1, 1, 1, 1])
    if which == "argmax_format":
        return tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", data_format="NCHW")
    if which == "space_to_depth_size":
        return tf.nn.space_to_depth(x, 2)
    if which == "depth_to_space_depth":
        return tf.nn.depth_to_space(x, 2)
    if which == "depth_to_space_block":
        return tf.nn.depth_to_space(tf.ones([1, 2, 2, 4]), 1)
    if which == "depth_to_space_nchw":
        return tf.nn.depth_to_space(tf.ones([1, 4, 2, 2]), 2, data_format="NCHW")
    raise AssertionError(which)


ERRORS = [
    "max3d_float64",
    "max3d_float16",
    "avg3d_float64",
    "avg3d_int",
    "pool_same_dilated",
    "pool_stride_and_dilation",
    "pool_type",
    "dilation_format",
    "erosion_format",
    "argmax_format",
    "space_to_depth_size",
    "depth_to_space_depth",
    "depth_to_space_block",
    "depth_to_space_nchw",
]


@pytest.mark.parametrize("which", ERRORS)
def test_pool_extra_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
