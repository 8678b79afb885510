"""RaggedFeature partitions against TensorFlow, in a SequenceExample's feature lists and context
(tf.io.parse_sequence_example over a batch, parse_single_sequence_example) and in Examples
(tf.io.parse_example, parse_single_example): each partition kind (RowSplits, RowLengths,
RowStarts, RowLimits, ValueRowIds, UniformRowLength), nested partitions of mixed kinds, uniform
lengths over dense and over ragged values, value_key variations (the feature's own key, another
key, a partition key that is also a feature), float, int64 and string values, int32 and int64
row splits, validate on and off; eager and inside a tf.function (static shapes included); and
the outcomes of inconsistent partitions (errors with validate, what the arithmetic gives
without) and of conflicting feature configurations."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _unit(groups, pairs):
    """The features of one Example, context or feature-list step: values "v" (float), "s"
    (string) and "i" (int64) in ``groups`` of rows, with every partition of the rows (len,
    spl, st, lim, ids) and of the groups (olen, ospl, ost, olim, oids); "w" holds ``pairs``
    (rows of value pairs), "wlen" the pairs per row."""
    rows = [row for group in groups for row in group]
    values = [x for row in rows for x in row]
    splits = [0]
    for row in rows:
        splits.append(splits[-1] + len(row))
    group_splits = [0]
    for group in groups:
        group_splits.append(group_splits[-1] + len(group))
    return {
        "v": [float(x) for x in values],
        "s": [str(x).encode() for x in values],
        "i": list(values),
        "len": [len(row) for row in rows],
        "spl": splits,
        "st": splits[:-1],
        "lim": splits[1:],
        "ids": [r for r, row in enumerate(rows) for _ in row],
        "olen": [len(group) for group in groups],
        "ospl": group_splits,
        "ost": group_splits[:-1],
        "olim": group_splits[1:],
        "oids": [g for g, group in enumerate(groups) for _ in group],
        "w": [float(x) for row in pairs for pair in row for x in pair],
        "wlen": [len(row) for row in pairs],
    }


def _feature(tf, key, values):
    t = tf.train
    if key in ("v", "w"):
        return t.Feature(float_list=t.FloatList(value=values))
    if key == "s":
        return t.Feature(bytes_list=t.BytesList(value=values))
    return t.Feature(int64_list=t.Int64List(value=values))


def _sequence_example(tf, context, steps):
    """A serialized SequenceExample: ``context`` a unit or None, ``steps`` a list of units
    (their keys' feature lists; no feature lists at all for none)."""
    t = tf.train
    lists = {}
    for step in steps:
        for key, values in step.items():
            lists.setdefault(key, []).append(_feature(tf, key, values))
    return t.SequenceExample(
        context=t.Features(feature={k: _feature(tf, k, v) for k, v in (context or {}).items()}),
        feature_lists=t.FeatureLists(
            feature_list={k: t.FeatureList(feature=f) for k, f in lists.items()}
        ),
    ).SerializeToString()


def _example(tf, unit):
    t = tf.train
    features = t.Features(feature={k: _feature(tf, k, v) for k, v in unit.items()})
    return t.Example(features=features).SerializeToString()


def _units():
    """Five units: an even number of rows each (a uniform length of 2 over the rows), empty
    rows inside and at the end (value row ids drop those), no rows, rows of no values."""
    return [
        _unit([[[1, 2], [3]], [[], [4]]], [[(1, 2), (3, 4)], [(5, 6)]]),
        _unit([[[5, 6, 7]], [[8], [9], [10]]], [[]]),
        _unit([], [[(7, 8)]]),
        _unit([[[11], []]], []),
        _unit([[[], []], []], [[], [(9, 10), (11, 12)]]),
    ]


def _records(tf):
    """Four SequenceExamples (contexts and feature lists of uneven steps, one without feature
    lists) and four Examples (units)."""
    u = _units()
    sequences = [
        _sequence_example(tf, u[0], [u[1], u[0], u[2]]),
        _sequence_example(tf, u[3], [u[4]]),
        _sequence_example(tf, u[2], []),
        _sequence_example(tf, u[4], [u[3], u[3]]),
    ]
    examples = [_example(tf, u[0]), _example(tf, u[3]), _example(tf, u[2]), _example(tf, u[4])]
    return sequences, examples


def _features(tf, splits, validate):
    """One RaggedFeature per partition case; every feature shares ``splits`` and
    ``validate``."""
    R = tf.io.RaggedFeature

    def r(dtype, partitions, value_key="v"):
        return R(dtype, value_key, partitions, row_splits_dtype=splits, validate=validate)

    f32 = tf.float32
    return {
        "v": r(f32, [R.RowLengths("len")], value_key=None),
        "v_spl": r(f32, [R.RowSplits("spl")]),
        "v_st": r(f32, [R.RowStarts("st")]),
        "v_lim": r(f32, [R.RowLimits("lim")]),
        "v_ids": r(f32, [R.ValueRowIds("ids")]),
        "s_len": r(tf.string, [R.RowLengths("len")], value_key="s"),
        "i_spl": r(tf.int64, [R.RowSplits("spl")], value_key="i"),
        "n_len_len": r(f32, [R.RowLengths("olen"), R.RowLengths("len")]),
        "n_spl_len": r(f32, [R.RowSplits("ospl"), R.RowLengths("len")]),
        "n_lim_st": r(f32, [R.RowLimits("olim"), R.RowStarts("st")]),
        "n_ids_spl": r(f32, [R.ValueRowIds("oids"), R.RowSplits("spl")]),
        "n_st_lim": r(f32, [R.RowStarts("ost"), R.RowLimits("lim")]),
        "u2_len": r(f32, [R.UniformRowLength(2), R.RowLengths("len")]),
        "w_u2": r(f32, [R.UniformRowLength(2)], value_key="w"),
        "w_len_u2": r(f32, [R.RowLengths("wlen"), R.UniformRowLength(2)], value_key="w"),
        "w_u1_u2": r(f32, [R.UniformRowLength(1), R.UniformRowLength(2)], value_key="w"),
        "len": r(tf.int64, [], value_key=None),
        "plain": r(f32, []),
    }


def _describe(tf, out):
    """Nested dicts (key order kept) of each output's components: a RaggedTensor's flat
    values, each level's row splits and uniform row length, and its shape."""

    def one(v):
        if isinstance(v, tf.RaggedTensor):
            levels, rt = [], v
            while isinstance(rt, tf.RaggedTensor):
                levels.append((rt.row_splits, rt.uniform_row_length))
                rt = rt.values
            return ("ragged", rt, levels, v.shape.as_list(), v.ragged_rank)
        return ("dense", v)

    if isinstance(out, dict):
        return {k: one(v) for k, v in out.items()}
    return [_describe(tf, part) for part in out]


def _static(tf, out):
    """Static shapes and dtypes seen while tracing."""

    def one(v):
        shape = v.shape.as_list() if v.shape.rank is not None else None
        if isinstance(v, tf.RaggedTensor):
            splits = [s.shape.as_list() for s in v.nested_row_splits]
            return (shape, v.flat_values.shape.as_list(), splits, v.row_splits.dtype.name)
        return (shape, v.dtype.name)

    if isinstance(out, dict):
        return {k: one(v) for k, v in out.items()}
    return [_static(tf, part) for part in out]


def _eager_program(tf, device, splits, validate):
    sequences, examples = _records(tf)
    features = _features(tf, getattr(tf, splits), validate)
    io = tf.io
    with tf.device(device):
        out = {
            "batch": _describe(tf, io.parse_sequence_example(sequences, features, features)),
            "lists_only": _describe(
                tf, io.parse_sequence_example(sequences, sequence_features=features)
            ),
            "single": [
                _describe(tf, io.parse_single_sequence_example(s, features, features))
                for s in sequences
            ],
            "examples": _describe(tf, io.parse_example(examples, features)),
            "example": [_describe(tf, io.parse_single_example(e, features)) for e in examples],
        }
    return out


_HELPERS = [_unit, _feature, _sequence_example, _example, _units, _records, _features, _describe]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("splits", ["int32", "int64"])
@pytest.mark.parametrize("validate", [False, True])
def test_partitions_eager(tf_oracle, device, splits, validate):
    expected = assert_parity(
        tf_oracle, _eager_program, args=(device, splits, validate), helpers=_HELPERS
    )
    assert expected[0] != "raised", expected


def _function_program(tf, device, splits, validate):
    sequences, examples = _records(tf)
    features = _features(tf, getattr(tf, splits), validate)
    io = tf.io
    seen = {}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def unknown_batch(s):
        out = io.parse_sequence_example(s, features, features)
        seen["unknown_batch"] = _static(tf, out)
        return _describe(tf, out)

    @tf.function
    def known_batch(s):
        out = io.parse_sequence_example(s, sequence_features=features)
        seen["known_batch"] = _static(tf, out)
        return _describe(tf, out)

    @tf.function
    def single(s):
        out = io.parse_single_sequence_example(s, features, features)
        seen["single"] = _static(tf, out)
        return _describe(tf, out)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def examples_batch(s):
        out = io.parse_example(s, features)
        seen["examples_batch"] = _static(tf, out)
        return _describe(tf, out)

    @tf.function
    def example(s):
        out = io.parse_single_example(s, features)
        seen["example"] = _static(tf, out)
        return _describe(tf, out)

    with tf.device(device):
        out = {
            "unknown_batch": [unknown_batch(tf.constant(sequences)), unknown_batch(sequences[1:])],
            "known_batch": known_batch(tf.constant(sequences)),
            "single": [single(tf.constant(s)) for s in sequences],
            "examples_batch": examples_batch(tf.constant(examples)),
            "example": [example(tf.constant(e)) for e in examples],
        }
    out["seen"] = seen
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("splits", "validate"), [("int32", False), ("int64", True)])
def test_partitions_in_function(tf_oracle, device, splits, validate):
    expected = assert_parity(
        tf_oracle,
        _function_program,
        args=(device, splits, validate),
        helpers=[*_HELPERS, _static],
    )
    assert expected[0] != "raised", expected


