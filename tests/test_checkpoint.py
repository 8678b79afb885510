"""tf.train checkpoints: round trips of every dtype and of nested modules, TensorFlow's key
names, numbering and the `checkpoint` state file, CheckpointManager, the load-status assertions,
restore-on-create, crash safety under SIGKILL, a fuzzed loader, and GPU placement.

The expected names, messages and file contents were taken from TensorFlow 2.21; the optional
parity tests at the end compare against TensorFlow directly when it is installed.
"""

import collections
import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import ferroflow as tf
import ml_dtypes
import numpy as np
import pytest
from conftest import require_gpu
from ferroflow import _core, _proto
from ferroflow.train.trackable import AutoTrackable

DTYPES = [
    tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
    tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128,
]  # fmt: skip
VALUE = ".ATTRIBUTES/VARIABLE_VALUE"
GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def sample(dtype, shape, rng):
    """Random values of ``dtype`` covering its extremes (and inf/nan for floats)."""
    np_dtype = dtype.as_numpy_dtype
    if dtype == tf.bool:
        values = rng.integers(0, 2, shape).astype(bool)
    elif dtype.is_complex:
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    elif dtype.is_floating:
        values = rng.standard_normal(shape) * 100
        flat = values.reshape(-1)
        flat[: min(3, flat.size)] = [np.inf, -np.inf, np.nan][: min(3, flat.size)]
    else:
        info = np.iinfo(np_dtype)
        values = rng.integers(info.min, info.max, shape, dtype=np_dtype, endpoint=True)
        values.reshape(-1)[:1] = info.min
    return np.asarray(values).astype(np_dtype)


def same_bits(actual, expected):
    actual = np.asarray(actual)
    return (
        actual.dtype == expected.dtype
        and actual.shape == expected.shape
        and actual.tobytes() == expected.tobytes()
    )


class Model(AutoTrackable):
    """A trackable with attributes (like tf.Module, whose restore-on-create hook may be absent)."""


def module_hooked():
    """Whether tf.Module attribute assignment reports to the restore-on-create hook."""
    from ferroflow.train import _deferred

    m, probe = tf.Module(), object()
    seen = []
    original = _deferred.note_attribute
    _deferred.note_attribute = lambda obj, name, value: seen.append(value)
    try:
        m.probe = probe
    finally:
        _deferred.note_attribute = original
    return probe in seen


requires_module_hook = pytest.mark.skipif(
    not module_hooked(),
    reason="tf.Module.__setattr__ does not call ferroflow.train._deferred.note_attribute yet",
)


def nested_module(scale=1.0):
    root = tf.Module()
    root.layer = tf.Module()
    root.layer.kernel = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) * scale)
    root.blocks = [tf.Module(), tf.Module()]
    root.blocks[0].w = tf.Variable(int(7 * scale))
    root.blocks[1].w = tf.Variable(int(8 * scale))
    root.table = {"a": tf.Variable(2.0 * scale), "b": [tf.Variable([3.0 * scale])]}
    root.pair = (tf.Variable(4.0 * scale), "not trackable", 5)
    root.step = tf.Variable(int(10 * scale), dtype=tf.int64)
    return root


NESTED_KEYS = [
    (GRAPH_KEY, []),
    (f"model/blocks/0/w/{VALUE}", []),
    (f"model/blocks/1/w/{VALUE}", []),
    (f"model/layer/kernel/{VALUE}", [2, 3]),
    (f"model/pair/0/{VALUE}", []),
    (f"model/step/{VALUE}", []),
    (f"model/table/a/{VALUE}", []),
    (f"model/table/b/0/{VALUE}", [1]),
    (f"save_counter/{VALUE}", []),
]


