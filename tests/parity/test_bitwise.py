"""`tf.bitwise` against TensorFlow, on the CPU and the GPU, for every integer dtype: shift
amounts outside [0, bits - 1] (negative, too large) included, since TensorFlow's kernels clamp
them."""

import pytest

from .harness import assert_parity

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]


def _binary(tf, op, dtype, device):
    signed = not getattr(tf, dtype).is_unsigned
    x = [1, -3 if signed else 200, 5, 7, 0, 100]
    y = [0, 1, 70, -1 if signed else 255, 3, 2]
    with tf.device(device):
        a, b = tf.constant(x, getattr(tf, dtype)), tf.constant(y, getattr(tf, dtype))
        return getattr(tf.bitwise, op)(a, b), tf.function(getattr(tf.bitwise, op))(a, b[:1])


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_bitwise_binary(tf_oracle, op, dtype, device):
    # TensorFlow (CPU build) places on its CPU; ferroflow runs the named device.
    assert_parity(tf_oracle, _binary, (op, dtype, device))


def _invert(tf, dtype, device):
    with tf.device(device):
        return tf.bitwise.invert(tf.constant([0, 1, 5, 100], getattr(tf, dtype)))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_bitwise_invert(tf_oracle, dtype, device):
    assert_parity(tf_oracle, _invert, (dtype, device))


def _errors(tf):
    out = []
    for fn in (
        lambda: tf.bitwise.left_shift(tf.constant([1.0]), tf.constant([1.0])),
        lambda: tf.bitwise.invert(tf.constant([True])),
        lambda: tf.bitwise.right_shift(tf.constant([1]), tf.constant([1], tf.int64)),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_bitwise_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)