def _inconsistent_cases(tf):
    """(name, steps, partitions): the steps' features (each a dict of key to values, "v"
    float, the others int64 unless named "f_..." (float)) fit the partitions badly. A
    SequenceExample holds them as its feature lists (a key some steps lack has fewer steps)
    and the first as its context; Examples hold one step each."""
    R = tf.io.RaggedFeature
    v3 = [1.0, 2.0, 3.0]
    two = [{"v": v3}, {"v": [4.0]}]
    return [
        ("lengths_over", [{"v": v3, "len": [2, 2]}], [R.RowLengths("len")]),
        ("lengths_under", [{"v": v3, "len": [1, 1]}], [R.RowLengths("len")]),
        ("lengths_negative", [{"v": v3, "len": [4, -1]}], [R.RowLengths("len")]),
        ("splits_short", [{"v": v3, "spl": [0, 2]}], [R.RowSplits("spl")]),
        ("splits_not_zero", [{"v": v3, "spl": [1, 3]}], [R.RowSplits("spl")]),
        ("splits_decreasing", [{"v": v3, "spl": [0, 3, 2, 3]}], [R.RowSplits("spl")]),
        ("splits_empty", [{"v": v3, "spl": []}], [R.RowSplits("spl")]),
        ("starts_past_end", [{"v": v3, "st": [0, 5]}], [R.RowStarts("st")]),
        ("starts_not_zero", [{"v": v3, "st": [1]}], [R.RowStarts("st")]),
        ("limits_short", [{"v": v3, "lim": [2]}], [R.RowLimits("lim")]),
        ("limits_decreasing", [{"v": v3, "lim": [3, 2, 3]}], [R.RowLimits("lim")]),
        ("ids_decreasing", [{"v": v3, "ids": [1, 0, 0]}], [R.ValueRowIds("ids")]),
        ("ids_too_few", [{"v": v3, "ids": [0, 0]}], [R.ValueRowIds("ids")]),
        ("ids_negative", [{"v": v3, "ids": [-1, 0, 0]}], [R.ValueRowIds("ids")]),
        ("uniform_uneven", [{"v": v3}], [R.UniformRowLength(2)]),
        (
            "uniform_over_rows_uneven",
            [{"v": v3, "len": [1, 1, 1]}],
            [R.UniformRowLength(2), R.RowLengths("len")],
        ),
        (
            "nested_outer_over",
            [{"v": v3, "len": [2, 1], "olen": [3]}],
            [R.RowLengths("olen"), R.RowLengths("len")],
        ),
        ("steps_fewer_lengths", [{"v": v3, "len": [3]}, {"v": [4.0]}], [R.RowLengths("len")]),
        ("steps_more_lengths", [{"len": [0]}, {"v": v3, "len": [3]}], [R.RowLengths("len")]),
        ("steps_fewer_splits", [{"v": v3, "spl": [0, 3]}, {"v": [4.0]}], [R.RowSplits("spl")]),
        ("steps_fewer_starts", [{"v": v3, "st": [0]}, {"v": [4.0]}], [R.RowStarts("st")]),
        ("steps_fewer_limits", [{"v": v3, "lim": [3]}, {"v": [4.0]}], [R.RowLimits("lim")]),
        ("steps_fewer_ids", [{"v": v3, "ids": [0, 0, 0]}, {"v": [4.0]}], [R.ValueRowIds("ids")]),
        ("partition_missing", two, [R.RowLengths("len")]),
        ("partition_floats", [{"v": v3, "f_len": [3.0]}], [R.RowLengths("f_len")]),
    ]