def module_values(root):
    return [
        root.layer.kernel.numpy().tolist(),
        int(root.blocks[0].w.numpy()),
        int(root.blocks[1].w.numpy()),
        float(root.table["a"].numpy()),
        root.table["b"][0].numpy().tolist(),
        float(root.pair[0].numpy()),
        int(root.step.numpy()),
    ]


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [[], [3], [2, 0], [2, 3, 2]], ids=["scalar", "1d", "empty", "3d"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_every_dtype_round_trips_bit_exactly(tmp_path, dtype, shape):
    expected = sample(
        dtype, shape, np.random.default_rng(len(shape) * 100 + dtype.as_datatype_enum)
    )
    path = tf.train.Checkpoint(v=tf.Variable(expected, dtype=dtype)).write(tmp_path / "ckpt")
    assert path == str(tmp_path / "ckpt")

    restored = tf.Variable(np.zeros(shape, dtype.as_numpy_dtype), dtype=dtype)
    tf.train.Checkpoint(v=restored).read(path).assert_consumed()
    assert restored.dtype == dtype
    assert same_bits(restored.numpy(), expected)

    reader = tf.train.load_checkpoint(path)
    key = f"v/{VALUE}"
    assert reader.get_variable_to_dtype_map()[key] == dtype
    assert reader.get_variable_to_shape_map()[key] == shape
    stored = reader.get_tensor(key)
    assert same_bits(stored, expected)
    if not shape:
        assert isinstance(stored, np.generic)  # TensorFlow hands scalars back as numpy scalars


def test_round_trip_on_each_device(tmp_path, device):
    weights = tf.Variable([[1.5, -2.0], [0.25, 8.0]])
    counts = tf.Variable([1, 2, 3])
    path = tf.train.Checkpoint(w=weights, c=counts).write(tmp_path / "ckpt")
    fresh_w, fresh_c = tf.Variable(tf.zeros([2, 2])), tf.Variable([0, 0, 0])
    tf.train.Checkpoint(w=fresh_w, c=fresh_c).read(path).assert_consumed()
    assert fresh_w.numpy().tolist() == [[1.5, -2.0], [0.25, 8.0]]
    assert fresh_c.numpy().tolist() == [1, 2, 3]
    assert fresh_w.device == weights.device


def test_nested_modules_round_trip_under_tensorflows_keys(tmp_path):
    saved = nested_module()
    path = tf.train.Checkpoint(model=saved).save(tmp_path / "ckpt")
    assert tf.train.list_variables(path) == NESTED_KEYS

    restored = nested_module(scale=0.0)
    tf.train.Checkpoint(model=restored).restore(path).assert_consumed()
    assert module_values(restored) == module_values(saved)


def test_save_numbers_checkpoints_and_records_the_latest(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    first = ckpt.save(tmp_path / "pre")
    second = ckpt.save(str(tmp_path / "pre"))
    assert (first, second) == (str(tmp_path / "pre-1"), str(tmp_path / "pre-2"))
    assert int(ckpt.save_counter.numpy()) == 2
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "pre-1.data-00000-of-00001",
        "pre-1.index",
        "pre-2.data-00000-of-00001",
        "pre-2.index",
    ]
    # Checkpoint.save names only the newest checkpoint, by a path relative to the directory.
    state = 'model_checkpoint_path: "pre-2"\nall_model_checkpoint_paths: "pre-2"\n'
    assert (tmp_path / "checkpoint").read_text() == state
    assert tf.train.latest_checkpoint(tmp_path) == second

    assert ckpt.write(tmp_path / "plain") == str(tmp_path / "plain")
    assert (tmp_path / "checkpoint").read_text() == state  # write() leaves the state alone
    assert int(ckpt.save_counter.numpy()) == 2


def test_save_in_the_working_directory_uses_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tf.train.Checkpoint(v=tf.Variable(1.0)).save("ck") == "ck-1"
    assert (tmp_path / "checkpoint").read_text().startswith('model_checkpoint_path: "ck-1"\n')
    assert tf.train.latest_checkpoint(".") == "./ck-1"
    assert tf.train.latest_checkpoint("") == "ck-1"


def test_save_counter_is_checkpointed_and_restored(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.save(tmp_path / "a")
    path = ckpt.save(tmp_path / "a")
    again = tf.train.Checkpoint(v=tf.Variable(0.0))
    again.restore(path).assert_consumed()
    assert int(again.save_counter.numpy()) == 2
    assert again.save(tmp_path / "a") == str(tmp_path / "a-3")


def test_write_then_read_and_what_restore_expects(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(tmp_path / "w")
    fresh = tf.train.Checkpoint(v=tf.Variable(0.0))
    fresh.read(path).assert_consumed()
    assert fresh._save_counter is None  # read() does not create the save counter

    # restore() creates the counter, which a write()-checkpoint has no value for.
    with pytest.raises(AssertionError, match="Found 1 Python objects that were not bound") as e:
        tf.train.Checkpoint(v=tf.Variable(0.0)).restore(path).assert_consumed()
    assert "save_counter:0" in str(e.value)

    # read() of a save()-checkpoint leaves the save counter's value unclaimed...
    saved = tf.train.Checkpoint(v=tf.Variable(1.0)).save(tmp_path / "s")
    reader = tf.train.Checkpoint(v=tf.Variable(0.0))
    status = reader.read(saved)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.save_"):
        status.assert_consumed()
    # ...until the counter is created, when it takes the value (restore-on-create).
    assert int(reader.save_counter.numpy()) == 1
    status.assert_consumed()


# --- the state file and latest_checkpoint --------------------------------------------------------


def test_latest_checkpoint_without_a_usable_state(tmp_path):
    assert tf.train.latest_checkpoint(tmp_path / "missing") is None
    assert tf.train.latest_checkpoint(tmp_path) is None
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    path = ckpt.save(tmp_path / "c")
    os.remove(path + ".index")
    assert tf.train.latest_checkpoint(tmp_path) is None  # names a checkpoint without an index

    (tmp_path / "checkpoint").write_text("garbage here")
    assert tf.train.get_checkpoint_state(tmp_path) is None
    assert tf.train.latest_checkpoint(tmp_path) is None
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "x"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.latest_checkpoint(tmp_path)


def test_state_file_text_format_round_trips_awkward_paths(tmp_path):
    from ferroflow.train.checkpoint_management import update_checkpoint_state_internal

    odd = str(tmp_path / 'a "quoted"\\ näme\tx')
    update_checkpoint_state_internal(
        str(tmp_path), odd, [odd], save_relative_paths=True, all_model_checkpoint_timestamps=[1.5]
    )
    text = (tmp_path / "checkpoint").read_text()
    assert text.splitlines()[0] == 'model_checkpoint_path: "a \\"quoted\\"\\\\ näme\\tx"'
    state = tf.train.get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == odd
    assert state.all_model_checkpoint_paths == [odd]
    assert state.all_model_checkpoint_timestamps == [1.5]

    # Protobuf's other spellings: list syntax, single quotes, comments, octal and hex escapes.
    (tmp_path / "checkpoint").write_text(
        "# written by hand\nmodel_checkpoint_path: 'b\\x41\\101'\n"
        'all_model_checkpoint_paths: ["a", "bAA"]\nlast_preserved_timestamp: 2\n'
    )
    state = tf.train.get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == str(tmp_path / "bAA")
    assert state.all_model_checkpoint_paths == [str(tmp_path / "a"), str(tmp_path / "bAA")]
    assert state.last_preserved_timestamp == 2.0


# --- CheckpointManager ----------------------------------------------------------------------------


def test_manager_keeps_the_newest_and_deletes_the_rest(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, tmp_path, max_to_keep=2)
    assert (manager.directory, manager.latest_checkpoint, manager.checkpoints) == (
        str(tmp_path),
        None,
        [],
    )
    paths = [manager.save() for _ in range(4)]
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in range(1, 5)]
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "ckpt-3.data-00000-of-00001",
        "ckpt-3.index",
        "ckpt-4.data-00000-of-00001",
        "ckpt-4.index",
    ]
    assert manager.checkpoints == paths[2:]
    assert manager.latest_checkpoint == paths[3] == tf.train.latest_checkpoint(tmp_path)
    lines = (tmp_path / "checkpoint").read_text().splitlines()
    assert lines[:3] == [
        'model_checkpoint_path: "ckpt-4"',
        'all_model_checkpoint_paths: "ckpt-3"',
        'all_model_checkpoint_paths: "ckpt-4"',
    ]
    assert [line.split(":")[0] for line in lines[3:]] == [
        "all_model_checkpoint_timestamps",
        "all_model_checkpoint_timestamps",
        "last_preserved_timestamp",
    ]

    assert manager.save(checkpoint_number=10) == str(tmp_path / "ckpt-10")
    assert manager.save(checkpoint_number=tf.constant(12)) == str(tmp_path / "ckpt-12")
    assert int(ckpt.save_counter.numpy()) == 6  # still counts every save

    resumed = tf.train.CheckpointManager(ckpt, tmp_path, max_to_keep=3)
    assert resumed.checkpoints == [str(tmp_path / "ckpt-10"), str(tmp_path / "ckpt-12")]
    assert resumed.restore_or_initialize() == str(tmp_path / "ckpt-12")


def test_manager_options(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    for bad in (0, -1):
        with pytest.raises(
            ValueError, match=f"positive integer or `None` for `max_to_keep`, got {bad}"
        ):
            tf.train.CheckpointManager(ckpt, tmp_path, max_to_keep=bad)
    with pytest.raises(TypeError):
        tf.train.CheckpointManager(ckpt, tmp_path)  # max_to_keep has no default

    calls = []
    keep_all = tf.train.CheckpointManager(
        ckpt,
        tmp_path / "all",
        max_to_keep=None,
        checkpoint_name="model",
        init_fn=lambda: calls.append(1),
    )
    assert keep_all.restore_or_initialize() is None and calls == [1]
    for _ in range(3):
        keep_all.save()
    assert len([f for f in os.listdir(tmp_path / "all") if f.endswith(".index")]) == 3
    assert all(os.path.basename(p).startswith("model-") for p in keep_all.checkpoints)

    # A checkpoint leaving the kept set survives when enough time passed since the last survivor.
    preserving = tf.train.CheckpointManager(
        ckpt, tmp_path / "keep", max_to_keep=1, keep_checkpoint_every_n_hours=1e-9
    )
    saved = [preserving.save() for _ in range(3)]
    assert all(os.path.exists(p + ".index") for p in saved)
    assert preserving.checkpoints == saved[-1:]

    step = tf.Variable(0)
    interval = tf.train.CheckpointManager(
        ckpt, tmp_path / "interval", max_to_keep=None, step_counter=step, checkpoint_interval=5
    )
    assert interval.save() is not None
    step.assign(3)
    assert interval.save() is None
    step.assign(5)
    assert interval.save() is not None
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(ckpt, tmp_path, max_to_keep=1, checkpoint_interval=2)


def test_write_callbacks_run_after_the_files_exist(tmp_path):
    seen = []

    def callback(path):
        seen.append(
            os.path.exists(path + ".index") and os.path.exists(path + ".data-00000-of-00001")
        )

    options = tf.train.CheckpointOptions(
        experimental_write_callbacks=[callback, lambda: seen.append(0)]
    )
    tf.train.Checkpoint(v=tf.Variable(1.0)).write(tmp_path / "w", options=options)
    assert seen == [True, 0]


# --- inspecting checkpoints -------------------------------------------------------------------


def test_list_variables_and_load_checkpoint(tmp_path):
    saved = nested_module()
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=saved), tmp_path, max_to_keep=1)
    path = manager.save()
    assert tf.train.list_variables(tmp_path) == tf.train.list_variables(path) == NESTED_KEYS

    reader = tf.train.load_checkpoint(tmp_path)
    assert reader.has_tensor(f"model/step/{VALUE}") and reader.has_tensor(GRAPH_KEY)
    assert not reader.has_tensor("model/step")
    assert reader.get_tensor(f"model/layer/kernel/{VALUE}").tolist() == [[0, 1, 2], [3, 4, 5]]
    assert reader.get_variable_to_dtype_map()[f"model/step/{VALUE}"] == tf.int64
    assert repr(reader.get_variable_to_dtype_map()[GRAPH_KEY]) == "tf.string"
    graph = _proto.message_class("tensorflow.TrackableObjectGraph").FromString(
        reader.get_tensor(GRAPH_KEY)
    )
    edge = graph.nodes[0].children[0]
    assert (edge.node_id, edge.local_name) == (1, "model")
    assert graph.nodes[0].has_checkpoint_values.value
    assert tf.train.load_variable(tmp_path, f"model/step/{VALUE}:0") == 10

    with pytest.raises(tf.errors.NotFoundError, match="Key model/step not found in checkpoint"):
        reader.get_tensor("model/step")
    missing = str(tmp_path / "nope")
    with pytest.raises(
        tf.errors.NotFoundError,
        match=f"^Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
        f"for {missing}$",
    ):
        tf.train.load_checkpoint(missing)
    (tmp_path / "empty").mkdir()
    message = (
        f"Couldn't find 'checkpoint' file or checkpoints in given directory {tmp_path / 'empty'}"
    )
    for inspect in (tf.train.load_checkpoint, tf.train.list_variables):
        with pytest.raises(ValueError, match=message):
            inspect(tmp_path / "empty")


