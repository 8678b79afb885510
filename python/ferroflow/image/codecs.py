"""Image codecs (`tf.io.decode_*`/`encode_*`, also under `tf.image`): thin wrappers over the
Rust primitives DecodeJpeg, DecodePng, DecodeJxl, ..., EncodeJpegVariableQuality
(`ops/codecs/`), which run on the host whatever the device scope (soft placement), and the
compositions TensorFlow writes in Python (`decode_image`'s dtype conversion, `is_jpeg`,
`adjust_jpeg_quality` and the random JPEG qualities)."""

import json as _json

import ferroflow as tf
from ferroflow import _core
from ferroflow import dtypes as _dtypes

from .convert import convert_image_dtype

__all__ = [
    "adjust_jpeg_quality",
    "decode_and_crop_jpeg",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_jxl",
    "decode_png",
    "decode_webp",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "random_jpeg_quality",
    "stateless_random_jpeg_quality",
]


def _op(name, inputs, **attrs):
    inputs = [i if isinstance(i, _core.Tensor) else tf.convert_to_tensor(i) for i in inputs]
    return _core.raw_op(name, inputs, _json.dumps(attrs))[0]


def _contents(contents):
    return tf.convert_to_tensor(contents, dtype=tf.string)


def _decode_with_dtype(op, contents, channels, dtype):
    """A decode op whose attributes are `channels` and an output `dtype`."""
    dtype = _dtypes.as_dtype(dtype).name
    return _op(op, [_contents(contents)], channels=int(channels), dtype=dtype)


def _jpeg_attrs(
    channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
):
    return {
        "channels": int(channels),
        "ratio": int(ratio),
        "fancy_upscaling": bool(fancy_upscaling),
        "try_recover_truncated": bool(try_recover_truncated),
        "acceptable_fraction": float(acceptable_fraction),
        "dct_method": str(dct_method),
    }


def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """Decodes a JPEG (or PNG, or one-frame GIF) image to uint8 `[height, width, channels]`.

    `dct_method` "" is INTEGER_FAST (libjpeg-turbo's IFAST IDCT), as in TensorFlow.

    >>> import ferroflow as tf
    >>> x = tf.zeros([2, 2, 3], tf.uint8)
    >>> tf.io.decode_jpeg(tf.io.encode_jpeg(x)).shape
    TensorShape([2, 2, 3])
    """
    attrs = _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    return _op("DecodeJpeg", [_contents(contents)], **attrs)


