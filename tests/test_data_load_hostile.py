"""`tf.data.Dataset.load` reads TensorFlow's snapshot layout from files it does not trust:
damaged metadata, element specs and shard records (dense, ragged and sparse variant
records) are typed errors (DataLossError,
NotFoundError, DecodeError as TensorFlow), never a crash, a hang or a read outside the saved
directory. `Dataset.cache(filename)` keeps ferroflow's own pickled layout, read by an
unpickler that rebuilds only containers, numpy values and spec classes: a hostile file that
names any other callable (here `os.system`) is DataLossError, and nothing it names runs."""

import os
import pickle
import random

import ferroflow as tf
import pytest
from ferroflow._proto import message_class
from ferroflow.data import _snappy
from google.protobuf.message import DecodeError


class _RunsACommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _saved(tmp_path, name="saved"):
    saved = tmp_path / name
    tf.data.Dataset.range(4).map(lambda x: (x, tf.strings.as_string(x))).save(str(saved))
    (run,) = [p for p in saved.iterdir() if p.is_dir()]
    return saved, run / "00000000.shard" / "00000000.snapshot"


def _read(saved):
    return [(int(a), bytes(b.numpy())) for a, b in tf.data.Dataset.load(str(saved))]


_TYPED = (tf.errors.DataLossError, tf.errors.NotFoundError, tf.errors.InvalidArgumentError)


def test_random_damage_to_a_shard_is_a_typed_error(tmp_path):
    saved, shard = _saved(tmp_path)
    good = shard.read_bytes()
    assert _read(saved) == [(i, str(i).encode()) for i in range(4)]
    _damage_randomly(shard, good, random.Random(0), 200, lambda: _read(saved))


def _damage_randomly(shard, good, rng, times, read):
    """``read()`` after each of ``times`` random damages (bytes changed, the end cut) to
    ``shard``: a typed error or elements, nothing else."""
    for _ in range(times):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        shard.write_bytes(bytes(data[: rng.randint(0, len(data))]))
        try:
            read()
        except _TYPED:
            pass


def test_random_damage_to_a_snappy_shard_is_a_typed_error(tmp_path):
    """SNAPPY shards (decoded in Python): damaged block lengths, literal lengths and copy
    offsets are DataLossError, never an exception of another class or a huge allocation."""
    saved = tmp_path / "snappy"
    ds = tf.data.Dataset.range(200).map(lambda x: (x, tf.strings.as_string(x % 3)))
    ds.save(str(saved), compression="SNAPPY")
    (run,) = [p for p in saved.iterdir() if p.is_dir()]
    shard = run / "00000000.shard" / "00000000.snapshot"
    good = shard.read_bytes()
    # A block with a copy: the literal "ab", then 8 bytes copied from 2 back (overlapping).
    block = b"\x0a" + b"\x04ab" + b"\x11\x02"
    shard.write_bytes(b"\x00\x00\x00\x06" + block)
    assert _snappy.decompress_file(str(shard)) == b"ab" * 5
    for data in (
        b"\x00\x00\x00\x06" + block[:-1] + b"\x05",  # a copy before the block's start
        b"\x00\x00\x00\x05" + block[:-1],  # a copy cut short
        b"\xff\xff\xff\xff" + block,  # a block length past the file
        b"\x00\x00\x00\x03\xff\xff\xff",  # a declared size past the limit
    ):
        shard.write_bytes(data)
        with pytest.raises(tf.errors.DataLossError):
            list(tf.data.Dataset.load(str(saved), compression="SNAPPY"))
    read = lambda: list(tf.data.Dataset.load(str(saved), compression="SNAPPY"))  # noqa: E731
    _damage_randomly(shard, good, random.Random(1), 100, read)


