"""`tf.keras.utils` image helpers (Pillow-backed; TensorFlow's environment here has no Pillow, so
these are checked against NumPy and Pillow directly): array/image round trips in both data
formats, scaling, grey and RGBA images, `save_img`/`load_img` with resizing, and errors."""

import io

import ferroflow as tf
import numpy as np
import pytest

U = tf.keras.utils
PIL = pytest.importorskip("PIL.Image")


def test_array_image_round_trips():
    x = np.arange(2 * 3 * 3, dtype="float32").reshape(2, 3, 3)
    img = U.array_to_img(x)
    assert img.mode == "RGB" and img.size == (3, 2)
    expected = (x - x.min()) / (x.max() - x.min()) * 255
    np.testing.assert_array_equal(U.img_to_array(img), expected.astype("uint8").astype("float32"))
    raw = U.array_to_img(x, scale=False)
    np.testing.assert_array_equal(np.asarray(raw), x.astype("uint8"))
    first = U.img_to_array(img, data_format="channels_first")
    assert first.shape == (3, 2, 3)
    back = U.array_to_img(first, data_format="channels_first", scale=False)
    np.testing.assert_array_equal(np.asarray(back), np.asarray(img))
    grey = U.array_to_img(np.full((2, 2, 1), 7.0), scale=False)
    assert grey.mode == "L" and U.img_to_array(grey).shape == (2, 2, 1)
    assert U.array_to_img(np.full((2, 2, 1), 300.0), scale=False).mode == "I"
    assert U.array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"
    assert U.img_to_array(grey, data_format="channels_first", dtype="int32").dtype == np.int32


def test_save_and_load(tmp_path):
    x = np.random.RandomState(0).randint(0, 255, size=(6, 8, 3)).astype("float32")
    path = tmp_path / "a.png"
    U.save_img(str(path), x, scale=False)
    np.testing.assert_array_equal(U.img_to_array(U.load_img(path)), x)
    assert U.load_img(str(path), color_mode="grayscale").mode == "L"
    assert U.load_img(str(path), color_mode="rgba").mode == "RGBA"
    small = U.load_img(str(path), target_size=(3, 4), interpolation="bilinear")
    expected = PIL.open(path).resize((4, 3), PIL.Resampling.BILINEAR)
    np.testing.assert_array_equal(np.asarray(small), np.asarray(expected))
    cropped = U.load_img(str(path), target_size=(4, 4), keep_aspect_ratio=True)
    assert cropped.size == (4, 4)
    buffer = io.BytesIO(path.read_bytes())
    assert U.load_img(buffer).size == (8, 6)
    with pytest.warns(UserWarning, match="RGBA"):
        U.save_img(str(tmp_path / "b.jpg"), np.zeros((2, 2, 4)))


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="rank 3"):
        U.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="channel number"):
        U.array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="Unsupported image shape"):
        U.img_to_array(np.zeros((2,)))
    with pytest.raises(TypeError, match="path-like"):
        U.load_img(3)
    U.save_img(str(tmp_path / "c.png"), np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="color_mode"):
        U.load_img(str(tmp_path / "c.png"), color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation"):
        U.load_img(str(tmp_path / "c.png"), target_size=(1, 1), interpolation="cubic")
