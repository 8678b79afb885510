"""Iterators saved and restored by `tf.train.Checkpoint` (plain, batched, interleaved,
shuffled with and without seeds, repeated, random pipelines; restoring a fresh iterator and
going back on the same one), `tf.data.Options` (`with_options`, `options()`, merging, type
checks, read-only copies, `ThreadingOptions`, `experimental.OptimizationOptions`...),
`DatasetSpec`/`IteratorSpec`, `NumpyIterator`, `Iterator.get_next_as_optional` and
`experimental.get_next_as_optional`, `get_structure`, `fingerprint`'s type, `batch`'s parallel
arguments
and `save`/`load`/`snapshot` round trips (each framework reads back what it wrote) against
TensorFlow."""

from ._data_cases import describe_value
from .harness import assert_parity


def _options(tf):
    D = tf.data.Dataset
    out = {}
    options = tf.data.Options()
    out["defaults"] = (
        options.deterministic,
        options.threading.private_threadpool_size,
        options.experimental_optimization.map_parallelization,
        options.experimental_distribute.auto_shard_policy
        == (tf.data.experimental.AutoShardPolicy.AUTO),
        int(tf.data.experimental.AutoShardPolicy.DATA),
        tf.data.experimental.AutotuneAlgorithm.HILL_CLIMB.value,
        tf.data.experimental.ExternalStatePolicy.FAIL.value,
    )
    options.deterministic = False
    options.threading.private_threadpool_size = 4
    options.experimental_optimization.map_fusion = True
    ds = D.range(3).with_options(options)
    got = ds.map(lambda x: x + 1).options()
    out["set"] = (
        got.deterministic,
        got.experimental_deterministic,
        got.threading.private_threadpool_size,
        got.experimental_optimization.map_fusion,
        got == options,
        [int(x) for x in ds],
    )
    second = tf.data.Options()
    second.threading.max_intra_op_parallelism = 1
    second.deterministic = True
    merged = ds.with_options(second).options()
    out["merged"] = (
        merged.deterministic,
        merged.threading.private_threadpool_size,
        merged.threading.max_intra_op_parallelism,
    )
    out["merge_method"] = options.merge(second).deterministic
    threading = tf.data.ThreadingOptions()
    threading.private_threadpool_size = 2
    third = tf.data.Options()
    third.threading = threading
    third.experimental_threading = threading
    out["threading"] = third.threading.private_threadpool_size
    errors = []
    for attempt in (
        lambda: setattr(tf.data.Options(), "deterministic", 1),
        lambda: setattr(tf.data.Options(), "no_such_option", True),
        lambda: setattr(D.range(2).options(), "deterministic", True),
        lambda: D.range(2).with_options(3),
        lambda: options.merge(threading),
    ):
        try:
            attempt()
            errors.append(None)
        except Exception as e:  # noqa: BLE001 - the class is compared
            errors.append(type(e).__name__)
    out["errors"] = errors
    out["zip_options"] = tf.data.Dataset.zip((ds, D.range(2))).options().deterministic
    return out


def test_options(tf_oracle):
    assert_parity(tf_oracle, _options)


def _specs_and_iterators(tf):
    D = tf.data.Dataset
    ds = D.range(3)
    spec = tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    it = iter(ds)
    first = it.get_next_as_optional()
    rest = [it.get_next(), it.get_next()]
    end = tf.data.experimental.get_next_as_optional(it)
    numpy_it = D.from_tensor_slices(([1, 2], ["a", "b"])).as_numpy_iterator()
    return {
        "spec": (repr(spec), spec == tf.data.DatasetSpec.from_value(ds), spec.element_spec),
        "type_spec": repr(tf.type_spec_from_value(ds)),
        "window_spec": repr(D.range(3).window(2).element_spec),
        "iterator_spec": repr(tf.type_spec_from_value(iter(ds))),
        "structure": (
            tf.data.experimental.get_structure(ds),
            tf.data.experimental.get_structure(iter(D.from_tensors((1, 2.0)))),
        ),
        "optional": (
            bool(first.has_value()),
            first.get_value(),
            rest,
            bool(end.has_value()),
            repr(end.element_spec),
        ),
        "numpy_iterator": (type(numpy_it).__name__, list(numpy_it)),
        "numpy_class": isinstance(D.range(2).as_numpy_iterator(), tf.data.NumpyIterator),
        "fingerprint": (ds.fingerprint().dtype, ds.fingerprint().shape),
        "batch_parallel": [
            list(x) for x in D.range(5).batch(2, num_parallel_calls=2, deterministic=True)
        ],
        # Not called: TensorFlow's debug mode is global and would change later programs.
        "debug_mode": callable(tf.data.experimental.enable_debug_mode),
        "constants": (
            tf.data.AUTOTUNE,
            tf.data.INFINITE_CARDINALITY,
            tf.data.UNKNOWN_CARDINALITY,
            tf.data.experimental.AUTOTUNE,
            tf.data.experimental.SHARD_HINT,
        ),
    }


def test_specs_and_iterators(tf_oracle):
    assert_parity(tf_oracle, _specs_and_iterators)


