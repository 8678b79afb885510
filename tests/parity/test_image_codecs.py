"""Image codecs against TensorFlow, on the CPU and under a GPU device scope (they soft-place to
the host): PNG bit-exact both ways (each framework decodes the other's files), JPEG decodes
within one intensity level (files from TensorFlow's encoder: 4:2:0, 4:4:4, greyscale,
progressive; both DCT methods, with and without fancy upscaling, every ratio, crops), GIF
frames, BMP, format sniffing, dtypes, errors, truncated files and the JPEG-quality
augmentations."""

import numpy as np
import pytest

from . import _codec_files as files
from .harness import assert_parity, make_request

DEVICES = ["CPU:0", "GPU:0"]
RNG = np.random.default_rng(19)


def _smooth(h, w, c, dtype=np.uint8):
    """A photo-like image (smooth gradients plus noise), so JPEG has real content to code."""
    top = np.iinfo(dtype).max
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([np.sin(x / 7.0 + k) + np.cos(y / 5.0 - k) for k in range(c)], -1)
    noisy = (base + 2) / 4 + RNG.normal(0, 0.03, (h, w, c))
    return np.clip(noisy * top, 0, top).astype(dtype)


def _tensorflow(oracle, program, *args):
    """TensorFlow's result of `program` (values in the harness's comparable form)."""
    status, value = oracle.run(make_request(program, args))[:2]
    assert status != "raised", value
    return value


def _png_bytes(tf, images):
    return [tf.io.encode_png(x).numpy() for x in images]


def _jpeg_bytes(tf, image, gray):
    out = [
        tf.io.encode_jpeg(image, quality=90),
        tf.io.encode_jpeg(image, quality=75, chroma_downsampling=False),
        tf.io.encode_jpeg(image, quality=85, progressive=True),
        tf.io.encode_jpeg(image[:37, :51], quality=60, optimize_size=True),
        tf.io.encode_jpeg(gray, quality=90),
    ]
    return [b.numpy() for b in out]


def _plain(value):
    """Bytes out of the harness's comparable form, ("py", "bytes", value)."""
    return value[-1]


IMAGES = [_smooth(9, 11, c) for c in (1, 2, 3, 4)] + [
    _smooth(5, 7, c, np.uint16) for c in (1, 2, 3, 4)
]


def _decode_pngs(tf, blobs, dtypes, device):
    out = []
    with tf.device(device):
        for blob, dtype in zip(blobs, dtypes):
            dtype = getattr(tf, dtype)
            other = tf.uint8 if dtype == tf.uint16 else tf.uint16
            out.append(tf.io.decode_png(blob, dtype=dtype))
            for channels in (1, 3, 4):
                out.append(tf.io.decode_png(blob, channels=channels, dtype=dtype))
            out.append(tf.io.decode_png(blob, channels=3, dtype=other))
            out.append(tf.io.decode_image(blob, dtype=tf.float32))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_png_round_trips_bit_exact(tf_oracle, device):
    """Each framework's PNGs decode to the original pixels under both (8/16 bits, 1-4
    channels), and every channel/dtype conversion of them agrees exactly."""
    import ferroflow

    theirs = [_plain(b) for b in _tensorflow(tf_oracle, _png_bytes, IMAGES)]
    ours = _png_bytes(ferroflow, IMAGES)
    dtypes = [x.dtype.name for x in IMAGES] * 2
    assert_parity(tf_oracle, _decode_pngs, (theirs + ours, dtypes, device), rtol=0, atol=0)
    # Parity says TensorFlow decodes our files as we do; here, as the originals.
    for blob, image in zip(theirs + ours, IMAGES * 2):
        dtype = ferroflow.uint16 if image.dtype == np.uint16 else ferroflow.uint8
        np.testing.assert_array_equal(ferroflow.io.decode_png(blob, dtype=dtype).numpy(), image)


