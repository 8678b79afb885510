"""`tf.experimental.numpy.random` against TensorFlow: shapes, dtypes and argument errors (the
values of the two frameworks' generators differ), ranges of the samples, and reproducibility
under `seed`."""

import pytest

from .harness import assert_parity

CALLS = [
    "rand(2, 3)",
    "rand()",
    "randn(4)",
    "randn(2, 2)",
    "standard_normal()",
    "standard_normal(3)",
    "standard_normal((2, 3))",
    "uniform()",
    "uniform(1.0, 2.0, (3,))",
    "uniform(size=2)",
    "uniform(tf.zeros([2]), 5.0)",
    "uniform(0, tf.ones([2, 1]), (2, 3))",
    "random((2, 2))",
    "random()",
    "random(3)",
    "poisson(3.0, (4,))",
    "poisson(2.0, 5)",
    "poisson()",
    "randint(5, size=(3,))",
    "randint(2, 9, 4)",
    "randint(0, 5, dtype='int32')",
    "randint(0, 5, dtype='int16')",
    "randint(0, 5, dtype='float64')",
    "seed(3)",
    "seed('x')",
    "seed(None)",
    "standard_normal(size=tf.constant([2]))",
    "poisson(2.0, tf.constant(3))",
    "randint(5, 2, size=3)",
    "randint(5, 5)",
    "poisson(tf.constant([1.0, 2.0]), (3,))",
    "uniform(2.0, 1.0, (3,))",
    "rand(-1)",
]


def _sample(tf, call, device):
    import numpy as np

    with tf.device(device):
        out = eval("tnp.random." + call, {"tnp": tf.experimental.numpy, "tf": tf})
    if out is None:
        return None
    values = np.asarray(out)
    return out.dtype, tuple(out.shape), bool(np.all(np.isfinite(values)))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("call", CALLS)
def test_tnp_random_shapes_and_dtypes(tf_oracle, call, device):
    assert_parity(tf_oracle, _sample, (call, device))


def _ranges(tf):
    import numpy as np

    tnp = tf.experimental.numpy
    tnp.random.seed(7)
    u = np.asarray(tnp.random.uniform(-2.0, 3.0, (2000,)))
    r = np.asarray(tnp.random.randint(3, 8, (2000,)))
    p = np.asarray(tnp.random.poisson(4.0, (4000,)))
    n = np.asarray(tnp.random.randn(4000))
    return (
        bool(u.min() >= -2.0 and u.max() < 3.0),
        sorted(set(r.tolist())),
        bool(abs(p.mean() - 4.0) < 0.3 and p.min() >= 0),
        bool(abs(n.mean()) < 0.1 and abs(n.std() - 1.0) < 0.1),
    )


def test_tnp_random_ranges(tf_oracle):
    assert_parity(tf_oracle, _ranges)


def test_tnp_random_seed_reproduces():
    import ferroflow as tf
    import numpy as np

    tnp = tf.experimental.numpy
    tnp.random.seed(11)
    a = [np.asarray(tnp.random.rand(3)), np.asarray(tnp.random.randint(0, 100, (4,)))]
    tnp.random.seed(11)
    b = [np.asarray(tnp.random.rand(3)), np.asarray(tnp.random.randint(0, 100, (4,)))]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