def _inconsistent_program(tf, device, in_function):
    io = tf.io
    t = tf.train

    def feature(key, values):
        if key == "v" or key.startswith("f_"):
            return t.Feature(float_list=t.FloatList(value=values))
        return t.Feature(int64_list=t.Int64List(value=values))

    def sequence(steps):
        lists = {}
        for step in steps:
            for key, values in step.items():
                lists.setdefault(key, []).append(feature(key, values))
        context = {k: feature(k, v) for k, v in steps[0].items()}
        return t.SequenceExample(
            context=t.Features(feature=context),
            feature_lists=t.FeatureLists(
                feature_list={k: t.FeatureList(feature=f) for k, f in lists.items()}
            ),
        ).SerializeToString()

    def example(step):
        features = t.Features(feature={k: feature(k, v) for k, v in step.items()})
        return t.Example(features=features).SerializeToString()

    good = sequence([{"v": [5.0, 6.0]}])

    def outcome(fn, *args):
        try:
            return _describe(tf, fn(*args))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    out = {}
    for name, steps, partitions in _inconsistent_cases(tf):
        for validate in (False, True):
            f = {"x": io.RaggedFeature(tf.float32, "v", partitions, validate=validate)}
            parsers = {
                "seq_batch": lambda s, f=f: io.parse_sequence_example(s, f, f),
                "seq_single": lambda s, f=f: io.parse_single_sequence_example(s, f, f),
                "examples": lambda s, f=f: io.parse_example(s, f),
                "example": lambda s, f=f: io.parse_single_example(s, f),
            }
            if in_function:
                parsers = {k: tf.function(p) for k, p in parsers.items()}
            seq = sequence(steps)
            examples = [example(step) for step in steps]
            with tf.device(device):
                out[(name, validate)] = {
                    "seq_batch": outcome(parsers["seq_batch"], tf.constant([seq, good])),
                    "seq_single": outcome(parsers["seq_single"], tf.constant(seq)),
                    "examples": outcome(parsers["examples"], tf.constant(examples)),
                    "example": outcome(parsers["example"], tf.constant(examples[0])),
                }
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("in_function", [False, True])
def test_inconsistent_partitions(tf_oracle, device, in_function):
    expected = assert_parity(
        tf_oracle,
        _inconsistent_program,
        args=(device, in_function),
        helpers=[_inconsistent_cases, _describe],
    )
    assert expected[0] != "raised", expected
    # Validation errors and built tensors both (validate=False builds what arithmetic gives).
    strings = _python_strings(expected)
    assert "InvalidArgumentError" in strings and "ragged" in strings, strings


