"""`tf.data.Dataset`: sources, transformations, element specs and cardinalities, with the
reprs, dtypes and errors TensorFlow 2.21 gives."""

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.data._sources import TensorSliceDataset


def plain(element):
    """A numpy element as Python values (tuples and dicts kept)."""
    if isinstance(element, tuple):
        return tuple(plain(e) for e in element)
    if isinstance(element, dict):
        return {k: plain(v) for k, v in element.items()}
    return np.asarray(element).tolist()


def values(dataset):
    return [plain(e) for e in dataset.as_numpy_iterator()]


def test_from_tensor_slices_structures_and_specs():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10.0))
    assert repr(ds) == (
        "<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.float64, name=None)>"
    )
    first = next(iter(ds))
    assert isinstance(first, tf.Tensor) and first.dtype == tf.float64
    assert len(ds) == 10 and values(ds) == list(range(10))

    nested = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": ([1.0, 2.0], [3, 4])})
    assert repr(nested.element_spec) == (
        "{'a': TensorSpec(shape=(), dtype=tf.int32, name=None), 'b': (TensorSpec(shape=(), "
        "dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None))}"
    )
    element = next(iter(nested))
    assert int(element["a"]) == 1 and float(element["b"][0]) == 1.0 and int(element["b"][1]) == 3

    # A list is one tensor (sliced into rows), a tuple a structure.
    assert values(tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    pairs = list(tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])).as_numpy_iterator())
    assert pairs == [(1, 3.0), (2, 4.0)] and isinstance(pairs[0][0], np.int32)

    tensor = tf.constant(np.arange(6, dtype=np.int64).reshape(3, 2))
    rows = tf.data.Dataset.from_tensor_slices(tensor)
    assert rows.element_spec == tf.TensorSpec([2], tf.int64) and values(rows)[2] == [4, 5]

    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.data.Dataset.from_tensor_slices(np.float32(1.0))


