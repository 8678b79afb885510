"""`tf.io.decode_proto` and `tf.io.encode_proto` against TensorFlow, eagerly and inside a
tf.function, under each device: `tf.train.Example` from the linked-in schemas; a custom
proto2 / proto3 schema that each program builds with `descriptor_pb2` and hands over as a
file or as ``bytes://`` (every scalar type, defaults, repeated fields packed and not, enums,
submessages and groups as strings, extensions); batches of shape [2, 3]; encode -> decode
round trips; text format and sanitizing; the wire-format corner cases TensorFlow's decoder
keeps (an optional field seen twice, a packed int32 read as int64, fields named twice); and the
errors, compared by class (and, eagerly, by message)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _descriptor_set():
    """The test schemas: ``fftest.Rec`` (proto2, every field type), ``fftest.Inner``,
    ``fftest.P3`` (proto3: repeated scalars packed by default) and ``fftest.G`` (a group, an
    extension, a required field, an enum whose first value is not 0)."""
    from google.protobuf import descriptor_pb2

    F = descriptor_pb2.FieldDescriptorProto
    opt, rep, req = F.LABEL_OPTIONAL, F.LABEL_REPEATED, F.LABEL_REQUIRED
    fds = descriptor_pb2.FileDescriptorSet()
    f = fds.file.add(name="fftest/rec.proto", package="fftest", syntax="proto2")
    color = f.enum_type.add(name="Color")
    for n, v in [("RED", 0), ("GREEN", 1), ("BLUE", 2)]:
        color.value.add(name=n, number=v)
    late = f.enum_type.add(name="Late")
    for n, v in [("FIVE", 5), ("SIX", 6)]:
        late.value.add(name=n, number=v)
    inner = f.message_type.add(name="Inner")
    inner.field.add(name="x", number=1, type=F.TYPE_INT32, label=opt)
    inner.field.add(name="s", number=2, type=F.TYPE_STRING, label=opt)
    rec = f.message_type.add(name="Rec")
    fields = [
        ("d", 1, F.TYPE_DOUBLE, opt, "1.5", None),
        ("f", 2, F.TYPE_FLOAT, opt, "-2.5", None),
        ("i64", 3, F.TYPE_INT64, opt, "-7", None),
        ("u64", 4, F.TYPE_UINT64, opt, "1099511627781", None),
        ("i32", 5, F.TYPE_INT32, opt, "42", None),
        ("fx64", 6, F.TYPE_FIXED64, opt, None, None),
        ("fx32", 7, F.TYPE_FIXED32, opt, "4000000000", None),
        ("b", 8, F.TYPE_BOOL, opt, "true", None),
        ("s", 9, F.TYPE_STRING, opt, "dflt", None),
        ("by", 12, F.TYPE_BYTES, opt, "\\001z\\000", None),
        ("u32", 13, F.TYPE_UINT32, opt, "300", None),
        ("color", 14, F.TYPE_ENUM, opt, "BLUE", ".fftest.Color"),
        ("sf32", 15, F.TYPE_SFIXED32, opt, None, None),
        ("sf64", 16, F.TYPE_SFIXED64, opt, None, None),
        ("si32", 17, F.TYPE_SINT32, opt, "-3", None),
        ("si64", 18, F.TYPE_SINT64, opt, None, None),
        ("late", 19, F.TYPE_ENUM, opt, None, ".fftest.Late"),
        ("r_i32", 20, F.TYPE_INT32, rep, None, None),
        ("r_i32p", 21, F.TYPE_INT32, rep, None, "packed"),
        ("r_f", 22, F.TYPE_FLOAT, rep, None, "packed"),
        ("r_s", 23, F.TYPE_STRING, rep, None, None),
        ("r_inner", 24, F.TYPE_MESSAGE, rep, None, ".fftest.Inner"),
        ("inner", 25, F.TYPE_MESSAGE, opt, None, ".fftest.Inner"),
        ("r_si64", 26, F.TYPE_SINT64, rep, None, None),
        ("r_b", 27, F.TYPE_BOOL, rep, None, "packed"),
        ("r_color", 28, F.TYPE_ENUM, rep, None, ".fftest.Color"),
        ("r_d", 29, F.TYPE_DOUBLE, rep, None, None),
        ("r_u64", 30, F.TYPE_UINT64, rep, None, "packed"),
        ("r_fx32", 31, F.TYPE_FIXED32, rep, None, None),
        ("r_sf32", 32, F.TYPE_SFIXED32, rep, None, "packed"),
        ("r_late", 33, F.TYPE_ENUM, rep, None, ".fftest.Late"),
        ("r_by", 34, F.TYPE_BYTES, rep, None, None),
    ]
    for name, number, kind, label, default, extra in fields:
        field = rec.field.add(name=name, number=number, type=kind, label=label)
        if default is not None:
            field.default_value = default
        if extra == "packed":
            field.options.packed = True
        elif extra:
            field.type_name = extra
    g = f.message_type.add(name="G")
    g.field.add(name="a", number=1, type=F.TYPE_UINT32, label=opt)
    g.field.add(name="r", number=7, type=F.TYPE_INT32, label=req)
    g.field.add(name="grp", number=8, type=F.TYPE_GROUP, label=opt, type_name=".fftest.G.Grp")
    g.nested_type.add(name="Grp").field.add(name="z", number=9, type=F.TYPE_INT32, label=opt)
    g.extension_range.add(start=100, end=200)
    f.extension.add(name="ext", number=100, type=F.TYPE_INT32, label=opt, extendee=".fftest.G")
    p3 = fds.file.add(name="fftest/p3.proto", package="fftest", syntax="proto3")
    m = p3.message_type.add(name="P3")
    m.field.add(name="v", number=1, type=F.TYPE_INT32, label=rep)
    m.field.add(name="d", number=2, type=F.TYPE_DOUBLE, label=rep)
    m.field.add(name="name", number=3, type=F.TYPE_STRING, label=opt)
    m.field.add(name="u", number=4, type=F.TYPE_UINT32, label=opt)
    return fds


def _classes(fds):
    """Message classes of the test schemas (protobuf's Python API, the same on both sides)."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    for file_proto in fds.file:
        pool.Add(file_proto)
    names = ("Rec", "Inner", "P3", "G")
    return {
        n: message_factory.GetMessageClass(pool.FindMessageTypeByName("fftest." + n)) for n in names
    }


def _records(fds):
    """Six serialized ``fftest.Rec`` as a [2, 3] array: full, empty, partial ones."""
    import numpy as np

    c = _classes(fds)
    rec, inner = c["Rec"], c["Inner"]
    full = rec(
        d=2.25,
        f=0.1,
        i64=-(2**40),
        u64=2**63 + 5,
        i32=-5,
        fx64=2**64 - 2,
        fx32=4000000000,
        b=False,
        s="héllo",
        by=b"\xff\x00",
        u32=4000000000,
        color=1,
        sf32=-8,
        sf64=-(2**40),
        si32=-100,
        si64=-(2**50),
        late=6,
        r_i32=[1, -2, 3],
        r_i32p=[-1, 7],
        r_f=[0.5, -1e30],
        r_s=["x", "yy", ""],
        r_inner=[inner(x=1), inner(s="q")],
        inner=inner(x=-9),
        r_si64=[-5, 6],
        r_b=[True, False, True],
        r_color=[1, 2],
        r_d=[3.5],
        r_u64=[2**64 - 1],
        r_fx32=[4000000000],
        r_sf32=[-2, 3],
        r_late=[5, 6, 6],
        r_by=[b"a\x00", b""],
    )
    partial = rec(i32=9, r_s=["only"], r_i32p=[5, 6, 7, 8], inner=inner(), r_late=[6])
    more = rec(r_d=[1.0, 2.0, 3.0, 4.0], r_b=[False], color=0, s="")
    bufs = [full, rec(), partial, more, rec(r_inner=[inner(s="z")] * 3), partial]
    return np.array([m.SerializeToString() for m in bufs], dtype=object).reshape(2, 3)


_REC_FIELDS = [
    ("d", "float64"), ("f", "float32"), ("i64", "int64"), ("u64", "uint64"), ("i32", "int32"),
    ("fx64", "uint64"), ("fx32", "uint32"), ("b", "bool"), ("s", "string"), ("by", "string"),
    ("u32", "uint32"), ("color", "int32"), ("sf32", "int32"), ("sf64", "int64"),
    ("si32", "int32"), ("si64", "int64"), ("late", "int32"), ("r_i32", "int32"),
    ("r_i32p", "int32"), ("r_f", "float32"), ("r_s", "string"), ("r_inner", "string"),
    ("inner", "string"), ("r_si64", "int64"), ("r_b", "bool"), ("r_color", "int32"),
    ("r_d", "float64"), ("r_u64", "uint64"), ("r_fx32", "uint32"), ("r_sf32", "int32"),
    ("r_late", "int32"), ("r_by", "string"),
]  # fmt: skip

# The wider dtypes TensorFlow also allows, with the packed-int32-as-int64 quirk (r_i32p).
_WIDENED_FIELDS = [
    ("i32", "int64"), ("r_i32", "int64"), ("r_i32p", "int64"), ("f", "float64"),
    ("r_f", "float64"), ("u32", "uint64"), ("fx32", "uint64"), ("r_fx32", "uint64"),
    ("sf32", "int64"), ("r_sf32", "int64"), ("si32", "int64"),
]  # fmt: skip


def _call(tf, fn, traced, shapes):
    """``fn()`` eagerly, or traced: then the static shapes of what it returns are recorded
    (at trace time) into ``shapes``."""
    if not traced:
        return fn()

    def record(result):
        for t in tf.nest.flatten(result):
            shapes.append(str(t.shape))
        return result

    return tf.function(lambda: record(fn()))()


def _decode_custom(tf, device, traced, folder, rec_fields, widened_fields):
    import os

    fds = _descriptor_set()
    path = os.path.join(folder, "rec.desc")
    with open(path, "wb") as f:
        f.write(fds.SerializeToString())
    bufs = _records(fds)
    names = [n for n, _ in rec_fields]
    types = [getattr(tf, t) for _, t in rec_fields]
    wide_names = [n for n, _ in widened_fields]
    wide_types = [getattr(tf, t) for _, t in widened_fields]
    inline = b"bytes://" + fds.SerializeToString()
    shapes = []
    with tf.device(device):

        def run():
            b = tf.constant(bufs)
            every = tf.io.decode_proto(b, "fftest.Rec", names, types, descriptor_source=path)
            wide = tf.io.decode_proto(b, "fftest.Rec", wide_names, wide_types, inline)
            # One message (a scalar), fields out of number order and one named twice.
            one = tf.io.decode_proto(
                b[0, 0],
                "fftest.Rec",
                ["r_s", "i32", "r_s"],
                [tf.string, tf.int64, tf.string],
                descriptor_source=path,
            )
            # Submessages come out serialized: decode them again.
            inner = tf.io.decode_proto(
                every.values[names.index("r_inner")],
                "fftest.Inner",
                ["s", "x"],
                [tf.string, tf.int32],
                descriptor_source=path,
            )
            return every, wide, one, inner

        out = _call(tf, run, traced, shapes)
    return out, shapes


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_decode_custom_message(tf_oracle, device, traced, tmp_path):
    expected = assert_parity(
        tf_oracle,
        _decode_custom,
        args=(device, traced, str(tmp_path), _REC_FIELDS, _WIDENED_FIELDS),
        helpers=[_descriptor_set, _classes, _records, _call],
    )
    assert expected[0] != "raised", expected


def _decode_examples(tf, device, traced):
    import numpy as np

    def example(**features):
        feature = {}
        for key, value in features.items():
            if isinstance(value[0], int):
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
            elif isinstance(value[0], float):
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
            else:
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
        message = tf.train.Example(features=tf.train.Features(feature=feature))
        return message.SerializeToString(deterministic=True)

    bufs = np.array(
        [
            [example(a=[1, -2, 3], b=[0.5]), b"", example(c=[b"x", b"\x00y"])],
            [example(a=[2**62]), example(a=[7], b=[1.0, 2.0], c=[b""]), example()],
        ],
        dtype=object,
    )
    shapes = []
    with tf.device(device):

        def run():
            examples = tf.io.decode_proto(bufs, "tensorflow.Example", ["features"], [tf.string])
            features = tf.io.decode_proto(
                examples.values[0][..., 0], "tensorflow.Features", ["feature"], [tf.string]
            )
            entries = tf.io.decode_proto(
                features.values[0],
                "tensorflow.Features.FeatureEntry",
                ["key", "value"],
                [tf.string, tf.string],
            )
            lists = tf.io.decode_proto(
                entries.values[1][..., 0],
                "tensorflow.Feature",
                ["int64_list", "float_list", "bytes_list"],
                [tf.string] * 3,
            )
            ints = tf.io.decode_proto(
                lists.values[0][..., 0], "tensorflow.Int64List", ["value"], [tf.int64]
            )
            floats = tf.io.decode_proto(
                lists.values[1][..., 0], "tensorflow.FloatList", ["value"], [tf.float64]
            )
            return examples, features, entries, lists, ints, floats

        out = _call(tf, run, traced, shapes)
    return out, shapes


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_decode_tf_example(tf_oracle, device, traced):
    expected = assert_parity(tf_oracle, _decode_examples, args=(device, traced), helpers=[_call])
    assert expected[0] != "raised", expected


def _round_trip(tf, device, traced):
    import numpy as np

    fds = _descriptor_set()
    source = b"bytes://" + fds.SerializeToString()
    p3 = _classes(fds)["P3"]
    proto3 = np.array(
        [
            [p3(v=[1, -2, 300], d=[1.5], name="n", u=7), p3(), p3(v=[0, 0])],
            [p3(name="\x00"), p3(d=[-0.0, 2.0, 1e300]), p3(u=2**32 - 1, v=[-(2**31)])],
        ],
        dtype=object,
    )
    proto3 = np.vectorize(lambda m: m.SerializeToString(), otypes=[object])(proto3)
    names = ["r_si64", "i32", "r_i32", "r_i32p", "f", "u32", "s", "r_inner", "color", "b",
             "r_sf32", "r_fx32", "u64", "r_d"]  # fmt: skip
    values = [
        tf.constant(np.arange(-9, 9, dtype=np.int64).reshape(2, 3, 3) * 2**40),
        tf.constant([[[2**40 + 7], [-1], [5]], [[0], [2**31], [-(2**31)]]], tf.int64),
        tf.constant(np.arange(-6, 6, dtype=np.int32).reshape(2, 3, 2)),
        tf.constant([[[-1, 3], [4, -5], [0, 0]], [[9, 9], [-7, 1], [2, 2]]], tf.int64),
        tf.constant([[[1e300], [-2.5], [0.1]], [[3.0], [-1e-50], [7.0]]], tf.float64),
        tf.constant([[[2**33 + 5], [1], [2]], [[3], [4], [2**32 - 1]]], tf.uint64),
        tf.constant([[[b"a"], [b""], [b"\x00b"]], [[b"c"], [b"d"], [b"e"]]]),
        tf.constant([[[b"\x08\x01", b"\x12\x01q"]] * 3] * 2),
        tf.constant([[[1], [2], [-3]], [[0], [7], [2]]], tf.int32),
        tf.constant([[[True], [False], [True]], [[False], [True], [True]]]),
        tf.constant(np.arange(12, dtype=np.int32).reshape(2, 3, 2) - 6),
        tf.constant([[[2**32 - 1], [0], [1]], [[2], [3], [4]]], tf.uint32),
        tf.constant([[[2**64 - 1], [0], [1]], [[2], [3], [4]]], tf.uint64),
        tf.constant(np.linspace(-1, 1, 18).reshape(2, 3, 3)),
    ]
    sizes = np.array(
        [
            [[3, 1, 2, 2, 1, 1, 1, 2, 1, 1, 2, 1, 1, 3], [0] * 14, [1] * 14],
            [[2, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0], [3, 1, 2, 2, 1, 1, 1, 2, 1, 1, 2, 1, 1, 1],
             [1, 1, 0, 2, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2]],
        ],
        dtype=np.int32,
    )  # fmt: skip
    types = [v.dtype for v in values]
    shapes = []
    with tf.device(device):

        def run():
            encoded = tf.io.encode_proto(sizes, values, names, "fftest.Rec", source)
            decoded = tf.io.decode_proto(encoded, "fftest.Rec", names, types, source)
            p3_names = ["v", "d", "name", "u"]
            p3_types = [tf.int32, tf.float64, tf.string, tf.uint32]
            p3_decoded = tf.io.decode_proto(
                tf.constant(proto3), "fftest.P3", p3_names, p3_types, source
            )
            p3_encoded = tf.io.encode_proto(
                p3_decoded.sizes, p3_decoded.values, p3_names, "fftest.P3", source
            )
            return encoded, decoded, p3_decoded, p3_encoded, p3_encoded == proto3

        out = _call(tf, run, traced, shapes)
    return out, shapes


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_encode_decode_round_trip(tf_oracle, device, traced):
    expected = assert_parity(
        tf_oracle, _round_trip, args=(device, traced), helpers=[_descriptor_set, _classes, _call]
    )
    assert expected[0] != "raised", expected


def _text_groups_and_wire(tf, device):
    """Text format, sanitize, groups and extensions, and raw wire bytes TensorFlow's decoder
    reads in its own way."""
    fds = _descriptor_set()
    source = b"bytes://" + fds.SerializeToString()
    classes = _classes(fds)
    rec, inner = classes["Rec"], classes["Inner"]
    out = []
    with tf.device(device):

        def decode(bufs, names, types, **kwargs):
            r = tf.io.decode_proto(bufs, "fftest.Rec", names, types, source, **kwargs)
            out.append(r)

        texts = ['inner { x: 5 } r_i32: 1 r_i32: 2 color: GREEN s: "t"', "", "r_b: [true, false]"]
        text_types = [tf.string, tf.int32, tf.int32, tf.string, tf.bool]
        decode(texts, ["inner", "r_i32", "color", "s", "r_b"], text_types, message_format="text")
        # An optional submessage seen twice: TensorFlow keeps the last one; sanitized, merged.
        twice = (
            rec(inner=inner(x=1)).SerializeToString() + rec(inner=inner(s="z")).SerializeToString()
        )
        decode([twice], ["inner"], [tf.string])
        decode([twice], ["inner"], [tf.string], sanitize=True)
        raw = [
            bytes([0x2A, 3, 1, 2, 3]),  # i32 packed: counted once, read as the default
            bytes([0x2D, 1, 0, 0, 0, 0x28, 7]),  # i32 as fixed32 first: skipped
            bytes([0x4A, 2, 0xFF, 0xFE]),  # invalid UTF-8 in a proto2 string
            bytes([0xA0, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),  # r_i32 = -1 as a 5-byte varint
            bytes([0x28, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        ]
        decode(raw, ["i32", "s", "r_i32"], [tf.int64, tf.string, tf.int64])
        # A group comes out with its start and end tags; an extension by its full name.
        g = tf.io.decode_proto(
            [b"\x43\x48\x04\x44\xa0\x06\x07", b"\x08\x05"],
            "fftest.G",
            ["grp", "fftest.ext", "a"],
            [tf.string, tf.int32, tf.uint64],
            source,
        )
        out.append(g)
        out.append(tf.io.encode_proto(g.sizes[:, :1], g.values[:1], ["grp"], "fftest.G", source))
        text = tf.io.decode_proto(
            ["r: 1 grp { z: 4 } [fftest.ext]: 7"],
            "fftest.G",
            ["grp", "fftest.ext", "r"],
            [tf.string, tf.int32, tf.int32],
            source,
            message_format="text",
        )
        out.append(text)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_text_format_groups_and_wire_corners(tf_oracle, device):
    expected = assert_parity(
        tf_oracle, _text_groups_and_wire, args=(device,), helpers=[_descriptor_set, _classes]
    )
    assert expected[0] != "raised", expected


def _dataset_map(tf):
    fds = _descriptor_set()
    source = b"bytes://" + fds.SerializeToString()
    bufs = _records(fds).reshape(-1)

    def parse(b):
        r = tf.io.decode_proto(b, "fftest.Rec", ["r_s", "i32"], [tf.string, tf.int64], source)
        return r.sizes, r.values[0], r.values[1]

    single = list(tf.data.Dataset.from_tensor_slices(bufs).map(parse))
    batched = list(tf.data.Dataset.from_tensor_slices(bufs).batch(4).map(parse))
    return single, batched


def test_decode_in_dataset_map(tf_oracle):
    expected = assert_parity(tf_oracle, _dataset_map, helpers=[_descriptor_set, _classes, _records])
    assert expected[0] != "raised", expected


def _errors(tf, device, traced, folder):
    import os

    fds = _descriptor_set()
    path = os.path.join(folder, "rec.desc")
    with open(path, "wb") as f:
        f.write(fds.SerializeToString())
    garbage = os.path.join(folder, "garbage.desc")
    with open(garbage, "wb") as f:
        f.write(b"\xff\xff not a descriptor set")

    def decode(bufs, message, names, types, source=path, **kwargs):
        return lambda: tf.io.decode_proto(bufs, message, names, types, source, **kwargs)

    def encode(sizes, values, names, message="fftest.Rec", source=path):
        return lambda: tf.io.encode_proto(sizes, values, names, message, source)

    d = tf.constant([[1.0]], tf.float64)
    calls = [
        decode([b""], "fftest.Nope", ["d"], [tf.float64]),
        decode([b""], "fftest.Rec", ["nope"], [tf.float64]),
        decode([b""], "fftest.Rec", ["d"], [tf.float32]),
        decode([b""], "fftest.Rec", ["i64"], [tf.int32]),
        decode([b""], "fftest.Rec", ["color"], [tf.int64]),
        decode([b""], "fftest.Rec", ["inner"], [tf.int32]),
        decode([b""], "fftest.Rec", ["d", "f"], [tf.float64]),
        decode([b""], "fftest.Rec", ["d"], [tf.float64], message_format="json"),
        decode([b""], "fftest.Rec", ["d"], [tf.float64], source="/no/such/file"),
        decode([b""], "fftest.Rec", ["d"], [tf.float64], source=garbage),
        decode([b""], "fftest.Rec", ["d"], [tf.float64], source=b"bytes://not a set"),
        decode([b""], "tensorflow.Example", ["features"], [tf.string], source="local://"),
        decode(tf.zeros([0], tf.string), "fftest.Rec", ["d"], [tf.float64]),
        decode([b"\x08"], "fftest.Rec", ["d"], [tf.float64]),
        decode([b"\x4a\x05ab"], "fftest.Rec", ["s"], [tf.string]),
        decode([b"\x0c"], "fftest.Rec", ["s"], [tf.string]),
        decode([b"\xb2\x01\x03\x00\x00\x00"], "fftest.Rec", ["r_f"], [tf.float32]),
        decode([b"\x28\x01\x2a\x02\x05\x06"], "fftest.Rec", ["i32"], [tf.int32]),
        decode(["x: {"], "fftest.Rec", ["d"], [tf.float64], message_format="text"),
        decode(["a: 5"], "fftest.G", ["a"], [tf.uint32], message_format="text"),
        decode([b"\x08\x05"], "fftest.G", ["a"], [tf.uint32], sanitize=True),
        encode([[1]], [d], ["zz"]),
        encode([[1]], [d], ["d"], message="fftest.Nope"),
        encode([[1]], [tf.constant([[1.0]])], ["d"]),
        encode([[1]], [d, d], ["d"]),
        encode([[2]], [d], ["d"]),
        encode([[1, 1]], [d], ["d"]),
        encode([[1, 1]], [d, tf.constant([[1.0], [2.0]])], ["d", "f"]),
        encode([[1]], [tf.constant([[5]], tf.int32)], ["fftest.ext"], message="fftest.G"),
    ]
    if not traced:
        # EncodeProto's shape function refuses a vector when tracing (a ValueError there).
        calls.append(encode([1], [tf.constant([1.0], tf.float64)], ["d"]))
    out = []
    with tf.device(device):
        for call in calls:
            try:
                (tf.function(call) if traced else call)()
                out.append("no error")
            except Exception as e:  # noqa: BLE001 - compared by class and message
                gist = str(e).split("}} ")[-1].split(" [Op")[0]
                out.append(type(e).__name__ if traced else (type(e).__name__, gist))
    return out


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_errors(tf_oracle, device, traced, tmp_path):
    expected = assert_parity(
        tf_oracle, _errors, args=(device, traced, str(tmp_path)), helpers=[_descriptor_set]
    )
    assert expected[0] != "raised", expected