def _python_strings(comparable):
    """The Python strings in a comparable result (the harness's nested tuples and lists)."""
    if isinstance(comparable, (tuple, list)):
        if len(comparable) == 3 and comparable[:2] == ("py", "str"):
            return {comparable[2]}
        return set().union(*(_python_strings(c) for c in comparable))
    return set()


def _configuration_program(tf, device):
    """Features whose keys collide: a partition key with two row-splits dtypes, of another
    value type, also a sparse or dense feature's key; a partition key that is the value key;
    features that are also other features' value and partition keys (the dict order)."""
    sequences, examples = _records(tf)
    io, R = tf.io, tf.io.RaggedFeature
    lengths = [R.RowLengths("len")]
    cases = {
        "splits_dtypes": {
            "a": R(tf.float32, "v", lengths),
            "b": R(tf.float32, "w", lengths, row_splits_dtype=tf.int64),
        },
        "value_type": {"a": R(tf.float32, "v", [R.RowLengths("w")]), "w": R(tf.float32)},
        "sparse": {"a": R(tf.float32, "v", lengths), "len": io.VarLenFeature(tf.int64)},
        "self_partitioned": {"a": R(tf.int64, "len", lengths)},
        # The op's ragged keys in the features' order: "v" (a's value key) before "len".
        "order": {"a": R(tf.float32, "v", lengths), "len": R(tf.int64), "v": R(tf.float32)},
    }
    dense = {
        "context": io.FixedLenFeature([], tf.int64, default_value=0),
        "sequence": io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    }

    def outcome(fn):
        try:
            return _describe(tf, fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    out = {}
    with tf.device(device):
        for name, f in cases.items():
            out[name] = [
                outcome(lambda f=f: io.parse_sequence_example(sequences, f, None)),
                outcome(lambda f=f: io.parse_sequence_example(sequences, None, f)),
                outcome(lambda f=f: io.parse_single_sequence_example(sequences[0], None, f)),
                outcome(lambda f=f: io.parse_example(examples, f)),
            ]
        for section, feature in dense.items():
            f = {"a": R(tf.float32, "v", lengths), "len": feature}
            context, lists = (f, None) if section == "context" else (None, f)
            out["dense_" + section] = outcome(
                lambda c=context, s=lists: io.parse_sequence_example(sequences, c, s)
            )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_colliding_keys(tf_oracle, device):
    expected = assert_parity(tf_oracle, _configuration_program, args=(device,), helpers=[*_HELPERS])
    assert expected[0] != "raised", expected
    strings = _python_strings(expected)
    assert "ValueError" in strings and "ragged" in strings, strings
