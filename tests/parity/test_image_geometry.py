"""`tf.image` flips, rotations, crops, pads and dtype conversion against TensorFlow, on the CPU
and the GPU: one image and batches, uint8 / int / float images, bad shapes and arguments."""

import numpy as np
import pytest

from ._image_cases import outcomes, run_case
from .harness import assert_parity

RNG = np.random.default_rng(0)
IMG = RNG.random((4, 5, 3)).astype(np.float32)
BATCH = RNG.random((2, 4, 5, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (3, 4, 2)).astype(np.uint8)
I32 = RNG.integers(0, 50, (2, 3, 4, 1)).astype(np.int32)

CASES = [
    ("flip_left_right", (IMG,), {}),
    ("flip_left_right", (BATCH,), {}),
    ("flip_left_right", (U8,), {}),
    ("flip_left_right", (IMG[0],), {}),
    ("flip_left_right", (np.zeros((0, 2, 3), np.float32),), {}),
    ("flip_up_down", (BATCH,), {}),
    ("flip_up_down", (I32,), {}),
    ("flip_up_down", (np.zeros((1, 2, 3, 4, 5), np.float32),), {}),
    ("transpose", (IMG,), {}),
    ("transpose", (BATCH,), {}),
    ("transpose", (IMG[0],), {}),
    *[("rot90", (IMG,), {"k": k}) for k in (-1, 0, 1, 2, 3, 5)],
    *[("rot90", (BATCH,), {"k": k}) for k in (1, 2, 3)],
    ("rot90", (U8,), {}),
    ("crop_to_bounding_box", (IMG, 1, 2, 2, 3), {}),
    ("crop_to_bounding_box", (BATCH, 0, 0, 4, 5), {}),
    ("crop_to_bounding_box", (U8, 1, 1, 2, 2), {}),
    ("crop_to_bounding_box", (IMG, 3, 2, 2, 3), {}),
    ("crop_to_bounding_box", (IMG, -1, 0, 2, 3), {}),
    ("crop_to_bounding_box", (IMG, 0, 0, 0, 3), {}),
    ("crop_to_bounding_box", (IMG[0], 0, 0, 1, 1), {}),
    ("pad_to_bounding_box", (IMG, 1, 2, 6, 8), {}),
    ("pad_to_bounding_box", (BATCH, 0, 0, 4, 5), {}),
    ("pad_to_bounding_box", (U8, 2, 0, 5, 4), {}),
    ("pad_to_bounding_box", (IMG, 3, 0, 6, 8), {}),
    ("pad_to_bounding_box", (IMG, -1, 0, 6, 8), {}),
    ("central_crop", (IMG, 0.5), {}),
    ("central_crop", (BATCH, 0.33), {}),
    ("central_crop", (U8, 1.0), {}),
    ("central_crop", (IMG, 0.0), {}),
    ("central_crop", (IMG, 1.5), {}),
    ("central_crop", (IMG[0], 0.5), {}),
    ("resize_with_crop_or_pad", (IMG, 2, 3), {}),
    ("resize_with_crop_or_pad", (IMG, 7, 9), {}),
    ("resize_with_crop_or_pad", (BATCH, 3, 8), {}),
    ("resize_with_crop_or_pad", (U8, 5, 1), {}),
    ("resize_with_crop_or_pad", (IMG, 0, 3), {}),
]

DTYPE_CASES = [
    (src, dst, saturate)
    for src in (
        "uint8",
        "int8",
        "uint16",
        "int16",
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
    )
    for dst in ("uint8", "int8", "uint16", "int32", "int64", "float16", "float32", "float64")
    for saturate in (False, True)
]


def _values(dtype):
    if dtype.startswith("float"):
        return np.array([[[0.0], [0.25], [0.5]], [[1.0], [-0.3], [1.7]]], dtype)
    info = np.iinfo(dtype)
    return np.array([[[info.min], [0], [1]], [[info.max // 3], [info.max - 1], [info.max]]], dtype)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_image_geometry(tf_oracle, case, device):
    run_case(tf_oracle, CASES, case, device)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("src, dst, saturate", DTYPE_CASES)
def test_convert_image_dtype(tf_oracle, src, dst, saturate, device):
    args = (_values(src), np.dtype(dst).name if dst != "float16" else "float16")
    assert_parity(tf_oracle, _convert, (args[0], dst, saturate, device))


def _convert(tf, values, dtype, saturate, device):
    with tf.device(device):
        x = tf.constant(values)
        fn = tf.function(lambda x: tf.image.convert_image_dtype(x, getattr(tf, dtype), saturate))
        return tf.image.convert_image_dtype(x, getattr(tf, dtype), saturate=saturate), fn(x)


def _bad_dtypes(tf):
    return outcomes(
        lambda: tf.image.convert_image_dtype(tf.constant([True]), tf.float32),
        lambda: tf.image.convert_image_dtype(tf.constant([1.0]), tf.bool),
        lambda: tf.image.convert_image_dtype(tf.constant([1.0]), tf.complex64),
    )


def test_convert_image_dtype_refusals(tf_oracle):
    assert_parity(tf_oracle, _bad_dtypes, helpers=[outcomes])


def _tensor_offsets(tf, device):
    with tf.device(device):
        img = tf.reshape(tf.range(60.0), [4, 5, 3])
        out = [tf.image.crop_to_bounding_box(img, tf.constant(1), 1, 2, 2)]
        out.append(tf.image.pad_to_bounding_box(img, tf.constant(1), 0, 6, 5))
        out.append(tf.image.rot90(img, tf.constant(3)))
        try:
            tf.image.crop_to_bounding_box(img, tf.constant(3), 0, 2, 2)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_tensor_offsets(tf_oracle, device):
    assert_parity(tf_oracle, _tensor_offsets, (device,))


def _geometry_gradients(tf):
    x = tf.reshape(tf.range(24.0), [1, 4, 2, 3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.rot90(x) * tf.reshape(tf.range(24.0), [1, 2, 4, 3])
        y = tf.reduce_sum(tf.image.resize_with_crop_or_pad(y, 3, 5) ** 2)
    return tape.gradient(y, x)


def test_geometry_gradients(tf_oracle):
    assert_parity(tf_oracle, _geometry_gradients)
