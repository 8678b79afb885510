"""`tf.concat`, `tf.stack` and a `tf.data` batch of tensors large enough that the CPU copies
them in parallel chunks (above 32,768 values), against TensorFlow: chunks that end inside one
input's row, rows split across chunks, zero-width inputs, every axis, every dtype family."""

import numpy as np
import pytest

from .harness import assert_parity

# (input shapes, axis): outputs of 40,000 to 300,000 values; widths that do not divide the
# chunk size, zero-width inputs first, between and last.
CASES = [
    ([(300, 7, 11), (300, 7, 11)], 0),
    ([(0, 170, 9), (401, 170, 9), (0, 170, 9), (3, 170, 9)], 0),
    ([(57, 131, 5), (57, 0, 5), (57, 300, 5), (57, 1, 5)], 1),
    ([(200, 61, 3), (200, 61, 0), (200, 61, 29)], 2),
    ([(1, 40_000)], 0),
    ([(2, 33_000), (2, 1)], 1),
]


def _concat(tf, shapes, axis, dtype, device):
    import numpy as np

    out = {}
    offset = 0
    arrays = []
    for shape in shapes:
        count = int(np.prod(shape))
        arrays.append(np.arange(offset, offset + count).reshape(shape) % 251)
        offset += count
    with tf.device(device):
        if dtype == "string":
            tensors = [tf.strings.as_string(tf.constant(a)) for a in arrays]
        else:
            # Bools alternate (the values' parity), so a misplaced chunk shows.
            values = [a % 2 if dtype == "bool" else a for a in arrays]
            tensors = [tf.constant(v.astype(dtype)) for v in values]
        out["concat"] = tf.concat(tensors, axis)
        out["traced"] = tf.function(lambda *ts: tf.concat(list(ts), axis))(*tensors)
        same = [t for t in tensors if t.shape == tensors[0].shape]
        out["stack"] = tf.stack(same, axis=axis)
    return out


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "complex64", "string"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_concat_and_stack_of_large_tensors(tf_oracle, device, case, dtype):
    if dtype == "string" and case not in (1, 3):
        pytest.skip("strings: two cases keep the run short")
    shapes, axis = CASES[case]
    expected = assert_parity(tf_oracle, _concat, (shapes, axis, dtype, device))
    assert expected[0] != "raised", expected


def _batched_images(tf, device):
    import numpy as np

    images = np.arange(37 * 90 * 120 * 3, dtype=np.float32).reshape(37, 90, 120, 3) % 997
    with tf.device(device):
        ds = tf.data.Dataset.from_tensor_slices(images)
        ds = ds.map(lambda x: tf.image.resize(x, [64, 80]) / 255.0, num_parallel_calls=2)
        return [b for b in ds.batch(16)]


def test_fused_map_and_batch_of_images(tf_oracle, device):
    expected = assert_parity(tf_oracle, _batched_images, (device,), rtol=1e-6)
    assert expected[0] != "raised", expected


def test_cases_are_above_the_parallel_grain():
    # The chunked copy only runs above 32,768 values: every case must reach it.
    for shapes, axis in CASES:
        total = sum(int(np.prod(s)) for s in shapes)
        assert total > 1 << 15, (shapes, axis)