def _png_variants():
    plte = files.png_chunk(b"PLTE", bytes([10, 20, 30, 40, 50, 60, 70, 80, 90]))
    return [
        files.png(8, 2, 1, 0, [bytes([0b10110010]), bytes([0b01001101])]),
        files.png(
            4,
            2,
            2,
            0,
            [bytes([0b00011011]), bytes([0b11100100])],
            files.png_chunk(b"tRNS", b"\0\2"),
        ),
        files.png(3, 1, 4, 3, [bytes([0x01, 0x20])], plte),
        files.png(3, 1, 8, 3, [bytes([0, 1, 2])], plte + files.png_chunk(b"tRNS", bytes([0, 128]))),
        files.png(
            2, 1, 8, 2, [bytes([1, 2, 3, 4, 5, 6])], files.png_chunk(b"tRNS", b"\0\1\0\2\0\3")
        ),
        files.png(2, 1, 16, 0, [b"\x12\x34\xfe\xdc"], files.png_chunk(b"tRNS", b"\x12\x34")),
        files.png(2, 1, 8, 4, [bytes([1, 2, 3, 4])]),
        files.png(2, 2, 8, 6, [bytes(range(8)), bytes(range(100, 108))], interlace=1),
    ]


def _decode_variants(tf, blobs, device):
    out = []
    with tf.device(device):
        for blob in blobs:
            for channels in (0, 1, 3, 4):
                out.append(tf.io.decode_png(blob, channels=channels))
                out.append(tf.io.decode_png(blob, channels=channels, dtype=tf.uint16))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_png_colour_types_and_depths(tf_oracle, device):
    assert_parity(tf_oracle, _decode_variants, (_png_variants(), device), rtol=0, atol=0)


JPEG_IMAGE = _smooth(61, 83, 3)
JPEG_GRAY = _smooth(61, 83, 1)


def _decode_jpegs(tf, blobs, device):
    out = []
    with tf.device(device):
        for blob in blobs:
            for dct in ("", "INTEGER_ACCURATE"):
                for fancy in (True, False):
                    for ratio in (1, 2, 4, 8):
                        out.append(
                            tf.io.decode_jpeg(
                                blob, ratio=ratio, fancy_upscaling=fancy, dct_method=dct
                            )
                        )
                    out.append(
                        tf.io.decode_jpeg(blob, channels=1, fancy_upscaling=fancy, dct_method=dct)
                    )
                    out.append(
                        tf.io.decode_jpeg(blob, channels=3, fancy_upscaling=fancy, dct_method=dct)
                    )
            out.append(tf.io.decode_and_crop_jpeg(blob, [3, 5, 20, 17]))
            out.append(
                tf.io.decode_and_crop_jpeg(
                    blob, [0, 9, 30, 8], ratio=2, dct_method="INTEGER_ACCURATE"
                )
            )
            out.append(tf.io.decode_image(blob, channels=3, dtype=tf.uint16))
            out.append(tf.io.extract_jpeg_shape(blob))
            out.append(tf.io.is_jpeg(blob))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_jpeg_decodes_within_one_level(tf_oracle, device):
    blobs = [_plain(b) for b in _tensorflow(tf_oracle, _jpeg_bytes, JPEG_IMAGE, JPEG_GRAY)]
    assert_parity(tf_oracle, _decode_jpegs, (blobs, device), rtol=0, atol=1.0)


def _encode_jpegs(tf, image, gray):
    out = []
    for quality in (10, 50, 95):
        for kwargs in (
            {},
            {"chroma_downsampling": False},
            {"progressive": True, "optimize_size": True},
        ):
            out.append(tf.io.decode_jpeg(tf.io.encode_jpeg(image, quality=quality, **kwargs)))
    out.append(tf.io.decode_jpeg(tf.io.encode_jpeg(gray, format="grayscale", xmp_metadata="<x/>")))
    jpeg = tf.io.encode_jpeg(image, density_unit="cm", x_density=72, y_density=96)
    out.append(tf.io.extract_jpeg_shape(jpeg, output_type=tf.int64))
    return out


def test_jpeg_encoder_matches_tensorflows(tf_oracle):
    assert_parity(tf_oracle, _encode_jpegs, (JPEG_IMAGE, JPEG_GRAY), rtol=0, atol=1.0)


def _other_formats(tf, blobs, device):
    out = []
    with tf.device(device):
        for blob in blobs:
            out.append(tf.io.decode_image(blob))
            # TensorFlow's BMP path for other dtypes crashes on top-down files (negative height).
            top_down = (
                blob.startswith(b"BM") and int.from_bytes(blob[22:26], "little", signed=True) < 0
            )
            dtype = tf.uint8 if top_down else tf.float32 if blob.startswith(b"GIF") else tf.uint16
            out.append(tf.io.decode_image(blob, expand_animations=False, dtype=dtype))
            for name in ("decode_gif", "decode_bmp", "decode_png", "decode_jpeg"):
                try:
                    out.append(getattr(tf.io, name)(blob))
                except Exception as e:  # noqa: BLE001 - the class is compared
                    out.append(type(e).__name__)
            try:
                out.append(tf.io.decode_bmp(blob, channels=4))
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
    return out


