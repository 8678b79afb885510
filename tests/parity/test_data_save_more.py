"""`Dataset.save` beyond plain tensors, against TensorFlow 2.21:

- ``checkpoint_args``: the files a checkpointed save writes (one file per checkpoint in each
  shard, shard ``1 % cpus`` without a ``shard_func``), the checkpoints the manager keeps, a save
  that fails and is resumed from its latest checkpoint (also GZIP-compressed), what `load` then
  reads (a shard's first file, then InternalError), and the errors of bad arguments with what
  they leave behind. TensorFlow's pipelines are run with ``inject_prefetch`` off: its injected
  prefetch reads ahead of the save, so which checkpoint an element lands in would vary.
- Elements holding `tf.experimental.Optional`s (saved and loaded, byte for byte the same
  records and spec) and nested datasets (saved; loading them is DataLossError).
- ``shard_func`` is traced once, and its results are checked per element (dtype, size,
  structure), with the shard directories negative indices give.

Each framework writes its own directory; the files (run ids replaced) and what each framework
loads from both directories are compared."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _layout(tf, root):
    """Files under ``root`` (empty directories end in "/"), run-id directories named RUN (the
    one the metadata names) or OTHER."""
    import os

    run = None
    metadata = os.path.join(root, "snapshot.metadata")
    if os.path.exists(metadata):
        run = _metadata(tf, metadata)["run_id"]
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        names = [os.path.join(rel, f) for f in files]
        names += [os.path.join(rel, x) + "/" for x in dirs if not os.listdir(os.path.join(d, x))]
        for name in names:
            parts = name.split(os.sep)
            parts = ["RUN" if p == run else "OTHER" if p.isdigit() else p for p in parts]
            out.append("/".join(parts))
    return sorted(out)


def _metadata(tf, file):
    if tf.__name__ == "tensorflow":
        from tensorflow.core.protobuf.snapshot_pb2 import SnapshotMetadataRecord
    else:
        from ferroflow._proto import message_class

        SnapshotMetadataRecord = message_class(
            "tensorflow.data.experimental.SnapshotMetadataRecord"
        )
    with open(file, "rb") as f:
        meta = SnapshotMetadataRecord.FromString(f.read())
    return {
        "run_id": meta.run_id,
        "fields": (meta.version, list(meta.dtype), meta.num_elements, meta.finalized),
    }


def _shard_records(tf, root, compression=""):
    """{shard/file: the int64 elements in it} for every snapshot file of ``root``."""
    import os

    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".snapshot"):
                path = os.path.join(d, f)
                key = os.path.join(os.path.basename(d), f)
                records = tf.data.TFRecordDataset(path, compression_type=compression)
                out[key] = [int(tf.io.parse_tensor(r, tf.int64)) for r in records]
    return out


def _read(tf, path, **load_kw):
    """(cardinality, the elements `load` yields, how the reading ended)."""
    import re

    loaded = tf.data.Dataset.load(path, **load_kw)
    got = []
    try:
        for e in loaded:
            got.append(tf.nest.map_structure(lambda t: t.numpy().tolist(), e))
        end = "end"
    except Exception as e:  # noqa: BLE001 - the class (and the message's gist) are compared
        found = re.search(r"Expected \d+ components but got \d+", str(e))
        end = (type(e).__name__, found.group(0) if found else None)
    return int(loaded.cardinality()), got, end


def _checkpoint_files(tf, directory):
    import os

    if not os.path.exists(directory):
        return None
    state = tf.train.get_checkpoint_state(directory)
    kept = [os.path.basename(p) for p in state.all_model_checkpoint_paths] if state else None
    return sorted(os.listdir(directory)), kept


def _checkpointed(tf, root, device):
    """Checkpointed saves: an interrupted one resumed, sharded, GZIP, every element, empty."""
    import os

    D = tf.data.Dataset
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    options.experimental_optimization.map_parallelization = False

    def failing_at(limit, n=10, pairs=False):
        def check(x):
            with tf.control_dependencies([tf.debugging.Assert(x < limit, ["boom"])]):
                return (tf.identity(x), x * 10) if pairs else tf.identity(x)

        return D.range(n).map(check).with_options(options)

    out = {}
    base = os.path.join(root, tf.__name__)
    for name, compression, pairs in (("plain", None, False), ("gzip", "GZIP", False)):
        path = os.path.join(base, name)
        step = tf.Variable(0, dtype=tf.int64)
        attempts = []
        for limit in (7, 100):  # fails at element 7, then resumes and finishes
            args = {
                "checkpoint_interval": 3,
                "step_counter": step,
                "directory": os.path.join(path, "ckpt"),
                "max_to_keep": 2,
            }
            try:
                with tf.device(device):
                    result = failing_at(limit, pairs=pairs).save(
                        os.path.join(path, "data"), compression=compression, checkpoint_args=args
                    )
                attempts.append(("ok", result, sorted(args)))
            except Exception as e:  # noqa: BLE001 - the class is compared
                attempts.append((type(e).__name__, sorted(args)))
            data = os.path.join(path, "data")
            attempts.append(
                (
                    int(step.numpy()),
                    _layout(tf, data),
                    _metadata(tf, os.path.join(data, "snapshot.metadata"))["fields"],
                    _shard_records(tf, data, compression or ""),
                    _checkpoint_files(tf, os.path.join(path, "ckpt")),
                )
            )
        out[name] = attempts
        out[name, "load"] = _read(tf, os.path.join(path, "data"), compression=compression)

    cases = {
        "sharded": (
            D.range(6).with_options(options),
            {"checkpoint_interval": 2, "max_to_keep": 5},
            {"shard_func": lambda x: x % 3},
        ),
        "every_element": (
            D.range(10).filter(lambda x: x % 2 == 0).with_options(options),
            {"max_to_keep": 3},
            {},
        ),
        "named_no_interval": (
            D.range(3).with_options(options),
            {"max_to_keep": None, "checkpoint_name": "foo", "with_step": True},
            {},
        ),
        "pairs": (
            D.range(4).map(lambda x: (x, -x)).with_options(options),
            {"checkpoint_interval": 2, "max_to_keep": 1},
            {},
        ),
        "empty": (D.range(0), {"checkpoint_interval": 2, "max_to_keep": 5}, {}),
    }
    for name, (ds, extra, save_kw) in cases.items():
        path = os.path.join(base, name)
        step = tf.Variable(0, dtype=tf.int64)
        args = {"directory": os.path.join(path, "ckpt"), **extra}
        if "checkpoint_interval" in args or args.pop("with_step", False):
            args["step_counter"] = step
        with tf.device(device):
            result = ds.save(os.path.join(path, "data"), checkpoint_args=args, **save_kw)
        data = os.path.join(path, "data")
        out[name] = (
            result,
            int(step.numpy()),
            _layout(tf, data),
            _metadata(tf, os.path.join(data, "snapshot.metadata"))["fields"],
            _checkpoint_files(tf, os.path.join(path, "ckpt")),
            # One shard at a time, in order: TensorFlow's default reader interleaves the shards
            # in parallel, so which shard's error comes first would vary.
            _read(tf, data, reader_func=lambda shards: shards.flat_map(lambda d: d)),
        )
        if name != "pairs":
            out[name, "files"] = _shard_records(tf, data)
    # Only shard 2 (whose first file is checkpoint 1's): its 00000000.snapshot is missing.
    only_shard_2 = lambda shards: shards.skip(2).flat_map(lambda d: d)  # noqa: E731
    out["sharded", "shard_2"] = _read(
        tf, os.path.join(base, "sharded", "data"), reader_func=only_shard_2
    )
    return out


def _bad_checkpoint_args(tf, root):
    """Errors of bad ``checkpoint_args`` and the files the save wrote before them."""
    import os

    D = tf.data.Dataset
    base = os.path.join(root, tf.__name__)
    step = tf.Variable(0, dtype=tf.int64)
    cases = {
        "checkpoint_key": lambda p: {"checkpoint": 1, "directory": p, "max_to_keep": 2},
        "unknown_key": lambda p: {"foo": 1, "directory": p, "max_to_keep": 2},
        "no_max_to_keep": lambda p: {"directory": p},
        "no_directory": lambda p: {"max_to_keep": 2},
        "interval_without_step": lambda p: {
            "checkpoint_interval": 2,
            "directory": p,
            "max_to_keep": 2,
        },
        "a_list": lambda p: [("directory", p)],
        "empty_dict": lambda p: {},
    }
    out = {}
    for name, make in cases.items():
        path = os.path.join(base, name)
        args = make(os.path.join(path, "ckpt"))
        try:
            D.range(3).save(os.path.join(path, "data"), checkpoint_args=args)
            result = "ok"
        except Exception as e:  # noqa: BLE001 - class and message are compared
            result = (type(e).__name__, str(e))
        keys = sorted(args) if isinstance(args, dict) else len(args)
        out[name] = (result, keys, _layout(tf, os.path.join(path, "data")))
    # The dict now holds "checkpoint": saving with it again is refused.
    args = {
        "checkpoint_interval": 1,
        "step_counter": step,
        "directory": base + "/r",
        "max_to_keep": 1,
    }
    D.range(2).save(os.path.join(base, "first"), checkpoint_args=args)
    try:
        D.range(2).save(os.path.join(base, "again"), checkpoint_args=args)
        out["reused"] = "ok"
    except ValueError as e:
        out["reused"] = str(e)
    return out


def _optional_cases(tf):
    D = tf.data.Dataset
    Opt = tf.experimental.Optional
    return {
        "scalar": D.range(3).map(lambda x: Opt.from_value(x)),
        "tuple": D.range(3).map(lambda x: (x, Opt.from_value((x, tf.strings.as_string(x))))),
        "empty": D.range(2).map(lambda x: Opt.empty(tf.TensorSpec([], tf.int64))),
        "composites": D.from_tensors(
            Opt.from_value(
                (
                    tf.ragged.constant([[1], [2, 3]]),
                    tf.sparse.SparseTensor([[0]], [b"a"], [2]),
                    Opt.from_value(tf.constant([1.5, 2.5])),
                )
            )
        ),
        "dtypes": D.from_tensors(
            Opt.from_value(
                {
                    "h": tf.constant([1.5], tf.float16),
                    "b": tf.constant([True, False]),
                    "c": tf.constant([1 + 2j], tf.complex64),
                    "u8": tf.constant([7], tf.uint8),
                    "d": tf.constant([[1.5, 2.5]], tf.float64),
                    "i8": tf.constant([-3], tf.int8),
                    "u64": tf.constant([4], tf.uint64),
                    "bf": tf.constant([5], tf.bfloat16),
                }
            )
        ),
        "ragged_top": D.from_tensors(tf.ragged.constant([[1.5], [2.0, 3.0]])),
        "sparse_top": D.from_tensors(tf.sparse.SparseTensor([[0, 1]], [2.5], [2, 3])),
        "window": D.range(5).window(2),
        "nested": D.from_tensors(D.range(2)).repeat(3),
        "window_dict": D.from_tensor_slices({"a": [1, 2, 3]}).window(2),
        "empty_window": D.range(0).window(2),
    }


def _plain_value(tf, value):
    """A loaded element as plain Python values."""
    if isinstance(value, tf.experimental.Optional):
        if not bool(value.has_value()):
            return ("empty",)
        return ("value", _plain_value(tf, value.get_value()))
    if isinstance(value, dict):
        return {k: _plain_value(tf, v) for k, v in sorted(value.items())}
    if isinstance(value, tuple):
        return tuple(_plain_value(tf, v) for v in value)
    if isinstance(value, tf.RaggedTensor):
        return ("ragged", value.to_list())
    if isinstance(value, tf.SparseTensor):
        return ("sparse", value.indices.numpy().tolist(), value.values.numpy().tolist())
    if isinstance(value, tf.data.Dataset):
        return ("dataset", [int(x) for x in value])
    import numpy as np

    return (value.dtype.name, np.asarray(value.numpy()).tolist())


def _save_optionals(tf, root, device):
    """Each framework saves every case; returns its spec bytes and shard records."""
    import os

    out = {}
    for name, ds in _optional_cases(tf).items():
        path = os.path.join(root, tf.__name__, name)
        with tf.device(device):
            ds.save(path)
        layout = _layout(tf, path)
        with open(os.path.join(path, "dataset_spec.pb"), "rb") as f:
            spec_bytes = f.read()
        shard = [p for p in layout if p.endswith(".snapshot")]
        records = []
        for file in shard:
            full = os.path.join(
                path, file.replace("RUN", _metadata(tf, path + "/snapshot.metadata")["run_id"])
            )
            records = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(full)]
        out[name] = (
            layout,
            _metadata(tf, os.path.join(path, "snapshot.metadata"))["fields"],
            spec_bytes if name not in ("dtypes", "window_dict") else None,
            records,
        )
    return out


def _load_optionals(tf, root, device):
    """Each framework loads what both saved."""
    import os

    out = {}
    for name in _optional_cases(tf):
        for writer in ("tensorflow", "ferroflow"):
            path = os.path.join(root, writer, name)
            with tf.device(device):
                loaded = tf.data.Dataset.load(path)
                got = []
                try:
                    for e in loaded:
                        got.append(_plain_value(tf, e))
                    end = "end"
                except Exception as e:  # noqa: BLE001 - the class is compared
                    end = type(e).__name__
            # A dict's keys come back from the spec file in any order.
            spec = repr(loaded.element_spec) if "dtypes" not in name else None
            out[writer, name] = (spec, int(loaded.cardinality()), got, end)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_checkpointed_save_and_resume(tf_oracle, device, tmp_path):
    helpers = [_layout, _metadata, _shard_records, _read, _checkpoint_files]
    result = assert_parity(tf_oracle, _checkpointed, args=(str(tmp_path), device), helpers=helpers)
    assert result[0] != "raised", result


def test_bad_checkpoint_args(tf_oracle, tmp_path):
    result = assert_parity(
        tf_oracle, _bad_checkpoint_args, args=(str(tmp_path),), helpers=[_layout, _metadata]
    )
    assert result[0] != "raised", result


@pytest.mark.parametrize("device", DEVICES)
def test_optionals_and_nested_datasets(tf_oracle, device, tmp_path):
    root = str(tmp_path)
    helpers = [_optional_cases, _plain_value, _layout, _metadata]
    for program in (_save_optionals, _load_optionals):
        result = assert_parity(tf_oracle, program, args=(root, device), helpers=helpers)
        assert result[0] != "raised", result


def _shard_funcs(tf, root, device):
    """What each kind of ``shard_func`` result does, on 3 elements and on none; and how many
    times a shard function's Python body runs."""
    import os

    import numpy as np

    calls = []

    def counted(x):
        calls.append(1)
        return x % 2

    cases = {
        "int32": lambda x: tf.cast(x, tf.int32),
        "shape_1": lambda x: tf.reshape(x % 2, [1]),
        "shape_1x1": lambda x: tf.reshape(x % 2, [1, 1]),
        "shape_2": lambda x: tf.stack([x, x]),
        "python_int": lambda x: 0,
        "numpy_int64": lambda x: np.int64(1),
        "tuple": lambda x: (x, x),
        "none": lambda x: None,
        "dict": lambda x: {"a": x % 2},
        "float": lambda x: 1.5,
        "negative": lambda x: x - 2,
        "list": lambda x: [x % 2],
        "counted": counted,
        "not_callable": 3,
    }
    out = {}
    for name, shard_func in cases.items():
        for n in (3, 0):
            path = os.path.join(root, tf.__name__, f"{name}{n}")
            try:
                with tf.device(device):
                    tf.data.Dataset.range(n).save(path, shard_func=shard_func)
                result = "ok"
            except ValueError as e:
                result = ("ValueError", str(e))
            except Exception as e:  # noqa: BLE001 - the class is compared
                result = type(e).__name__
            layout = _layout(tf, path) if os.path.exists(path) else None
            out[name, n] = (result, layout)
            if result == "ok" and n:
                out[name, "loaded"] = sorted(int(x) for x in tf.data.Dataset.load(path))
    out["python_runs"] = len(calls)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_shard_func_traced_and_checked(tf_oracle, device, tmp_path):
    result = assert_parity(
        tf_oracle, _shard_funcs, args=(str(tmp_path), device), helpers=[_layout, _metadata]
    )
    assert result[0] != "raised", result


