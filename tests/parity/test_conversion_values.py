"""Python numbers converted to a requested dtype, and `tf.pad`'s `constant_values`, against
TensorFlow: which dtypes take a Python bool (TensorFlow's conversion table: int32, int64,
uint64, the floats but bfloat16, complex128 and bool), and pad values that are floats for an
integer tensor, bools, None or out of range raise instead of being truncated or wrapped
(ferroflow padded an int32 tensor with -2147483648 for 2**70). Not compared: Python ints
beyond 64 bits for float dtypes (TensorFlow converts them; ferroflow raises ValueError), and
uint64, where TensorFlow 2.21 raises SystemError for -1 and 2**70 (a failure inside its
conversion, not a refusal)."""

import pytest

from .harness import assert_parity

DTYPES = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float16",
    "bfloat16", "float32", "float64", "complex64", "complex128", "bool", "qint8", "quint8",
]  # fmt: skip


def _conversions(tf, dtype_names):
    out = {}
    for name in dtype_names:
        dtype = getattr(tf, name)
        results = []
        values = [True, [True, False], 300, -1, 1.5, "a"]
        if dtype.is_integer or dtype.is_quantized:
            values.append(2**70)
        for value in values:
            try:
                results.append(tf.cast(tf.constant(value, dtype), tf.float64))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                results.append(type(e).__name__)
        out[name] = results
    return out


def test_python_values_to_dtypes(tf_oracle):
    assert_parity(tf_oracle, _conversions, (DTYPES,))


def _pad_values(tf):
    out = []
    for dtype in (tf.int32, tf.int8, tf.uint8, tf.float32, tf.qint8, tf.string):
        x = tf.constant(["a", "b"]) if dtype == tf.string else tf.constant([1, 2], dtype)
        values = [0, 0.0, False, True, 1.5, None, 300, -1, "z"]
        if not dtype.is_floating:
            values.append(2**70)
        for value in values:
            try:
                padded = tf.pad(x, [[1, 0]], constant_values=value)
                out.append(padded if dtype == tf.string else tf.cast(padded, tf.float64))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    return out


def test_pad_constant_values(tf_oracle):
    assert_parity(tf_oracle, _pad_values)


def _pad_exact(tf, device):
    """Pad values an f64 cannot hold exactly (padded as 2**53 once), tensors as pad values
    (a dtype or rank other than the input's is InvalidArgumentError), a traced tensor value,
    and MirrorPad, which never reads constant_values."""
    out = []
    with tf.device(device):
        for dtype, value in [
            (tf.int64, 2**53 + 1),
            (tf.int64, -(2**62) - 3),
            (tf.uint64, 2**64 - 1),
            (tf.int64, tf.constant(2**62 + 1, tf.int64)),
            (tf.int64, tf.constant(1.0)),
            (tf.int64, tf.constant(3, tf.int32)),
            (tf.int64, tf.constant([3], tf.int64)),
            (tf.float64, 2**53 + 1),
        ]:
            try:
                out.append(tf.pad(tf.constant([1, 2], dtype), [[1, 1]], constant_values=value))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)

        @tf.function
        def traced(x, v):
            return tf.pad(x, [[1, 1]], constant_values=v)

        out.append(traced(tf.constant([1, 2], tf.int64), tf.constant(2**60 + 7, tf.int64)))
        out.append(tf.pad(tf.constant([1, 2, 3]), [[1, 1]], "REFLECT", constant_values=1.5))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_pad_values_exact(tf_oracle, device):
    assert_parity(tf_oracle, _pad_exact, (device,))
