"""Regression tests of three silent differences from TensorFlow found in session 17:
`tf.is_tensor` of composite tensors, `tf.squeeze` with an empty axis list, and the unary math
functions TensorFlow applies to a SparseTensor's values."""

import pytest

from .harness import assert_parity


def _is_tensor(tf):
    class Point(tf.experimental.ExtensionType):
        x: tf.Tensor

    values = [
        tf.constant(1.0),
        tf.Variable(1.0),
        tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2]),
        tf.ragged.constant([[1], [2, 3]]),
        tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])),
        Point(tf.constant(1.0)),
        1.0,
        [1.0],
        None,
    ]
    return [tf.is_tensor(v) for v in values]


def test_is_tensor_of_composites(tf_oracle):
    assert_parity(tf_oracle, _is_tensor, ())


def _squeeze_empty_axis(tf):
    x = tf.zeros([1, 2, 1, 3])
    traced = tf.function(lambda t: tf.squeeze(t, axis=[]))
    return tf.squeeze(x, axis=[]), tf.squeeze(x, axis=()), traced(x)


def test_squeeze_with_an_empty_axis_list_squeezes_all(tf_oracle):
    assert_parity(tf_oracle, _squeeze_empty_axis, ())


def _sparse_unary(tf, device):
    names = ["abs", "asin", "asinh", "atan", "atanh", "bessel_i0e", "bessel_i1e", "erf"]
    names += ["negative", "sign", "sin", "sqrt", "square", "tan", "tanh", "exp", "cos"]
    out = {}
    with tf.device(device):
        sp = tf.sparse.SparseTensor([[0, 0], [1, 2]], [0.25, -0.5], [2, 3])
        for name in names:
            try:
                r = getattr(tf.math, name)(sp)
                out[name] = (type(r).__name__, tf.sparse.to_dense(r), r.shape)
            except Exception as e:  # TensorFlow refuses the ops that do not keep zeros
                out[name] = type(e).__name__
        out["identity"] = tf.sparse.to_dense(tf.identity(sp))
        out["tf.abs"] = tf.sparse.to_dense(tf.abs(sp))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_sparse_unary_math(tf_oracle, device):
    assert_parity(tf_oracle, _sparse_unary, (device,))


def _negative_dimensions(tf):
    out = [tf.TensorShape([2, None]).as_list()]
    for make in (
        lambda: tf.TensorShape([-1]),
        lambda: tf.TensorShape([None, -1]),
        lambda: tf.TensorSpec([-1], tf.float32),
    ):
        try:
            make()
        except ValueError as e:
            out.append(str(e))
    return out


def test_negative_dimensions_are_refused(tf_oracle):
    assert_parity(tf_oracle, _negative_dimensions, ())
