"""tf.io.parse_sequence_example / parse_single_sequence_example traced against TensorFlow:
inside a tf.function (with a string-vector input signature of unknown length, and without)
and a Dataset.map (single records and batches), every feature kind of both sections (context
FixedLen with and without defaults, VarLen, Ragged with row-length and uniform partitions and a
uniform one over a ragged one; feature-list FixedLenSequence, VarLen, Ragged with int32 and
int64 splits), the feature_list_lengths, the static shapes seen at trace time, and the errors:
those the graph raises when it runs (missing required features, malformed records, wrong
types, an empty batch with a required context feature) and those the trace raises when it is
built."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _records(tf):
    """Three serialized SequenceExamples of uneven feature lists; the last has no "c2", "x"
    or "m" (defaults and padding) and one empty step."""
    t = tf.train

    def f(key, values):
        """A feature of the kind its key holds (an empty list keeps its kind)."""
        if key in ("tags", "tok"):
            return t.Feature(bytes_list=t.BytesList(value=values))
        if key in ("id", "n", "k", "m", "ids"):
            return t.Feature(int64_list=t.Int64List(value=values))
        return t.Feature(float_list=t.FloatList(value=values))

    def seq(context, lists):
        return t.SequenceExample(
            context=t.Features(feature={k: f(k, v) for k, v in context.items()}),
            feature_lists=t.FeatureLists(
                feature_list={
                    k: t.FeatureList(feature=[f(k, step) for step in steps])
                    for k, steps in lists.items()
                }
            ),
        ).SerializeToString()

    return [
        seq(
            {
                "id": [1],
                "c": [1.0, 2.0, 3.0],
                "n": [2, 1],
                "k": [5, 6],
                "tags": [b"a", b"bc"],
                "c2": [4.0, 5.0],
            },
            {
                "x": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                "m": [[7], [8]],
                "v": [[1.0], [], [2.0, 3.0]],
                "tok": [[b"p"], [b"q", b"r"]],
                "w": [[1.0], [2.0, 3.0]],
                "ids": [[1, 2, 3]],
            },
        ),
        seq(
            {"id": [2], "c": [4.0], "n": [1], "k": [], "tags": []},
            {
                "x": [[7.0, 8.0]],
                "m": [[9], [10], [11]],
                "v": [[4.0]],
                "tok": [[]],
                "w": [[], [4.0], [5.0, 6.0]],
                "ids": [[4], []],
            },
        ),
        seq(
            {"id": [3], "c": [], "n": [], "k": [7], "tags": [b"z"]},
            {"v": [[]], "tok": [], "w": [], "ids": [[5, 6]]},
        ),
    ]


def _features(tf):
    io, R = tf.io, tf.io.RaggedFeature
    context = {
        "id": io.FixedLenFeature([], tf.int64),
        "c2": io.FixedLenFeature([2, 1], tf.float32, default_value=[[-1.0], [-2.0]]),
        "tags": io.VarLenFeature(tf.string),
        "cr": R(tf.float32, value_key="c"),
        "crl": R(tf.float32, value_key="c", partitions=[R.RowLengths("n")]),
        "cru": R(tf.float32, value_key="c", partitions=[R.UniformRowLength(1)]),
        "crul": R(tf.float32, value_key="c", partitions=[R.UniformRowLength(1), R.RowLengths("n")]),
        "cr64": R(tf.int64, value_key="k", row_splits_dtype=tf.int64),
    }
    sequence = {
        "x": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
        "m": io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
        "v": io.VarLenFeature(tf.float32),
        "tok": io.VarLenFeature(tf.string),
        "r": R(tf.float32, value_key="w"),
        "r64": R(tf.int64, value_key="ids", row_splits_dtype=tf.int64),
    }
    return context, sequence


def _flat(tf, out):
    """Each dict's outputs as plain tensors (SparseTensor and RaggedTensor components)."""
    flat = []
    for part in out:
        for key, v in part.items():
            if isinstance(v, tf.SparseTensor):
                flat.append((key, "sparse", v.indices, v.values, v.dense_shape))
            elif isinstance(v, tf.RaggedTensor):
                flat.append((key, "ragged", v.flat_values, *v.nested_row_splits))
            else:
                flat.append((key, "dense", v))
    return flat


def _static(tf, out):
    """The static shapes and dtypes of each output, as lists (None for an unknown rank)."""

    def shape(t):
        return t.shape.as_list() if t.shape.rank is not None else None

    seen = []
    for part in out:
        for key, v in part.items():
            if isinstance(v, tf.SparseTensor):
                parts = [v.indices, v.values, v.dense_shape]
                seen.append((key, "sparse", [shape(p) for p in parts], v.values.dtype.name))
            elif isinstance(v, tf.RaggedTensor):
                splits = [shape(s) for s in v.nested_row_splits]
                dtypes = [v.flat_values.dtype.name, v.row_splits.dtype.name]
                seen.append((key, "ragged", shape(v), shape(v.flat_values), splits, dtypes))
            else:
                seen.append((key, "dense", shape(v), v.dtype.name))
    return seen