def test_from_tensors_and_range():
    single = tf.data.Dataset.from_tensors([1, 2])
    assert repr(single) == (
        "<_TensorDataset element_spec=TensorSpec(shape=(2,), dtype=tf.int32, name=None)>"
    )
    assert values(single) == [[1, 2]] and len(single) == 1

    assert values(tf.data.Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert values(tf.data.Dataset.range(2, 10, 3)) == [2, 5, 8]
    assert values(tf.data.Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert tf.data.Dataset.range(3).element_spec == tf.TensorSpec([], tf.int64)
    floats = tf.data.Dataset.range(3, dtype=tf.float32)
    assert next(iter(floats)).dtype == tf.float32 and len(tf.data.Dataset.range(2, 10, 3)) == 3


def test_batch_and_drop_remainder():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10.0))
    batched = ds.batch(3)
    assert repr(batched.element_spec) == "TensorSpec(shape=(None,), dtype=tf.float64, name=None)"
    assert values(batched) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert int(batched.cardinality()) == 4 and batched.cardinality().dtype == tf.int64
    dropped = ds.batch(3, drop_remainder=True)
    assert dropped.element_spec == tf.TensorSpec([3], tf.float64)
    assert values(dropped) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(dropped) == 3

    pairs = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10)).batch(2)
    xs, ys = next(iter(pairs))
    assert xs.numpy().tolist() == [0, 1] and ys.numpy().tolist() == [0, 10]

    # Elements computed by `map` are stacked.
    squares = tf.data.Dataset.range(5).map(lambda v: v * v).batch(2)
    assert values(squares) == [[0, 1], [4, 9], [16]]
    ragged = tf.data.Dataset.from_tensors(np.zeros(2)).concatenate(
        tf.data.Dataset.from_tensors(np.zeros(3))
    )
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"Cannot batch tensors with different shapes in component 0. First element had "
        r"shape \[2\] and element 1 had shape \[3\].",
    ):
        list(ragged.batch(2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater"):
        ds.batch(0)


def test_batching_slices_slices_each_batch_once(monkeypatch):
    calls = []
    select = TensorSliceDataset._select
    monkeypatch.setattr(
        TensorSliceDataset, "_select", lambda self, rows: calls.append(rows) or select(self, rows)
    )
    ds = tf.data.Dataset.from_tensor_slices((np.arange(100.0), np.arange(100)))
    batches = list(ds.shuffle(100, seed=3).batch(32))
    assert len(calls) == 4 and [len(b[0]) for b in batches] == [32, 32, 32, 4]
    assert sorted(np.concatenate([b[0].numpy() for b in batches]).tolist()) == list(range(100))
    for xs, ys in batches:
        np.testing.assert_array_equal(xs.numpy(), ys.numpy())
    calls.clear()
    list(ds.skip(10).take(50).batch(25))
    assert [(c.start, c.stop) for c in calls] == [(10, 35), (35, 60)]


def test_shuffle_is_a_seeded_permutation_reshuffled_each_iteration():
    ds = tf.data.Dataset.range(20)
    shuffled = ds.shuffle(20, seed=7)
    first, second = values(shuffled), values(shuffled)
    assert sorted(first) == list(range(20)) and sorted(second) == list(range(20))
    assert first != list(range(20)) and first != second
    again = tf.data.Dataset.range(20).shuffle(20, seed=7)
    assert values(again) == first and values(again) == second

    fixed = ds.shuffle(20, seed=7, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    assert values(ds.shuffle(1, seed=1)) == list(range(20))
    # A buffer of 3: the first output is one of the first 3 elements, and every element comes
    # out at most 2 places early.
    small = values(ds.shuffle(3, seed=5))
    assert small[0] < 3 and all(position >= v - 2 for position, v in enumerate(small))

    tf.random.set_seed(11)
    a = values(tf.data.Dataset.range(20).shuffle(20))
    tf.random.set_seed(11)
    b = values(tf.data.Dataset.range(20).shuffle(20))
    assert a == b and sorted(a) == list(range(20))
    repeated = values(ds.shuffle(20, seed=2).repeat(2))
    assert sorted(repeated[:20]) == sorted(repeated[20:]) == list(range(20))
    assert repeated[:20] != repeated[20:]
    with pytest.raises(
        tf.errors.InvalidArgumentError, match="buffer_size must be greater than zero"
    ):
        ds.shuffle(0)


def test_map_and_filter():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4) * 2.0))
    summed = ds.map(lambda a, b: tf.cast(a, tf.float64) + b)
    assert values(summed) == [0.0, 3.0, 6.0, 9.0]
    assert repr(summed) == (
        "<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.float64, name=None)>"
    )
    packed = tf.data.Dataset.from_tensor_slices(np.arange(3.0)).map(lambda v: (v, [v, v]))
    assert packed.element_spec == (
        tf.TensorSpec([], tf.float64),
        tf.TensorSpec([2], tf.float64),
    )
    assert values(packed)[1] == (1.0, [1.0, 1.0])
    named = tf.data.Dataset.range(3).map(lambda v: {"a": v})
    assert named.element_spec == {"a": tf.TensorSpec([], tf.int64)}
    reshaped = tf.data.Dataset.from_tensor_slices(np.arange(10.0)).batch(4)
    reshaped = reshaped.map(lambda v: tf.reshape(v, [-1, 2]))
    assert reshaped.element_spec == tf.TensorSpec([None, 2], tf.float64)
    assert [np.shape(v) for v in values(reshaped)] == [(2, 2), (2, 2), (1, 2)]

    evens = tf.data.Dataset.range(10).filter(lambda v: v % 2 == 0)
    assert values(evens) == [0, 2, 4, 6, 8] and int(evens.cardinality()) == -2
    with pytest.raises(TypeError, match="The dataset length is unknown."):
        len(evens)
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar"):
        list(tf.data.Dataset.range(3).filter(lambda v: v))


