"""tf.io.serialize_tensor / parse_tensor against TensorFlow: the bytes of each dtype (so
TensorFlow parses ferroflow's and the reverse), TensorProtos in TensorFlow's typed ``*_val``
forms, the errors, and a traced call."""

from .harness import assert_parity


def _program(tf, device, protos):
    import numpy as np

    values = [
        tf.constant(5),
        tf.constant([1.5, -2.0]),
        tf.constant([[1, 2], [3, 4]], tf.int64),
        tf.constant([True, False]),
        tf.constant([b"ab", b"", b"\xff"]),
        tf.constant([1, 255], tf.uint8),
        tf.constant([-3], tf.int8),
        tf.constant([1.0, 0.5], tf.float16),
        tf.constant(1.0, tf.bfloat16),
        tf.constant([1 + 2j], tf.complex64),
        tf.constant([1 - 2j], tf.complex128),
        tf.constant(np.zeros((0, 3), np.float32)),
        tf.constant([2.5], tf.float64),
        tf.constant([7], tf.uint32),
    ]
    out = []
    with tf.device(device):
        for v in values:
            s = tf.io.serialize_tensor(v)
            out.append((s, tf.io.parse_tensor(s, v.dtype)))
        for data, dtype in protos:
            out.append(tf.io.parse_tensor(data, getattr(tf, dtype)))
        for call in (
            lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0)), tf.int32),
            lambda: tf.io.parse_tensor(b"\xff\xff\x01", tf.int32),
            lambda: tf.io.parse_tensor([b"x"], tf.float32),
            # tensor_content whose string lengths do not add up to its bytes.
            lambda: tf.io.parse_tensor(
                bytes.fromhex("08071204120208022205010330616 2".replace(" ", "")), tf.string
            ),
        ):
            try:
                out.append(call())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                message = str(e).split("}}")[-1].split(" [Op:")[0].strip()
                # TensorFlow prints the proto's debug string after this; ferroflow says why.
                message = message.split(": ")[0] if message.startswith("Cannot parse") else message
                out.append((type(e).__name__, message))
        traced = tf.function(lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32))
        out.append(traced(tf.constant([[1.0, 2.0]])))
    return out


def _protos():
    """TensorProtos in TensorFlow's typed-list forms, as TensorFlow's protobuf serialized them:
    a list shorter than the shape repeats its last value, a longer one is cut, none is zeros,
    narrow integers are truncated from int_val."""
    table = [
        ("08011204120208032a0400004040", "float32"),
        ("08031204120208023a020102", "int32"),
        ("0807120412020802420161", "string"),
        ("08136a028078", "float16"),
        ("0809120412020802", "int64"),
        ("08081204120208024a100000803f000000400000404000008040", "complex64"),
        ("08061204120208023a0cac02ffffffffffffffffff01", "int8"),
        ("080a1204120208035a0101", "bool"),
        ("08011204120208032a100000803f000000400000404000008040", "float32"),
        # Strings packed in tensor_content (lengths as varints, then the bytes), as
        # TensorFlow's Dataset.save writes them.
        ("0807120412020802220501023061 62".replace(" ", ""), "string"),
    ]
    return [(bytes.fromhex(h), dtype) for h, dtype in table]


def test_serialize_parse_cpu(tf_oracle):
    assert_parity(tf_oracle, _program, args=("CPU:0", _protos()))


def test_serialize_parse_gpu(tf_oracle):
    assert_parity(tf_oracle, _program, args=("GPU:0", _protos()))
