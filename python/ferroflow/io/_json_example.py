"""`tf.io.decode_json_example`: JSON-encoded `tf.train.Example` records (protobuf's JSON
mapping) to their binary wire form, parsed by the `protobuf` package with TensorFlow's
schema, as TensorFlow's `DecodeJSONExample` kernel does with protobuf's C++ JSON parser."""

import numpy as np
from google.protobuf import json_format

from ferroflow import _proto, errors
from ferroflow.io import _host
from ferroflow.tensor_shape import TensorShape

__all__ = ["decode_json_example"]


def _decode_all(json_examples):
    example_class = _proto.message_class("tensorflow.Example")
    out = np.empty(json_examples.shape, dtype=object)
    for index, text in np.ndenumerate(json_examples):
        try:
            message = json_format.Parse(text, example_class())
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"Error while parsing JSON: {e} [Op:DecodeJSONExample]"
            ) from None
        out[index] = message.SerializeToString()
    return [out]


def decode_json_example(json_examples, name=None):
    """Each string of `json_examples` (a JSON `Example`) as a serialized `Example`, same shape.
    Malformed JSON, unknown fields and mistyped values are InvalidArgumentError."""
    tensor = _host.string_input(json_examples, "DecodeJSONExample")
    return _host.run(_decode_all, [tensor], ["string"], [TensorShape(tensor.shape)])[0]