def test_keys_follow_tensorflows_naming_rules(tmp_path):
    shared = tf.Variable(1.0)
    m = tf.Module()
    m.z = tf.Module()
    m.y = [shared]
    m.z.q = shared  # reached twice: named by the first shortest path (assignment order)
    m.escaped = tf.Module()
    setattr(m.escaped, "a/b.c", tf.Variable(2.0))
    m.settings = {"lr": 0.1, "nested": {"deep": tf.Variable(4)}}
    m.point = collections.namedtuple("Point", ["x", "y"])(tf.Variable(5), "label")
    m.name_text = "ignored"
    path = tf.train.Checkpoint(m=m, also=tf.Variable(3)).write(tmp_path / "k")
    assert [name for name, _ in tf.train.list_variables(path)] == [
        GRAPH_KEY,
        f"also/{VALUE}",
        f"m/escaped/a.Sb..c/{VALUE}",
        f"m/point/x/{VALUE}",
        f"m/settings/nested/deep/{VALUE}",
        f"m/z/q/{VALUE}",
    ]
    root = tf.train.Checkpoint(tf.Variable(1.0)).write(tmp_path / "root")
    assert [name for name, _ in tf.train.list_variables(root)] == [f"/{VALUE}", GRAPH_KEY]


def test_checkpoint_of_a_root_object(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(m, extra=tf.Variable(2))
    assert ckpt.root is m and ckpt.extra.numpy() == 2
    path = ckpt.save(tmp_path / "r")
    assert [name for name, _ in tf.train.list_variables(path)] == [
        GRAPH_KEY,
        f"extra/{VALUE}",
        f"save_counter/{VALUE}",
        f"v/{VALUE}",
    ]
    n = tf.Module()
    n.v = tf.Variable(0.0)
    again = tf.train.Checkpoint(n, extra=tf.Variable(0))
    again.restore(path).assert_consumed()
    assert (float(n.v.numpy()), int(again.extra.numpy()), int(again.save_counter.numpy())) == (
        1,
        2,
        1,
    )
    with pytest.raises(
        ValueError, match="Cannot create a Checkpoint with keyword argument v if root.v"
    ):
        tf.train.Checkpoint(m, v=tf.Variable(5.0))


@pytest.mark.parametrize("value", [object(), 3, "text"])
def test_untrackable_arguments_are_refused(value):
    with pytest.raises(ValueError, match="`Checkpoint` was expecting x to be a trackable object"):
        tf.train.Checkpoint(x=value)


def test_the_save_counter_cannot_be_passed_in():
    with pytest.raises(AttributeError, match="save_counter"):
        tf.train.Checkpoint(save_counter=tf.Variable(1))


def test_dicts_with_non_string_keys_cannot_be_saved(tmp_path):
    with pytest.raises(ValueError, match="contains a non-string key which maps to a trackable"):
        tf.train.Checkpoint(x={1: tf.Variable(1.0)}).write(tmp_path / "d")
    tf.train.Checkpoint(x={1: "fine", "v": tf.Variable(1.0)}).write(tmp_path / "d")


# --- load statuses -------------------------------------------------------------------------------


def test_status_assertions(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable([1.0, 2.0]), b=tf.Variable(3.0)).save(tmp_path / "x")

    fewer = tf.train.Checkpoint(a=tf.Variable([0.0, 0.0]))
    status = fewer.restore(path)
    assert type(status).__name__ == "CheckpointLoadStatus"
    assert fewer.a.numpy().tolist() == [1.0, 2.0]
    expected = textwrap.dedent(
        """\
        Unresolved object in checkpoint (root).b: attributes {
          name: "VARIABLE_VALUE"
          full_name: "Variable"
          checkpoint_key: "b/.ATTRIBUTES/VARIABLE_VALUE"
        }
        has_checkpoint_values {
          value: true
        }
        """
    )
    with pytest.raises(AssertionError) as e:
        status.assert_consumed()
    assert str(e.value) == expected
    assert status.assert_existing_objects_matched() is status
    assert status.assert_nontrivial_match() is status
    assert status.expect_partial() is status
    assert status.run_restore_ops() is None and status.initialize_or_restore() is None

    more = tf.train.Checkpoint(a=tf.Variable([0.0, 0.0]), b=tf.Variable(0.0), c=tf.Variable(1.0))
    status = more.restore(path)
    message = (
        "Found 1 Python objects that were not bound to checkpointed values, likely due to changes "
        "in the Python program. Showing 1 of 1 unmatched objects: [<tf.Variable 'Variable:0' "
        "shape=() dtype=float32, numpy=1.0>]"
    )
    for check in (status.assert_consumed, status.assert_existing_objects_matched):
        with pytest.raises(AssertionError) as e:
            check()
        assert str(e.value) == message
    status.assert_nontrivial_match()

    unrelated = tf.train.Checkpoint(q=tf.Variable(1.0))
    unrelated_status = unrelated.read(path)
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        unrelated_status.assert_nontrivial_match()
    with pytest.raises(AssertionError, match="Nothing to load. No dependencies have been added to"):
        tf.train.Checkpoint().read(path).assert_nontrivial_match()


def test_objects_of_the_wrong_kind_leave_values_unused(tmp_path):
    saved = tf.Module()
    saved.w = tf.Variable(1.0)
    path = tf.train.Checkpoint(m=saved).write(tmp_path / "u")
    other = tf.Module()
    other.w = [3]
    status = tf.train.Checkpoint(m=other).read(path)
    status.assert_existing_objects_matched()
    with pytest.raises(
        AssertionError,
        match=r"^Unused attributes in these objects \(the attributes exist in the checkpoint but "
        r"were not restored\):\n\(root\)\.m\.w \(.*\): \['VARIABLE_VALUE'\]$",
    ):
        status.assert_consumed()
    status.expect_partial()


def test_restoring_nothing():
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    assert type(status).__name__ == "InitializationOnlyStatus"
    for check in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"):
        with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
            getattr(status, check)()
    with pytest.raises(AssertionError, match="no restore ops are available"):
        status.run_restore_ops()
    assert status.initialize_or_restore() is None and status.expect_partial() is status


def test_unrestored_values_are_reported_unless_partial_is_expected(tmp_path, caplog):
    import gc

    saved = tf.train.Checkpoint(kept=tf.Variable(1.0), dropped=tf.Variable(2.0))
    path = saved.write(tmp_path / "p")
    expected = "Value in checkpoint could not be found in the restored object: (root).dropped"
    with caplog.at_level(logging.WARNING, logger="ferroflow"):
        tf.train.Checkpoint(kept=tf.Variable(0.0)).read(path).expect_partial()
        gc.collect()
        assert expected not in caplog.messages
        tf.train.Checkpoint(kept=tf.Variable(0.0)).read(path)
        gc.collect()
    assert expected in caplog.messages
    warning = caplog.messages[caplog.messages.index(expected) - 1]
    assert warning.startswith("Detecting that an object or model or tf.train.Checkpoint is being")


def test_mismatched_shapes_and_dtypes_are_refused(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable([1.0, 2.0])).write(tmp_path / "m")
    wrong_shape = tf.Variable([0.0, 0.0, 0.0])
    with pytest.raises(
        ValueError,
        match=r"^Received incompatible tensor with shape \(2,\) when attempting to restore "
        r"variable with shape \(3,\) and name Variable:0\.$",
    ):
        tf.train.Checkpoint(a=wrong_shape).read(path)
    assert wrong_shape.numpy().tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match="tensor_name = a/.ATTRIBUTES/VARIABLE_VALUE; expected dtype int32 does not equal "
        "original dtype float",
    ):
        tf.train.Checkpoint(a=tf.Variable([0, 0])).read(path)
    unknown = tf.Variable([0.0], shape=tf.TensorShape([None]))
    tf.train.Checkpoint(a=unknown).read(path).assert_consumed()
    assert unknown.numpy().tolist() == [1.0, 2.0]


