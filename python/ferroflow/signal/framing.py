"""`tf.signal.frame` and `tf.signal.overlap_and_add`: windows of a signal as rows (a gather of
overlapping index ranges), and their sum back into one signal (a pad, transpose and reshape
that line each frame's pieces up under the output position they add to).

>>> import ferroflow as tf
>>> tf.signal.frame([1, 2, 3, 4, 5], 3, 2).numpy()
array([[1, 2, 3],
       [3, 4, 5]], dtype=int32)
"""

import numpy as np

from ferroflow import math as _math
from ferroflow.array_ops import convert_to_tensor, gather, pad, reshape, transpose
from ferroflow.errors import InvalidArgumentError
from ferroflow.framework_ops import get_static_value

__all__ = ["frame", "overlap_and_add"]


def _static_int(value, what):
    """A scalar argument's value: these compositions need it known when they are built."""
    t = convert_to_tensor(value)
    if len(t.shape) != 0:
        raise ValueError(f"Shape {t.shape} must have rank 0")
    if not t.dtype.is_integer:
        raise ValueError(f"{what} must be an integer. Got {t.dtype}")
    static = get_static_value(t)
    if static is None:
        raise NotImplementedError(f"ferroflow's tf.signal needs a constant {what}")
    return int(static)


def _known_dim(x, axis, what):
    size = list(x.shape)[axis]
    if size is None:
        raise NotImplementedError(f"ferroflow's tf.signal needs the {what} axis' length known")
    return size


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` samples along ``axis`` (which
    becomes two axes: frames, samples); ``pad_end`` pads the tail with ``pad_value`` so that
    every sample starts a frame's step."""
    signal = convert_to_tensor(signal)
    rank = len(signal.shape)
    if rank < 1:
        raise ValueError(f"Shape {signal.shape} must have rank at least 1")
    length_of_frame = _static_int(frame_length, "frame_length")
    step = _static_int(frame_step, "frame_step")
    if step == 0:
        # TensorFlow's graph divides by the step (its FloorDiv kernel's error).
        raise InvalidArgumentError(None, None, "Integer division by zero [Op:FloorDiv]")
    axis = _static_int(axis, "axis")
    if not -rank <= axis < rank:
        raise IndexError("range object index out of range")
    axis %= rank
    samples = _known_dim(signal, axis, "framed")
    if pad_end:
        pad_value = convert_to_tensor(pad_value, dtype=signal.dtype)
        frames = -(-samples // step)
        extra = max(0, length_of_frame + step * (frames - 1) - samples)
        if extra:
            paddings = [[0, 0]] * rank
            paddings[axis] = [0, extra]
            signal = pad(signal, paddings, constant_values=pad_value)
    else:
        frames = max(0, 1 + (samples - length_of_frame) // step)
    starts = np.arange(frames, dtype=np.int32)[:, None] * step
    indices = starts + np.arange(length_of_frame, dtype=np.int32)[None, :]
    return gather(signal, convert_to_tensor(indices.reshape(frames, length_of_frame)), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """Sums frames ``[..., frames, frame_length]`` placed ``frame_step`` apart into a signal of
    ``frame_length + frame_step * (frames - 1)`` samples."""
    signal = convert_to_tensor(signal)
    if len(signal.shape) < 2:
        raise ValueError(f"Shape {signal.shape} must have rank at least 2")
    step = _static_int(frame_step, "frame_step")
    dims = list(signal.shape)
    outer = dims[:-2]
    if any(d is None for d in dims):
        raise NotImplementedError("ferroflow's overlap_and_add needs the signal's shape known")
    frames, length = dims[-2], dims[-1]
    output_length = length + step * (frames - 1)
    if step == length:
        return reshape(signal, outer + [output_length])
    # Each frame is cut into `segments` pieces of `step` samples; piece s of frame f adds to
    # output block f + s. Padding the frame axis by `segments` and reading the
    # [segments, frames + segments] transpose with a row length one shorter shifts row s by
    # s blocks, so a sum over the segment axis adds every piece where it belongs.
    segments = -(-length // step)
    paddings = [[0, 0]] * len(outer) + [[0, segments], [0, segments * step - length]]
    blocks = reshape(pad(signal, paddings), outer + [frames + segments, segments, step])
    k = len(outer)
    blocks = transpose(blocks, list(range(k)) + [k + 1, k, k + 2])
    blocks = reshape(blocks, outer + [(frames + segments) * segments, step])
    blocks = blocks[..., : (frames + segments - 1) * segments, :]
    blocks = reshape(blocks, outer + [segments, frames + segments - 1, step])
    summed = _math.reduce_sum(blocks, axis=-3)
    summed = reshape(summed, outer + [(frames + segments - 1) * step])
    return summed[..., :output_length]