def test_repeat_take_skip_cardinality():
    ds = tf.data.Dataset.range(4)
    assert values(ds.repeat(2)) == [0, 1, 2, 3, 0, 1, 2, 3] and len(ds.repeat(3)) == 12
    forever = ds.repeat()
    assert int(forever.cardinality()) == tf.data.INFINITE_CARDINALITY == -1
    with pytest.raises(TypeError, match="The dataset is infinite."):
        len(forever)
    assert values(forever.take(6)) == [0, 1, 2, 3, 0, 1] and len(forever.take(6)) == 6
    assert values(ds.skip(3)) == [3] and len(ds.skip(20)) == 0 and values(ds.skip(-1)) == []
    assert values(ds.take(-1)) == [0, 1, 2, 3] and len(ds.take(2)) == 2
    assert values(tf.data.Dataset.range(0).repeat()) == []
    assert values(ds.prefetch(tf.data.AUTOTUNE)) == [0, 1, 2, 3]
    assert tf.data.experimental.cardinality(ds.batch(3)).numpy() == 2
    assert tf.data.UNKNOWN_CARDINALITY == -2 and tf.data.experimental.AUTOTUNE == -1


def test_cache_replays_the_first_iteration(tmp_path):
    cached = tf.data.Dataset.range(10).shuffle(10, seed=4).cache()
    assert values(cached) == values(cached)
    calls = []
    # The map function is traced once: a py_function runs per element.
    mapped = (
        tf.data.Dataset.range(3)
        .map(lambda v: tf.py_function(lambda x: calls.append(1) or x * 2, [v], tf.int64))
        .cache()
    )
    assert values(mapped) == [0, 2, 4] and values(mapped) == [0, 2, 4] and len(calls) == 3

    path = str(tmp_path / "cache")
    on_disk = tf.data.Dataset.range(3).map(lambda v: v + 1).cache(path)
    assert values(on_disk) == [1, 2, 3]
    reread = tf.data.Dataset.range(3).map(lambda v: v * 100).cache(path)
    assert values(reread) == [1, 2, 3]


def test_unbatch_zip_concatenate():
    rows = tf.data.Dataset.from_tensor_slices(np.zeros((4, 2, 3), np.float32)).batch(3).unbatch()
    assert rows.element_spec == tf.TensorSpec([2, 3], tf.float32) and len(list(rows)) == 4
    assert values(tf.data.Dataset.range(5).batch(2).unbatch()) == [0, 1, 2, 3, 4]

    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 15)
    zipped = tf.data.Dataset.zip(a, b)
    assert values(zipped) == [(0, 10), (1, 11), (2, 12)] and len(zipped) == 3
    assert values(tf.data.Dataset.zip((a, b))) == values(zipped)
    keyed = tf.data.Dataset.zip({"x": a, "y": b})
    assert keyed.element_spec == {
        "x": tf.TensorSpec([], tf.int64),
        "y": tf.TensorSpec([], tf.int64),
    }
    assert int(next(iter(keyed))["y"]) == 10
    assert len(tf.data.Dataset.zip(a, b.repeat())) == 3
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        tf.data.Dataset.zip([a, b])

    joined = a.concatenate(b)
    assert values(joined) == [0, 1, 2, 10, 11, 12, 13, 14] and len(joined) == 8
    varying = tf.data.Dataset.from_tensors(np.zeros(2)).concatenate(
        tf.data.Dataset.from_tensors(np.zeros(3))
    )
    assert varying.element_spec == tf.TensorSpec([None], tf.float64)
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        a.concatenate(tf.data.Dataset.range(2, dtype=tf.int32))


def test_iterators():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(2.0))
    iterator = iter(ds)
    assert float(next(iterator)) == 0.0 and float(iterator.get_next()) == 1.0
    assert iterator.element_spec == ds.element_spec
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()
    with pytest.raises(StopIteration):
        next(iterator)
    assert [float(v) for v in ds] == [0.0, 1.0] and [float(v) for v in ds] == [0.0, 1.0]
    assert ds.apply(lambda d: d.map(lambda v: v + 1)).element_spec == ds.element_spec
