"""`tf.experimental.numpy.experimental_enable_numpy_behavior` against TensorFlow: NumPy methods
on Tensor, NumPy's promotion in the Tensor operators, NumPy-style indexing, and the numpy
functions that need `Tensor.astype`.

TensorFlow cannot turn it off, and its own tests enable it once per test process. Here the
TensorFlow worker is per test module (`tf_oracle` is module-scoped), so every program of this
module enables it first; in this process a fixture restores Tensor's attributes and the
switches after each test, so the behaviour does not leak into other test modules."""

import pytest

from .harness import assert_parity


@pytest.fixture(autouse=True)
def _restore_tensor():
    import ferroflow as tf
    from ferroflow.experimental.numpy import _dtypes

    saved = {cls: dict(vars(cls)) for cls in (tf.Tensor, tf.Variable)}
    config = dict(vars(_dtypes._config))
    yield
    for cls, attributes in saved.items():
        for name in [n for n in vars(cls) if n not in attributes]:
            delattr(cls, name)
        for name, value in attributes.items():
            if vars(cls).get(name) is not value:
                setattr(cls, name, value)
    vars(_dtypes._config).clear()
    vars(_dtypes._config).update(config)


DEVICES = ["CPU:0", "GPU:0"]

METHODS = [
    "t.T",
    "t.reshape(3, 2)",
    "t.reshape((3, 2))",
    "t.reshape([-1], order='F')",
    "t.reshape(6, bogus=1)",
    "t.ravel()",
    "t.flatten()",
    "t.flatten('F')",
    "t.transpose()",
    "c.transpose((2, 0, 1))",
    "t.astype('float64')",
    "i.astype(tf.float16)",
    "t.clip(0.0, 1.0)",
    "i.clip(0, 2)",
    "round(t)",
    "t.__round__(1)",
    "t.max()",
    "t.max(axis=0)",
    "i.mean()",
    "t.mean(axis=1, keepdims=True)",
    "t.min(axis=-1)",
    "t.tolist()",
    "i.tolist()",
    "int(t.size)",
    "t.ndim",
    "t.data",
    "+t",
    "c.T",
]

PROMOTION = [
    "tf.ones([], tf.int32) + tf.ones([], tf.float32)",
    "i + 1.5",
    "t + 1.5",
    "1.5 + i",
    "i * 2",
    "2 ** i",
    "i - tf.constant([1, 2, 3], tf.int64)",
    "tf.constant([1, 2], tf.int8) + tf.constant([1, 2], tf.uint8)",
    "i / 2",
    "i / t",
    "i // 2.0",
    "i % 2.5",
    "t ** 2",
    "i < 1.5",
    "t >= i",
    "i == 1.5",
    "i != t",
    "b & True",
    "b | tf.constant([True, False, True], tf.bool)",
    "i + [1, 2, 3]",
    "t @ tf.constant([1, 2, 3], tf.int32)",
    "tf.constant([1.0, 2.0]) @ t",
    "i @ i",
    "tf.add(i, tf.constant(1, tf.int32))",
    "(i == None, i != None)",
    "tf.constant(1, tf.int8) + np.int64(3)",
    "tf.constant(1, tf.uint8) - 2",
    "tf.constant(True) + tf.constant(1)",
    "tf.constant([1, 2]) * [True, False]",
    "tf.constant(2, tf.int16) ** 0.5",
    "tf.constant(1) == 'a'",
    "tf.Variable([1, 2]) + 1.5",
    "1.5 * tf.Variable([1, 2])",
    "tf.Variable([[1, 2], [3, 4]])[1]",
]

INDEXING = [
    "t[[0, 1]]",
    "t[t > 0]",
    "t[:, [0, 2]]",
    "t[[0, 1], [1, 2]]",
    "t[..., [0]]",
    "t[tf.constant([1, 0])]",
    "t[np.array([True, False])]",
    "t[:, np.array([True, False, True])]",
    "c[:, [0, 2], 1:3]",
    "c[[1, 0], :, [0, 3]]",
    "c[0, [1, 2]]",
    "c[None, [0], ..., [1]]",
    "t[[-1]]",
    "t[[5]]",
    "t[1]",
    "t[:, 1:]",
    "t[True]",
    "t[[[0, 1], [1, 0]]]",
    "t[np.array([[True, False, True], [False, True, False]])]",
]

