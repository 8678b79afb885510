"""tf.io.parse_example / parse_single_example against TensorFlow: every feature kind
(FixedLen with and without defaults, FixedLenSequence, VarLen, Sparse, Ragged with partitions),
float32/int64/string, batch and scalar inputs, the errors, and a traced call."""

from .harness import assert_parity


def _example(tf, **kw):
    """A serialized tf.train.Example of float, int64 or bytes lists (an empty list: floats)."""
    t = tf.train

    def f(v):
        if not v:
            return t.Feature(float_list=t.FloatList(value=[]))
        if isinstance(v[0], float):
            return t.Feature(float_list=t.FloatList(value=v))
        if isinstance(v[0], int):
            return t.Feature(int64_list=t.Int64List(value=v))
        return t.Feature(bytes_list=t.BytesList(value=v))

    feats = t.Features(feature={k: f(v) for k, v in kw.items()})
    return t.Example(features=feats).SerializeToString()


def _records(tf):
    def ex(**kw):
        return _example(tf, **kw)

    return [
        ex(
            a=[1.0, 2.0],
            i=[3, 1],
            s=[b"x", b"yz"],
            s_idx=[4, 0],
            l=[1, 1],
            seq=[1.0, 2.0, 3.0, 4.0],
        ),
        ex(a=[3.0, 4.0], i=[0], s=[b"w"], s_idx=[2], l=[1], seq=[5.0, 6.0]),
        ex(a=[5.0, 6.0]),
    ]


def _plain(value):
    """RaggedTensors as (flat values, row splits...): the harness compares plain tensors."""
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "nested_row_splits"):
        return ("ragged", value.flat_values, list(value.nested_row_splits))
    return value


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__, str(e).split("}}")[-1].split(" [Op:")[0].strip()


def _parse_program(tf, device):
    io = tf.io
    recs = _records(tf)
    features = {
        "a": io.FixedLenFeature([2], tf.float32),
        "d": io.FixedLenFeature([2, 1], tf.int64, default_value=[[7], [8]]),
        "s_default": io.FixedLenFeature([], tf.string, default_value="none"),
        "seq": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
        "i": io.VarLenFeature(tf.int64),
        "sp": io.SparseFeature("s_idx", "s", tf.string, 5),
    }
    ragged = {
        "r": io.RaggedFeature(tf.string, value_key="s"),
        "rp": io.RaggedFeature(
            tf.int64, value_key="i", partitions=[io.RaggedFeature.RowLengths("l")]
        ),
        "ru": io.RaggedFeature(
            tf.float32, value_key="a", partitions=[io.RaggedFeature.UniformRowLength(1)]
        ),
    }
    with tf.device(device):
        out = [
            io.parse_example(recs, features),
            io.parse_example(recs, ragged),
            io.parse_example(recs, {"s": io.VarLenFeature(tf.string)}),
            io.parse_single_example(recs[1], ragged),
            io.parse_example(tf.constant(recs), {"a": io.FixedLenFeature([2], tf.float32)}),
            io.parse_single_example(recs[0], features),
            io.parse_example(tf.constant([], tf.string), {"i": io.VarLenFeature(tf.float32)}),
            io.parse_example(
                recs, {"r": io.RaggedFeature(tf.float32, value_key="a", row_splits_dtype=tf.int64)}
            ),
            io.parse_example(
                recs[:1], {"seq": io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}
            ),
        ]
        fixed = {"a": io.FixedLenFeature([2], tf.int64)}
        for call in (
            lambda: io.parse_example(recs, fixed),
            lambda: io.parse_single_example(recs[0], fixed),
            lambda: io.parse_example(recs, {"i": io.VarLenFeature(tf.float32)}),
            lambda: io.parse_example(recs, {"i": io.FixedLenFeature([1], tf.int64)}),
            lambda: io.parse_example(
                recs, {"i": io.FixedLenFeature([1], tf.int64)}, example_names=["p", "q", "r"]
            ),
            lambda: io.parse_example(recs, {"zz": io.FixedLenFeature([1], tf.int64)}),
            lambda: io.parse_single_example(recs[0], {"zz": io.FixedLenFeature([], tf.string)}),
            lambda: io.parse_example(
                recs, {"seq": io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True)}
            ),
            lambda: io.parse_example(recs, {"a": io.FixedLenSequenceFeature([], tf.float32)}),
            lambda: io.parse_example([recs], {"a": io.FixedLenFeature([2], tf.float32)}),
            lambda: io.parse_example(recs, {}),
            lambda: io.parse_example(recs, {**features, **ragged}),
            lambda: io.parse_example(recs, {"a": 5}),
            lambda: io.parse_example([b"\x0a\x05\x0a\x03"], {"a": io.VarLenFeature(tf.float32)}),
        ):
            out.append(_outcome(call))
    return _plain(out)


def test_parse_example_cpu(tf_oracle):
    assert_parity(
        tf_oracle, _parse_program, args=("CPU:0",), helpers=[_example, _records, _outcome, _plain]
    )


def test_parse_example_gpu(tf_oracle):
    assert_parity(
        tf_oracle, _parse_program, args=("GPU:0",), helpers=[_example, _records, _outcome, _plain]
    )


def _traced_program(tf):
    recs = _records(tf)
    features = {
        "a": tf.io.FixedLenFeature([2], tf.float32),
        "i": tf.io.VarLenFeature(tf.int64),
        "r": tf.io.RaggedFeature(tf.string, value_key="s"),
    }

    @tf.function
    def parse(s):
        out = tf.io.parse_example(s, features)
        return out["a"] * 2.0, tf.sparse.to_dense(out["i"]), out["r"].to_tensor()

    ds = tf.data.Dataset.from_tensor_slices(recs).map(
        lambda s: tf.io.parse_single_example(s, {"a": features["a"]})["a"]
    )
    return [[x.numpy() for x in parse(tf.constant(recs))], list(ds.as_numpy_iterator())]


def test_parse_example_traced(tf_oracle):
    assert_parity(tf_oracle, _traced_program, helpers=[_example, _records])


def _sequence_program(tf):
    t, io = tf.train, tf.io

    def fl(*steps):
        return t.FeatureList(feature=[t.Feature(float_list=t.FloatList(value=s)) for s in steps])

    def seq(ctx, lists):
        return t.SequenceExample(
            context=t.Features(feature={"id": t.Feature(int64_list=t.Int64List(value=ctx))}),
            feature_lists=t.FeatureLists(feature_list=lists),
        ).SerializeToString()

    recs = [
        seq([1], {"x": fl([1.0, 2.0], [3.0, 4.0]), "v": fl([1.0], [], [2.0]), "w": fl([1.0])}),
        seq([2], {"x": fl([5.0, 6.0]), "v": fl([4.0]), "w": fl([], [2.0, 3.0])}),
    ]
    context = {"id": io.FixedLenFeature([], tf.int64)}
    sequence = {
        "x": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
        "v": io.VarLenFeature(tf.float32),
        "r": io.RaggedFeature(tf.float32, value_key="w"),
    }
    out = [
        io.parse_sequence_example(recs, context, sequence),
        io.parse_single_sequence_example(recs[0], context, sequence),
    ]
    try:
        io.parse_sequence_example(recs, context, {"zz": io.FixedLenSequenceFeature([], tf.int64)})
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out.append(type(e).__name__)
    return _plain(out)


def test_parse_sequence_example(tf_oracle):
    assert_parity(tf_oracle, _sequence_program, helpers=[_plain])