def _gifs_and_bmps():
    palette = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 200, 100, 50])
    full = [k % 5 for k in range(6 * 4)]
    return [
        files.gif(6, 4, palette, [(0, 0, 6, 4, full, None)]),
        files.gif(
            6,
            4,
            palette,
            [
                (0, 0, 6, 4, full, 3),
                (1, 1, 3, 2, [4, 3, 1, 2, 3, 0], 3),
                (2, 0, 4, 2, [1] * 8, None),
            ],
        ),
        files.gif(300, 2, palette, [(0, 0, 300, 2, [k % 4 for k in range(600)], None)]),
        files.bmp(3, 2, 24, [bytes(range(9)) + b"\0\0\0", bytes(range(50, 59)) + b"\0\0\0"]),
        files.bmp(2, 2, 32, [bytes(range(8)), bytes(range(200, 208))]),
        files.bmp(2, -2, 32, [bytes(range(8)), bytes(range(100, 108))]),
        files.bmp(3, 2, 8, [bytes([1, 2, 3, 0]), bytes([4, 5, 6, 0])]),
    ]


@pytest.mark.parametrize("device", DEVICES)
def test_gif_and_bmp(tf_oracle, device):
    assert_parity(tf_oracle, _other_formats, (_gifs_and_bmps(), device), rtol=0, atol=0)


def _webps(tf, blobs, device):
    calls = [
        (tf.io.decode_webp, {}),
        (tf.io.decode_webp, {"channels": 3}),
        (tf.io.decode_webp, {"channels": 4}),
        (tf.io.decode_image, {}),
        (tf.io.decode_image, {"expand_animations": False}),
        (tf.io.decode_image, {"dtype": tf.float32}),
        (tf.io.decode_png, {}),
        (tf.io.decode_bmp, {}),
    ]
    out = []
    with tf.device(device):
        for blob in blobs:
            for call, kwargs in calls:
                try:
                    out.append(call(blob, **kwargs))
                except Exception as e:  # noqa: BLE001 - the class is compared
                    out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_webp_lossless(tf_oracle, device):
    """Lossless WebP (solid colours, with and without alpha); lossy files are not covered."""
    blobs = [files.webp_solid(5, 3, (10, 20, 30, 200), alpha) for alpha in (False, True)]
    assert_parity(tf_oracle, _webps, (blobs, device), rtol=0, atol=0)


def _errors(tf, png, jpeg, truncated):
    import numpy as np

    calls = [
        lambda: tf.io.decode_png(b""),
        lambda: tf.io.decode_png(b"not an image"),
        lambda: tf.io.decode_png([png]),
        lambda: tf.io.decode_png(png, channels=2),
        lambda: tf.io.decode_png(jpeg, channels=4),
        lambda: tf.io.decode_jpeg(jpeg, ratio=3),
        lambda: tf.io.decode_jpeg(jpeg, dct_method="FLOAT"),
        lambda: tf.io.decode_jpeg(truncated),
        lambda: tf.io.decode_jpeg(truncated, try_recover_truncated=True, acceptable_fraction=0.1),
        lambda: tf.io.decode_and_crop_jpeg(jpeg, [0, 0, 500, 5]),
        lambda: tf.io.decode_and_crop_jpeg(png, [0, 0, 2, 2]),
        lambda: tf.io.decode_bmp(jpeg),
        lambda: tf.io.decode_gif(b"GIF89a"),
        lambda: tf.io.decode_webp(b"RIFF\0\0\0\0WEBPVP8 garbage"),
        lambda: tf.io.extract_jpeg_shape(b"abc"),
        lambda: tf.io.encode_png(np.zeros((4, 4), np.uint8)),
        lambda: tf.io.encode_png(np.zeros((4, 4, 3), np.uint8), compression=10),
        lambda: tf.io.encode_png(np.zeros((4, 4, 5), np.uint8)),
        lambda: tf.io.encode_png(np.zeros((4, 4, 3), np.float32)),
        lambda: tf.io.encode_png(np.zeros((2, 3, 4, 4, 3), np.uint16)),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4), np.uint8)),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4, 3), np.uint8), quality=101),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4, 3), np.uint8), format="grayscale"),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4, 4), np.uint8)),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4, 3), np.uint8), density_unit="mm"),
        lambda: tf.io.encode_jpeg(np.zeros((4, 4, 3), np.float32)),
        lambda: tf.io.decode_image(png, dtype=tf.float64),
        lambda: tf.io.decode_image(png, dtype=tf.int32),
        lambda: tf.image.adjust_jpeg_quality(np.zeros((4, 4, 3), np.float32), 101),
        lambda: tf.image.random_jpeg_quality(np.zeros((4, 4, 3), np.uint8), 50, 40),
    ]
    out = []
    for call in calls:
        try:
            result = call()
            out.append((result.dtype.name, tuple(result.shape)))
        except Exception as e:  # noqa: BLE001 - the class is compared
            out.append(type(e).__name__)
    return out


