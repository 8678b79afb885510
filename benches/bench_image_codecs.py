"""Image codecs: decode_jpeg of a 1024x768 RGB image (4:2:0, quality 90; both DCT methods, and
ratio 2), decode_png of the same image, decode_jxl of it (lossy, libjxl's `cjxl -d 1`, kept in
benches/data), and encode_jpeg / encode_png, ferroflow against TensorFlow (run in its own
interpreter, FERROFLOW_TF_PYTHON) on the same bytes. Prints the times and ferroflow's speed
ratio."""

import json
import sys
from pathlib import Path

import numpy as np
from _harness import best_time, report, run_tensorflow

HEIGHT, WIDTH = 768, 1024
JXL_PATH = Path(__file__).resolve().parent / "data" / "codecs_1024x768_d1.jxl"


def _image():
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    base = np.stack([np.sin(x / 37.0 + k) + np.cos(y / 23.0 - k) for k in range(3)], -1)
    noise = np.random.default_rng(0).normal(0, 0.05, base.shape)
    return np.clip((base + 2) / 4 * 255 + noise * 255, 0, 255).astype(np.uint8)


def _timings(tf, jpeg, png):
    image = tf.constant(_image())
    jxl = JXL_PATH.read_bytes()
    cases = {
        "decode_jpeg": lambda: tf.io.decode_jpeg(jpeg),
        "decode_jpeg INTEGER_ACCURATE": lambda: tf.io.decode_jpeg(
            jpeg, dct_method="INTEGER_ACCURATE"
        ),
        "decode_jpeg ratio=2": lambda: tf.io.decode_jpeg(jpeg, ratio=2),
        "decode_png": lambda: tf.io.decode_png(png),
        "decode_jxl": lambda: tf.io.decode_jxl(jxl),
        "encode_jpeg q90": lambda: tf.io.encode_jpeg(image, quality=90),
        "encode_png": lambda: tf.io.encode_png(image),
    }
    return {name: best_time(lambda f=f: f().numpy(), repeat=5) for name, f in cases.items()}


def tensorflow_half(jpeg_path, png_path):
    import tensorflow as tf

    with open(jpeg_path, "rb") as j, open(png_path, "rb") as p:
        jpeg, png = j.read(), p.read()
    print(json.dumps(_timings(tf, jpeg, png)))


def main():
    import tempfile

    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    image = _image()
    jpeg = tf.io.encode_jpeg(image, quality=90).numpy()
    png = tf.io.encode_png(image).numpy()
    with tempfile.TemporaryDirectory() as tmp:
        # Both frameworks decode the same bytes.
        paths = [f"{tmp}/image.jpg", f"{tmp}/image.png"]
        for path, data in zip(paths, (jpeg, png)):
            with open(path, "wb") as f:
                f.write(data)
        theirs = run_tensorflow(__file__, *paths) or {}
    mine = _timings(tf, jpeg, png)
    rows = [
        (name, mine[name] * 1e3, None, theirs.get(name) and theirs[name] * 1e3) for name in mine
    ]
    report(f"image codecs, {WIDTH}x{HEIGHT} RGB, quality 90", rows, "ms")


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_half(*sys.argv[sys.argv.index("--tensorflow") + 1 :])
    else:
        main()
