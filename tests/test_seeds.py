"""The code cells of the seeds' basics guide that the core covers, with TensorFlow's output.

Expected text is copied from the guide (its notebook output, whitespace collapsed).
"""

import re

import ferroflow as tf
import numpy as np
import pytest


def flat(text):
    return re.sub(r"\s+", " ", str(text)).strip()


@pytest.fixture
def x():
    return tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def test_tensor_print_shape_dtype(x, capsys):
    print(x)
    print(x.shape)
    print(x.dtype)
    out = flat(capsys.readouterr().out)
    assert out == (
        "tf.Tensor( [[1. 2. 3.] [4. 5. 6.]], shape=(2, 3), dtype=float32) (2, 3) <dtype: 'float32'>"
    )


def test_arithmetic_cells(x):
    assert flat(repr(x + x)) == (
        "<tf.Tensor: shape=(2, 3), dtype=float32, numpy= array([[ 2., 4., 6.], [ 8., 10., 12.]], "
        "dtype=float32)>"
    )
    assert flat(repr(5 * x)) == (
        "<tf.Tensor: shape=(2, 3), dtype=float32, numpy= array([[ 5., 10., 15.], [20., 25., 30.]], "
        "dtype=float32)>"
    )
    assert flat(repr(x @ tf.transpose(x))) == (
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy= array([[14., 32.], [32., 77.]], "
        "dtype=float32)>"
    )
    assert flat(repr(tf.concat([x, x, x], axis=0))) == (
        "<tf.Tensor: shape=(6, 3), dtype=float32, numpy= array([[1., 2., 3.], [4., 5., 6.], "
        "[1., 2., 3.], [4., 5., 6.], [1., 2., 3.], [4., 5., 6.]], dtype=float32)>"
    )
    assert flat(repr(tf.reduce_sum(x))) == "<tf.Tensor: shape=(), dtype=float32, numpy=21.0>"


def test_softmax_cell(x):
    s = tf.nn.softmax(x, axis=-1)
    assert (s.shape, s.dtype) == ((2, 3), tf.float32)
    # The guide prints 0.6652409 (its run used a CUDA GPU; TensorFlow's oneDNN CPU kernel prints
    # the same). The correctly rounded float32 is 0.66524094, one ulp away: allow one ulp.
    expected = np.array([[0.09003057, 0.24472848, 0.6652409]] * 2, dtype=np.float32)
    np.testing.assert_array_max_ulp(s.numpy(), expected, maxulp=1)


def test_gpu_check_cell(capsys):
    if tf.config.list_physical_devices("GPU"):
        print("TensorFlow **IS** using the GPU")
    else:
        print("TensorFlow **IS NOT** using the GPU")
    assert "using the GPU" in capsys.readouterr().out


def test_training_data_cells():
    x = tf.linspace(-2, 2, 201)
    assert x.dtype == tf.float64
    x = tf.cast(x, tf.float32)

    def f(x):
        return x**2 + 2 * x - 5

    y = f(x) + tf.random.normal(shape=[201])
    assert (x.shape, y.shape, y.dtype) == ((201,), (201,), tf.float32)
    np.testing.assert_allclose(x.numpy()[[0, 100, 200]], [-2.0, 0.0, 2.0])
    np.testing.assert_allclose(f(x).numpy()[[0, 100, 200]], [-5.0, -5.0, 3.0])
    noise = (y - f(x)).numpy()
    assert abs(noise.mean()) < 0.35 and 0.7 < noise.std() < 1.3
    # The model's first step indexes with tf.newaxis and squeezes back.
    assert x[:, tf.newaxis].shape == (201, 1)
    assert tf.squeeze(x[:, tf.newaxis], axis=1).shape == (201,)


def test_variables_guide_tensor_cells():
    my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert flat(tf.convert_to_tensor(my_tensor)) == (
        "tf.Tensor( [[1. 2.] [3. 4.]], shape=(2, 2), dtype=float32)"
    )
    assert flat(tf.argmax(my_tensor)) == "tf.Tensor([1 1], shape=(2,), dtype=int64)"
    assert flat(tf.reshape(my_tensor, [1, 4])) == (
        "tf.Tensor([[1. 2. 3. 4.]], shape=(1, 4), dtype=float32)"
    )
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert flat(tf.matmul(a, b)) == "tf.Tensor( [[22. 28.] [49. 64.]], shape=(2, 2), dtype=float32)"
    assert flat(a * tf.constant([[1.0, 2.0, 3.0]])) == (
        "tf.Tensor( [[ 1. 4. 9.] [ 4. 10. 18.]], shape=(2, 3), dtype=float32)"
    )
    assert flat(my_tensor == my_tensor + 1) == (
        "tf.Tensor( [[False False] [False False]], shape=(2, 2), dtype=bool)"
    )
