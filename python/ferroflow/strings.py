"""`tf.strings`: operations on byte-string tensors. Each op is one Rust primitive named as
TensorFlow names it (StringLower, Substr, StringSplitV2, ...), run on the host; ragged results
are built from the primitive's outputs. Elementwise ops map over a RaggedTensor's flat values,
as TensorFlow dispatches them."""

import json as _json

import numpy as _np

from ferroflow import _core
from ferroflow import array_ops as _array_ops
from ferroflow import dtypes as _dtypes
from ferroflow.errors import InvalidArgumentError as _InvalidArgumentError
from ferroflow.ragged.ragged_tensor import RaggedTensor as _RaggedTensor

_UNITS = ("BYTE", "UTF8_CHAR")


def _op(name, inputs, **attrs):
    return _core.string_op(name, list(inputs), _json.dumps(attrs))


def _one(name, inputs, **attrs):
    return _op(name, inputs, **attrs)[0]


def _map_flat(x, f):
    """`f` on a tensor, or on a RaggedTensor's flat values (TensorFlow's ragged dispatch)."""
    if isinstance(x, _RaggedTensor):
        return x.with_flat_values(f(x.flat_values))
    return f(x)


def _unit(unit):
    if unit not in _UNITS:
        raise _InvalidArgumentError(
            None,
            None,
            f"Value for attr 'unit' of \"{unit}\" is not in the list of allowed "
            'values: "BYTE", "UTF8_CHAR"',
        )
    return unit == "UTF8_CHAR"


def _encoding(encoding):
    if encoding in ("", None):
        return False
    if str(encoding).lower().replace("-", "") == "utf8":
        return True
    raise _InvalidArgumentError(None, None, f"Invalid encoding: {encoding}")


def _text(value, what):
    """A Python string from a str, bytes or scalar string tensor (a static attribute)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    try:
        item = _np.asarray(value.numpy() if hasattr(value, "numpy") else value).item()
    except Exception as e:  # a traced value: TensorFlow's dynamic-pattern ops are not here
        raise NotImplementedError(f"{what} must be known when the op is built") from e
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


def length(input, unit="BYTE", name=None):  # noqa: A002
    """Each string's length in bytes, or in UTF-8 characters with unit='UTF8_CHAR' (int32)."""
    utf8 = _unit(unit)
    return _map_flat(input, lambda x: _one("StringLength", [x], utf8=utf8))


def lower(input, encoding="", name=None):  # noqa: A002
    """Lower-cased strings: ASCII letters by default, Unicode with encoding='utf-8'."""
    utf8 = _encoding(encoding)
    return _map_flat(input, lambda x: _one("StringLower", [x], utf8=utf8))


def upper(input, encoding="", name=None):  # noqa: A002
    """Upper-cased strings: ASCII letters by default, Unicode with encoding='utf-8'."""
    utf8 = _encoding(encoding)
    return _map_flat(input, lambda x: _one("StringUpper", [x], utf8=utf8))


def strip(input, name=None):  # noqa: A002
    """Strings without leading and trailing ASCII whitespace."""
    return _map_flat(input, lambda x: _one("StringStrip", [x]))


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """`len` bytes (or UTF-8 characters) of each string from `pos`, counted from the end when
    negative; the strings broadcast against `pos` and `len` (which share one shape)."""
    utf8 = _unit(unit)
    pos = _array_ops.convert_to_tensor(pos)
    len = _array_ops.convert_to_tensor(len, dtype=pos.dtype)  # noqa: A001
    return _one("Substr", [input, pos, len], utf8=utf8)


def join(inputs, separator="", name=None):
    """Elementwise concatenation of the tensors in `inputs` (scalars or one shape)."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("tf.strings.join requires at least one input")
    if any(isinstance(x, _RaggedTensor) for x in inputs):
        first = next(x for x in inputs if isinstance(x, _RaggedTensor))
        flats = [x.flat_values if isinstance(x, _RaggedTensor) else x for x in inputs]
        return first.with_flat_values(_one("StringJoin", flats, separator=_text(separator, "sep")))
    return _one("StringJoin", inputs, separator=_text(separator, "separator"))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along `axis` (all axes when None) with `separator`."""
    if axis is not None:
        axis = _np.asarray(axis.numpy() if hasattr(axis, "numpy") else axis).reshape(-1)
        axis = [int(a) for a in axis]
    return _one(
        "ReduceJoin",
        [inputs],
        axes=axis,
        keep_dims=bool(keepdims),
        separator=_text(separator, "separator"),
    )


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches the RE2 `pattern`."""
    pattern = _text(pattern, "pattern")
    return _map_flat(input, lambda x: _one("StaticRegexFullMatch", [x], pattern=pattern))


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of the RE2 `pattern` by `rewrite` (`\\1` names a group), every match
    or only the first."""
    pattern, rewrite = _text(pattern, "pattern"), _text(rewrite, "rewrite")
    return _map_flat(
        input,
        lambda x: _one(
            "StaticRegexReplace",
            [x],
            pattern=pattern,
            rewrite=rewrite,
            replace_global=bool(replace_global),
        ),
    )


def to_number(string_tensor, out_type=_dtypes.float32, name=None):
    """The numbers the strings spell (float32, float64, int32 or int64)."""
    out = _dtypes.as_dtype(out_type).name
    return _map_flat(string_tensor, lambda x: _one("StringToNumber", [x], out_type=out))


