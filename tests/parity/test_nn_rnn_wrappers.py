"""`tf.nn.RNNCellResidualWrapper`, `RNNCellDeviceWrapper` and `RNNCellDropoutWrapper` (TensorFlow
2.21's legacy Keras-2 cell wrappers) around a user cell against TensorFlow: outputs, states,
sizes, class names, a traced call, gradients, and the errors. Dropout with keep probability
below 1 draws from ferroflow's own stream (not TensorFlow's): only its rate and scaling are
checked, on ferroflow alone."""

import ferroflow as tf
import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _program(tf, device, which):
    class Cell(tf.keras.layers.Layer):
        state_size = 3
        output_size = 3

        def call(self, inputs, states):
            new = tf.tanh(inputs + 0.5 * states[0])
            return new, [new]

    makers = {
        "residual": lambda c: tf.nn.RNNCellResidualWrapper(c),
        "residual_fn": lambda c: tf.nn.RNNCellResidualWrapper(c, residual_fn=lambda i, o: i * o),
        "device": lambda c: tf.nn.RNNCellDeviceWrapper(c, "/cpu:0"),
        "dropout_keep_all": lambda c: tf.nn.RNNCellDropoutWrapper(c, seed=4),
    }
    x = tf.constant([[0.1, -0.2, 0.3], [1.0, 2.0, -1.0]])
    s = [tf.constant([[0.5, 0.5, 0.5], [0.0, 1.0, 0.0]])]
    with tf.device(device):
        wrapper = makers[which](Cell())
        out, state = wrapper(x, s)
        traced = tf.function(lambda x, s: wrapper(x, s))(x, s)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y, _ = wrapper(x, s)
            total = tf.reduce_sum(y * tf.constant([1.0, -2.0, 3.0]))
        grad = tape.gradient(total, x)
    return type(wrapper).__name__, out, state, traced, grad, wrapper.state_size, wrapper.output_size


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("which", ["residual", "residual_fn", "device", "dropout_keep_all"])
def test_wrappers(tf_oracle, device, which):
    assert_parity(tf_oracle, _program, (device, which))


def _errors(tf, which):
    class Cell(tf.keras.layers.Layer):
        state_size = 3
        output_size = 3

        def call(self, inputs, states):
            return inputs, states

    if which == "keep_prob_range":
        return tf.nn.RNNCellDropoutWrapper(Cell(), input_keep_prob=1.5)
    if which == "variational_without_dtype":
        return tf.nn.RNNCellDropoutWrapper(Cell(), variational_recurrent=True)
    if which == "visitor_not_callable":
        return tf.nn.RNNCellDropoutWrapper(Cell(), dropout_state_filter_visitor=3)
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which", ["keep_prob_range", "variational_without_dtype", "visitor_not_callable"]
)
def test_wrapper_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))


class _Identity(tf.keras.layers.Layer):
    state_size = 4
    output_size = 4

    def call(self, inputs, states):
        return inputs, states


def test_dropout_rate_and_scaling():
    wrapper = tf.nn.RNNCellDropoutWrapper(_Identity(), input_keep_prob=0.75, seed=1)
    out, _ = wrapper(tf.ones([500, 4]), [tf.zeros([500, 4])])
    values = out.numpy()
    assert set(np.unique(values).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert abs((values != 0).mean() - 0.75) < 0.04


def test_state_filter_keeps_filtered_states():
    wrapper = tf.nn.RNNCellDropoutWrapper(
        _Identity(), state_keep_prob=0.5, dropout_state_filter_visitor=lambda s: False
    )
    state = [tf.ones([3, 4])]
    _, new_state = wrapper(tf.ones([3, 4]), state)
    np.testing.assert_array_equal(new_state[0].numpy(), np.ones([3, 4]))
