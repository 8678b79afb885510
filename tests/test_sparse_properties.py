"""Property tests of tf.sparse against numpy: random shapes (zero-sized dimensions included),
densities and dtypes for from_dense / to_dense round trips, reorder of shuffled entries, add
(threshold), reduce_sum over every axis set and sparse_dense_matmul with adjoints, eagerly and
inside tf.function."""

import ferroflow as tf
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


@st.composite
def dense_arrays(draw, min_rank=1, max_rank=3, dtype=None):
    rank = draw(st.integers(min_rank, max_rank))
    shape = draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank))
    density = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    dtype = dtype or draw(st.sampled_from([np.float32, np.float64, np.int32, np.int64]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    values = rng.integers(-9, 10, size=shape).astype(dtype)
    values[rng.random(shape) >= density] = 0
    return values


def _sparse_of(array):
    indices = np.argwhere(array != 0).astype(np.int64)
    return tf.SparseTensor(indices, array[tuple(indices.T)], array.shape)


@SETTINGS
@given(dense_arrays(), st.booleans())
def test_from_dense_to_dense_round_trip(array, traced):
    def body(x):
        sp = tf.sparse.from_dense(x)
        return sp.indices, sp.values, sp.dense_shape, tf.sparse.to_dense(sp)

    fn = tf.function(body) if traced else body
    indices, values, shape, dense = fn(tf.constant(array))
    expected = np.argwhere(array != 0)
    np.testing.assert_array_equal(indices.numpy().reshape(-1, array.ndim), expected)
    np.testing.assert_array_equal(values.numpy(), array[array != 0])
    assert shape.numpy().tolist() == list(array.shape)
    np.testing.assert_array_equal(dense.numpy(), array)
    assert dense.dtype.as_numpy_dtype == array.dtype


@SETTINGS
@given(dense_arrays(min_rank=1), st.integers(0, 2**31 - 1))
def test_reorder_restores_row_major_order(array, seed):
    indices = np.argwhere(array != 0).astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(indices))
    shuffled = tf.SparseTensor(indices[perm], array[tuple(indices.T)][perm], array.shape)
    ordered = tf.sparse.reorder(shuffled)
    np.testing.assert_array_equal(ordered.indices.numpy().reshape(-1, array.ndim), indices)
    np.testing.assert_array_equal(ordered.values.numpy(), array[array != 0])
    np.testing.assert_array_equal(tf.sparse.to_dense(ordered).numpy(), array)


@SETTINGS
@given(st.data(), st.sampled_from([0.0, 1.0, 4.0]))
def test_add_matches_dense_sum(data, threshold):
    a = data.draw(dense_arrays(dtype=np.float32))
    b = data.draw(dense_arrays(dtype=np.float32).filter(lambda x: True), label="b")
    b = np.resize(b, a.shape) if a.size else np.zeros(a.shape, np.float32)
    out = tf.sparse.add(_sparse_of(a), _sparse_of(b), threshold=threshold)
    dense = tf.sparse.to_dense(out).numpy()
    total = a + b
    both = (a != 0) & (b != 0)
    expected = np.where(both & (np.abs(total) < threshold), 0, total)
    np.testing.assert_allclose(dense, expected)
    kept = (a != 0) | (b != 0)
    kept &= ~(both & (np.abs(total) < threshold))
    assert out.values.shape[0] == int(kept.sum())
    np.testing.assert_allclose(tf.sparse.add(_sparse_of(a), tf.constant(b)).numpy(), total)


@SETTINGS
@given(dense_arrays(min_rank=1, max_rank=3), st.data(), st.booleans())
def test_reduce_sum_every_axis_set(array, data, keepdims):
    rank = array.ndim
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), max_size=rank, unique=True))
    axis = sorted({a % rank for a in axes}) or None
    out = tf.sparse.reduce_sum(_sparse_of(array), axis=axis, keepdims=keepdims)
    expected = np.sum(array, axis=None if axis is None else tuple(axis), keepdims=keepdims)
    np.testing.assert_allclose(out.numpy(), expected)
    sparse_out = tf.sparse.reduce_sum(
        _sparse_of(array), axis=axis, keepdims=keepdims, output_is_sparse=True
    )
    np.testing.assert_allclose(tf.sparse.to_dense(sparse_out).numpy(), np.asarray(expected))


@SETTINGS
@given(st.integers(0, 6), st.integers(1, 6), st.integers(1, 5), st.data())
def test_sparse_dense_matmul_with_adjoints(m, k, n, data):
    a = data.draw(dense_arrays(min_rank=2, max_rank=2, dtype=np.float64).map(lambda x: x))
    a = np.resize(a, (m, k)) if a.size else np.zeros((m, k))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31 - 1)))
    b = rng.standard_normal((k, n))
    adjoint_a, adjoint_b = data.draw(st.booleans()), data.draw(st.booleans())
    sp = _sparse_of(a.T.copy() if adjoint_a else a)
    dense_b = b.T.copy() if adjoint_b else b
    traced = data.draw(st.booleans())

    def body(sp, dense_b):
        return tf.sparse.sparse_dense_matmul(sp, dense_b, adjoint_a, adjoint_b)

    fn = tf.function(body) if traced else body
    np.testing.assert_allclose(fn(sp, tf.constant(dense_b)).numpy(), a @ b, atol=1e-12)


def test_to_dense_rejects_unordered_indices():
    sp = tf.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.to_dense(sp)
    np.testing.assert_array_equal(
        tf.sparse.to_dense(sp, validate_indices=False).numpy(), [[0, 2], [1, 0]]
    )
