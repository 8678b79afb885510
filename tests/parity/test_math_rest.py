"""The rest of tf.math against TensorFlow, on the CPU and the GPU: bincount (weights,
minlength, maxlength, binary_output, 2-D axis=-1), confusion_matrix, cumulative_logsumexp,
in_top_k, invert_permutation, polyval, reduce_euclidean_norm, accumulate_n, zero_fraction,
lbeta, log_sigmoid, the zero-safe products, rint, softsign, and the tf.nn/tf.math aliases."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _attempt(fns):
    out = []
    for fn in fns:
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def _bincount(tf, device):
    with tf.device(device):
        arr = tf.constant([1, 1, 3, 5])
        rows = tf.constant([[1, 1, 3], [0, 2, 2]])
        w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        return _attempt(
            [
                lambda: tf.math.bincount(arr),
                lambda: tf.math.bincount(tf.constant([], tf.int32)),
                lambda: tf.math.bincount(arr, minlength=8),
                lambda: tf.math.bincount(arr, maxlength=3),
                lambda: tf.math.bincount(arr, minlength=2, maxlength=4),
                lambda: tf.math.bincount(arr, weights=tf.constant([0.5, 1.0, 2.0, 4.0])),
                lambda: tf.math.bincount(arr, dtype=tf.float32),
                lambda: tf.math.bincount(arr, binary_output=True),
                lambda: tf.math.bincount(rows, axis=-1),
                lambda: tf.math.bincount(rows),
                lambda: tf.math.bincount(rows, axis=0),
                lambda: tf.math.bincount(rows, weights=w, axis=-1, minlength=5),
                lambda: tf.math.bincount(rows, axis=-1, binary_output=True, maxlength=2),
                lambda: tf.math.bincount(tf.constant([1, 1, 3], tf.int64)),
                lambda: tf.math.bincount(tf.constant([1, -1, 3])),
                lambda: tf.math.bincount(arr, weights=tf.ones([4]), binary_output=True),
                lambda: tf.function(tf.math.bincount)(arr),
            ]
        )


@pytest.mark.parametrize("device", DEVICES)
def test_bincount(tf_oracle, device):
    assert_parity(tf_oracle, _bincount, (device,), helpers=(_attempt,))


def _confusion(tf, device):
    with tf.device(device):
        return _attempt(
            [
                lambda: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4]),
                lambda: tf.math.confusion_matrix(
                    [1, 2, 4], [2, 2, 4], num_classes=6, weights=[1.0, 2.0, 3.0], dtype=tf.float32
                ),
                lambda: tf.math.confusion_matrix(tf.constant([0, 0, 1]), tf.constant([0, 0, 0])),
                lambda: tf.math.confusion_matrix([1, 2, 7], [2, 2, 4], num_classes=5),
                lambda: tf.math.confusion_matrix([1, -2, 4], [2, 2, 4]),
            ]
        )


@pytest.mark.parametrize("device", DEVICES)
def test_confusion_matrix(tf_oracle, device):
    assert_parity(tf_oracle, _confusion, (device,), helpers=(_attempt,))


def _logsumexp(tf, device, dtype):
    with tf.device(device):
        x = tf.constant([[-1000.0, 0.0, 1.0, 2.0, 30.0], [5.0, -3.0, 0.5, 0.5, -2.0]], dtype)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True)
        return (
            tf.math.cumulative_logsumexp(x),
            tf.math.cumulative_logsumexp(x, axis=1),
            tf.math.cumulative_logsumexp(x, axis=-1, exclusive=True),
            tf.math.cumulative_logsumexp(x, axis=1, reverse=True),
            y,
            tape.gradient(y, x),
            tf.function(tf.math.cumulative_logsumexp)(x[0]),
            _attempt([lambda: tf.math.cumulative_logsumexp(tf.constant([1, 2]))]),
        )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cumulative_logsumexp(tf_oracle, device, dtype):
    assert_parity(tf_oracle, _logsumexp, (device, getattr(__import__("numpy"), dtype)),
                  helpers=(_attempt,))  # fmt: skip


def _in_top_k(tf, device):
    nan, inf = float("nan"), float("inf")
    p = tf.constant([[0.1, 0.9, 0.5], [0.3, 0.3, 0.3], [nan, 0.0, 1.0], [1.0, 2.0, inf]])
    with tf.device(device):
        return _attempt(
            [
                lambda: tf.math.in_top_k(tf.constant([0, 1, 2, 5]), p, 1),
                lambda: tf.math.in_top_k(tf.constant([0, 1, 0, 2], tf.int64), p, 2),
                lambda: tf.nn.in_top_k(tf.constant([1, 0, 2, 1]), p, 3),
                lambda: tf.math.in_top_k(tf.constant([-1, 0, 0, 0]), p, tf.constant(1)),
                lambda: tf.math.in_top_k(
                    tf.constant([0]), tf.constant([[0.1, 0.9]], tf.float64), 1
                ),
            ]
        )


@pytest.mark.parametrize("device", DEVICES)
def test_in_top_k(tf_oracle, device):
    assert_parity(tf_oracle, _in_top_k, (device,), helpers=(_attempt,))


def _small(tf, device):
    with tf.device(device):
        x = tf.constant([[3.0, 4.0], [1.0, -1.0]])
        return _attempt(
            [
                lambda: tf.math.invert_permutation(tf.constant([3, 4, 0, 2, 1])),
                lambda: tf.math.invert_permutation(tf.constant([1, 0], tf.int64)),
                lambda: tf.math.invert_permutation(tf.constant([0, 0, 1])),
                lambda: tf.math.invert_permutation(tf.constant([0, 5, 1])),
                lambda: tf.math.invert_permutation(tf.constant([[0, 1]])),
                lambda: tf.math.invert_permutation(tf.constant([0.0, 1.0])),
                lambda: tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.0, 1.0, 2.0])),
                lambda: tf.math.polyval([], tf.constant([0.0, 1.0])),
                lambda: tf.math.polyval([1, 2], 3),
                lambda: tf.math.polyval(tf.constant([1.0, 2.0]), 3.0),
                lambda: tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [1, 1]]), axis=1),
                lambda: tf.math.reduce_euclidean_norm(x),
                lambda: tf.math.reduce_euclidean_norm(x, axis=0, keepdims=True),
                lambda: tf.math.reduce_euclidean_norm(tf.constant([3 + 4j])),
                lambda: tf.math.reduce_euclidean_norm(tf.constant([True])),
                lambda: tf.math.accumulate_n([x, x * 2.0, x]),
                lambda: tf.math.accumulate_n([x]),
                lambda: tf.math.accumulate_n([]),
                lambda: tf.math.accumulate_n([x, tf.constant([[1, 2], [3, 4]])]),
                lambda: tf.math.accumulate_n([x, tf.ones([3])]),
                lambda: tf.math.zero_fraction(tf.constant([0, 1, 0, 3])),
                lambda: tf.math.zero_fraction(tf.constant([], tf.float32)),
                lambda: tf.nn.zero_fraction(tf.constant([[True, False], [False, False]])),
                lambda: tf.math.lbeta(tf.constant([[1.0, 2.0], [0.5, 0.5], [3.0, 0.1]])),
                lambda: tf.math.lbeta(tf.zeros([2, 0])),
                lambda: tf.math.lbeta(tf.constant(2.0)),
                lambda: tf.math.log_sigmoid(tf.constant([-100.0, -1.0, 0.0, 2.0, 100.0])),
                lambda: tf.math.log_sigmoid(tf.constant([1])),
                lambda: tf.math.softsign(tf.constant([-2.0, 0.0, 3.0])),
                lambda: tf.nn.softsign(tf.constant([-2.0, 0.0, 3.0], tf.float16)),
                lambda: tf.math.softsign(tf.constant([1, 2])),
                lambda: tf.math.rint(tf.constant([0.5, 1.5, 2.5, -0.5, -1.7, 1e20])),
                lambda: tf.math.rint(tf.constant([1, 2])),
                lambda: tf.math.reciprocal_no_nan(tf.constant([0.0, 2.0, -4.0])),
                lambda: tf.math.reciprocal_no_nan(tf.constant([0, 2])),
                lambda: tf.math.multiply_no_nan(
                    tf.constant([float("inf"), float("nan"), 2.0]), tf.constant([0.0, 0.0, 3.0])
                ),
                lambda: tf.math.multiply_no_nan(tf.constant([1, 2]), tf.constant([0, 3])),
                lambda: tf.math.softmax(x),
                lambda: tf.math.log_softmax(x, axis=0),
                lambda: tf.math.softplus(x),
            ]
        )


@pytest.mark.parametrize("device", DEVICES)
def test_compositions(tf_oracle, device):
    assert_parity(tf_oracle, _small, (device,), helpers=(_attempt,))


def _gradients(tf, device):
    with tf.device(device):
        x = tf.constant([[3.0, 4.0], [0.5, -1.0]], tf.float64)
        y = tf.constant([[0.0, 2.0], [1.0, 0.0]], tf.float64)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            outs = [
                tf.math.reduce_euclidean_norm(x, axis=1),
                tf.math.lbeta(tf.abs(x)),
                tf.math.log_sigmoid(x),
                tf.math.softsign(x),
                tf.math.multiply_no_nan(x, y),
                tf.math.multiply_no_nan(x, y[0]),
                tf.math.reciprocal_no_nan(y),
                tf.math.polyval([x, y, 2.0 * x], y),
                tf.math.accumulate_n([x, y, x]),
                tf.math.rint(x),
            ]
        return [tape.gradient(o, [x, y]) for o in outs]


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,), rtol=1e-9)


def _aliases(tf):
    names = ["softsign", "zero_fraction", "in_top_k", "softmax", "log_softmax", "softplus"]
    return [tf.nn.__dict__.get(n) is not None for n in names] + [
        callable(getattr(tf.math.special, n)) for n in ["bessel_i0", "bessel_y1", "spence"]
    ]


def test_aliases(tf_oracle):
    assert_parity(tf_oracle, _aliases)
