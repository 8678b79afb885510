"""`keras.ops` cases ferroflow used to refuse, against Keras 3 under TensorFlow 2.21:
`unique` with ``axis``, `vectorize` with ``signature``, `associative_scan` over a length
known only at run time, grouped `conv`, and `squeeze` with an empty ``axis``."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _unique(tf, device):
    import numpy as np

    ops = tf.keras.ops
    every = {"return_index": True, "return_inverse": True, "return_counts": True}
    rows = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]], np.int32)
    cube = np.array([[[2, 1], [0, 3]], [[2, 1], [0, 3]], [[0, 5], [1, 1]]], np.float32)
    signed = np.array([[np.nan, 1], [np.nan, 1], [0.0, -0.0], [-0.0, 0.0]], np.float32)
    out = []
    with tf.device(device):
        for x, kwargs in [
            (rows, {"axis": 0, **every}),
            (rows, {"axis": 1, **every}),
            (rows, {"axis": -1, "sorted": False, **every}),
            (rows.astype(np.int64), {"axis": 0, "size": 5, "fill_value": 7, **every}),
            (rows, {"axis": 1, "size": 2, "return_index": True, "return_counts": True}),
            (cube, {"axis": 0, "return_inverse": True}),
            (cube, {"axis": 1, "return_index": True}),
            (cube, {"axis": 2, **every}),
            (cube.astype(np.float64), {"axis": 2, "sorted": False}),
            (rows.astype(np.uint8), {"axis": 0, "return_counts": True}),
            # NaN slices are all distinct, -0.0 equals 0.0 (unsorted: argsort orders NaN
            # differently, see the report).
            (signed, {"axis": 0, "sorted": False, **every}),
            (np.zeros((0, 3), np.float32), {"axis": 0, **every}),
            (np.zeros((3, 0), np.float32), {"axis": 0, **every}),
            (np.array([3, 1, 3, 2], np.int64), {"axis": 0, **every}),
            (np.array([3, 1, 3, 2], np.int64), {"size": 2}),
        ]:
            out.append(ops.unique(x, **kwargs))
        out.append(
            error_classes(
                [
                    lambda: ops.unique(rows, axis=2),
                    lambda: ops.unique(np.float32(3), axis=0),
                    lambda: ops.unique(np.array([[True, False]]), axis=0),
                    lambda: ops.unique(np.array([[1, 2]], np.complex64), axis=1),
                    lambda: ops.unique(tf.constant([["a"], ["a"]]), axis=0),
                ]
            )
        )

        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
        def traced(v):
            r = ops.unique(v, axis=0, return_inverse=True, return_counts=True, size=3)
            return r, [t.shape.as_list() for t in r]

        values, shapes = traced(rows)
        out += [values, shapes]
    return out


def _vectorize(tf, device):
    import numpy as np

    ops = tf.keras.ops
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    matvec = ops.vectorize(lambda a, b: ops.matmul(a, b), signature="(m,n),(n)->(m)")
    out = []
    with tf.device(device):
        out += [matvec(m, v), matvec(m[None], v)]
        out.append(ops.vectorize(lambda a: (ops.sum(a), a * 2), signature="(n)->(),(n)")(v))
        out.append(ops.vectorize(lambda a, b: a + b, signature="(),()->()")(2.0, 3.0))
        out.append(ops.vectorize(lambda a, b: a + b)(np.ones((1, 1), np.float32), 3.0))
        out.append(ops.vectorize(lambda a, b: a, signature="(n),()->(n)")(v, None))
        out.append(ops.vectorize(lambda a: a + 1, signature="(n)->(n)")(np.array([1, 2])))
        out.append(ops.squeeze(np.ones((1, 3, 1), np.float32), axis=()).shape)
        out.append(
            error_classes(
                [
                    lambda: matvec(np.stack([m, m]), v),
                    lambda: matvec(m, np.ones(4, np.float32)),
                    lambda: matvec(v, v),
                    lambda: matvec(m),
                    lambda: ops.vectorize(lambda a: a, signature="(m)->")(v),
                    lambda: ops.vectorize(lambda a: (a, a), signature="(n)->(n)")(v),
                    lambda: ops.vectorize(lambda a: a, signature="(n)->(n),(n)")(v),
                    lambda: ops.vectorize(lambda a: ops.sum(a), signature="(n)->(n)")(v),
                    # A unit core dimension is squeezed with the loop ones, as in Keras.
                    lambda: ops.vectorize(lambda a: a, signature="(m,n)->(m,n)")(m[:1]),
                    lambda: ops.vectorize(lambda a, b: a + b)(v, 3.0),
                    lambda: ops.vectorize(lambda a, b: b, signature="(),(n)->(n)")(None, v),
                    lambda: ops.vectorize(lambda a, b: a, signature="(n),(n)->(n)")(v, None),
                    lambda: ops.vectorize(lambda a, b: a, signature="(n),(n)->(n)")(
                        np.ones((2, 3)), np.ones((3, 3))
                    ),
                    lambda: ops.vectorize(3),
                ]
            )
        )
        x = tf.constant(m)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(matvec(x, v))
        out.append(tape.gradient(y, x))
        out.append(tf.function(lambda a: matvec(a, v))(tf.constant(m)))
    return out


def _scan_dynamic(tf, device):
    import numpy as np

    ops = tf.keras.ops
    # The values over a run-time length are compared with the static-length path in
    # tests/test_keras_ops_scan_dynamic.py: TensorFlow takes over a minute to trace Keras's
    # 48 nested conds. Here: several tensors over a run-time length fail as under Keras.
    with tf.device(device):

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)] * 2)
        def pair(v, w):
            return ops.associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (v, w))

        return error_classes([lambda: pair(np.ones(3, np.float32), np.ones(3, np.float32))])


def _grouped_conv(tf, device):
    import numpy as np

    ops = tf.keras.ops
    rng = np.random.default_rng(0)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    x1, k1 = normal(2, 7, 6), normal(3, 2, 6)
    x2, k2 = normal(1, 5, 5, 4), normal(3, 3, 2, 4)
    x3, k3 = normal(1, 4, 4, 4, 4), normal(2, 2, 2, 1, 4)
    out = []
    with tf.device(device):
        out.append(ops.conv(x1, k1))
        out.append(ops.conv(x1, k1, strides=2, padding="same"))
        out.append(ops.conv(np.transpose(x1, (0, 2, 1)), k1, data_format="channels_first"))
        out.append(ops.conv(x1, k1, dilation_rate=2))
        out.append(ops.conv(x2, k2, padding="same"))
        out.append(ops.conv(x2.astype(np.float64), k2.astype(np.float64)))
        out.append(ops.conv(x3, k3))
        out.append(
            error_classes(
                [
                    lambda: ops.conv(x2, normal(3, 3, 2, 3)),
                    lambda: ops.conv(x2, normal(3, 3, 3, 4)),
                ]
            )
        )
        xt, kt = tf.constant(x2), tf.constant(k2)
        with tf.GradientTape() as tape:
            tape.watch([xt, kt])
            y = tf.reduce_sum(ops.conv(xt, kt) ** 2)
        out += tape.gradient(y, [xt, kt])
        out.append(tf.function(lambda a, b: ops.conv(a, b, strides=(2, 1)))(x2, k2))
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", [_unique, _vectorize, _scan_dynamic, _grouped_conv])
def test_ops_gaps(tf_oracle, program, device):
    assert_parity(tf_oracle, program, (device,), helpers=[error_classes])
