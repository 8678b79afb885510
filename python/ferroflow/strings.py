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
    """Whether each whole string matches the RE2 `pattern` (a Python string, or a scalar string
    tensor read when the op runs)."""
    if not isinstance(pattern, (str, bytes)):
        pattern = _array_ops.convert_to_tensor(pattern, dtype=_dtypes.string)
        return _map_flat(input, lambda x: _one("RegexFullMatch", [x, pattern]))
    pattern = _text(pattern, "pattern")
    return _map_flat(input, lambda x: _one("StaticRegexFullMatch", [x], pattern=pattern))


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of the RE2 `pattern` by `rewrite` (`\\1` names a group), every match
    or only the first. `pattern` and `rewrite` are Python strings, or scalar string tensors
    read when the op runs."""
    if not isinstance(pattern, (str, bytes)) or not isinstance(rewrite, (str, bytes)):
        pattern = _array_ops.convert_to_tensor(pattern, dtype=_dtypes.string)
        rewrite = _array_ops.convert_to_tensor(rewrite, dtype=_dtypes.string)
        g = bool(replace_global)
        return _map_flat(
            input, lambda x: _one("RegexReplace", [x, pattern, rewrite], replace_global=g)
        )
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


# --- Unicode -------------------------------------------------------------------------------------


def _unicode_attrs(errors, replacement_char):
    return dict(errors=_text(errors, "errors"), replacement_char=int(replacement_char))


def _unicode_decode(input, input_encoding, errors, replacement_char, replace_control, offsets):  # noqa: A002
    """TensorFlow's `_unicode_decode`: the flattened strings through one decode op, rows
    rebuilt as RaggedTensors (a scalar gives dense vectors)."""
    from ferroflow.ragged.ragged_tensor import convert_to_tensor_or_ragged_tensor

    x = convert_to_tensor_or_ragged_tensor(input)
    ndims = x.shape.rank
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        if not isinstance(x, _RaggedTensor):
            x = _RaggedTensor.from_tensor(x, ragged_rank=ndims - 1)
        elif x.ragged_rank < ndims - 1:
            x = x.with_flat_values(
                _RaggedTensor.from_tensor(x.flat_values, ragged_rank=ndims - x.ragged_rank - 1)
            )
    flat = x.flat_values if isinstance(x, _RaggedTensor) else x
    flat = _array_ops.reshape(flat, [-1])
    name = "UnicodeDecodeWithOffsets" if offsets else "UnicodeDecode"
    outs = _op(
        name,
        [flat],
        input_encoding=_text(input_encoding, "input_encoding"),
        replace_control_characters=bool(replace_control),
        **_unicode_attrs(errors, replacement_char),
    )
    splits, results = outs[0], outs[1:]
    if ndims == 0:
        return tuple(results) if offsets else results[0]
    rows = [_RaggedTensor.from_row_splits(r, splits, validate=False) for r in results]
    if ndims > 1:
        rows = [x.with_flat_values(r) for r in rows]
    return tuple(rows) if offsets else rows[0]


def unicode_decode(
    input,  # noqa: A002
    input_encoding,
    errors="replace",
    replacement_char=0xFFFD,
    replace_control_characters=False,
    name=None,
):
    r"""Each string's Unicode code points (int32): a RaggedTensor with one more dimension, or a
    dense vector for a scalar. `errors` is 'replace' (malformed bytes become
    `replacement_char`), 'ignore' or 'strict' (InvalidArgumentError).

    >>> import ferroflow as tf
    >>> tf.strings.unicode_decode(["G\u00f6\u00f6dnight", "\U0001f60a"], "UTF-8").to_list()
    [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]]
    """
    return _unicode_decode(
        input, input_encoding, errors, replacement_char, replace_control_characters, False
    )


def unicode_decode_with_offsets(
    input,  # noqa: A002
    input_encoding,
    errors="replace",
    replacement_char=0xFFFD,
    replace_control_characters=False,
    name=None,
):
    r"""As `unicode_decode`, and each character's starting byte in its string (int64).

    >>> import ferroflow as tf
    >>> cps, starts = tf.strings.unicode_decode_with_offsets(["a\u00e9b"], "UTF-8")
    >>> starts.to_list()
    [[0, 1, 3]]
    """
    return _unicode_decode(
        input, input_encoding, errors, replacement_char, replace_control_characters, True
    )


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    r"""Each sequence of code points along the last axis (dense or ragged int32) as one string
    in `output_encoding` ('UTF-8', 'UTF-16-BE' or 'UTF-32-BE'). Code points outside Unicode
    and surrogates are replaced, skipped or fatal as `errors` says.

    >>> import ferroflow as tf
    >>> tf.strings.unicode_encode([[72, 105], [128522, 33]], "UTF-8").numpy()
    array([b'Hi', b'\xf0\x9f\x98\x8a!'], dtype=object)
    """
    from ferroflow.ragged.ragged_tensor import convert_to_tensor_or_ragged_tensor

    x = convert_to_tensor_or_ragged_tensor(input)
    attrs = dict(output_encoding=_text(output_encoding, "output_encoding"))
    attrs.update(_unicode_attrs(errors, replacement_char))

    def again(v):
        return unicode_encode(v, output_encoding, errors, replacement_char)

    if x.shape.rank is None:
        raise ValueError("Rank of input_tensor must be statically known.")
    if isinstance(x, _RaggedTensor):
        if x.flat_values.shape.rank > 1:
            return x.with_flat_values(again(x.flat_values))
        if x.ragged_rank > 1:
            return x.with_values(again(x.values))
        return _one("UnicodeEncode", [x.values, x.row_splits], **attrs)
    rank = x.shape.rank
    if rank == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    if rank == 1:
        splits = _array_ops.stack([0, _array_ops.shape(x, out_type=_dtypes.int32)[0]])
        return _array_ops.reshape(_one("UnicodeEncode", [x, splits], **attrs), [])
    if rank == 2:
        return again(_RaggedTensor.from_tensor(x))
    dims = _array_ops.shape(x)
    flat = _array_ops.reshape(x, _array_ops.stack([-1, dims[-1]]))
    return _array_ops.reshape(again(flat), dims[:-1])


def _split_chars(input, input_encoding, errors, replacement_char, offsets):  # noqa: A002
    from ferroflow.ragged.ragged_ops import expand_dims

    decoded = _unicode_decode(input, input_encoding, errors, replacement_char, False, offsets)
    codepoints = decoded[0] if offsets else decoded
    chars = unicode_encode(
        expand_dims(codepoints, -1),
        output_encoding=input_encoding,
        errors=errors,
        replacement_char=replacement_char,
    )
    return (chars, decoded[1]) if offsets else chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    r"""Each string cut into its characters, each written again in `input_encoding` (which
    must be one `unicode_encode` writes): a RaggedTensor of strings.

    >>> import ferroflow as tf
    >>> tf.strings.unicode_split(["ab\u00e9"], "UTF-8").to_list()
    [[b'a', b'b', b'\xc3\xa9']]
    """
    return _split_chars(input, input_encoding, errors, replacement_char, False)


def unicode_split_with_offsets(
    input,  # noqa: A002
    input_encoding,
    errors="replace",
    replacement_char=65533,
    name=None,
):
    """As `unicode_split`, and each character's starting byte (int64)."""
    return _split_chars(input, input_encoding, errors, replacement_char, True)