def test_errors_and_shapes(tf_oracle):
    png = files.png(2, 1, 8, 2, [bytes([1, 2, 3, 4, 5, 6])])
    jpeg = _plain(_tensorflow(tf_oracle, _jpeg_bytes, JPEG_IMAGE, JPEG_GRAY)[0])
    assert_parity(tf_oracle, _errors, (png, jpeg, jpeg[: len(jpeg) // 2]), rtol=0, atol=0)


def _truncated(tf, blobs):
    out = []
    for blob in blobs:
        for recover in (False, True):
            try:
                image = tf.io.decode_jpeg(
                    blob, try_recover_truncated=recover, acceptable_fraction=0.3
                )
                # The MCU row where the data ends may differ between libjpeg-turbo releases
                # (TensorFlow links 3.x, MozJPEG 4 is 2.x); the rows above it may not.
                out.append((image.shape, image[:16]))
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
    return out


def test_truncated_jpegs(tf_oracle):
    jpeg = _plain(_tensorflow(tf_oracle, _jpeg_bytes, JPEG_IMAGE, JPEG_GRAY)[0])
    cuts = [jpeg[:n] for n in (2, 100, len(jpeg) // 3, len(jpeg) * 2 // 3, len(jpeg) - 2)]
    assert_parity(tf_oracle, _truncated, (cuts,), rtol=0, atol=1.0)


def test_corrupt_files_raise_invalid_argument():
    """Every truncation and many bit flips of each format: an image or InvalidArgumentError."""
    import ferroflow as tf

    sources = [
        tf.io.encode_png(_smooth(6, 5, 3)).numpy(),
        tf.io.encode_jpeg(_smooth(17, 19, 3), progressive=True).numpy(),
        _gifs_and_bmps()[1],
        _gifs_and_bmps()[3],
    ]
    rng = np.random.default_rng(0)
    for blob in sources:
        variants = [blob[:n] for n in range(1, len(blob))]
        for _ in range(60):
            flipped = bytearray(blob)
            position = int(rng.integers(len(blob)))
            flipped[position] ^= 1 << int(rng.integers(8))
            variants.append(bytes(flipped))
        for v in variants:
            for call in (tf.io.decode_image, tf.io.decode_jpeg, tf.io.extract_jpeg_shape):
                try:
                    call(v)
                except tf.errors.InvalidArgumentError:
                    pass


def _quality(tf, image, device):
    with tf.device(device):
        f = tf.image.convert_image_dtype(image, tf.float32)
        out = [
            tf.image.adjust_jpeg_quality(image, 40),
            tf.image.adjust_jpeg_quality(f, 90, dct_method="INTEGER_ACCURATE"),
            tf.image.stateless_random_jpeg_quality(image, 20, 80, seed=(1, 2)),
            tf.function(lambda x: tf.image.adjust_jpeg_quality(x, 70))(image),
            tf.function(lambda b: tf.io.decode_png(b, channels=3))(tf.io.encode_png(image)),
            tf.image.random_jpeg_quality(image, 99, 100).shape,
        ]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_jpeg_quality_augmentations(tf_oracle, device):
    assert_parity(tf_oracle, _quality, (JPEG_IMAGE[:24, :40], device), rtol=0, atol=1.0)
