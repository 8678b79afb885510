"""`tf.sets` against TensorFlow: intersection, union, difference (both directions) and size of
dense and sparse integer inputs, eagerly and inside `tf.function`, on the CPU and the GPU, with
TensorFlow's exception classes."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
MODES = ["eager", "function"]


def _sets(tf, device, mode):
    def run(body, *args):
        fn = tf.function(body) if mode == "function" else body
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    with tf.device(device):
        a = tf.constant([[1, 2, 3, 2], [4, 4, 5, 6], [7, 8, 9, 9]])
        b = tf.constant([[2, 3, 3], [1, 5, 6], [0, 0, 0]])
        a3 = tf.reshape(tf.constant([1, 2, 2, 5, 3, 3, 4, 1, 0, 9, 9, 9], tf.int64), [2, 2, 3])
        b3 = tf.reshape(tf.constant([2, 5, 1, 1, 3, 3, 4, 7, 8, 8, 9, 0], tf.int64), [2, 2, 3])
        sa = tf.SparseTensor(
            [[0, 0], [0, 1], [0, 2], [1, 0], [2, 1], [2, 3]], [1, 2, 3, 4, 8, 9], [3, 4]
        )
        sb = tf.SparseTensor([[0, 0], [0, 1], [1, 2], [2, 0]], [3, 7, 4, 9], [3, 3])
        unordered = tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [3, 4])
        out = []
        for x, y in ((a, b), (a3, b3), (sa, sb), (b, sa), (sa, b)):
            out.append(run(lambda x, y: tf.sets.intersection(x, y), x, y))
            out.append(run(lambda x, y: tf.sets.union(x, y), x, y))
            out.append(run(lambda x, y: tf.sets.difference(x, y), x, y))
            out.append(run(lambda x, y: tf.sets.difference(x, y, aminusb=False), x, y))
        out.append(run(lambda x: tf.sets.size(x), sa))
        out.append(
            run(
                lambda x: tf.sets.size(x),
                tf.SparseTensor([[0, 0, 0], [0, 0, 1]], [5, 5], [2, 2, 2]),
            )
        )
        out.append(
            run(
                lambda x, y: tf.sets.union(x, y),
                tf.constant([[1, 2]], tf.uint8),
                tf.constant([[3]], tf.uint8),
            )
        )
        # Errors: an unsupported dtype, dtypes that differ, a dense input as size's argument,
        # unordered sparse indices, rank 1, leading dimensions that differ.
        out.append(
            run(lambda x, y: tf.sets.union(x, y), tf.constant([[1.0]]), tf.constant([[2.0]]))
        )
        out.append(run(lambda x, y: tf.sets.union(x, y), a, tf.cast(b, tf.int64)))
        out.append(run(lambda x: tf.sets.size(x), a))
        out.append(run(lambda x, y: tf.sets.union(x, y), unordered, sb))
        out.append(run(lambda x, y: tf.sets.union(x, y, validate_indices=False), sb, sb))
        out.append(run(lambda x, y: tf.sets.union(x, y), tf.constant([1, 2]), tf.constant([2])))
        out.append(run(lambda x, y: tf.sets.intersection(x, y), a, b[:2]))
        return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_set_operations(tf_oracle, device, mode):
    assert_parity(tf_oracle, _sets, (device, mode))


def _random_sets(tf, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(4):
        rows, width_a, width_b = rng.integers(1, 5), rng.integers(1, 6), rng.integers(1, 6)
        a = tf.constant(rng.integers(0, 6, size=(rows, width_a)))
        b = tf.constant(rng.integers(0, 6, size=(rows, width_b)))
        sparse_b = tf.sparse.from_dense(b)
        out += [
            tf.sets.intersection(a, b),
            tf.sets.union(a, sparse_b),
            tf.sets.difference(a, b),
            tf.sets.size(sparse_b),
        ]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_random_sets(tf_oracle, seed):
    assert_parity(tf_oracle, _random_sets, (seed,))