def unicode_transcode(
    input,  # noqa: A002
    input_encoding,
    output_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    r"""Each string read in `input_encoding` (UTF-8, UTF-16/32 with -BE/-LE or a byte order
    mark, ISO-8859-1, US-ASCII) and written in `output_encoding`.

    >>> import ferroflow as tf
    >>> tf.strings.unicode_transcode(["Hi"], "UTF-8", "UTF-16-BE").numpy()
    array([b'\x00H\x00i'], dtype=object)
    """
    attrs = dict(
        input_encoding=_text(input_encoding, "input_encoding"),
        output_encoding=_text(output_encoding, "output_encoding"),
        replace_control_characters=bool(replace_control_characters),
    )
    attrs.update(_unicode_attrs(errors, replacement_char))
    return _map_flat(input, lambda x: _one("UnicodeTranscode", [x], **attrs))


def unicode_script(input, name=None):  # noqa: A002
    """ICU's script code (int32) of each int32 code point: 25 Latin, 8 Cyrillic, 17 Han, ...;
    0 Common, 103 Unknown, -1 outside Unicode.

    >>> import ferroflow as tf
    >>> tf.strings.unicode_script([65, 1041, 20320]).numpy()
    array([25,  8, 17], dtype=int32)
    """
    return _map_flat(input, lambda x: _one("UnicodeScript", [x]))


# --- n-grams, formatting, segment joins ----------------------------------------------------------


def _ngram_rows(rt, widths, separator, left, right, padding_width, preserve):
    values, splits = _op(
        "StringNGrams",
        [rt.flat_values, rt.row_splits],
        separator=separator,
        ngram_widths=widths,
        left_pad=left,
        right_pad=right,
        pad_width=int(padding_width),
        preserve_short_sequences=bool(preserve),
    )
    return _RaggedTensor.from_row_splits(values, splits, validate=False)


def ngrams(
    data,
    ngram_width,
    separator=" ",
    pad_values=None,
    padding_width=None,
    preserve_short_sequences=False,
    name=None,
):
    """N-grams of the strings along the last axis: windows of `ngram_width` adjacent strings
    joined with `separator` (several widths in order when a list), padded with `pad_values`
    (`padding_width` each side, `ngram_width - 1` by default). A RaggedTensor, or dense when
    `data` is.

    >>> import ferroflow as tf
    >>> tf.strings.ngrams(["A", "B", "C", "D"], 2).numpy()
    array([b'A B', b'B C', b'C D'], dtype=object)
    """
    from ferroflow.ragged.ragged_tensor import convert_to_tensor_or_ragged_tensor

    text_types = (str, bytes)
    if pad_values is None:
        left = right = ""
    elif isinstance(pad_values, (list, tuple)):
        if not isinstance(pad_values[0], text_types) or not isinstance(pad_values[1], text_types):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left, right = _text(pad_values[0], "pad"), _text(pad_values[1], "pad")
    else:
        if not isinstance(pad_values, text_types):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left = right = _text(pad_values, "pad")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    data = convert_to_tensor_or_ragged_tensor(data, dtype=_dtypes.string)
    args = (ngram_width, separator, pad_values, padding_width, preserve_short_sequences)
    dense_shape = None
    if not isinstance(data, _RaggedTensor):
        rank = data.shape.rank
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        if rank == 1:
            rt = _RaggedTensor.from_row_starts(data, [0], validate=False)
            return ngrams(rt, *args)[0]
        dense_shape = _array_ops.concat([_array_ops.shape(data)[:-1], [-1]], axis=0)
        data = _RaggedTensor.from_tensor(data, ragged_rank=rank - 1)
    if data.ragged_rank > 1:
        out = data.with_values(ngrams(data.values, *args))
        return out if dense_shape is None else _array_ops.reshape(out.flat_values, dense_shape)
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for width in widths:
        if width < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    if pad_values is None:
        padding_width = 0
    elif padding_width is None:
        padding_width = -1
    sep = _text(separator, "separator")
    out = _ngram_rows(
        data, [int(w) for w in widths], sep, left, right, padding_width, preserve_short_sequences
    )
    return out if dense_shape is None else _array_ops.reshape(out.flat_values, dense_shape)


def _bracketed_rows(values, splits, summarize):
    """Each row of strings as TensorFlow's ragged to_string writes it: `[a, b, ..., y, z]`
    (the first and last `summarize` entries when given)."""
    from ferroflow import math as _math
    from ferroflow.ragged.ragged_ops import row_splits_to_segment_ids

    splits = _array_ops.cast(splits, _dtypes.int64)
    rows = _array_ops.shape(splits, out_type=_dtypes.int64)[0] - 1
    rowids = row_splits_to_segment_ids(splits, out_type=_dtypes.int64)
    pos = _array_ops.range(_array_ops.shape(values, out_type=_dtypes.int64)[0]) - _array_ops.gather(
        splits, rowids
    )
    if summarize not in (-1, None):
        lengths = _array_ops.gather(splits[1:] - splits[:-1], rowids)
        s = int(summarize)
        cut = _math.logical_and(_math.equal(pos, s), _math.greater(lengths, 2 * s))
        keep = _math.logical_or(
            _math.logical_or(_math.less(pos, s), _math.greater_equal(pos, lengths - s)), cut
        )
        values = _array_ops.where(cut, _array_ops.fill(_array_ops.shape(values), "..."), values)
        values = _array_ops.boolean_mask(values, keep)
        rowids = _array_ops.boolean_mask(rowids, keep)
    joined = unsorted_segment_join(values, rowids, rows, separator=", ")
    return join(["[", joined, "]"])


def _ragged_to_string(rt, summarize):
    """TensorFlow's `ragged_tensor_to_string`: a RaggedTensor as one scalar string."""
    if (
        summarize is not None
        and summarize != -1
        and not (isinstance(summarize, int) and summarize > 0)
    ):
        raise ValueError(f"Expected summarize to be -1 or a positive int, got {summarize!r}")
    flat = rt.flat_values
    if rt.dtype == _dtypes.string:
        escaped = regex_replace(flat, r"(['\\])", r"\\\1")
        flat = join(["'", escaped, "'"])
    else:
        flat = as_string(flat)
    if flat.shape.rank > 1:  # uniform inner dimensions: every one a level of rows
        inner = _RaggedTensor.from_tensor(flat, ragged_rank=flat.shape.rank - 1)
        rt = rt.with_flat_values(inner)
        flat = inner.flat_values
    strings = flat
    for splits in reversed(rt.nested_row_splits):
        strings = _bracketed_rows(strings, splits, summarize)
    nrows = _array_ops.shape(strings, out_type=_dtypes.int64)[0]
    top = _bracketed_rows(
        strings, _array_ops.stack([_array_ops.zeros([], _dtypes.int64), nrows]), summarize
    )
    return _array_ops.reshape(top, [])


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """`template` with each `placeholder` replaced by the next tensor of `inputs`, printed as
    `tf.print` prints it (the first and last `summarize` entries of each dimension; -1 for
    all). A scalar string.

    >>> import ferroflow as tf
    >>> tf.strings.format("tensor: {}, suffix", tf.range(5)).numpy()
    b'tensor: [0 1 2 3 4], suffix'
    """
    from ferroflow.sparse_tensor import SparseTensor

    if isinstance(inputs, (_core.Tensor, _RaggedTensor, SparseTensor)):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError(
            f"The template expects {template.count(placeholder)} tensors, but the inputs only "
            f"has {len(inputs)}. Please ensure the number of placeholders in template matches "
            "inputs length."
        )
    attrs = dict(template=template, placeholder=placeholder, summarize=int(summarize))
    if not any(isinstance(x, _RaggedTensor) for x in inputs):
        if not inputs:
            return _array_ops.constant(template, _dtypes.string)
        return _one("StringFormat", [_array_ops.convert_to_tensor(x) for x in inputs], **attrs)
    pieces = template.split(placeholder)
    parts = [_array_ops.constant(pieces[0], _dtypes.string)]
    for x, piece in zip(inputs, pieces[1:]):
        if isinstance(x, _RaggedTensor):
            parts.append(_ragged_to_string(x, summarize))
        else:
            attrs.update(template="{}", placeholder="{}")
            parts.append(_one("StringFormat", [_array_ops.convert_to_tensor(x)], **attrs))
        parts.append(_array_ops.constant(piece, _dtypes.string))
    return reduce_join(_array_ops.stack(parts))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of each segment (`segment_ids` label a prefix of the axes of
    `inputs`, each below `num_segments`) in order, with `separator` between pieces: the output
    has `num_segments` rows; empty segments are empty strings.

    >>> import ferroflow as tf
    >>> tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 2, separator="-").numpy()
    array([b'b', b'a-c'], dtype=object)
    """
    inputs = _array_ops.convert_to_tensor(inputs, dtype=_dtypes.string)
    segment_ids = _array_ops.convert_to_tensor(segment_ids)
    num_segments = _array_ops.convert_to_tensor(num_segments)
    sep = _text(separator, "separator")
    return _one("UnsortedSegmentJoin", [inputs, segment_ids, num_segments], separator=sep)


__all__ = [
    "as_string",
    "bytes_split",
    "fingerprint",
    "format",
    "join",
    "length",
    "lower",
    "ngrams",
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
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_script",
    "unicode_split",
    "unicode_split_with_offsets",
    "unicode_transcode",
    "unsorted_segment_join",
    "upper",
]
