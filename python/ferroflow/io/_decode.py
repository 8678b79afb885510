"""`tf.io.decode_raw`, `decode_csv`, `encode_base64`/`decode_base64` and `decode_compressed`:
host ops (`io/_host.py`) that follow TensorFlow's kernels (`decode_raw_op.cc`,
`decode_csv_op.cc`, `base64.cc`, `decode_compressed_op.cc`) rule for rule, errors included."""

import base64 as _base64
import functools
import re
import warnings
import zlib

import numpy as np

from ferroflow import _dispatch, _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.io import _host
from ferroflow.tensor_shape import TensorShape

__all__ = [
    "decode_base64",
    "decode_compressed",
    "decode_csv",
    "decode_raw",
    "encode_base64",
    "parse_csv_record",
]


def _ragged_elementwise(fn):
    """A unary string op that TensorFlow also applies to a RaggedTensor's flat values: the
    plain path first; a composite argument, which it refuses, goes to the registered ragged
    handler (`_dispatch`'s unary elementwise table)."""

    @functools.wraps(fn)
    def api(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            return _dispatch.dispatch_on_error(api, args, kwargs)

    _dispatch.declare(api, "unary")
    return api


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _bool_attr(value, name):
    """A boolean attribute, refused unless a Python bool (TensorFlow's `make_bool`)."""
    if not isinstance(value, bool):
        raise TypeError(f"Expected bool for argument '{name}' not {value!r}.")
    return value


def _str_attr(value, name):
    """A string attribute as bytes, refused unless str or bytes (TensorFlow's `make_str`)."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise TypeError(f"Expected string for argument '{name}' not {value!r}.")


def _byte_array(values, shape):
    """A numpy object array of bytes, of ``shape``."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


# --- decode_raw ------------------------------------------------------------------------------

_RAW_TYPES = (
    "half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, "
    "bool, bfloat16"
)
_PADDED_RAW_TYPES = "half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16"


_TF_TYPE_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _type_name(dtype):
    """A dtype as TensorFlow's `DataTypeString` names it in messages."""
    return _TF_TYPE_NAMES.get(dtype.name, dtype.name)


def _raw_view(dtype, little_endian):
    """The numpy dtype that reads ``dtype``'s elements from bytes in the given byte order."""
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype == _dtypes.bfloat16 or dtype == _dtypes.bool:
        np_dtype = np.dtype(np.uint16 if dtype == _dtypes.bfloat16 else np.uint8)
    return np_dtype.newbyteorder("<" if little_endian else ">")


def _from_raw(flat, dtype, view):
    """The decoded elements of the byte strings ``flat`` (all of one length) as ``dtype``."""
    data = np.frombuffer(b"".join(flat), dtype=view).reshape(len(flat), -1)
    if dtype == _dtypes.bool:
        return data != 0
    if dtype == _dtypes.bfloat16:
        return data.astype(np.uint16).view(dtype.as_numpy_dtype)
    return data.astype(view.newbyteorder("="))


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string's bytes read as a vector of ``out_type`` (the strings must all have one
    length, a multiple of the element size; with ``fixed_length``, each is cut or zero-padded
    to that many bytes). The result has the input's shape plus one dimension."""
    out_type = _dtypes.as_dtype(out_type)
    _bool_attr(little_endian, "little_endian")
    op = "DecodeRaw" if fixed_length is None else "DecodePaddedRaw"
    allowed = _RAW_TYPES if fixed_length is None else _PADDED_RAW_TYPES
    if _type_name(out_type) not in allowed.split(", "):
        raise _invalid(
            f"Value for attr 'out_type' of {_type_name(out_type)} is not in the list of allowed "
            f"values: {allowed}"
        )
    tensor = _host.string_input(input_bytes, op)
    width = out_type.size
    view = _raw_view(out_type, little_endian)
    if fixed_length is not None:
        fixed = convert_to_tensor(fixed_length, dtype=_dtypes.int32)
        length = None if _tracing.tracing() else int(fixed.numpy())
        if length is not None and length % width != 0:
            raise _invalid(
                f"fixed_length ({length}) must be a multiple of the size of out_type ({width})"
            )

        def padded(strings, n):
            n = int(n)
            if n % width != 0:
                raise _invalid(
                    f"fixed_length ({n}) must be a multiple of the size of out_type ({width})"
                )
            flat = [s[:n].ljust(n, b"\0") for s in strings.reshape(-1)]
            values = _from_raw(flat, out_type, view) if flat else np.zeros((0, n // width))
            return [values.reshape(*strings.shape, n // width)]

        last = None if length is None else length // width
        return _host.run(
            padded, [tensor, fixed], [out_type], [TensorShape(tensor.shape).concatenate([last])]
        )[0]

    def decode(strings):
        flat = list(strings.reshape(-1))
        size = len(flat[0]) if flat else 0
        for i, s in enumerate(flat):
            if len(s) != size:
                raise _invalid(
                    "DecodeRaw requires input strings to all be the same size, but element "
                    f"{i} has size {size} != {len(s)}"
                )
        if size % width != 0:
            raise _invalid(
                f"Input to DecodeRaw has length {size} that is not a multiple of {width}, the "
                f"size of {_type_name(out_type)}"
            )
        values = _from_raw(flat, out_type, view) if flat else np.zeros((0, 0))
        return [values.reshape(*strings.shape, size // width)]

    return _host.run(decode, [tensor], [out_type], [TensorShape(tensor.shape).concatenate([None])])[
        0
    ]


# --- base64 ----------------------------------------------------------------------------------

_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_B64_INVALID = re.compile(b"[^" + re.escape(_B64_ALPHABET) + b"]")


def _b64_decode_one(s):
    """TensorFlow's `Base64Decode`: web-safe alphabet, padding only in the last group of four,
    unpadded input accepted."""
    n = len(s)
    if n == 0:
        return b""
    last = ((n - 1) // 4) * 4  # the final group holds 1 to 4 characters
    if _B64_INVALID.search(s, 0, last):
        raise _invalid("Invalid character found in base64.")
    end = n
    if n - last == 4:
        if s[last + 2 : last + 4] == b"==":
            end -= 2
        elif s[last + 3 : last + 4] == b"=":
            end -= 1
    remain = end - last
    if remain == 1:
        raise _invalid("Base64 string length cannot be 1 modulo 4.")
    if _B64_INVALID.search(s, last, end):
        raise _invalid("Invalid character found in base64.")
    body = s[:end] + b"A" * (4 - remain)
    return _base64.urlsafe_b64decode(body)[: last // 4 * 3 + remain - 1]


@_ragged_elementwise
def encode_base64(input, pad=False, name=None):  # noqa: A002
    """Each string in web-safe base64 (``-`` and ``_``), with ``=`` padding when ``pad``."""
    _bool_attr(pad, "pad")
    tensor = _host.string_input(input, "EncodeBase64")

    def encode(strings):
        out = [_base64.urlsafe_b64encode(s) for s in strings.reshape(-1)]
        if not pad:
            out = [s.rstrip(b"=") for s in out]
        return [_byte_array(out, strings.shape)]

    return _host.run(encode, [tensor], [_dtypes.string], [tensor.shape])[0]


@_ragged_elementwise
def decode_base64(input, name=None):  # noqa: A002
    """Each web-safe base64 string decoded (padded or not)."""
    tensor = _host.string_input(input, "DecodeBase64")

    def decode(strings):
        out = [_b64_decode_one(s) for s in strings.reshape(-1)]
        return [_byte_array(out, strings.shape)]

    return _host.run(decode, [tensor], [_dtypes.string], [tensor.shape])[0]


# --- decode_compressed -----------------------------------------------------------------------

_ZLIB_ERROR = re.compile(r"Error (-?\d+) while \w+ data: (.*)")


def _inflate(data, wbits, many_members):
    """zlib's inflate as TensorFlow's `ZlibInputStream` reads a whole string: a truncated
    stream gives what was decoded; after a ZLIB stream the rest is ignored, after a GZIP member
    the next member is read."""
    out = []
    while True:
        inflater = zlib.decompressobj(wbits)
        try:
            out.append(inflater.decompress(data))
        except zlib.error as e:
            m = _ZLIB_ERROR.match(str(e))
            detail = f"{m.group(1)}: {m.group(2)}" if m else str(e)
            raise errors.DataLossError(
                None, None, f"inflate() failed with error {detail}"
            ) from None
        if not (many_members and inflater.eof and inflater.unused_data):
            return b"".join(out)
        data = inflater.unused_data


@_ragged_elementwise
def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002
    """Each string decompressed: ``"ZLIB"``, ``"GZIP"`` or ``""`` (unchanged)."""
    kind = _str_attr(compression_type, "compression_type").decode("utf-8", "replace")
    tensor = _host.string_input(bytes, "DecodeCompressed")
    if kind not in ("", "ZLIB", "GZIP", "ZSTD"):
        raise _invalid("Only ZLIB, ZSTD, GZIP or NONE are supported compressions")
    if kind == "ZSTD":
        raise errors.UnimplementedError(
            None, None, "ZSTD decompression is not available in ferroflow"
        )

    def decode(strings):
        if kind == "":
            return [strings]
        wbits = zlib.MAX_WBITS + (16 if kind == "GZIP" else 0)
        out = [_inflate(s, wbits, kind == "GZIP") for s in strings.reshape(-1)]
        return [_byte_array(out, strings.shape)]

    return _host.run(decode, [tensor], [_dtypes.string], [tensor.shape])[0]


# --- decode_csv ------------------------------------------------------------------------------

_CSV_TYPES = {
    _dtypes.float32: "float",
    _dtypes.float64: "double",
    _dtypes.int32: "int32",
    _dtypes.int64: "int64",
    _dtypes.string: "string",
}
_SPACE = rb"[ \t\n\v\f\r]*"
_INT = re.compile(_SPACE + rb"([+-]?[0-9]+)" + _SPACE + rb"\Z")
_FLOAT = re.compile(
    _SPACE
    + rb"([+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|infinity|inf"
    + rb"|nan(?:\([0-9a-zA-Z_]*\))?))"
    + _SPACE
    + rb"\Z",
    re.IGNORECASE,
)
_HEX_FLOAT = re.compile(
    _SPACE
    + rb"([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    + _SPACE
    + rb"\Z"
)
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _number(field, kind):
    """``field`` converted as TensorFlow's `safe_strto32/64`, `safe_strtof/d`, or None."""
    if kind in _INT_RANGES:
        m = _INT.match(field)
        if m is None:
            return None
        value = int(m.group(1))
        low, high = _INT_RANGES[kind]
        return value if low <= value <= high else None
    m = _FLOAT.match(field)
    if m is not None:
        text = m.group(1).lower().split(b"(")[0]
        return float(text.replace(b"infinity", b"inf"))
    m = _HEX_FLOAT.match(field)
    if m is not None:
        text = m.group(1).decode()
        if "p" not in text.lower():
            text += "p0"
        return float.fromhex(text)
    return None


def parse_csv_record(record, delim, use_quote_delim, select_cols, index):
    """The fields of one CSV record (bytes), as TensorFlow's `ExtractFields` splits them:
    quoted fields with doubled quotes, a line break skipped at a field's start; with
    ``select_cols`` (increasing indices) only those fields, stopping after the last."""
    quote = 34  # '"'
    simple = (b'"' not in record or not use_quote_delim) and (
        b"\n" not in record and b"\r" not in record
    )
    if simple:
        if not record:
            return []
        fields = record.split(delim)
        if select_cols is None:
            return fields
        return [fields[c] for c in select_cols if c < len(fields)]
    d = delim[0]
    n = len(record)
    result = []
    i = 0
    parsed = 0
    selected = 0
    while i < n:
        if record[i] in (10, 13):
            i += 1
            continue
        include = select_cols is None or select_cols[selected] == parsed
        field = bytearray()
        if use_quote_delim and record[i] == quote:
            i += 1
            while i < n - 1 and (record[i] != quote or record[i + 1] != d):
                if record[i] != quote:
                    field.append(record[i])
                    i += 1
                else:
                    if record[i + 1] != quote:
                        raise _invalid("Quote inside a string has to be escaped by another quote")
                    field.append(quote)
                    i += 2
            if not (i < n and record[i] == quote and (i == n - 1 or record[i + 1] == d)):
                raise _invalid("Quoted field has to end with quote followed by delim or end")
            i += 2
        else:
            while i < n and record[i] != d:
                c = record[i]
                if (use_quote_delim and c == quote) or c in (10, 13):
                    raise _invalid("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(c)
                i += 1
            i += 1
        parsed += 1
        if include:
            result.append(bytes(field))
            selected += 1
            if select_cols is not None and selected == len(select_cols):
                return result
    if n and record[-1] == d and (select_cols is None or select_cols[selected] == parsed):
        result.append(b"")
    return result


def csv_converter(defaults, na_value):
    """A function turning the fields of record ``i`` into typed values: the defaults (numpy
    scalars or None where a field is required) fill empty and ``na_value`` fields."""
    kinds = [_CSV_TYPES[d.dtype] for d in defaults]
    fallback = [
        None if d.shape.num_elements() == 0 else np.asarray(d.numpy()).reshape(-1)[0]
        for d in defaults
    ]
    na = na_value.encode() if isinstance(na_value, str) else na_value

    def convert(fields, i):
        if len(fields) != len(kinds):
            raise _invalid(f"Expect {len(kinds)} fields but have {len(fields)} in record {i}")
        row = []
        for f, (field, kind) in enumerate(zip(fields, kinds)):
            if not field or field == na:
                if fallback[f] is None:
                    raise _invalid(f"Field {f} is required but missing in record {i}!")
                row.append(fallback[f])
            elif kind == "string":
                row.append(field)
            else:
                value = _number(field, kind)
                if value is None:
                    raise _invalid(
                        f"Field {f} in record {i} is not a valid {kind}: "
                        f"{field.decode('utf-8', 'replace')}"
                    )
                row.append(value)
        return row

    return convert


def csv_columns(rows, defaults, shape):
    """The typed columns (numpy arrays of ``shape``) of converted rows."""
    columns = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # float32 overflow gives inf, as TF
        for f, d in enumerate(defaults):
            values = [row[f] for row in rows]
            if d.dtype == _dtypes.string:
                columns.append(_byte_array(values, shape))
            else:
                columns.append(np.array(values, dtype=d.dtype.as_numpy_dtype).reshape(shape))
    return columns


def check_record_defaults(record_defaults, select_cols):
    """TensorFlow's checks of `decode_csv`'s defaults (each a tensor of at most one element, of
    a CSV dtype) and ``select_cols``; returns the defaults as tensors."""
    if select_cols is not None:
        select_cols = list(select_cols)
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = [convert_to_tensor(d) for d in record_defaults]
    if not defaults:
        raise _invalid("Length for attr 'OUT_TYPE' of 0 must be at least minimum 1")
    for d in defaults:
        if d.dtype not in _CSV_TYPES:
            raise _invalid(
                f"Value for attr 'OUT_TYPE' of {d.dtype.name} is not in the list of allowed "
                "values: float, double, int32, int64, string"
            )
    for d in defaults:
        if d.shape.rank is not None and d.shape.rank > 1:
            raise _invalid("Each record default should be at most rank 1")
    for i, d in enumerate(defaults):
        n = d.shape.num_elements()
        if n is not None and n > 1:
            raise _invalid(f"There should only be 1 default per field but field {i} has {n}")
    return defaults, select_cols


def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
):
    """Each CSV record split into typed columns: one output per entry of ``record_defaults``
    (its dtype is the column's; its value fills empty or ``na_value`` fields, and an empty
    default makes the field required). ``select_cols`` reads only those columns."""
    _bool_attr(use_quote_delim, "use_quote_delim")
    defaults, select_cols = check_record_defaults(record_defaults, select_cols)
    tensor = convert_to_tensor(records, dtype=_dtypes.string)
    delim = _str_attr(field_delim, "field_delim")
    na_value = _str_attr(na_value, "na_value")
    if len(delim) != 1:
        raise _invalid("field_delim should be only 1 char")
    convert = csv_converter(defaults, na_value)

    def decode(strings):
        rows = [
            convert(parse_csv_record(r, delim, use_quote_delim, select_cols, i), i)
            for i, r in enumerate(strings.reshape(-1))
        ]
        return csv_columns(rows, defaults, strings.shape)

    dtypes = [d.dtype for d in defaults]
    return _host.run(decode, [tensor], dtypes, [tensor.shape] * len(dtypes))
