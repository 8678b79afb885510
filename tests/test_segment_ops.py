"""The segment primitives' devices and traces: GPU kernels (float32, int32, uint32) agree with
the CPU kernels and stay on the GPU, device-resident ids out of range are skipped as on
TensorFlow's GPU, other dtypes fall back to the CPU; traced graphs record one node per
primitive; ragged reductions traced over unknown splits read no example size; Bitcast,
RandomIndexShuffle and EditDistance run inside tf.function."""

import ferroflow as tf
import numpy as np
import pytest

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
HAS_GPU = bool(tf.config.list_physical_devices("GPU"))
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU (set FERROFLOW_ALLOW_SOFTWARE_GPU=1)")

R = np.random.default_rng(3)


def _ops():
    m = tf.math
    return {
        "sum": lambda d, i, n: m.unsorted_segment_sum(d, i, n),
        "prod": lambda d, i, n: m.unsorted_segment_prod(d, i, n),
        "max": lambda d, i, n: m.unsorted_segment_max(d, i, n),
        "min": lambda d, i, n: m.unsorted_segment_min(d, i, n),
        "sorted_sum": lambda d, i, n: m.segment_sum(d, np.sort(i) % n),
        "sorted_max": lambda d, i, n: m.segment_max(d, np.sort(i) % n),
        "sorted_min": lambda d, i, n: m.segment_min(d, np.sort(i) % n),
        "sorted_prod": lambda d, i, n: m.segment_prod(d, np.sort(i) % n),
        "sorted_mean": lambda d, i, n: m.segment_mean(d, np.sort(i) % n),
    }


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("op", sorted(_ops()))
@pytest.mark.parametrize("shape", [(5000,), (3000, 7), (40, 3, 2)])
def test_gpu_matches_cpu_and_stays_on_the_gpu(op, dtype, shape):
    data = R.standard_normal(shape) * 3
    if op.endswith("prod"):
        data = 1 + R.random(shape) * 0.01
    data = np.abs(data) if dtype == np.uint32 else data
    data = data.astype(dtype)
    ids = R.integers(-2, 37, size=shape[0]).astype(np.int32)
    fn = _ops()[op]
    if op.startswith("sorted"):
        ids = np.abs(ids)
    with tf.device("CPU:0"):
        expected = fn(tf.constant(data), tf.constant(ids), 37).numpy()
    with tf.device("GPU:0"):
        got = fn(tf.constant(data), tf.constant(ids), 37)
    assert got.device == GPU
    assert got.dtype.as_numpy_dtype == dtype and got.shape == expected.shape
    if dtype == np.float32:
        np.testing.assert_allclose(got.numpy(), expected, rtol=2e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(got.numpy(), expected)


@needs_gpu
def test_gpu_ids_out_of_range_are_skipped_and_host_ids_raise():
    data = tf.constant([1.0, 2.0, 3.0, 4.0])
    with tf.device("GPU:0"):
        ids = tf.identity(tf.constant([0, 7, 1, -1]))  # resident on the GPU
        assert ids.device == GPU
        out = tf.math.unsorted_segment_sum(data, ids, 2)
        assert out.device == GPU
        np.testing.assert_array_equal(out.numpy(), [1.0, 3.0])
    host_ids = tf.constant([0, 7, 1, -1])  # made outside the scope: on the host
    with tf.device("GPU:0"):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 7"):
            tf.math.unsorted_segment_sum(data, host_ids, 2)


@needs_gpu
def test_gpu_empty_segments_hold_tensorflows_identities():
    with tf.device("GPU:0"):
        d = tf.constant([[1.0, -2.0]])
        ids = tf.constant([1])
        mx = tf.math.unsorted_segment_max(d, ids, 3)
        mn = tf.math.unsorted_segment_min(tf.constant([[5, 6]]), ids, 2)
        sm = tf.math.segment_max(d, ids)
    low = np.finfo(np.float32).min
    np.testing.assert_array_equal(mx.numpy(), [[low, low], [1.0, -2.0], [low, low]])
    np.testing.assert_array_equal(mn.numpy(), [[2**31 - 1] * 2, [5, 6]])
    np.testing.assert_array_equal(sm.numpy(), [[0.0, 0.0], [1.0, -2.0]])


@needs_gpu
def test_other_dtypes_run_on_the_cpu_under_a_gpu_scope():
    with tf.device("GPU:0"):
        out = tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0], tf.float64), [0, 0], 1)
        half = tf.math.segment_sum(tf.constant([1.0, 2.0], tf.float16), [0, 0])
    np.testing.assert_array_equal(out.numpy(), [3.0])
    np.testing.assert_array_equal(half.numpy(), [3.0])


def test_traced_graphs_hold_the_primitives():
    @tf.function
    def f(x, ids, n):
        return (
            tf.math.unsorted_segment_max(x, ids, n),
            tf.math.segment_mean(x, tf.sort(tf.abs(ids))),
            tf.bitcast(x, tf.int32),
            tf.random_index_shuffle(tf.abs(ids), [1, 2, 3], 100),
        )

    x = tf.constant([1.0, 2.0, 3.0])
    ids = tf.constant([1, 0, 1])
    out = f(x, ids, tf.constant(2))
    np.testing.assert_array_equal(out[0].numpy(), [2.0, 3.0])
    graph = f.get_concrete_function(x, ids, tf.constant(2)).graph
    kinds = {op.type for op in graph.get_operations()}
    assert {"UnsortedSegmentMax", "SegmentMean", "Bitcast", "RandomIndexShuffle"} <= kinds


def test_gradients_are_recorded_once_per_primitive():
    x = tf.constant([[1.0, 5.0], [3.0, 2.0], [3.0, 0.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.unsorted_segment_max(x, [0, 0, 0], 1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0.0, 1.0], [0.5, 0.0], [0.5, 0.0]])


def test_traced_ragged_reduction_serves_every_row_structure():
    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None], tf.int64)])
    def f(values, splits):
        return tf.reduce_sum(tf.RaggedTensor.from_row_splits(values, splits), axis=1)

    for splits in ([0, 2, 2, 5], [0, 5], [0, 0, 0, 1, 5]):
        got = f(tf.range(5.0), tf.constant(splits, tf.int64)).numpy()
        want = np.add.reduceat(np.arange(5.0), splits[:-1]) * (np.diff(splits) > 0)
        np.testing.assert_allclose(got, want)
    assert f.experimental_get_tracing_count() == 1


def test_edit_distance_in_a_function_and_a_bitcast_gradient_raises_lookup_error():
    h = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2])
    t = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [1, 3, 4], [2, 3])
    out = tf.function(lambda: tf.edit_distance(h, t))()
    np.testing.assert_allclose(out.numpy(), [1.0, 0.5])
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.bitcast(x, tf.float32))
    with pytest.raises(LookupError, match="Bitcast"):
        tape.gradient(y, x)
