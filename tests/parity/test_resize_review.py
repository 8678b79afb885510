"""Regression tests against TensorFlow for what a review of the resize kernel found: bilinear
resizing reads every dtype TensorFlow's ResizeBilinear registers (half, bfloat16 and double
too, value by value) and refuses the others (uint32, uint64) with TensorFlow's error class; a
float image's gradient comes back in its dtype; an output too large for memory is
ResourceExhausted, not an abort (TensorFlow's own process aborts there). ParseExampleV2's
padding check has a Rust unit test: its Python entry points always pass one padding value."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _resize_dtypes(tf, device):
    import numpy as np

    out = []
    image = np.arange(2 * 3 * 4 * 2).reshape(2, 3, 4, 2) % 17
    with tf.device(device):
        for dtype in ["float16", "bfloat16", "float64", "int8", "uint16", "uint32", "uint64"]:
            try:
                y = tf.image.resize(tf.cast(tf.constant(image), dtype), [5, 7])
                out.append((dtype, y.dtype.name, y.numpy()))
            except Exception as e:  # noqa: BLE001 - compared by class
                out.append((dtype, type(e).__name__))
        for dtype in ["float16", "bfloat16", "float64", "float32"]:
            x = tf.cast(tf.constant(image), dtype)
            with tf.GradientTape() as tape:
                tape.watch(x)
                weights = tf.reshape(tf.range(5 * 7 * 2, dtype=tf.float32), [1, 5, 7, 2])
                y = tf.image.resize(x, [5, 7]) * weights
            g = tape.gradient(y, x)
            out.append((dtype, g.dtype.name, g.numpy()))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_resize_bilinear_reads_every_registered_dtype(tf_oracle, device):
    assert_parity(tf_oracle, _resize_dtypes, args=(device,), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("device", DEVICES)
def test_resize_bilinear_output_beyond_memory_is_typed(device):
    # TensorFlow's own process dies on these sizes (its allocator aborts), so this is not a
    # differential test: ferroflow raises the error TensorFlow's allocator reports, and lives.
    import ferroflow as tf

    with tf.device(device):
        x = tf.ones([1, 2, 2, 1])
        for size in ([2**31 - 1, 2**31 - 1], [2**31 - 1, 2**30]):
            with pytest.raises(tf.errors.ResourceExhaustedError):
                tf.image.resize(x, size)