def decode_and_crop_jpeg(
    contents,
    crop_window,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """Decodes the `crop_window` ([y, x, height, width], int32) of a JPEG image."""
    attrs = _jpeg_attrs(
        channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
    )
    window = tf.convert_to_tensor(crop_window, dtype=tf.int32)
    return _op("DecodeAndCropJpeg", [_contents(contents), window], **attrs)


def decode_png(contents, channels=0, dtype=_dtypes.uint8, name=None):
    """Decodes a PNG (or JPEG, or one-frame GIF) image to uint8 or uint16 `[h, w, channels]`."""
    return _decode_with_dtype("DecodePng", contents, channels, dtype)


def decode_gif(contents, name=None):
    """Decodes every frame of a GIF to uint8 `[frames, height, width, 3]`."""
    return _op("DecodeGif", [_contents(contents)])


def decode_bmp(contents, channels=0, name=None):
    """Decodes an uncompressed BMP image to uint8 `[height, width, channels]`."""
    return _op("DecodeBmp", [_contents(contents)], channels=int(channels))


def decode_webp(contents, channels=0, dtype=_dtypes.uint8, name=None):
    """Decodes a WebP image to uint8 `[frames, height, width, channels]`."""
    return _decode_with_dtype("DecodeWebP", contents, channels, dtype)


def decode_jxl(contents, channels=0, dtype=_dtypes.uint8, name=None):
    """Decodes a JPEG XL image to uint8 `[height, width, channels]` (an animation's last
    frame); `channels` 0 takes the file's, any other must equal it (1, 3 or 4). PNG, JPEG and
    BMP bytes decode as under the other decode ops."""
    return _decode_with_dtype("DecodeJxl", contents, channels, dtype)


def decode_image(contents, channels=None, dtype=_dtypes.uint8, name=None, expand_animations=True):
    """Decodes a BMP, GIF, JPEG, JPEG XL, PNG or WebP image, whichever the bytes hold.

    `dtype` float32 gives [0, 1]; other dtypes go through uint16 and `convert_image_dtype`.
    GIF and WebP are 4-D unless `expand_animations` is False (then the first frame).
    """
    channels = 0 if channels is None else channels
    dtype = _dtypes.as_dtype(dtype)
    decode_dtype = (
        dtype if dtype in (_dtypes.float32, _dtypes.uint8, _dtypes.uint16) else _dtypes.uint16
    )
    image = _op(
        "DecodeImage",
        [_contents(contents)],
        channels=int(channels),
        dtype=decode_dtype.name,
        expand_animations=bool(expand_animations),
    )
    if decode_dtype != dtype:
        image = convert_image_dtype(image, dtype)
    return image


def encode_png(image, compression=-1, name=None):
    """Encodes uint8 or uint16 `[..., height, width, channels]` images as PNG strings."""
    return _op("EncodePng", [tf.convert_to_tensor(image)], compression=int(compression))


def encode_jpeg(
    image,
    format="",
    quality=95,
    progressive=False,
    optimize_size=False,
    chroma_downsampling=True,
    density_unit="in",
    x_density=300,
    y_density=300,
    xmp_metadata="",
    name=None,
):
    """Encodes a uint8 `[height, width, 1 or 3]` image as a JPEG string (libjpeg-turbo)."""
    # TensorFlow converts a non-tensor image to uint8 (numpy floats included).
    image = image if isinstance(image, _core.Tensor) else tf.convert_to_tensor(image, tf.uint8)
    return _op(
        "EncodeJpeg",
        [image],
        format=str(format),
        quality=int(quality),
        progressive=bool(progressive),
        optimize_size=bool(optimize_size),
        chroma_downsampling=bool(chroma_downsampling),
        density_unit=str(density_unit),
        x_density=int(x_density),
        y_density=int(y_density),
        xmp_metadata=str(xmp_metadata),
    )


def extract_jpeg_shape(contents, output_type=_dtypes.int32, name=None):
    """The `[height, width, channels]` a JPEG header declares, without decoding the image."""
    output_type = _dtypes.as_dtype(output_type).name
    return _op("ExtractJpegShape", [_contents(contents)], output_type=output_type)


def is_jpeg(contents, name=None):
    """Whether `contents` starts with the JPEG signature (false positives possible)."""
    return tf.equal(tf.strings.substr(contents, 0, 3), b"\xff\xd8\xff")


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """Encodes a 3-D image as JPEG at `jpeg_quality` and decodes it back in its dtype."""
    image = tf.convert_to_tensor(image, name="image")
    channels = image.shape.as_list()[-1]
    original = image.dtype
    image = convert_image_dtype(image, _dtypes.uint8, saturate=True)
    quality = tf.convert_to_tensor(jpeg_quality, dtype=tf.int32)
    encoded = _op("EncodeJpegVariableQuality", [image, quality])
    image = decode_jpeg(encoded, channels=channels or 0, dct_method=dct_method)
    return convert_image_dtype(image, original, saturate=True)


def _check_quality_range(low, high):
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """`adjust_jpeg_quality` at a quality drawn uniformly from [min, max)."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = tf.random.uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=tf.int32)
    return adjust_jpeg_quality(image, quality)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """`adjust_jpeg_quality` at a quality drawn statelessly (TensorFlow's draw for `seed`)."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = tf.random.stateless_uniform(
        shape=[], minval=min_jpeg_quality, maxval=max_jpeg_quality, seed=seed, dtype=tf.int32
    )
    return adjust_jpeg_quality(image, quality)