def _snapshot_shard_funcs(tf, root, device):
    """`Dataset.snapshot`'s ``shard_func``: traced when the dataset is made (its Python body
    runs once, however many elements), checked there to return a scalar int32 or int64
    (TypeError with the return type; a tuple's AttributeError is TensorFlow's own), an int32
    failing per element; the elements written and read back."""
    import os

    calls = []

    def counted(x):
        calls.append(1)
        return x % 2

    cases = {
        "counted": counted,
        "int32": lambda x: tf.cast(x, tf.int32),
        "shape_1": lambda x: tf.reshape(x % 2, [1]),
        "tuple": lambda x: (x, x),
        "float": lambda x: tf.cast(x, tf.float32),
        "negative": lambda x: x - 2,
    }
    out = {}
    for name, shard_func in cases.items():
        path = os.path.join(root, tf.__name__, "snapshot", name)
        with tf.device(device):
            try:
                ds = tf.data.Dataset.range(5).snapshot(path, shard_func=shard_func)
            except (TypeError, AttributeError) as e:
                out[name] = (type(e).__name__, "at construction", str(e))
                continue
            out[name, "made"] = len(calls)
            try:
                out[name] = [sorted(int(x) for x in ds) for _ in range(2)]
            except Exception as e:  # noqa: BLE001 - the class is compared
                out[name] = type(e).__name__
    out["python_runs"] = len(calls)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_snapshot_shard_func_traced_and_checked(tf_oracle, device, tmp_path):
    result = assert_parity(tf_oracle, _snapshot_shard_funcs, args=(str(tmp_path), device))
    assert result[0] != "raised", result