def _saved_and_loaded(tf):
    """Each framework saves datasets and loads them back (its own format), and snapshots
    replay what their first iteration wrote."""
    import os
    import tempfile

    D = tf.data.Dataset
    root = tempfile.mkdtemp()
    out = {}
    cases = {
        "plain": D.range(5).map(lambda x: (x, tf.strings.as_string(x))),
        "dict": D.from_tensor_slices({"a": [[1.0, 2.0], [3.0, 4.0]], "b": ["x", "y"]}),
        "empty": D.range(0),
    }
    for name, ds in cases.items():
        path = os.path.join(root, name)
        ds.save(path)
        loaded = D.load(path)
        # TensorFlow's `load` rebuilds dicts in an order of its own: compared by sorted key.
        out[name] = (
            describe_value(tf, _sorted_dicts(loaded.element_spec)),
            [describe_value(tf, _sorted_dicts(e)) for e in loaded],
        )
    gz = os.path.join(root, "gz")
    D.range(4).save(gz, compression="GZIP")
    out["gzip"] = [int(x) for x in D.load(gz, compression="GZIP")]
    out["with_spec"] = [int(x) for x in D.load(gz, tf.TensorSpec([], tf.int64), "GZIP")]
    reader = D.load(gz, compression="GZIP", reader_func=lambda shards: shards.flat_map(lambda s: s))
    out["reader_func"] = sorted(int(x) for x in reader)
    shard_path = os.path.join(root, "sharded")
    D.range(6).save(shard_path, shard_func=lambda x: x % 2)
    out["shard_func"] = sorted(int(x) for x in D.load(shard_path))
    for name, attempt in (
        ("missing", lambda: D.load(os.path.join(root, "missing"))),
        ("wrong_compression", lambda: list(D.load(gz))),
    ):
        try:
            attempt()
            out[name] = None
        except Exception as e:  # noqa: BLE001 - the class is compared
            out[name] = type(e).__name__
    snap_path = os.path.join(root, "snap")
    snap = D.range(4).map(lambda x: x * 2).snapshot(snap_path)
    first = [int(x) for x in snap]
    second = [int(x) for x in snap]
    again = [int(x) for x in D.range(4).map(lambda x: x * 2).snapshot(snap_path)]
    out["snapshot"] = (first, second, again, int(snap.cardinality()))
    out["experimental_snapshot"] = [
        int(x) for x in D.range(3).apply(tf.data.experimental.snapshot(os.path.join(root, "s2")))
    ]
    exp_path = os.path.join(root, "exp")
    tf.data.experimental.save(D.range(3), exp_path)
    out["experimental_save"] = [int(x) for x in tf.data.experimental.load(exp_path)]
    return out


def _sorted_dicts(value):
    if isinstance(value, dict):
        return sorted((k, _sorted_dicts(v)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_sorted_dicts(v) for v in value)
    return value


def test_save_load_snapshot(tf_oracle):
    assert_parity(tf_oracle, _saved_and_loaded, helpers=[describe_value, _sorted_dicts])


def _checkpointed_iterators(tf):
    """Each pipeline's iterator read for 3 elements, checkpointed, read to the end; then a
    fresh iterator restored from the checkpoint, and the first one restored again: both
    must read on from the 4th element, as TensorFlow's do."""
    import os
    import tempfile

    D = tf.data.Dataset
    root = tempfile.mkdtemp()
    out = {}
    pipelines = {
        "map": lambda: D.range(10).map(lambda x: x * 2),
        "batch": lambda: D.range(10).batch(3),
        "shuffled": lambda: D.range(10).shuffle(10, seed=4),
        "shuffled_repeat": lambda: D.range(5).shuffle(3, seed=1).repeat(3),
        "random": lambda: D.random(seed=3, rerandomize_each_iteration=True).take(3).repeat(2),
        "interleave": lambda: D.range(4).interleave(lambda x: D.range(x), cycle_length=2),
        "window": lambda: D.range(7).window(3, 2).flat_map(lambda w: w.batch(3)),
    }
    for name, make in pipelines.items():
        it = iter(make())
        first = [next(it).numpy().tolist() for _ in range(3)]
        checkpoint = tf.train.Checkpoint(iterator=it)
        path = checkpoint.save(os.path.join(root, name))
        after = [x.numpy().tolist() for x in it]
        fresh = iter(make())
        tf.train.Checkpoint(iterator=fresh).restore(path)
        restored = [x.numpy().tolist() for x in fresh]
        checkpoint.restore(path)
        again = [x.numpy().tolist() for x in it]
        out[name] = (first, after, restored, again)
    # Without seeds the order is random; a restored iterator still continues it.
    make = lambda: D.range(8).shuffle(8)  # noqa: E731 - one expression
    it = iter(make())
    first = [int(next(it)) for _ in range(3)]
    path = tf.train.Checkpoint(iterator=it).save(os.path.join(root, "unseeded"))
    after = [int(x) for x in it]
    fresh = iter(make())
    tf.train.Checkpoint(iterator=fresh).restore(path)
    out["unseeded"] = (sorted(first + after), [int(x) for x in fresh] == after)
    return out


def test_checkpointed_iterators(tf_oracle):
    assert_parity(tf_oracle, _checkpointed_iterators)