def _numpy(tf, x):
    return tf.nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, x)


def _outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _function_program(tf, device):
    recs = _records(tf)
    context, sequence = _features(tf)
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def unknown_batch(s):
        out = tf.io.parse_sequence_example(s, context, sequence)
        seen["unknown_batch"] = _static(tf, out)
        return _flat(tf, out)

    @tf.function
    def known_batch(s):
        out = tf.io.parse_sequence_example(s, context, sequence, example_names=["r0", "r1", "r2"])
        seen["known_batch"] = _static(tf, out)
        return _flat(tf, out)

    @tf.function
    def single(s):
        out = tf.io.parse_single_sequence_example(s, context, sequence, example_name="one")
        seen["single"] = _static(tf, out)
        return _flat(tf, out)

    @tf.function
    def lists_only(s):
        lists = {k: sequence[k] for k in ("v", "x", "r")}
        out = tf.io.parse_sequence_example(s, sequence_features=lists)
        seen["lists_only"] = _static(tf, out)
        return _flat(tf, out)

    @tf.function
    def context_only(s):
        out = tf.io.parse_single_sequence_example(s, context_features={"id": context["id"]})
        seen["context_only"] = _static(tf, out)
        return _flat(tf, out)

    with tf.device(device):
        out = [_numpy(tf, unknown_batch(tf.constant(recs)))]
        out.append(_numpy(tf, unknown_batch(tf.constant(recs[1:]))))
        # An empty batch: TensorFlow refuses it when a context feature is required.
        out.append(_outcome(lambda: unknown_batch(tf.constant(recs[:0], tf.string))))
        out.append(_numpy(tf, known_batch(tf.constant(recs))))
        out.append([_numpy(tf, single(tf.constant(r))) for r in recs])
        out.append(_numpy(tf, lists_only(tf.constant(recs))))
        out.append(_numpy(tf, lists_only(tf.constant(recs[:0], tf.string))))
        out.append(_numpy(tf, context_only(tf.constant(recs[2]))))
    out.append(seen)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_parse_sequence_example_in_function(tf_oracle, device):
    expected = assert_parity(
        tf_oracle,
        _function_program,
        args=(device,),
        helpers=[_records, _features, _flat, _static, _numpy, _outcome],
    )
    assert expected[0] != "raised", expected


def _dataset_program(tf, device):
    recs = _records(tf)
    context, sequence = _features(tf)
    seen = {}

    def one(s):
        out = tf.io.parse_single_sequence_example(s, context, sequence)
        seen["one"] = _static(tf, out)
        return _flat(tf, out)

    def batch(s):
        out = tf.io.parse_sequence_example(s, context, sequence)
        seen["batch"] = _static(tf, out)
        return _flat(tf, out)

    with tf.device(device):
        ds = tf.data.Dataset.from_tensor_slices(recs)
        out = [list(ds.map(one).as_numpy_iterator())]
        out.append(list(ds.batch(2).map(batch).as_numpy_iterator()))
        out.append(list(ds.batch(3, drop_remainder=True).map(batch).as_numpy_iterator()))
    out.append(seen)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_parse_sequence_example_in_dataset_map(tf_oracle, device):
    expected = assert_parity(
        tf_oracle,
        _dataset_program,
        args=(device,),
        helpers=[_records, _features, _flat, _static],
    )
    assert expected[0] != "raised", expected


