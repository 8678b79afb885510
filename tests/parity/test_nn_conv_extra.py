"""Transposed convolutions, conv3d, atrous convolutions and the depthwise backprops of `tf.nn`
against TensorFlow: values, shapes, a traced call and gradients to every input, CPU and GPU,
and the errors of TensorFlow 2.21's CPU kernels (its oneDNN Conv2DBackpropInput refuses a
wrong output shape with AbortedError)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _run(tf, case, device, dtype):
    """One case eagerly, traced, and the gradients of a weighted sum to its inputs."""
    import numpy as np

    rng = np.random.default_rng(5)

    def a(*shape):
        return tf.constant(rng.standard_normal(shape).astype(dtype))

    cases = {
        "t2d_same_s2": (
            (a(2, 3, 3, 4), a(3, 3, 5, 4)),
            lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 6, 6, 5], 2),
        ),
        "t2d_valid_s2": (
            (a(2, 3, 3, 4), a(3, 3, 5, 4)),
            lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 7, 7, 5], [2, 2], "VALID"),
        ),
        "t2d_same_odd": (
            (a(1, 3, 4, 2), a(2, 3, 3, 2)),
            lambda x, w: tf.nn.conv2d_transpose(x, w, [1, 5, 7, 3], [1, 2, 2, 1], "SAME"),
        ),
        "t2d_dilated": (
            (a(2, 3, 3, 4), a(3, 3, 5, 4)),
            lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 3, 3, 5], 1, "SAME", dilations=2),
        ),
        "t2d_explicit": (
            (a(1, 4, 4, 2), a(3, 3, 3, 2)),
            lambda x, w: tf.nn.conv2d_transpose(
                x, w, [1, 6, 5, 3], 1, [[0, 0], [0, 0], [1, 0], [0, 0]]
            ),
        ),
        "t2d_tensor_shape": (
            (a(2, 3, 3, 4), a(3, 3, 5, 4)),
            lambda x, w: tf.nn.conv2d_transpose(x, w, tf.constant([2, 6, 6, 5]), 2),
        ),
        "t1d": ((a(2, 4, 3), a(3, 2, 3)), lambda x, w: tf.nn.conv1d_transpose(x, w, [2, 8, 2], 2)),
        "t1d_valid": (
            (a(2, 4, 3), a(3, 2, 3)),
            lambda x, w: tf.nn.conv1d_transpose(x, w, [2, 9, 2], 2, "VALID"),
        ),
        "conv3d_same": (
            (a(1, 3, 4, 4, 2), a(2, 3, 3, 2, 3)),
            lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME"),
        ),
        "conv3d_valid_strided": (
            (a(2, 5, 4, 5, 2), a(2, 3, 2, 2, 3)),
            lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "VALID"),
        ),
        "conv3d_dilated": (
            (a(1, 7, 6, 6, 2), a(2, 3, 3, 2, 3)),
            lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 2, 1]),
        ),
        "t3d": (
            (a(1, 2, 2, 2, 3), a(2, 3, 3, 2, 3)),
            lambda x, w: tf.nn.conv3d_transpose(x, w, [1, 4, 4, 4, 2], 2),
        ),
        "t3d_valid": (
            (a(1, 2, 3, 2, 3), a(2, 2, 3, 2, 3)),
            lambda x, w: tf.nn.conv3d_transpose(x, w, [1, 3, 5, 4, 2], [1, 1, 2, 2, 1], "VALID"),
        ),
        "conv_transpose_2d": (
            (a(2, 3, 3, 4), a(3, 3, 5, 4)),
            lambda x, w: tf.nn.conv_transpose(x, w, [2, 6, 6, 5], 2),
        ),
        "conv_transpose_1d": (
            (a(2, 4, 3), a(3, 2, 3)),
            lambda x, w: tf.nn.conv_transpose(x, w, [2, 8, 2], 2),
        ),
        "atrous": (
            (a(1, 7, 7, 2), a(3, 3, 2, 3)),
            lambda x, w: tf.nn.atrous_conv2d(x, w, 2, "SAME"),
        ),
        "atrous_valid": (
            (a(1, 8, 7, 2), a(2, 3, 2, 3)),
            lambda x, w: tf.nn.atrous_conv2d(x, w, 3, "VALID"),
        ),
        "atrous_t_same": (
            (a(1, 7, 7, 3), a(3, 3, 2, 3)),
            lambda x, w: tf.nn.atrous_conv2d_transpose(x, w, [1, 7, 7, 2], 2, "SAME"),
        ),
        "atrous_t_valid": (
            (a(1, 3, 3, 3), a(3, 3, 2, 3)),
            lambda x, w: tf.nn.atrous_conv2d_transpose(x, w, [1, 7, 7, 2], 2, "VALID"),
        ),
        "atrous_t_rate1": (
            (a(1, 5, 5, 3), a(3, 3, 2, 3)),
            lambda x, w: tf.nn.atrous_conv2d_transpose(x, w, [1, 5, 5, 2], 1, "SAME"),
        ),
        "dw_input": (
            (a(3, 3, 2, 2), a(1, 3, 3, 4)),
            lambda w, dy: tf.nn.depthwise_conv2d_backprop_input(
                [1, 5, 5, 2], w, dy, [1, 2, 2, 1], "SAME"
            ),
        ),
        "dw_filter": (
            (a(1, 5, 5, 2), a(1, 3, 3, 4)),
            lambda x, dy: tf.nn.depthwise_conv2d_backprop_filter(
                x, [3, 3, 2, 2], dy, [1, 2, 2, 1], "SAME"
            ),
        ),
        "dw_filter_valid": (
            (a(2, 6, 5, 3), a(2, 5, 4, 3)),
            lambda x, dy: tf.nn.depthwise_conv2d_backprop_filter(
                x, [2, 2, 3, 1], dy, [1, 1, 1, 1], "VALID"
            ),
        ),
    }
    inputs, fn = cases[case]
    with tf.device(device):
        eager = fn(*inputs)
        traced = tf.function(fn)(*inputs)
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            y = fn(*inputs)
            weights = tf.reshape(tf.cast(tf.range(tf.size(y)), y.dtype) / 7.0, tf.shape(y))
            total = tf.reduce_sum(y * tf.sin(weights))
        grads = tape.gradient(total, list(inputs))
    return eager, traced, grads


CASES = [
    "t2d_same_s2",
    "t2d_valid_s2",
    "t2d_same_odd",
    "t2d_dilated",
    "t2d_explicit",
    "t2d_tensor_shape",
    "t1d",
    "t1d_valid",
    "conv3d_same",
    "conv3d_valid_strided",
    "conv3d_dilated",
    "t3d",
    "t3d_valid",
    "conv_transpose_2d",
    "conv_transpose_1d",
    "atrous",
    "atrous_valid",
    "atrous_t_same",
    "atrous_t_valid",
    "atrous_t_rate1",
    "dw_input",
    "dw_filter",
    "dw_filter_valid",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_conv_extra_float32(tf_oracle, case, device):
    assert_parity(tf_oracle, _run, (case, device, "float32"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["t2d_same_s2", "t1d", "conv3d_same", "t3d", "dw_filter"])
def test_conv_extra_float64(tf_oracle, case):
    assert_parity(tf_oracle, _run, (case, "CPU:0", "float64"), rtol=1e-10, atol=1e-10)


def _errors(tf, which):
    x, w = tf.ones([2, 3, 3, 4]), tf.ones([3, 3, 5, 4])
    x5, w5 = tf.ones([1, 3, 4, 4, 2]), tf.ones([2, 3, 3, 2, 3])
    if which == "t2d_wrong_shape":
        return tf.nn.conv2d_transpose(x, w, [2, 5, 5, 5], 1)
    if which == "t2d_wrong_channels":
        return tf.nn.conv2d_transpose(x, tf.ones([3, 3, 5, 3]), [2, 6, 6, 5], 2)
    if which == "t1d_format":
        return tf.nn.conv1d_transpose(
            tf.ones([1, 4, 3]), tf.ones([3, 2, 3]), [1, 8, 2], 2, data_format="NHWC"
        )
    if which == "conv3d_batch_stride":
        return tf.nn.conv3d(x5, w5, [2, 1, 1, 1, 1], "SAME")
    if which == "conv3d_strides_length":
        return tf.nn.conv3d(x5, w5, [1, 1, 1], "SAME")
    if which == "conv_transpose_rank":
        return tf.nn.conv_transpose(x, w, [2, 6], 2)
    if which == "atrous_rate":
        return tf.nn.atrous_conv2d(x, tf.ones([3, 3, 4, 2]), 0, "SAME")
    if which == "atrous_t_channels":
        return tf.nn.atrous_conv2d_transpose(x, tf.ones([3, 3, 2, 3]), [2, 6, 6, 2], 2, "SAME")
    if which == "atrous_t_padding":
        return tf.nn.atrous_conv2d_transpose(x, w, [2, 6, 6, 5], 2, "FULL")
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which",
    [
        "t2d_wrong_shape",
        "t2d_wrong_channels",
        "t1d_format",
        "conv3d_batch_stride",
        "conv3d_strides_length",
        "conv_transpose_rank",
        "atrous_rate",
        "atrous_t_channels",
        "atrous_t_padding",
    ],
)
def test_conv_extra_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
