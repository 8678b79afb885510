"""`tf.keras.utils.pad_sequences`: a list of sequences as one padded NumPy array."""

import numpy as np

__all__ = ["pad_sequences"]


def _check_value(value, dtype):
    is_dtype_str = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )


def _lengths_and_sample_shape(sequences):
    lengths, sample_shape = [], None
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as e:
            raise ValueError(
                f"`sequences` must be a list of iterables. Found non-iterable: {x}"
            ) from e
        if sample_shape is None and len(x):
            sample_shape = np.asarray(x).shape[1:]
    return lengths, sample_shape or ()


def pad_sequences(
    sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0
):
    """``(len(sequences), maxlen, *sample_shape)`` holding each sequence truncated to ``maxlen``
    ("pre": keep its end, "post": its start) and padded with ``value`` before ("pre") or after
    ("post") it; ``maxlen`` defaults to the longest sequence."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = _lengths_and_sample_shape(sequences)
    if maxlen is None:
        maxlen = np.max(lengths)
    _check_value(value, dtype)
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for index, sequence in enumerate(sequences):
        if not len(sequence):
            continue
        if truncating == "pre":
            kept = sequence[-maxlen:]
        elif truncating == "post":
            kept = sequence[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {kept.shape[1:]} of sequence at position {index} is different "
                f"from expected shape {sample_shape}"
            )
        if padding == "post":
            out[index, : len(kept)] = kept
        elif padding == "pre":
            out[index, -len(kept) :] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out
