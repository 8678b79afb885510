"""tf.train.Example and the summary protos against TensorFlow: the schemas (every field's
number, type, label, packing and oneof), the bytes of the same message built under both, the
text format, and TensorFlow's bytes parsed by ferroflow (the argument bytes are built under
both; each side parses them)."""

from .harness import assert_parity, parity


def _saved_dataset_roots(tf):
    """The messages of a saved dataset's files (snapshot.proto, struct.proto), which neither
    framework exports publicly."""
    names = [
        "tensorflow.data.experimental.SnapshotRecord",
        "tensorflow.data.experimental.SnapshotMetadataRecord",
        "tensorflow.data.experimental.SnapshotTensorMetadata",
        "tensorflow.data.experimental.DistributedSnapshotMetadata",
        "tensorflow.StructuredValue",
    ]
    if tf.__name__ == "tensorflow":
        from tensorflow.core.protobuf import snapshot_pb2, struct_pb2

        modules = {"tensorflow.data.experimental": snapshot_pb2, "tensorflow": struct_pb2}
        return [getattr(modules[n.rpartition(".")[0]], n.rpartition(".")[2]) for n in names]
    from ferroflow._proto import message_class

    return [message_class(n) for n in names]


def _schema(tf):
    """Every message reachable from the public classes, with its fields' wire properties
    (and the values of its enums)."""
    roots = [
        tf.train.Example,
        tf.train.SequenceExample,
        tf.compat.v1.Event,
        tf.compat.v1.Summary,
        tf.compat.v1.SummaryMetadata,
        tf.compat.v1.HistogramProto,
        *_saved_dataset_roots(tf),
    ]
    seen, out, todo = set(), [], [r.DESCRIPTOR for r in roots]
    while todo:
        d = todo.pop()
        if d.full_name in seen:
            continue
        seen.add(d.full_name)
        for e in d.enum_types:
            out.append((e.full_name, sorted((v.name, v.number) for v in e.values)))
        for f in d.fields:
            oneof = f.containing_oneof.name if f.containing_oneof else None
            sub = f.message_type.full_name if f.message_type else None
            out.append(
                (d.full_name, f.name, f.number, f.type, f.is_repeated, f.is_packed, oneof, sub)
            )
            if f.message_type:
                todo.append(f.message_type)
    return sorted(out)


@parity(helpers=[_schema, _saved_dataset_roots])
def test_schemas_match(tf):
    return _schema(tf)


def _example_program(tf):
    t = tf.train
    ex = t.Example(
        features=t.Features(
            feature={
                "image": t.Feature(bytes_list=t.BytesList(value=[b"\x00\xffraw", b""])),
                "label": t.Feature(int64_list=t.Int64List(value=[3, -1, 2**40])),
                "score": t.Feature(float_list=t.FloatList(value=[0.5, -1e-3, 3.25])),
                "empty": t.Feature(),
            }
        )
    )
    seq = t.SequenceExample(
        context=t.Features(feature={"id": t.Feature(int64_list=t.Int64List(value=[7]))}),
        feature_lists=t.FeatureLists(
            feature_list={
                "tokens": t.FeatureList(
                    feature=[
                        t.Feature(bytes_list=t.BytesList(value=[b"a", b"b"])),
                        t.Feature(bytes_list=t.BytesList(value=[b"c"])),
                    ]
                )
            }
        ),
    )
    data = ex.SerializeToString(deterministic=True)
    back = t.Example.FromString(data)
    event = tf.compat.v1.Event(wall_time=1.5, step=3)
    event.summary.value.add(tag="loss", simple_value=0.25)
    return [
        data,
        str(ex),
        back == ex,
        list(back.features.feature["label"].int64_list.value),
        back.features.feature["empty"].WhichOneof("kind"),
        seq.SerializeToString(deterministic=True),
        str(seq),
        event.SerializeToString(),
        str(event),
    ]


def test_example_bytes_and_text(tf_oracle):
    assert_parity(tf_oracle, _example_program)


def _parse_program(tf, data):
    ex = tf.train.Example.FromString(data)
    seq = tf.train.SequenceExample()
    seq.ParseFromString(b"\x12\x0e\n\x0c\n\x01x\x12\x07\n\x05\x1a\x03\n\x01\x05")
    bad = []
    try:
        tf.train.Example.FromString(b"\xff\xff\xff")
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        bad.append(type(e).__name__)
    return [str(ex), sorted(ex.features.feature), str(seq), bad]


def test_tensorflows_bytes_parse(tf_oracle):
    # Bytes TensorFlow's own serializer wrote (an Example with float, int64 and bytes lists).
    data = bytes.fromhex(
        "0a440a0d0a016212080a060a0400ff61620a180a056c6162656c120f1a0d0a0b03ffffffffffffffffff01"
        "0a190a0573636f72651210120e0a0c0000003f6f1283ba00005040"
    )
    assert_parity(tf_oracle, _parse_program, args=(data,))
