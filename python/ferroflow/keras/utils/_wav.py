"""16-bit PCM WAV decoding as TensorFlow's `tf.audio.decode_wav` does it (samples / 32768 as
float32, ``[samples, channels]``, ``desired_samples`` truncating or zero-padding), for the
audio datasets until ferroflow has `tf.audio`."""

import struct

import numpy as np

__all__ = ["decode_wav"]


def _invalid(message):
    import ferroflow as tf

    return tf.errors.InvalidArgumentError(None, None, message)


def _chunks(contents):
    if len(contents) < 12 or contents[:4] != b"RIFF" or contents[8:12] != b"WAVE":
        raise _invalid("Header mismatch: Expected RIFF/WAVE header")
    offset = 12
    while offset + 8 <= len(contents):
        chunk_id = contents[offset : offset + 4]
        (size,) = struct.unpack("<I", contents[offset + 4 : offset + 8])
        yield chunk_id, contents[offset + 8 : offset + 8 + size]
        offset += 8 + size + (size & 1)


def decode_wav(contents, desired_samples=-1):
    """``(audio, sample_rate)`` of the WAV file bytes ``contents``; only 16-bit PCM, as
    TensorFlow reads (InvalidArgumentError otherwise)."""
    fmt = data = None
    for chunk_id, body in _chunks(contents):
        if chunk_id == b"fmt ":
            fmt = body
        elif chunk_id == b"data" and fmt is not None:
            data = body
            break
    if fmt is None or len(fmt) < 16:
        raise _invalid("Bad WAV file: no fmt chunk")
    audio_format, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
    if audio_format not in (1, 0xFFFE):
        raise _invalid(f"Bad audio format value of {audio_format}")
    if bits != 16:
        raise _invalid(f"Can only read 16-bit WAV files, but received {bits}")
    if data is None:
        raise _invalid("No data chunk found in WAV")
    frames = len(data) // (2 * channels)
    samples = np.frombuffer(data[: frames * 2 * channels], dtype="<i2").reshape(frames, channels)
    audio = samples.astype(np.float32) / np.float32(32768.0)
    if desired_samples is not None and desired_samples >= 0:
        audio = audio[:desired_samples]
        if audio.shape[0] < desired_samples:
            audio = np.concatenate(
                [audio, np.zeros((desired_samples - audio.shape[0], channels), np.float32)]
            )
    return audio, rate
