"""One test per bug found in review or fuzzing, so that each stays fixed."""

import ferroflow as tf
import numpy as np
import pytest

OOM = tf.errors.ResourceExhaustedError


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.gather(tf.zeros([1, 100000]), tf.zeros([100000], tf.int32)),
        lambda: tf.gather_nd(tf.zeros([100000]), tf.zeros([100000, 0], tf.int32)),
        lambda: tf.matmul(tf.zeros([2**16, 1, 0, 1]), tf.zeros([1, 2**16, 1, 0])),
        lambda: tf.zeros([5 * 10**9], tf.complex128),
        lambda: tf.constant(np.broadcast_to(np.float32(1), (2**20, 2**20))),
        lambda: tf.zeros([2**62, 0]),
        lambda: tf.range(0.0, 1.0, 1e-14),
    ],
    ids=["gather", "gather_nd", "matmul-batch", "complex128", "numpy-view", "empty", "range"],
)
def test_impossible_outputs_are_refused_not_aborted(make):
    with pytest.raises(OOM):
        make()


def test_misaligned_numpy_arrays_are_read_correctly():
    raw = np.arange(3, dtype=np.float64).tobytes()
    misaligned = np.frombuffer(b"\0" + raw, np.float64, offset=1)
    assert not misaligned.flags.aligned
    np.testing.assert_array_equal(tf.constant(misaligned).numpy(), [0.0, 1.0, 2.0])


def test_extreme_slice_steps_do_not_overflow():
    x = tf.constant([1, 2, 3])
    np.testing.assert_array_equal(x[:: 2**63 - 1].numpy(), [1])
    np.testing.assert_array_equal(x[:: -(2**63)].numpy(), [3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.slice(x, [-(2**63)], [-1])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.split(tf.range(3), [2**63 - 1, 2**63 - 1, 5])


@pytest.mark.parametrize("dtype", [tf.bfloat16, tf.float16, tf.float32])
def test_uniform_stays_below_maxval(dtype):
    tf.random.set_seed(3)
    u = tf.random.uniform([100000], dtype=dtype).numpy().astype(np.float64)
    assert u.max() < 1.0 and u.min() >= 0.0
    v = tf.random.uniform([100000], 1, 2, dtype=dtype).numpy().astype(np.float64)
    assert v.max() < 2.0 and v.min() >= 1.0


def test_int64_range_is_exact_beyond_2_to_53():
    r = tf.range(2**62, 2**62 + 10, dtype=tf.int64).numpy()
    np.testing.assert_array_equal(r, np.arange(2**62, 2**62 + 10, dtype=np.int64))


def test_range_is_start_plus_i_times_delta():
    r = tf.range(1, 2, 0.3).numpy()
    np.testing.assert_array_equal(r, np.float32([1.0, 1.3, 1.6, 1.9000001]))


def test_argmax_passes_over_nan():
    assert int(tf.argmax(tf.constant([1.0, float("nan"), 3.0]))) == 2
    assert int(tf.argmin(tf.constant([float("nan"), 2.0, 1.0]))) == 2


def test_half_sigmoid_does_not_underflow_early():
    s = tf.sigmoid(tf.constant([-12.0, -15.0], tf.float16)).numpy().astype(np.float64)
    np.testing.assert_allclose(s, [6.1e-6, 3.06e-7], rtol=0.05)


def test_unique_uses_equality():
    assert tf.unique(tf.constant([0.0, -0.0, 1.0])).y.shape == (2,)
    assert tf.unique(tf.constant([float("nan"), float("nan"), 1.0])).y.shape == (3,)


def test_casts_follow_tensorflow_on_x86():
    np.testing.assert_array_equal(tf.cast(tf.constant([-1.5, 300.7]), tf.uint8).numpy(), [255, 44])
    nan_inf = tf.cast(tf.constant([float("nan"), float("inf")]), tf.int32).numpy()
    np.testing.assert_array_equal(nan_inf, [-(2**31), -(2**31)])
    assert not bool(tf.cast(tf.constant(1j, tf.complex64), tf.bool))


def test_integer_inputs_that_tensorflow_computes_in_float():
    q = tf.math.divide_no_nan(tf.constant([1, 4]), tf.constant([0, 2]))
    assert q.dtype == tf.float64
    np.testing.assert_array_equal(q.numpy(), [0.0, 2.0])
    r = tf.nn.leaky_relu(tf.constant([-5, 5]))
    assert r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy(), [-1.0, 5.0])


def test_long_column_reduction_is_exact():
    x = np.ones((300_000, 2), np.float32)
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=0).numpy(), [300_000.0, 300_000.0])
    np.testing.assert_array_equal(tf.reduce_max(x * 2, axis=0).numpy(), [2.0, 2.0])


def test_large_float32_sum_is_pairwise_accurate():
    total = float(tf.reduce_sum(tf.fill([10**6], 0.1)))
    assert abs(total - 100000.0015) < 2.0


def test_tensor_ref_is_a_hashable_identity():
    a, b = tf.constant(1.0), tf.constant(1.0)
    refs = {a.ref(): "a", b.ref(): "b"}
    assert refs[a.ref()] == "a" and a.ref().deref() is a


@pytest.mark.parametrize("b_shape", [(3, 1), (1, 3, 1), (2, 3, 1)])
def test_einsum_ellipsis_broadcasts_like_numpy(b_shape):
    a = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    b = np.ones(b_shape, np.float32)
    for eq in ("...ij,...jk->...ik", "...ij,...jk"):
        np.testing.assert_allclose(tf.einsum(eq, a, b).numpy(), np.einsum(eq, a, b))


def test_slice_with_extreme_begin_and_size_raises():
    x = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.slice(x, [0, -(2**63)], [1, -2])


def test_fused_gpu_chains_with_the_same_shape_but_other_ops_do_not_share_a_kernel():
    """The GPU pipeline cache keyed fused chains by how steps call each other, not by what each
    step computes: `(a + b) - c` ran in place of `a * b + c`."""
    from conftest import require_gpu

    require_gpu()
    a, b, c = tf.constant([1.0, 2.0]), tf.constant(3.0), tf.constant([1.0, -1.0])
    with tf.device("GPU:0"):
        first = tf.function(lambda a, b, c: a + b - c)(a, b, c)
        second = tf.function(lambda a, b, c: a * b + c)(a, b, c)
    assert first.numpy().tolist() == [3.0, 6.0]
    assert second.numpy().tolist() == [4.0, 5.0]


def test_a_new_object_at_a_collected_objects_address_gets_its_own_trace():
    """Method traces are keyed by the instance's id, which Python reuses after collection."""

    class Scaled(tf.Module):
        def __init__(self, value):
            self.w = tf.Variable(value)

        @tf.function
        def apply(self, x):
            return x * self.w

    addresses = set()
    for value in range(20):
        m = Scaled(float(value))
        addresses.add(id(m))
        assert float(m.apply(tf.constant(1.0))) == value
        del m
    assert len(addresses) < 20, "the test needs Python to reuse an address"
