"""JPEG XL (`tf.image.decode_jxl`, and JPEG XL through every decode op) against TensorFlow, on
the CPU and under a GPU device scope (codecs soft-place to the host). The files were made once
by libjxl's `cjxl` (0.7) from the PNGs beside them: lossless ones (grey, grey + alpha, RGB,
RGBA, noise, a three-frame animation) decode bit-exact; lossy ones (`-d 1`) within one level,
the one known difference (see `_LOSSY_ATOL`)."""

from pathlib import Path

import numpy as np
import pytest

from . import _codec_files as files
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "jxl"
LOSSLESS = sorted(FIXTURES.glob("*_lossless.jxl")) + [FIXTURES / "anim.jxl"]
LOSSY = sorted(FIXTURES.glob("*_lossy.jxl"))
# jxl-rs (0.5 to 0.8, whichever TensorFlow 2.21 bundles is not known) renders lossy files with
# up to one level of difference from TensorFlow's build in about a quarter of the samples: a
# float pipeline's rounding, not a layout or colour difference (lossless files agree exactly).
_LOSSY_ATOL = 1


def _blobs(paths):
    return [p.read_bytes() for p in paths]


def _decodes(tf, blobs, device):
    """Every way to decode each file: decode_jxl with each channel count, the other decode ops
    (all decode JPEG XL as 3-D uint8), decode_image with and without expand_animations."""
    out = []
    _decode_all(tf, blobs, device, out)
    return out


def _decode_all(tf, blobs, device, out):
    with tf.device(device):
        for blob in blobs:
            for channels in (0, 1, 3, 4):
                try:
                    out.append(tf.image.decode_jxl(blob, channels=channels))
                except tf.errors.InvalidArgumentError as e:
                    out.append(type(e).__name__)
            for op in (tf.io.decode_png, tf.io.decode_jpeg, tf.io.decode_bmp, tf.io.decode_gif):
                try:
                    out.append(op(blob))
                except tf.errors.InvalidArgumentError as e:
                    out.append(type(e).__name__)
            out.append(tf.io.decode_and_crop_jpeg(blob, [0, 0, 1, 1]))
            out.append(tf.io.decode_image(blob))
            out.append(tf.io.decode_image(blob, expand_animations=False))


@pytest.mark.parametrize("device", DEVICES)
def test_lossless_files_decode_bit_exact(tf_oracle, device):
    assert_parity(
        tf_oracle, _decodes, (_blobs(LOSSLESS), device), rtol=0, atol=0, helpers=[_decode_all]
    )


@pytest.mark.parametrize("device", DEVICES)
def test_lossy_files_decode_within_one_level(tf_oracle, device):
    expected = assert_parity(
        tf_oracle,
        _lossy,
        (_blobs(LOSSY), device),
        rtol=0,
        atol=_LOSSY_ATOL,
        helpers=[_decode_all],
    )
    assert len(expected[1]) > 40  # the decodes did run


def _lossy(tf, blobs, device):
    """The lossy decodes as float32 (the harness compares integers exactly)."""
    out = []
    _decode_all(tf, blobs, device, out)
    return [x if isinstance(x, str) else tf.cast(x, tf.float32) for x in out]


def test_lossless_files_hold_their_source_pixels():
    """Without TensorFlow: the lossless files are the PNGs they were made from."""
    import ferroflow as tf

    for path in LOSSLESS[:-1]:
        png = FIXTURES / path.name.replace("_lossless.jxl", ".png")
        want = tf.io.decode_png(png.read_bytes()).numpy()
        got = tf.image.decode_jxl(path.read_bytes()).numpy()
        np.testing.assert_array_equal(got, want)


def _errors(tf, jxl, others):
    """Bad inputs, each an exception class and message as TensorFlow's (the text after the
    node name), or a result's dtype and shape."""

    def outcome(call):
        try:
            result = call()
            return (result.dtype.name, tuple(result.shape))
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            message = str(e)
            if message.startswith("{{function_node"):
                message = message.split("}}", 1)[1]
            return (type(e).__name__, message.split("\n\t; NodeDef")[0].split(" [Op:")[0].strip())

    calls = [lambda n=n: tf.image.decode_jxl(jxl[:n]) for n in (0, 2, 5, 12, 40, len(jxl) - 3)]
    calls += [
        lambda: tf.image.decode_jxl(b"\xff\x0a" + b"\0" * 20),
        lambda: tf.image.decode_jxl(jxl, channels=2),
        lambda: tf.image.decode_jxl(jxl, channels=-1),
        lambda: tf.image.decode_jxl(jxl, dtype=tf.uint16),
        lambda: tf.image.decode_jxl([jxl, jxl]),
        lambda: tf.io.decode_image(jxl, dtype=tf.uint16),
        lambda: tf.io.decode_image(jxl, dtype=tf.float32),
        lambda: tf.io.decode_png(jxl, dtype=tf.uint16),
    ]
    # Other formats through DecodeJxl: PNG and JPEG as DecodePng does, GIF and BMP refused.
    calls += [
        lambda blob=blob, c=c: tf.image.decode_jxl(blob, channels=c)
        for blob in others
        for c in (0, 1, 4)
    ]
    return [outcome(call) for call in calls]


def test_errors_and_other_formats(tf_oracle):
    jxl = (FIXTURES / "rgb_lossless.jxl").read_bytes()
    gif = files.gif(4, 3, bytes([0, 0, 0, 255, 0, 0]), [(0, 0, 4, 3, [1] * 12, None)])
    bmp = files.bmp(2, 2, 24, [b"\0" * 8, b"\xff" * 8])
    png = (FIXTURES / "rgb.png").read_bytes()
    assert_parity(tf_oracle, _errors, (jxl, [gif, bmp, png]), rtol=0, atol=0)


def _traced_shapes(tf):
    spec = tf.TensorSpec([], tf.string)
    out = []
    for channels in (0, 4):
        traced = tf.function(lambda x, c=channels: tf.image.decode_jxl(x, channels=c))
        concrete = traced.get_concrete_function(spec)
        out.append((concrete.output_shapes.as_list(), concrete.output_dtypes.name))
    return out


def test_traced_shapes(tf_oracle):
    assert_parity(tf_oracle, _traced_shapes, rtol=0, atol=0)
