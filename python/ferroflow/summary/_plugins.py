"""The summaries of TensorBoard's plugins (`tensorboard/plugins/*/summary_v2.py`): scalar,
histogram, image, text and audio, each a tensor summary with the plugin's metadata, as
TensorBoard's own functions (which are TensorFlow's `tf.summary`) write them."""

import struct

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.summary import _events
from ferroflow.summary._write import summary_scope, write, write_with

__all__ = ["audio", "histogram", "image", "scalar", "text"]

DEFAULT_BUCKET_COUNT = 30
# `AudioPluginData.Encoding.WAV`.
_WAV = 11


def plugin_metadata(plugin_name, description=None, content=b""):
    """`SummaryMetadata` as the plugins' `metadata.create_summary_metadata` make it (their
    `*PluginData` at version 0 serialize to ``content``)."""
    metadata = _events.message("SummaryMetadata")
    metadata.plugin_data.plugin_name = plugin_name
    metadata.plugin_data.content = content
    if description is not None:
        metadata.summary_description = description
    return metadata


def scalar(name, data, step=None, description=None):
    """Writes a scalar (as a float32 scalar tensor, plugin "scalars") at ``step``.

    >>> import ferroflow as tf, tempfile
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     print(bool(tf.summary.scalar("loss", 0.5, step=1)))
    True
    """
    from ferroflow.array_ops import cast
    from ferroflow.check_ops import assert_scalar

    metadata = plugin_metadata("scalars", description)
    with summary_scope(name, "scalar_summary", values=[data, step]) as (tag, _):
        assert_scalar(data)
        return write(tag=tag, tensor=cast(data, _dtypes.float32), step=step, metadata=metadata)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of ``data``'s elements: a float64 ``[k, 3]`` tensor of (left edge,
    right edge, count) rows, ``buckets`` (30) rows of equal width (plugin "histograms")."""
    from ferroflow.array_ops import cast, reshape
    from ferroflow.backprop import stop_gradient

    data = stop_gradient(data)
    metadata = plugin_metadata("histograms", description)
    bucket_count = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    if hasattr(bucket_count, "numpy"):
        bucket_count = bucket_count.numpy()
    if not isinstance(bucket_count, (int, np.integer)) or isinstance(bucket_count, bool):
        raise TypeError(f"buckets must be an int, got {bucket_count!r}")
    with summary_scope(name, "histogram_summary", values=[data, buckets, step]) as (tag, _):
        return write_with(
            tag,
            lambda: cast(reshape(data, [-1]), _dtypes.float64),
            step,
            metadata,
            host=lambda values: histogram_buckets(values, int(bucket_count)),
        )


def histogram_buckets(data, bucket_count):
    """TensorBoard's `_buckets` over float64 ``data``: ``bucket_count`` equal-width buckets
    from min to max (the last one closed), all-zero rows without data, and a single value
    counted in the last of ``bucket_count`` zero-width buckets."""
    bucket_count = max(0, bucket_count)
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    # IEEE arithmetic as TensorFlow's kernels do it: overflows and 0 * inf pass silently.
    with np.errstate(all="ignore"):
        low, high = data.min(), data.max()
        span = high - low
        if span == 0:
            counts = np.zeros(bucket_count, np.float64)
            counts[-1] = data.size
            edges = np.full(bucket_count, high)
            return np.stack([edges, edges, counts], axis=1)
        width = span / np.float64(bucket_count)
        indices = np.floor((data - low) / width)
        # TensorFlow's LinSpace: start and stop exactly, start + i * width between (an
        # infinite width leaves the first edge finite).
        edges = low + np.arange(bucket_count + 1, dtype=np.float64) * width
    edges[0], edges[-1] = low, high
    # TensorFlow casts to int32 (NaN and infinities give INT_MIN there, counted nowhere).
    finite = np.isfinite(indices)
    indices = np.minimum(indices[finite].astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices[indices >= 0], minlength=bucket_count).astype(np.float64)
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images of the ``[k, h, w, c]`` batch ``data`` (c in 1, 3
    or 4; floats in [0, 1] are scaled to uint8) as PNG strings after "width" and "height"
    (plugin "images")."""
    metadata = plugin_metadata("images", description)

    def lazy_tensor():
        from ferroflow import strings
        from ferroflow.array_ops import concat, shape, stack
        from ferroflow.check_ops import assert_non_negative, assert_rank
        from ferroflow.image import convert_image_dtype, encode_png

        assert_rank(data, 4)
        assert_non_negative(max_outputs)
        images = convert_image_dtype(data, _dtypes.uint8, saturate=True)
        encoded = encode_png(images[:max_outputs])
        dims = shape(images)
        size = stack([strings.as_string(dims[2]), strings.as_string(dims[1])])
        return concat([size, encoded], axis=0)

    with summary_scope(name, "image_summary", values=[data, max_outputs, step]) as (tag, _):
        return write(tag=tag, tensor=lazy_tensor, step=step, metadata=metadata)


