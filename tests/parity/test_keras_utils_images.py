"""`tf.keras.utils` image helpers (Pillow-backed; Pillow is a test dependency of both
environments) against Keras under TensorFlow 2.21: array/image round trips in both data formats,
scaling, grey ("L" and 32-bit "I") and RGBA images, `save_img`/`load_img` with resizing, cropping
and in-memory files, the RGBA-to-JPEG warning, and errors (classes and messages)."""

from ._optional_modules import require_modules
from ._outcomes import error_classes
from .harness import assert_parity


def _utils_images(tf, directory):
    import io
    import os
    import warnings

    import numpy as np

    U = tf.keras.utils
    out = []
    x = np.arange(2 * 3 * 3, dtype="float32").reshape(2, 3, 3)
    img = U.array_to_img(x)
    raw = U.array_to_img(x, scale=False)
    first = U.img_to_array(img, data_format="channels_first")
    back = U.array_to_img(first, data_format="channels_first", scale=False)
    out += [(img.mode, img.size), U.img_to_array(img), np.asarray(raw), first, np.asarray(back)]
    grey = U.array_to_img(np.full((2, 2, 1), 7.0), scale=False)
    wide = U.array_to_img(np.full((2, 2, 1), 300.0), scale=False)
    rgba = U.array_to_img(np.linspace(0, 1, 16).reshape(2, 2, 4))
    for image in (grey, wide, rgba):
        out.append((image.mode, U.img_to_array(image)))
    out.append(U.img_to_array(grey, data_format="channels_first", dtype="int32"))
    pixels = np.random.RandomState(0).randint(0, 255, size=(6, 8, 3)).astype("float32")
    path = os.path.join(directory, f"a_{tf.__name__}.png")
    U.save_img(path, pixels, scale=False)
    for kwargs in (
        {},
        dict(color_mode="grayscale"),
        dict(color_mode="rgba"),
        dict(target_size=(3, 4), interpolation="bilinear"),
        dict(target_size=(4, 4), keep_aspect_ratio=True),
    ):
        loaded = U.load_img(path, **kwargs)
        out.append((loaded.mode, loaded.size, U.img_to_array(loaded)))
    with open(path, "rb") as handle:
        out.append(U.img_to_array(U.load_img(io.BytesIO(handle.read()))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        U.save_img(os.path.join(directory, f"b_{tf.__name__}.jpg"), np.zeros((2, 2, 4)))
    out.append([(w.category.__name__, str(w.message)) for w in caught])
    calls = [
        lambda: U.array_to_img(np.zeros((2, 2))),
        lambda: U.array_to_img(np.zeros((2, 2, 2))),
        lambda: U.img_to_array(np.zeros((2,))),
        lambda: U.load_img(3),
        lambda: U.load_img(path, color_mode="cmyk"),
        lambda: U.load_img(path, target_size=(1, 1), interpolation="cubic"),
    ]
    return out + error_classes(calls, messages=True)


def test_utils_images(tf_oracle, tmp_path):
    require_modules(tf_oracle, "PIL")
    result = assert_parity(tf_oracle, _utils_images, (str(tmp_path),), helpers=[error_classes])
    assert result[0] != "raised", result
