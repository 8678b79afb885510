"""Protocol-buffer text format for the flat messages `tf.train` shows and stores: the
`checkpoint` state file and the object-graph nodes quoted in assertion messages. Strings are
escaped as protobuf's Python text format does, so files and messages read like TensorFlow's."""

import math

__all__ = ["ParseError", "format_float", "parse_fields", "quote"]

_ESCAPES = {
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
    ord('"'): '\\"',
    ord("'"): "\\'",
    ord("\\"): "\\\\",
}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\", "a": "\a"}
_UNESCAPES.update({"b": "\b", "f": "\f", "v": "\v", "?": "?"})


class ParseError(ValueError):
    """Text that is not a well-formed message of the expected fields."""


def quote(text):
    """``text`` as a double-quoted protobuf string: quotes, backslashes and ASCII control
    characters escaped (octal where there is no short form), other characters kept as UTF-8.
    Undecodable filename bytes (surrogate escapes) are written as octal escapes."""
    parts = []
    for ch in text:
        code = ord(ch)
        if code in _ESCAPES:
            parts.append(_ESCAPES[code])
        elif 0x20 <= code < 0x7F or (code >= 0x80 and not 0xDC80 <= code <= 0xDCFF):
            parts.append(ch)
        else:
            parts.append(f"\\{code & 0xFF:03o}")
    return '"' + "".join(parts) + '"'


def format_float(value):
    """A double as protobuf's Python text format writes it."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(float(value))


def _unquote(token):
    """The bytes a quoted string token stands for."""
    body = token[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        if i + 1 >= len(body):
            raise ParseError("a string ends in a lone backslash")
        nxt = body[i + 1]
        if nxt in _UNESCAPES:
            out += _UNESCAPES[nxt].encode()
            i += 2
        elif nxt in "01234567":
            digits = body[i + 1 : i + 4]
            n = len(digits) - len(digits.lstrip("01234567"))
            out.append(int(digits[:n], 8) & 0xFF)
            i += 1 + n
        elif nxt in "xX":
            digits = body[i + 2 : i + 4]
            n = len(digits) - len(digits.lstrip("0123456789abcdefABCDEF"))
            if n == 0:
                raise ParseError("a \\x escape without hex digits")
            out.append(int(digits[:n], 16))
            i += 2 + n
        else:
            raise ParseError(f"unknown escape \\{nxt}")
    return bytes(out)


def _tokens(text):
    """Identifiers, punctuation, quoted strings and numbers; comments dropped."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch in ":[],;":
            yield ch
            i += 1
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                if text[j] == "\n":
                    raise ParseError("a string runs past the end of its line")
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise ParseError("a string is not closed")
            yield text[i : j + 1]
            i = j + 1
        else:
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_.+-"):
                j += 1
            if j == i:
                raise ParseError(f"unexpected character {ch!r}")
            yield text[i:j]
            i = j


def _is_string(token):
    return token[:1] in ("'", '"')


def parse_fields(text, string_fields, float_fields):
    """[(field, value)] in file order from ``field: value`` text. Names outside the two sets
    and malformed values raise ParseError, as protobuf's parser."""
    tokens = list(_tokens(text))
    fields = []
    i = 0

    def value_at(j, name):
        if name in string_fields:
            if j >= len(tokens) or not _is_string(tokens[j]):
                raise ParseError(f"field {name} expects a string")
            raw = b""
            while j < len(tokens) and _is_string(tokens[j]):  # adjacent strings concatenate
                raw += _unquote(tokens[j])
                j += 1
            # Bytes that are not UTF-8 come from undecodable filenames (see `quote`).
            return raw.decode("utf-8", "surrogateescape"), j
        if j >= len(tokens):
            raise ParseError(f"field {name} has no value")
        try:
            return float(tokens[j]), j + 1
        except ValueError:
            raise ParseError(f"field {name} expects a number, not {tokens[j]!r}") from None

    while i < len(tokens):
        name = tokens[i]
        if name not in string_fields and name not in float_fields:
            raise ParseError(f"unknown field {name!r}")
        if i + 1 >= len(tokens) or tokens[i + 1] != ":":
            raise ParseError(f"expected ':' after {name}")
        i += 2
        if i < len(tokens) and tokens[i] == "[":  # repeated-field list syntax
            i += 1
            while i < len(tokens) and tokens[i] != "]":
                value, i = value_at(i, name)
                fields.append((name, value))
                if i < len(tokens) and tokens[i] == ",":
                    i += 1
            if i >= len(tokens):
                raise ParseError("a list is not closed")
            i += 1
        else:
            value, i = value_at(i, name)
            fields.append((name, value))
        if i < len(tokens) and tokens[i] in ",;":
            i += 1
    return fields