def text(name, data, step=None, description=None):
    """Writes a string tensor of any shape (plugin "text"; Markdown in TensorBoard)."""
    from ferroflow.check_ops import assert_type

    metadata = plugin_metadata("text", description)
    with summary_scope(name, "text_summary", values=[data, step]) as (tag, _):
        assert_type(data, _dtypes.string)
        return write(tag=tag, tensor=data, step=step, metadata=metadata)


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """Writes up to ``max_outputs`` clips of the float ``[k, t, c]`` batch ``data`` (values in
    [-1, 1]) as 16-bit WAV files at ``sample_rate`` Hz, each with an empty label: a
    ``[k, 2]`` string tensor (plugin "audio")."""
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    metadata = plugin_metadata("audio", description, content=struct.pack("BB", 0x10, _WAV))

    rate = []  # the sample rate, known once the lazy tensor is made (when recording)

    def lazy_tensor():
        from ferroflow import _tracing
        from ferroflow.array_ops import convert_to_tensor
        from ferroflow.check_ops import assert_non_negative, assert_rank

        assert_rank(data, 3)
        assert_non_negative(max_outputs)
        audio = _wav_input(convert_to_tensor(data), 0, _dtypes.float32)
        # A tensor keeps its dtype (checked as the kernel checks it); a number becomes int32.
        rate_dtype = None if hasattr(sample_rate, "dtype") else _dtypes.int32
        rate_tensor = _wav_input(convert_to_tensor(sample_rate, rate_dtype), 1, _dtypes.int32)
        if _tracing.is_symbolic(rate_tensor):
            raise NotImplementedError(
                "tf.summary.audio: a sample_rate computed inside the tf.function; pass a number"
            )
        rate.append(int(rate_tensor.numpy()))
        return audio[:max_outputs]

    with summary_scope(name, "audio_summary", values=[data, sample_rate, max_outputs, step]) as (
        tag,
        _,
    ):
        return write_with(
            tag, lazy_tensor, step, metadata, host=lambda clips: _wav_table(clips, rate[0])
        )


# TensorFlow's kernel names of dtypes (`DataTypeString`), as its dtype errors show them.
_KERNEL_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _wav_input(tensor, index, expected):
    """``tensor`` if it has the dtype `EncodeWav` takes at ``index``, else its error."""
    if tensor.dtype != expected:
        from ferroflow import errors

        got = _KERNEL_TYPE_NAMES.get(tensor.dtype.name, tensor.dtype.name)
        want = _KERNEL_TYPE_NAMES.get(expected.name, expected.name)
        raise errors.InvalidArgumentError(
            None,
            None,
            f"cannot compute EncodeWav as input #{index}(zero-based) was expected to be a "
            f"{want} tensor but is a {got} tensor [Op:EncodeWav] name: ",
        )
    return tensor


def _wav_table(clips, sample_rate):
    rows = [[encode_wav(clip, sample_rate), b""] for clip in np.asarray(clips)]
    table = np.empty((len(rows), 2), dtype=object)
    for k, row in enumerate(rows):
        table[k] = row
    return table


def encode_wav(audio, sample_rate):
    """A ``[frames, channels]`` float clip as TensorFlow's `EncodeWav` writes it: a 44-byte
    RIFF header and 16-bit little-endian PCM, each sample clamped to [-1, 1] times 32768
    rounded half away from zero (32767 at most)."""
    audio = np.asarray(audio, dtype=np.float32)
    frames, channels = audio.shape
    # roundf of the float32 product; float64 holds |x| + 0.5 exactly, so nothing rounds early.
    scaled = (audio * np.float32(32768.0)).astype(np.float64)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    samples = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt "
    header += struct.pack(
        "<IHHIIHH", 16, 1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16
    )
    return header + b"data" + struct.pack("<I", len(samples)) + samples