def test_hostile_string_lengths_are_data_loss(tmp_path):
    """A string tensor whose packed lengths claim more bytes (or more strings) than the
    record holds: each is DataLossError, nothing allocated from the claimed sizes."""
    saved, shard = _saved(tmp_path)
    proto_class = message_class("tensorflow.TensorProto")
    hostile = [
        proto_class(dtype=7, tensor_content=b"\xff\xff\xff\xff\x0f" + b"x"),
        proto_class(dtype=7, tensor_content=b"\x05ab"),
        proto_class(dtype=7, tensor_content=b"\x80"),
    ]
    big = proto_class(dtype=7, tensor_content=b"\x01a")
    big.tensor_shape.dim.add().size = 2**40
    hostile.append(big)
    for proto in hostile:
        shard.unlink()
        with tf.io.TFRecordWriter(str(shard)) as w:
            w.write(tf.io.serialize_tensor(tf.constant(0, tf.int64)).numpy())
            w.write(proto.SerializeToString())
        with pytest.raises(tf.errors.DataLossError):
            _read(saved)


def test_damaged_metadata_and_spec(tmp_path):
    saved, _ = _saved(tmp_path)
    meta = saved / "snapshot.metadata"
    record_class = message_class("tensorflow.data.experimental.SnapshotMetadataRecord")
    good = record_class.FromString(meta.read_bytes())
    outside = tmp_path / "outside"
    outside.mkdir()
    for run_id in ("..", "../outside", "", "a/b"):
        bad = record_class()
        bad.CopyFrom(good)
        bad.run_id = run_id
        meta.write_bytes(bad.SerializeToString())
        with pytest.raises(tf.errors.DataLossError):
            _read(saved)
    meta.write_bytes(b"\xff\xff")
    with pytest.raises(tf.errors.DataLossError):
        _read(saved)
    meta.unlink()
    with pytest.raises(tf.errors.NotFoundError):
        _read(saved)
    spec = saved / "dataset_spec.pb"
    spec.write_bytes(b"\xff")
    with pytest.raises(DecodeError):
        tf.data.Dataset.load(str(saved))
    spec.write_bytes(b"\x9a\x03\x00")  # a list_value: no spec
    with pytest.raises(TypeError):
        tf.data.Dataset.load(str(saved))
    # A StructuredValue nested past protobuf's recursion limit is refused while parsing.
    nested = b""
    for _ in range(300):
        inner = b"\x0a" + _varint(len(nested)) + nested  # TupleValue.values
        nested = b"\xa2\x03" + _varint(len(inner)) + inner  # StructuredValue.tuple_value
    spec.write_bytes(nested)
    with pytest.raises(DecodeError):
        tf.data.Dataset.load(str(saved))


def _varint(n):
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def test_dataset_elements_save_as_tensorflow_and_load_as_data_loss(tmp_path):
    # TensorFlow writes a nested dataset as an empty DatasetVariantWrapper record and loading
    # it is DataLossError (tests/parity/test_data_save_more.py compares the two): no element
    # is ever written in a format of ferroflow's own.
    windows = tf.data.Dataset.range(4).window(2)  # elements are datasets
    windows.save(str(tmp_path / "windows"))
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.Dataset.load(str(tmp_path / "windows")))


def test_a_hostile_cache_file_runs_nothing(tmp_path):
    cache = str(tmp_path / "cache")
    assert list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator()) == [0, 1, 2]
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert files
    marker = tmp_path / "ran"
    for file in files:
        file.write_bytes(pickle.dumps([_RunsACommand(marker)]))
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator())
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [
        # A numpy module's entry point, named like a dtype class.
        b"\x80\x02cnumpy.f2py.__main__\nXDType\n.",
        # A terabyte bytearray.
        b"\x80\x02cbuiltins\nbytearray\nJ\x00\x00\x00\x10\x85R.",
    ],
)
def test_a_cache_file_cannot_run_numpy_code_or_allocate_from_a_length(tmp_path, payload):
    cache = str(tmp_path / "cache")
    list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator())
    for file in (p for p in tmp_path.iterdir() if p.is_file()):
        file.write_bytes(payload)
    with pytest.raises(tf.errors.DataLossError):
        list(tf.data.Dataset.range(3).cache(cache).as_numpy_iterator())


