"""tf.io.parse_example / parse_single_example traced (the ParseExampleV2 op in a graph) against
TensorFlow: every feature kind (FixedLen with and without defaults, FixedLenSequence with
allow_missing, VarLen, Sparse, Ragged with every partition kind) inside a tf.function and a
Dataset.map, and the error classes of bad records and missing features in both."""

import pytest

from .harness import assert_parity
from .test_io_parse_example import _example


def _records(tf):
    def ex(**kw):
        return _example(tf, **kw)

    # "i" has 2, 1 and 0 values; its partitions agree with those counts.
    return [
        ex(
            a=[1.0, 2.0],
            i=[3, 1],
            s=[b"x", b"yz"],
            s_idx=[4, 0],
            l=[1, 1],
            spl=[0, 1, 2],
            st=[0, 1],
            lim=[1, 2],
            ids=[0, 2],
            seq=[1.0, 2.0, 3.0, 4.0],
        ),
        ex(
            a=[3.0, 4.0],
            i=[0],
            s=[b"w"],
            s_idx=[2],
            l=[1],
            spl=[0, 1],
            st=[0],
            lim=[1],
            ids=[0],
            seq=[5.0, 6.0],
        ),
        ex(a=[5.0, 6.0], d=[9, 9]),
    ]


def _features(tf):
    io, R = tf.io, tf.io.RaggedFeature
    return {
        "a": io.FixedLenFeature([2], tf.float32),
        "d": io.FixedLenFeature([2, 1], tf.int64, default_value=[[7], [8]]),
        "s_default": io.FixedLenFeature([], tf.string, default_value="none"),
        "seq": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
        "pad": io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-1),
        "i": io.VarLenFeature(tf.int64),
        "sp": io.SparseFeature("s_idx", "s", tf.string, 5),
        "r": R(tf.string, value_key="s", row_splits_dtype=tf.int64),
        "rl": R(tf.int64, value_key="i", partitions=[R.RowLengths("l")]),
        "rs": R(tf.int64, value_key="i", partitions=[R.RowSplits("spl")]),
        "rst": R(tf.int64, value_key="i", partitions=[R.RowStarts("st")]),
        "rlim": R(tf.int64, value_key="i", partitions=[R.RowLimits("lim")]),
        "rid": R(tf.int64, value_key="i", partitions=[R.ValueRowIds("ids")]),
        "ru": R(tf.float32, value_key="a", partitions=[R.UniformRowLength(1)]),
    }


def _flat(tf, out):
    """Each output as plain tensors (SparseTensor and RaggedTensor components), by key."""
    flat = []
    for key, v in out.items():
        if isinstance(v, tf.SparseTensor):
            flat.append((key, "sparse", v.indices, v.values, v.dense_shape))
        elif isinstance(v, tf.RaggedTensor):
            flat.append((key, "ragged", v.flat_values, *v.nested_row_splits))
        else:
            flat.append((key, "dense", v))
    return flat


def _outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _traced_program(tf, device):
    recs = _records(tf)
    features = _features(tf)
    # One key cannot be dense, sparse and ragged in one call: three groups.
    groups = [
        {k: v for k, v in features.items() if k in ("a", "d", "s_default", "seq", "pad")},
        {k: v for k, v in features.items() if k in ("i", "sp")},
        {k: v for k, v in features.items() if k[0] == "r"},
    ]

    @tf.function
    def batch(s):
        return [_flat(tf, tf.io.parse_example(s, g)) for g in groups]

    @tf.function
    def single(s):
        return [_flat(tf, tf.io.parse_single_example(s, g)) for g in groups]

    def numpy(x):
        return tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, x)

    with tf.device(device):
        out = [numpy(batch(tf.constant(recs))), [numpy(single(tf.constant(r))) for r in recs]]
        out.append(numpy(batch(tf.constant(recs[:0], tf.string))))
        out.append(_outcome(lambda: batch(tf.constant([1.0]))))
        ds = tf.data.Dataset.from_tensor_slices(recs)
        for g in groups:
            each = ds.map(lambda s, g=g: _flat(tf, tf.io.parse_single_example(s, g)))
            out.append(list(each.as_numpy_iterator()))
            batched = ds.batch(2).map(lambda s, g=g: _flat(tf, tf.io.parse_example(s, g)))
            out.append(list(batched.as_numpy_iterator()))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_parse_example_traced_every_kind(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _traced_program,
        args=(device,),
        helpers=[_example, _records, _features, _flat, _outcome],
    )


def _errors_program(tf, device):
    recs = _records(tf)
    io = tf.io
    required = {"zz": io.FixedLenFeature([1], tf.int64)}
    wrong_type = {"a": io.FixedLenFeature([2], tf.int64)}
    wrong_size = {"a": io.FixedLenFeature([3], tf.float32)}
    varlen_type = {"i": io.VarLenFeature(tf.float32)}
    seq_stride = {"seq": io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True)}
    bad = [b"\x0a\x05\x0a\x03"]
    out = []
    with tf.device(device):
        for feats in (required, wrong_type, wrong_size, varlen_type, seq_stride):
            fn = tf.function(lambda s, feats=feats: tf.io.parse_example(s, feats))
            out.append(_outcome(lambda fn=fn: fn(tf.constant(recs))))
            one = tf.function(lambda s, feats=feats: tf.io.parse_single_example(s, feats))
            out.append(_outcome(lambda one=one: one(tf.constant(recs[0]))))
            ds = tf.data.Dataset.from_tensor_slices(recs).map(
                lambda s, feats=feats: tf.io.parse_single_example(s, feats)
            )
            out.append(_outcome(lambda ds=ds: list(ds)))
        fn = tf.function(lambda s: tf.io.parse_example(s, varlen_type))
        out.append(_outcome(lambda: fn(tf.constant(bad))))
        ds = tf.data.Dataset.from_tensor_slices(bad).map(
            lambda s: tf.io.parse_single_example(s, varlen_type)
        )
        out.append(_outcome(lambda: list(ds)))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_parse_example_traced_errors(tf_oracle, device):
    assert_parity(
        tf_oracle, _errors_program, args=(device,), helpers=[_example, _records, _outcome]
    )


def _saved_program(tf, folder):
    """A SavedModel holding the op: its attributes and defaults survive saving and loading."""
    io = tf.io
    features = {
        "a": io.FixedLenFeature([2], tf.float32, default_value=[0.5, 0.5]),
        "i": io.VarLenFeature(tf.int64),
        "r": io.RaggedFeature(tf.string, value_key="s"),
        "seq": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
    }

    class Parser(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def parse(self, s):
            return _flat(tf, tf.io.parse_example(s, features))

    recs = tf.constant(_records(tf))
    folder = f"{folder}/{tf.__name__}"  # each framework its own, should they run at once
    tf.saved_model.save(Parser(), folder)
    out = tf.saved_model.load(folder).parse(recs)
    return tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, out)


def test_parse_example_saved_model(tf_oracle, tmp_path):
    assert_parity(
        tf_oracle,
        _saved_program,
        args=(str(tmp_path / "saved"),),
        helpers=[_example, _records, _flat],
    )
