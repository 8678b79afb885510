"""`tf.io.decode_json_example` against TensorFlow: the same Examples for JSON of every feature
kind, shapes kept, inside a tf.function, and InvalidArgumentError for bad JSON.

The bytes are compared after a deterministic re-serialisation: TensorFlow's C++ JSON converter
writes repeated numbers unpacked and map entries in JSON order, protobuf's Python one packed
and in its map order; both are encodings of the same message, and parsers read both."""

import pytest

from .harness import assert_parity


def _decode(tf, traced):
    import json

    example = {
        "features": {
            "feature": {
                "ints": {"int64List": {"value": ["1", "-2", "3"]}},
                "floats": {"floatList": {"value": [0.5, -1.25]}},
                "bytes": {"bytesList": {"value": ["aGVsbG8="]}},
            }
        }
    }
    text = json.dumps(example)
    decode = tf.function(tf.io.decode_json_example) if traced else tf.io.decode_json_example

    def canonical(strings):
        flat = strings.numpy().reshape(-1)
        return [tf.train.Example.FromString(b).SerializeToString(deterministic=True) for b in flat]

    decoded = [decode([text, "{}"]), decode(tf.constant([[text]])), decode(text)]
    out = [(d.dtype, d.shape, canonical(d)) for d in decoded]
    out.append(str(tf.train.Example.FromString(decoded[2].numpy())))
    for bad in ["{", '{"features": 3}', '{"foo": 1}', ""]:
        try:
            decode(bad)
        except Exception as e:
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("traced", [False, True])
def test_decode_json_example(tf_oracle, traced):
    assert_parity(tf_oracle, _decode, (traced,))
