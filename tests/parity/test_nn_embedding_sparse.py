"""`tf.nn.embedding_lookup_sparse` and `tf.nn.safe_embedding_lookup_sparse` against TensorFlow:
combiners, weights, sharded tables, max_norm, invalid ids and weights, empty rows, default_id,
rank-3 ids, a traced call and gradients to the table, on CPU and GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _program(tf, device, case):
    import numpy as np

    rng = np.random.default_rng(6)
    params = tf.constant(rng.standard_normal([6, 3]).astype("float32"))
    ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [1, 3, 0, 1, 1], [4, 2])
    ids64 = tf.sparse.SparseTensor(ids.indices, tf.cast(ids.values, tf.int64), ids.dense_shape)
    weights = tf.sparse.SparseTensor(ids.indices, [2.0, 0.5, 1.0, 3.0, 0.25], [4, 2])
    bad_ids = tf.sparse.SparseTensor(ids.indices, [1, -1, 0, 5, 2], [4, 2])
    bad_weights = tf.sparse.SparseTensor(ids.indices, [2.0, 1.0, -1.0, 0.0, 0.5], [4, 2])
    ids3 = tf.sparse.SparseTensor(
        [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]], [2, 4, 4, 5], [2, 2, 2]
    )
    cases = {
        "mean": lambda p: tf.nn.embedding_lookup_sparse(p, ids, None),
        "sum": lambda p: tf.nn.embedding_lookup_sparse(p, ids64, None, combiner="sum"),
        "sqrtn": lambda p: tf.nn.embedding_lookup_sparse(p, ids, None, combiner="sqrtn"),
        "weighted_mean": lambda p: tf.nn.embedding_lookup_sparse(p, ids, weights),
        "weighted_sum": lambda p: tf.nn.embedding_lookup_sparse(p, ids, weights, "sum"),
        "weighted_sqrtn": lambda p: tf.nn.embedding_lookup_sparse(p, ids, weights, "sqrtn"),
        "sharded": lambda p: tf.nn.embedding_lookup_sparse([p[:3], p[3:]], ids, weights),
        # Not the "div" layout of 6 rows (2, 2, 2): id 3 is still the second shard's second row.
        "uneven": lambda p: tf.nn.embedding_lookup_sparse([p[:3], p[3:5], p[5:]], ids, weights),
        "uneven_dense": lambda p: tf.nn.embedding_lookup([p[:3], p[3:5], p[5:]], [[3, 2], [0, 4]]),
        "max_norm": lambda p: tf.nn.embedding_lookup_sparse(p, ids, None, max_norm=0.5),
        "safe": lambda p: tf.nn.safe_embedding_lookup_sparse(p, bad_ids),
        "safe_weights": lambda p: tf.nn.safe_embedding_lookup_sparse(p, ids, bad_weights),
        "safe_sum": lambda p: tf.nn.safe_embedding_lookup_sparse(p, ids, bad_weights, "sum"),
        "safe_default": lambda p: tf.nn.safe_embedding_lookup_sparse(p, ids, default_id=4),
        "safe_rank3": lambda p: tf.nn.safe_embedding_lookup_sparse(p, ids3, combiner="sqrtn"),
    }
    fn = cases[case]
    with tf.device(device):
        value = fn(params)
        traced = tf.function(fn)(params)
        with tf.GradientTape() as tape:
            tape.watch(params)
            total = tf.reduce_sum(fn(params) * tf.cos(tf.range(3, dtype=tf.float32)))
        grad = tf.convert_to_tensor(tape.gradient(total, params))
    return value, traced, grad


CASES = [
    "mean",
    "sum",
    "sqrtn",
    "weighted_mean",
    "weighted_sum",
    "weighted_sqrtn",
    "sharded",
    "uneven",
    "uneven_dense",
    "max_norm",
    "safe",
    "safe_weights",
    "safe_sum",
    "safe_default",
    "safe_rank3",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_embedding_lookup_sparse(tf_oracle, device, case):
    assert_parity(tf_oracle, _program, (device, case), rtol=1e-5, atol=1e-5)


def _errors(tf, which):
    ids = tf.sparse.SparseTensor([[0, 0]], [1], [1, 1])
    if which == "combiner":
        return tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), ids, None, combiner="max")
    if which == "dense_ids":
        return tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), tf.constant([[1]]), None)
    if which == "dense_weights":
        return tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), ids, tf.constant([[1.0]]))
    if which == "safe_none":
        return tf.nn.safe_embedding_lookup_sparse(None, ids)
    if which == "safe_empty":
        return tf.nn.safe_embedding_lookup_sparse([], ids)
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which", ["combiner", "dense_ids", "dense_weights", "safe_none", "safe_empty"]
)
def test_embedding_lookup_sparse_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