def as_string(
    input,  # noqa: A002
    precision=-1,
    scientific=False,
    shortest=False,
    width=-1,
    fill="",
    name=None,
):
    """Numbers as strings, formatted as C's printf does (`%.{precision}f`, `%e`, `%g`)."""
    attrs = dict(
        precision=int(precision),
        scientific=bool(scientific),
        shortest=bool(shortest),
        width=int(width),
        fill=_text(fill, "fill"),
    )
    return _map_flat(input, lambda x: _one("AsString", [x], **attrs))


def _split_vector(x, sep, maxsplit):
    indices, values, shape = _op("StringSplitV2", [x], sep=sep, maxsplit=int(maxsplit))
    rowids = _array_ops.gather(indices, 0, axis=1)
    return _RaggedTensor.from_value_rowids(values, rowids, nrows=shape[0], validate=False)


def _split_any_rank(x, split_vector):
    """`split_vector` (a vector to a RaggedTensor) applied to a tensor or RaggedTensor of any
    rank: a scalar gives a vector, rank k gives a RaggedTensor of rank k + 1."""
    if isinstance(x, _RaggedTensor):
        return x.with_flat_values(_split_any_rank(x.flat_values, split_vector))
    x = _array_ops.convert_to_tensor(x)
    if x.shape.rank == 0:
        return split_vector(_array_ops.reshape(x, [1])).flat_values
    if x.shape.rank == 1:
        return split_vector(x)
    dims = _array_ops.shape(x)
    out = split_vector(_array_ops.reshape(x, [-1]))
    for k in reversed(range(1, x.shape.rank)):
        width = dims[k]
        rows = out.nrows() // _array_ops.cast(width, out.nrows().dtype)
        splits = _array_ops.range(0, rows + 1) * _array_ops.cast(width, out.nrows().dtype)
        out = _RaggedTensor.from_row_splits(out, splits, validate=False)
    return out


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """Python's `str.split` on each string (runs of whitespace when `sep` is None), as a
    RaggedTensor with one more dimension."""
    sep = "" if sep is None else _text(sep, "sep")
    return _split_any_rank(input, lambda v: _split_vector(v, sep, maxsplit))


def _pieces(x, utf8):
    """A vector's strings cut into bytes (or UTF-8 characters) as a RaggedTensor, composed
    of StringLength, Gather and Substr so that it also runs in traced functions."""
    from ferroflow import math as _math

    lengths = _one("StringLength", [x], utf8=utf8)
    lengths = _array_ops.cast(lengths, _dtypes.int64)
    from ferroflow.ragged.ragged_ops import row_splits_to_segment_ids

    splits = _array_ops.concat([_array_ops.zeros([1], _dtypes.int64), _math.cumsum(lengths)], 0)
    rowids = row_splits_to_segment_ids(splits)
    starts = _array_ops.gather(splits, rowids)
    pos = _array_ops.range(splits[-1], dtype=_dtypes.int64) - starts
    values = _one(
        "Substr",
        [_array_ops.gather(x, rowids), pos, _array_ops.ones_like(pos)],
        utf8=utf8,
    )
    return _RaggedTensor.from_row_splits(values, splits, validate=False)


def bytes_split(input, name=None):  # noqa: A002
    """Each string as a list of its single bytes (a RaggedTensor)."""
    return _split_any_rank(input, lambda v: _pieces(v, False))


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string modulo `num_buckets` (int64)."""
    n = int(num_buckets)
    return _map_flat(input, lambda x: _one("StringToHashBucketFast", [x], num_buckets=n))


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Keyed SipHash-2-4 of each string modulo `num_buckets`; `key` is two integers."""
    key = [int(k) for k in key]
    if any(not -(2**63) <= k < 2**63 for k in key):
        raise OverflowError("Python int too large to convert to C long")
    if len(key) != 2:
        raise _InvalidArgumentError(None, None, f"Key must have 2 elements, got {len(key)}")
    key = [k & 0xFFFFFFFFFFFFFFFF for k in key]
    n = int(num_buckets)
    return _map_flat(input, lambda x: _one("StringToHashBucketStrong", [x], num_buckets=n, key=key))


def to_hash_bucket(string_tensor, num_buckets, name=None):
    """TensorFlow's legacy Hash64 of each string modulo `num_buckets` (int64)."""
    n = int(num_buckets)
    return _map_flat(string_tensor, lambda x: _one("StringToHashBucket", [x], num_buckets=n))


def fingerprint(data, method="farmhash64", name=None):
    """FarmHash Fingerprint64 of each row of `data` (first axis) as 8 little-endian bytes:
    a uint8 tensor of shape [rows, 8]."""
    if _text(method, "method") != "farmhash64":
        raise _InvalidArgumentError(None, None, f"Unsupported fingerprint method: {method}")
    return _one("Fingerprint", [data])


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each UTF-8 string as a list of its characters (a RaggedTensor of strings)."""
    if str(input_encoding).upper().replace("-", "") != "UTF8":
        raise NotImplementedError("ferroflow's unicode_split reads UTF-8 only")
    return _split_any_rank(input, lambda v: _pieces(v, True))


__all__ = [
    "as_string",
    "bytes_split",
    "fingerprint",
    "join",
    "length",
    "lower",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "unicode_split",
    "upper",
]