FUNCTIONS = [
    "tnp.sqrt(i)",
    "tnp.sin(tf.constant([1, 2], tf.int64))",
    "tnp.around(t, 1)",
    "tnp.around(i)",
    "tnp.hypot(i, 2.5)",
    "tnp.logaddexp([1.0, 2.0], [0.5, 3.0])",
    "tnp.heaviside(i, 1)",
    "tnp.average(i)",
    "tnp.take_along_axis(t, tf.constant([0, 1]), None)",
    "tnp.isnan(b)",
    "tnp.exp2(i)",
    "tnp.log(i)",
]


def _program(tf, expression, device, kwargs):
    import numpy as np

    tnp = tf.experimental.numpy
    tnp.experimental_enable_numpy_behavior(**kwargs)
    with tf.device(device):
        t = tf.constant([[1.5, -2.0, 0.25], [3.0, 0.5, -0.5]])
        i = tf.constant([[1, -2, 0], [3, 7, -5]], tf.int32)
        b = tf.constant([True, False, False])
        c = tf.reshape(tf.range(24.0), [2, 3, 4])
        out = eval(expression, {"tf": tf, "tnp": tnp, "np": np, "t": t, "i": i, "b": b, "c": c})
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("expression", METHODS + PROMOTION + INDEXING + FUNCTIONS)
def test_numpy_behavior(tf_oracle, expression, device):
    assert_parity(tf_oracle, _program, (expression, device, {}))


PREFER_FLOAT32 = [
    "tnp.array(1.5)",
    "tnp.zeros(2)",
    "tnp.mean(i)",
    "tnp.asarray([1.5, 2])",
    "i + 1.5",
    "tnp.result_type(1.5)",
    "tnp.result_type(1.5j, i)",
    "tnp.arange(0.0, 1.0, 0.5)",
    "tnp.linspace(0, 1, 3)",
    "tnp.sqrt(i)",
    "tnp.random.uniform(size=2).dtype",
    "tnp.eye(2)",
]


@pytest.mark.parametrize("expression", PREFER_FLOAT32)
def test_prefer_float32(tf_oracle, expression):
    assert_parity(tf_oracle, _program, (expression, "CPU:0", {"prefer_float32": True}))


@pytest.mark.parametrize(
    "kwargs", [{"dtype_conversion_mode": "bogus"}, {"dtype_conversion_mode": "off"}]
)
def test_conversion_modes(tf_oracle, kwargs):
    assert_parity(tf_oracle, _program, ("(i + 1.5, t.T, t[[0]])", "CPU:0", kwargs))


def _traced(tf):
    tnp = tf.experimental.numpy
    tnp.experimental_enable_numpy_behavior()

    @tf.function
    def f(x, y):
        return x.reshape(-1) + y, x.T.astype("float64").mean(), x[[1, 0]]

    return f(tf.constant([[1, 2], [3, 4]], tf.int32), 0.5)


def test_numpy_behavior_traced(tf_oracle):
    assert_parity(tf_oracle, _traced)


TRACED_INDEXING = ["x[i]", "x[:, i]", "x[..., i]", "x[i, ...]", "x[tf.reverse(i, [0])]"]


def _traced_index(tf, expression):
    import numpy as np

    tnp = tf.experimental.numpy
    tnp.experimental_enable_numpy_behavior()
    f = tf.function(lambda x, i: eval(expression, {"tf": tf, "x": x, "i": i}))
    x = tf.constant(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    return f(x, tf.constant([2, -1, 0]))


@pytest.mark.parametrize("expression", TRACED_INDEXING)
def test_numpy_indexing_traced(tf_oracle, expression):
    assert_parity(tf_oracle, _traced_index, (expression,))


def test_state_is_restored_between_tests():
    import ferroflow as tf

    assert not hasattr(tf.Tensor, "reshape")
    assert tf.Variable([1, 2])[1].numpy() == 2
    assert (tf.constant(1) + 2).dtype == tf.int32