def test_hostile_ragged_variants_are_data_loss(tmp_path):
    """Ragged components (DT_VARIANT RaggedTensorVariant records) whose splits, tensor count,
    type name or framing are wrong: DataLossError, never a ragged tensor built on them."""
    saved = tmp_path / "ragged"
    rt = tf.ragged.constant([[1, 2], [3]])
    tf.data.Dataset.from_tensors(rt).save(str(saved))
    (run,) = [p for p in saved.iterdir() if p.is_dir()]
    shard = run / "00000000.shard" / "00000000.snapshot"
    assert [r.to_list() for r in tf.data.Dataset.load(str(saved))] == [[[1, 2], [3]]]
    splits = tf.constant([0, 2, 3], tf.int64)
    values = tf.constant([1, 2, 3], tf.int32)
    hostile = [
        _variant("RaggedTensorVariant", tf.constant([0, 5, 3], tf.int64), values),
        _variant("RaggedTensorVariant", tf.constant([1, 3], tf.int64), values),
        _variant("RaggedTensorVariant", values),
        _variant("RaggedTensorVariant", splits, splits, values),
        _variant("Other", splits, values),
        _variant("RaggedTensorVariant", splits, values, framing=2**40),
        _variant("RaggedTensorVariant", splits, tf.constant([1.0, 2.0, 3.0])),
        b"\x08\x15\x12\x00\x22\x01",
    ]
    _each_is_data_loss(saved, shard, hostile)


def _variant(type_name, *parts, framing=None, groups=1):
    """A DT_VARIANT record: ``groups`` VariantTensorDataProtos of ``type_name`` sharing
    ``parts`` (one each when ``groups`` is 3, as a sparse tensor's), lengths ``framing``."""
    encoded = []
    for i in range(groups):
        data = message_class("tensorflow.VariantTensorDataProto")(type_name=type_name)
        for part in parts if groups == 1 else parts[i : i + 1]:
            data.tensors.add().ParseFromString(tf.io.serialize_tensor(part).numpy())
        encoded.append(data.SerializeToString())
    lengths = [len(e) for e in encoded] if framing is None else [framing] * groups
    content = b"".join(map(_varint, lengths)) + b"".join(encoded)
    proto = message_class("tensorflow.TensorProto")(dtype=21, tensor_content=content)
    proto.tensor_shape.SetInParent()
    if groups > 1:
        proto.tensor_shape.dim.add().size = groups
    return proto.SerializeToString()


def _each_is_data_loss(saved, shard, hostile):
    for record in hostile:
        shard.unlink()
        with tf.io.TFRecordWriter(str(shard)) as w:
            w.write(record)
        with pytest.raises(tf.errors.DataLossError):
            list(tf.data.Dataset.load(str(saved)))


def test_hostile_sparse_variants_are_data_loss(tmp_path):
    saved = tmp_path / "sparse"
    tf.data.Dataset.from_tensors(tf.sparse.from_dense([[1.0, 0.0], [0.0, 2.0]])).save(str(saved))
    (run,) = [p for p in saved.iterdir() if p.is_dir()]
    shard = run / "00000000.shard" / "00000000.snapshot"
    assert tf.sparse.to_dense(next(iter(tf.data.Dataset.load(str(saved))))).numpy().tolist() == [
        [1.0, 0.0],
        [0.0, 2.0],
    ]
    i64 = lambda v: tf.constant(v, tf.int64)  # noqa: E731
    good_values = tf.constant([1.0, 2.0])
    hostile = [
        _variant("tensorflow::Tensor", i64([[0, 0], [1, 5]]), good_values, i64([2, 2]), groups=3),
        _variant("tensorflow::Tensor", i64([[0, 0], [-1, 1]]), good_values, i64([2, 2]), groups=3),
        _variant("tensorflow::Tensor", i64([[0, 0]]), good_values, i64([2, 2]), groups=3),
        _variant(
            "tensorflow::Tensor", i64([[0, 0], [1, 1]]), good_values, i64([2, 2, 1]), groups=3
        ),
        _variant("tensorflow::Tensor", i64([[0], [1]]), good_values, i64([2]), groups=3),
        _variant("Other", i64([[0, 0], [1, 1]]), good_values, i64([2, 2]), groups=3),
        _variant("tensorflow::Tensor", i64([[0, 0], [1, 1]]), good_values, i64([2, 2])),
        _variant("tensorflow::Tensor", i64([[0, 0]]), good_values, i64([2]), groups=3, framing=9),
    ]
    _each_is_data_loss(saved, shard, hostile)