def test_missing_checkpoints(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    missing = str(tmp_path / "nonexist")
    with pytest.raises(tf.errors.NotFoundError) as e:
        ckpt.restore(missing)
    assert str(e.value) == (
        f"Error when restoring from checkpoint or SavedModel at {missing}: Unsuccessful "
        f"TensorSliceReader constructor: Failed to find any matching files for {missing}\n"
        "Please double-check that the path is correct. You may be missing the checkpoint suffix "
        "(e.g. the '-1' in 'path/to/ckpt-1')."
    )
    with pytest.raises(tf.errors.NotFoundError, match="^Unsuccessful TensorSliceReader"):
        ckpt.read(missing)
    with pytest.raises(tf.errors.DataLossError, match="Is a directory"):
        ckpt.restore(tmp_path)


# --- restore-on-create ---------------------------------------------------------------------------


def test_values_wait_for_objects_created_after_restore(tmp_path):
    saved = Model()
    saved.w = tf.Variable([1.0, 2.0])
    saved.subs = [Model(), Model()]
    saved.subs[0].b = tf.Variable(3.0)
    saved.subs[1].b = tf.Variable(4.0)
    path = tf.train.Checkpoint(model=saved).save(tmp_path / "x")

    model = Model()
    status = tf.train.Checkpoint(model=model).restore(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.model\.w"):
        status.assert_consumed()

    model.w = tf.Variable([0.0, 0.0])  # takes the checkpointed value as it is attached
    assert model.w.numpy().tolist() == [1.0, 2.0]
    model.subs = []
    first = Model()
    model.subs.append(first)
    first.b = tf.Variable(0.0)
    assert float(first.b.numpy()) == 3.0
    second = Model()
    second.b = tf.Variable(0.0)
    model.subs.append(second)  # a plain list cannot report this: restored at the next sweep
    status.assert_consumed()
    assert float(second.b.numpy()) == 4.0

    late = Model()
    late_status = tf.train.Checkpoint(model=late).restore(path)
    with pytest.raises(
        ValueError, match=r"shape \(2,\) when attempting to restore variable with shape \(3,\)"
    ):
        late.w = tf.Variable([0.0, 0.0, 0.0])
    assert not hasattr(late, "w")  # the refused value was not attached
    late_status.expect_partial()


def test_attributes_added_to_a_checkpoint_after_restore(tmp_path):
    path = tf.train.Checkpoint(q=tf.Variable(1.0), r=[tf.Variable(2)]).write(tmp_path / "n")
    ckpt = tf.train.Checkpoint()
    status = ckpt.read(path)
    ckpt.q = tf.Variable(0.0)
    ckpt.r = [tf.Variable(0)]
    assert float(ckpt.q.numpy()) == 1.0 and int(ckpt.r[0].numpy()) == 2
    status.assert_consumed()


def test_a_newer_restore_wins_for_objects_created_later(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    first = ckpt.write(tmp_path / "first")
    ckpt.v.assign(2.0)
    second = ckpt.write(tmp_path / "second")
    target = tf.train.Checkpoint()
    target.read(first).expect_partial()
    target.read(second).expect_partial()
    target.v = tf.Variable(0.0)
    assert float(target.v.numpy()) == 2.0


@requires_module_hook
def test_module_attributes_take_values_when_assigned(tmp_path):
    path = tf.train.Checkpoint(model=nested_module()).save(tmp_path / "m")
    model = tf.Module()
    status = tf.train.Checkpoint(model=model).restore(path)
    model.layer = tf.Module()
    model.layer.kernel = tf.Variable(tf.zeros([2, 3]))
    assert model.layer.kernel.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    model.step = tf.Variable(0, dtype=tf.int64)
    assert int(model.step.numpy()) == 10
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        model.pair = (tf.Variable([1.0, 2.0]),)
    assert not hasattr(model, "pair")
    status.expect_partial()


# --- crash safety -------------------------------------------------------------------------------

_SAVER = """
import sys
import ferroflow as tf

directory, first_step = sys.argv[1], int(sys.argv[2])
weights = [tf.Variable(tf.zeros([256, 1024])) for _ in range(4)]  # 4 MiB
step = tf.Variable(0, dtype=tf.int64)
manager = tf.train.CheckpointManager(
    tf.train.Checkpoint(weights=weights, step=step), directory, max_to_keep=2
)
for value in range(first_step, first_step + 100000):
    for w in weights:
        w.assign(tf.fill([256, 1024], float(value)))
    step.assign(value)
    manager.save()
    print(value, flush=True)
"""


def _restore_latest(directory):
    weights = [tf.Variable(tf.zeros([256, 1024])) for _ in range(4)]
    step = tf.Variable(0, dtype=tf.int64)
    latest = tf.train.latest_checkpoint(directory)
    assert latest is not None
    tf.train.Checkpoint(weights=weights, step=step).restore(latest).assert_consumed()
    value = int(step.numpy())
    for w in weights:
        assert np.all(w.numpy() == value), f"{latest} mixes steps"
    return value


def test_a_killed_saver_always_leaves_a_consistent_latest_checkpoint(tmp_path):
    rng = random.Random(0)
    directory = str(tmp_path)
    env = {**os.environ, "FERROFLOW_VISIBLE_DEVICES": "-1"}  # the host path is what is tested
    restored = []
    for round_number in range(5):
        first_step = 1000 * (round_number + 1)
        saver = subprocess.Popen(
            [sys.executable, "-c", _SAVER, directory, str(first_step)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        try:
            line = saver.stdout.readline()  # one save has completed
            assert line, "the saver died before its first save"
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            saver.send_signal(signal.SIGKILL)
            saver.wait()
        value = _restore_latest(directory)
        assert value >= int(line)
        restored.append(value)
        for name in os.listdir(directory):  # every index left behind opens and names its data
            if name.endswith(".index"):
                tf.train.load_checkpoint(os.path.join(directory, name[: -len(".index")]))
    assert restored == sorted(restored)


# --- a fuzzed loader ------------------------------------------------------------------------------


def _fuzz_model(scale):
    m = tf.Module()
    m.kernel = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) * scale)
    m.count = tf.Variable(int(5 * scale), dtype=tf.int64)
    m.flags = [tf.Variable([True, False, True])]
    m.waves = {"z": tf.Variable(np.array([1 + 2j, 3 - 4j]) * scale)}
    m.half = tf.Variable(np.ones([2, 2], ml_dtypes.bfloat16) * scale, dtype=tf.bfloat16)
    return m


def _graph_bytes(nodes):
    """A serialized TrackableObjectGraph of `nodes`: [(children [(id, name)], attributes
    [(name, full name, key)])]."""
    graph = _proto.message_class("tensorflow.TrackableObjectGraph")()
    for children, attributes in nodes:
        node = graph.nodes.add()
        for node_id, name in children:
            node.children.add(node_id=node_id, local_name=name)
        for name, full_name, key in attributes:
            node.attributes.add(name=name, full_name=full_name, checkpoint_key=key)
    return graph.SerializeToString()


def _written(tmp_path, name, entries, graph=None):
    """(index bytes, data bytes) of a checkpoint of `entries` (key -> value) whose object graph
    entry is `graph` (bytes, or any tensor value) when given."""
    prefix = str(tmp_path / "scratch" / name)
    keys, values = list(entries), list(entries.values())
    if graph is not None:
        keys.append(GRAPH_KEY)
        values.append(graph)
    _core.checkpoint_write(prefix, keys, values, "null")
    with open(prefix + ".index", "rb") as index, open(prefix + ".data-00000-of-00001", "rb") as d:
        return index.read(), d.read()


def _mutations(index, data, rng, tmp_path, reader):
    """(description, index bytes or None for a missing file, data bytes or None)."""
    for cut in sorted(set(rng.sample(range(len(data)), 50) + [0, 1, len(data) - 1])):
        yield f"data truncated to {cut}", index, data[:cut]
    for cut in sorted(set(rng.sample(range(len(index)), 50) + [0, 1, len(index) - 1])):
        yield f"index truncated to {cut}", index[:cut], data
    for i in range(150):
        at, flipped = rng.randrange(len(index)), bytearray(index)
        flipped[at] ^= 1 << rng.randrange(8)
        yield f"index bit flip {i} at {at}", bytes(flipped), data
    for i in range(60):
        at, flipped = rng.randrange(len(data)), bytearray(data)
        flipped[at] = (flipped[at] + 1 + rng.randrange(255)) % 256
        yield f"data byte {i} at {at}", index, bytes(flipped)
    yield "no data file", index, None
    yield "no index file", None, data
    yield "empty files", b"", b""
    yield "data file grown", index, data + b"\0" * 1000
    yield (
        "random bytes",
        bytes(rng.randrange(256) for _ in range(300)),
        bytes(rng.randrange(256) for _ in range(300)),
    )
    yield "a JSON index (the first format) that is damaged", b"{" + index, data

    entries = {key: reader.get_tensor(key) for key in reader.get_variable_to_shape_map()}
    graph = entries.pop(GRAPH_KEY)
    kernel = f"model/kernel/{VALUE}"
    value = [("VARIABLE_VALUE", "v", kernel)]
    hostile_graphs = [
        b"\xff\xff\xff", b"\x0a\x05\x0a\x03", _graph_bytes([]),
        _graph_bytes([([(9, "x")], [])]), _graph_bytes([([(-1, "x")], [])]),
        _graph_bytes([([(0, "model")], [])]),  # a cycle
        _graph_bytes([([], [("VARIABLE_VALUE", "v", "nope")])]),
        _graph_bytes([([(1, "model")], []), ([(2, "kernel")], []), ([], value)]),
        np.array([graph, graph], dtype=object), np.float32(1.0),
    ]  # fmt: skip
    for i, hostile in enumerate(hostile_graphs):
        yield (f"hostile graph {i}", *_written(tmp_path, f"graph{i}", entries, hostile))
    renamed = _proto.message_class("tensorflow.TrackableObjectGraph").FromString(graph)
    # Edges renamed: the model no longer matches, which is not an error until asserted on.
    renamed.nodes[0].children[0].local_name = "other"
    yield "renamed edge", *_written(tmp_path, "renamed", entries, renamed.SerializeToString())
    # Consistent changes: well-formed files of another dtype or shape than the model's.
    for name, changed in [
        ("kernel stored as int32", entries[kernel].astype(np.int32)),
        ("kernel stored as strings", np.array([[b"x"] * 4] * 3, dtype=object)),
        ("kernel stored with shape [4, 3]", entries[kernel].reshape(4, 3)),
        ("kernel stored with shape [12]", entries[kernel].reshape(12)),
    ]:
        yield (
            name,
            *_written(tmp_path, name.replace(" ", "_"), {**entries, kernel: changed}, graph),
        )


def _load_everything(prefix):
    reader = tf.train.load_checkpoint(prefix)
    for key in reader.get_variable_to_shape_map():
        reader.get_tensor(key)
    tf.train.list_variables(prefix)


def _restore_into_model(prefix):
    tf.train.Checkpoint(model=_fuzz_model(0)).read(prefix).expect_partial()


def _is_mismatch(error):
    """A well-formed file of another structure than the model's, reported as TensorFlow does."""
    if type(error) is ValueError:
        return str(error).startswith("Received incompatible tensor with shape")
    if type(error) is tf.errors.InvalidArgumentError:
        return "does not equal original dtype" in str(error)
    return False


def test_mutated_checkpoints_fail_only_with_typed_errors(tmp_path):
    path = tf.train.Checkpoint(model=_fuzz_model(1)).write(tmp_path / "valid")
    index = open(path + ".index", "rb").read()
    data = open(path + ".data-00000-of-00001", "rb").read()
    _restore_into_model(path)  # the unmutated files load

    typed = (tf.errors.DataLossError, tf.errors.NotFoundError)
    failures, outcomes, count = [], {}, 0
    reader = tf.train.load_checkpoint(path)
    for count, (what, bad_index, bad_data) in enumerate(
        _mutations(index, data, random.Random(0), tmp_path, reader), 1
    ):
        prefix = str(tmp_path / f"m{count}")
        if bad_index is not None:
            open(prefix + ".index", "wb").write(bad_index)
        if bad_data is not None:
            open(prefix + ".data-00000-of-00001", "wb").write(bad_data)
        for action in (_load_everything, _restore_into_model):
            try:
                action(prefix)
                outcome = "ok"
            except typed as e:
                outcome = type(e).__name__
            except BaseException as e:  # noqa: BLE001 - anything else must be a mismatch
                outcome = type(e).__name__
                if not (action is _restore_into_model and _is_mismatch(e)):
                    failures.append(f"{what}: {action.__name__} raised {outcome}: {e}")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert not failures, "\n".join(failures)
    assert count >= 300, outcomes
    assert outcomes["DataLossError"] > 200 and outcomes["ok"] > 0


# --- the GPU --------------------------------------------------------------------------------------


def test_a_variable_on_the_gpu_restores_onto_the_gpu(tmp_path):
    require_gpu()
    with tf.device("/GPU:0"):
        saved = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        restored = tf.Variable(tf.zeros([2, 2]))
    assert saved.device.endswith("GPU:0") and restored.device.endswith("GPU:0")
    path = tf.train.Checkpoint(v=saved).write(tmp_path / "gpu")
    tf.train.Checkpoint(v=restored).read(path).assert_consumed()
    assert restored.device.endswith("GPU:0")
    assert restored.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with tf.device("/CPU:0"):
        on_cpu = tf.Variable(tf.zeros([2, 2]))
    tf.train.Checkpoint(v=on_cpu).read(path).assert_consumed()
    assert on_cpu.device.endswith("CPU:0") and on_cpu.numpy().tolist() == [[1, 2], [3, 4]]

    later = tf.train.Checkpoint()
    later.read(path)
    with tf.device("/GPU:0"):
        later.v = tf.Variable(tf.zeros([2, 2]))  # restore-on-create keeps the placement
    assert later.v.device.endswith("GPU:0") and later.v.numpy().tolist() == [[1, 2], [3, 4]]


# --- parity with TensorFlow (skipped where TensorFlow is not installed) ---------------------------


def test_names_shapes_and_state_match_tensorflow(tmp_path):
    real = pytest.importorskip("tensorflow")

    def build(lib):
        root = lib.Module()
        root.layer = lib.Module()
        root.layer.kernel = lib.Variable(np.zeros([2, 3], np.float32))
        root.blocks = [lib.Module(), lib.Module()]
        root.blocks[1].w = lib.Variable(1)
        root.table = {"z": lib.Variable(2.0), "a/b": (lib.Variable([1, 2]),)}
        ckpt = lib.train.Checkpoint(model=root, v=lib.Variable(5, dtype=lib.int64))
        manager = lib.train.CheckpointManager(ckpt, tmp_path / lib.__name__, max_to_keep=1)
        manager.save()
        return manager.save()

    ours, theirs = build(tf), build(real)
    assert tf.train.list_variables(ours) == real.train.list_variables(theirs)
    assert os.path.basename(ours) == os.path.basename(theirs)

    def untimed(path):
        lines = open(os.path.join(os.path.dirname(path), "checkpoint")).read().splitlines()
        return [line for line in lines if "timestamp" not in line]

    assert untimed(ours) == untimed(theirs)