def _run_errors_program(tf, device):
    """Errors the graph raises when it runs, from a tf.function and a Dataset.map."""
    recs = _records(tf)
    io = tf.io
    bad = [b"\x0a\x05\x0a\x03"]
    cases = [
        (recs, {"zz": io.FixedLenFeature([1], tf.int64)}, None),
        (recs, None, {"zz": io.FixedLenSequenceFeature([], tf.int64)}),
        (recs, {"id": io.FixedLenFeature([], tf.float32)}, None),
        (recs, None, {"x": io.FixedLenSequenceFeature([3], tf.float32, allow_missing=True)}),
        (recs, None, {"v": io.VarLenFeature(tf.int64)}),
        (bad, {"id": io.VarLenFeature(tf.int64)}, None),
        (bad, None, {"v": io.VarLenFeature(tf.float32)}),
        (recs, {"id": io.FixedLenFeature([], tf.int64)}, {"v": io.VarLenFeature(tf.float32)}),
    ]
    out = []
    with tf.device(device):
        for records, ctx, lists in cases:
            fn = tf.function(lambda s, c=ctx, q=lists: tf.io.parse_sequence_example(s, c, q))
            out.append(_outcome(lambda fn=fn, r=records: fn(tf.constant(r))))
            ds = tf.data.Dataset.from_tensor_slices(records).map(
                lambda s, c=ctx, q=lists: tf.io.parse_single_sequence_example(s, c, q)
            )
            out.append(_outcome(lambda ds=ds: list(ds)))

        # One node parses everything: a missing required feature list raises even when only
        # the context is used, as TensorFlow's single op does.
        missing = {"zz": io.FixedLenSequenceFeature([], tf.int64)}
        used = tf.function(
            lambda s: tf.io.parse_sequence_example(
                s, {"id": io.FixedLenFeature([], tf.int64)}, missing
            )[0]["id"]
        )
        out.append(_outcome(lambda: used(tf.constant(recs))))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_parse_sequence_example_traced_run_errors(tf_oracle, device):
    expected = assert_parity(
        tf_oracle, _run_errors_program, args=(device,), helpers=[_records, _outcome]
    )
    assert expected[0] != "raised", expected
    # TensorFlow raised where a case must fail (a parser raising nothing would agree with "ok").
    outcomes = [item[2] for item in expected[1]]
    assert "ok" not in outcomes[:14] + outcomes[16:], outcomes
    assert outcomes[14:16] == ["ok", "ok"], outcomes


def _trace_errors_program(tf):
    """Errors the trace raises when it is built, and the static shapes of a batch of unknown
    rank (a reshape to a traced shape hides the rank)."""
    io = tf.io
    recs = tf.constant(_records(tf)[:1])
    ragged = {"r": io.RaggedFeature(tf.float32)}
    lists = {"x": io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}
    cases = [  # (hide the rank, context, feature lists, single)
        (False, {"x": io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}, None, False),
        (False, None, {"x": io.FixedLenFeature([], tf.int64)}, False),
        (False, {"x": io.FixedLenFeature([None], tf.int64)}, None, False),
        (False, {"id": io.FixedLenFeature([], tf.int64)}, None, True),
        (
            False,
            None,
            {"x": io.FixedLenSequenceFeature([], tf.int64, True, default_value=1)},
            False,
        ),
        (True, ragged, None, False),
        (True, None, ragged, False),
        (True, {"id": io.FixedLenFeature([], tf.int64)}, lists, False),
    ]
    spec = [tf.TensorSpec([None], tf.string), tf.TensorSpec([None], tf.int32)]
    seen = []

    def traced(hide, ctx, lists, single):
        parse = tf.io.parse_single_sequence_example if single else tf.io.parse_sequence_example

        @tf.function(input_signature=spec)
        def fn(s, dims):
            if hide:
                s = tf.reshape(s, dims)
            out = parse(s, ctx, lists)
            seen.append(_static(tf, out))
            return _flat(tf, out)

        return fn

    out = []
    for case in cases:
        fn = traced(*case)
        out.append(_outcome(lambda fn=fn: fn(recs, tf.constant([1]))))
    out.append(seen)
    hidden = traced(True, {"id": io.FixedLenFeature([], tf.int64)}, lists, False)
    out.append(tf.nest.map_structure(lambda t: t.numpy(), hidden(recs, tf.constant([1]))))
    return out


def test_parse_sequence_example_trace_errors(tf_oracle):
    expected = assert_parity(
        tf_oracle,
        _trace_errors_program,
        helpers=[_records, _outcome, _static, _flat],
    )
    assert expected[0] != "raised", expected
    outcomes = [item[2] for item in expected[1][:8]]
    assert outcomes == ["ValueError"] * 7 + ["ok"], outcomes


def _shared_checks_program(tf):
    """The checks the traced parse shares with the eager one, eagerly: a feature list with a
    default value, and an empty batch with a required context feature (and without one)."""
    io = tf.io
    recs = _records(tf)
    padded = {"x": io.FixedLenSequenceFeature([], tf.int64, True, default_value=1)}
    required = {"id": io.FixedLenFeature([2], tf.int64)}
    optional = {"id": io.FixedLenFeature([2], tf.int64, default_value=[0, 0])}
    empty = tf.constant(recs[:0], tf.string)
    return [
        _outcome(lambda: io.parse_sequence_example(recs, None, padded)),
        _outcome(lambda: io.parse_single_sequence_example(recs[0], None, padded)),
        _outcome(lambda: io.parse_sequence_example(empty, required, None)),
        _numpy(tf, io.parse_sequence_example(empty, optional, None)),
    ]


def test_parse_sequence_example_shared_checks(tf_oracle):
    expected = assert_parity(
        tf_oracle, _shared_checks_program, helpers=[_records, _outcome, _numpy]
    )
    assert expected[0] != "raised", expected
    outcomes = [item[2] for item in expected[1][:3]]
    assert outcomes == ["ValueError", "ValueError", "InvalidArgumentError"], outcomes
