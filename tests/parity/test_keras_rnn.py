"""Keras 3's recurrent layers against Keras under TensorFlow 2.21 on both devices, with fixed
weights: SimpleRNN/LSTM/GRU outputs, states and gradients (inputs and weights) with masks,
``go_backwards``, ``return_state``, ``initial_state``, ``unroll`` and ``zero_output_for_mask``;
cells, `StackedRNNCells` and user cells with nested states; stateful layers across calls."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def fix_weights(layer):
    """Deterministic weights in [-0.5, 0.5), the same on both sides."""
    import numpy as np

    values = []
    for i, w in enumerate(layer.get_weights()):
        n = np.arange(w.size, dtype=np.float64).reshape(w.shape)
        values.append((np.sin(n * 0.7 + i * 1.3) * 0.5).astype(w.dtype))
    layer.set_weights(values)


def outputs_and_gradients(tf, layer, x, **kwargs):
    """The layer's outputs, and the gradients of ``sum(outputs ** 2)`` with respect to the
    input and to each weight."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, **kwargs)
        flat = tf.nest.flatten(y)
        loss = tf.add_n([tf.reduce_sum(t * t) for t in flat])
    grads = tape.gradient(loss, [x, *layer.trainable_weights])
    return flat, grads


def sequences(tf, shape, seed=0):
    import numpy as np

    return tf.constant(np.random.RandomState(seed).uniform(-1, 1, shape).astype("float32"))


def _recurrent_values(tf, device):
    import numpy as np

    L = tf.keras.layers
    mask = tf.constant(np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1], [0, 0, 0, 0, 0]], bool))
    layers = [
        (L.SimpleRNN, {}),
        (L.LSTM, {}),
        (L.GRU, {}),
        (L.GRU, {"reset_after": False}),
        (L.LSTM, {"implementation": 1, "activation": "relu", "use_bias": False}),
    ]
    options = [
        {},
        {"return_sequences": True, "return_state": True},
        {"go_backwards": True, "return_sequences": True},
        {"unroll": True, "return_state": True},
    ]
    out = []
    with tf.device(device):
        x = sequences(tf, (3, 5, 4))
        for cls, kw in layers:
            for opt in options:
                # The masked program runs every op of the unmasked one: GPU:0 runs only it.
                for with_mask in (True,) if device == "GPU:0" else (False, True):
                    layer = cls(3, **kw, **opt)
                    layer.build((3, 5, 4))
                    fix_weights(layer)
                    call = {"mask": mask} if with_mask else {}
                    out.append(outputs_and_gradients(tf, layer, x, **call))
            layer = cls(3, return_sequences=True, zero_output_for_mask=True, **kw)
            layer.build((3, 5, 4))
            fix_weights(layer)
            out.append(outputs_and_gradients(tf, layer, x, mask=mask))
            state_layer = cls(3, return_state=True, **kw)
            state_layer.build((3, 5, 4))
            fix_weights(state_layer)
            n_states = 2 if cls is L.LSTM else 1
            init = [sequences(tf, (3, 3), seed=7 + i) for i in range(n_states)]
            out.append(state_layer(x, initial_state=init))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_layers_outputs_states_and_gradients(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _recurrent_values,
        (device,),
        rtol=1e-5,
        atol=1e-6,
        helpers=[fix_weights, outputs_and_gradients, sequences],
    )


def _cells_and_user_cells(tf, device):
    L = tf.keras.layers

    class NestedCell(tf.keras.layers.Layer):
        """A user cell whose state is nested: ``[h, (a, b)]``."""

        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = [units, (units, 2)]
            self.output_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

        def call(self, inputs, states):
            h, (a, b) = states
            out = tf.tanh(tf.matmul(inputs, self.kernel) + h + a)
            return out, [out, (a * 0.5 + out, b + 1.0)]

        def get_initial_state(self, batch_size=None):
            return [
                tf.ones((batch_size, self.units)),
                (tf.zeros((batch_size, self.units)), tf.zeros((batch_size, 2))),
            ]

    out = []
    with tf.device(device):
        x = sequences(tf, (2, 4, 3))
        for cell in (
            L.SimpleRNNCell(3),
            L.LSTMCell(3),
            L.GRUCell(3),
            L.GRUCell(3, reset_after=False),
        ):
            state = [sequences(tf, (2, 3), seed=3)] * (2 if isinstance(cell, L.LSTMCell) else 1)
            cell.build((2, 3))
            fix_weights(cell)
            out.append(cell(x[:, 0], state))
            out.append(cell.get_initial_state(batch_size=2))
        stacked = L.RNN([L.LSTMCell(3), L.GRUCell(2), L.SimpleRNNCell(4)], return_state=True)
        stacked.build((2, 4, 3))
        fix_weights(stacked)
        out.append(outputs_and_gradients(tf, stacked, x))
        out.append(stacked.cell.state_size)
        user = L.RNN(NestedCell(3), return_sequences=True, return_state=True)
        user.build((2, 4, 3))
        fix_weights(user)
        out.append(outputs_and_gradients(tf, user, x))
        traced = tf.function(lambda t: user(t))
        out.append(traced(x))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_cells_stacked_and_user_cells(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _cells_and_user_cells,
        (device,),
        rtol=1e-5,
        atol=1e-6,
        helpers=[fix_weights, outputs_and_gradients, sequences],
    )


def _stateful(tf):
    L = tf.keras.layers
    out = []
    for cls in (L.LSTM, L.GRU, L.SimpleRNN):
        layer = cls(3, stateful=True, return_sequences=True)
        layer.build((2, 4, 3))
        fix_weights(layer)
        x = sequences(tf, (2, 4, 3))
        first = layer(x)
        second = layer(x)
        layer.reset_states()
        third = layer(x)
        out += [first, second, third, len(layer.weights), [s.shape for s in layer.states]]
    traced_layer = L.LSTM(2, stateful=True)
    traced_layer.build((2, 4, 3))
    fix_weights(traced_layer)
    step = tf.function(lambda t: traced_layer(t))
    out += [step(x), step(x), [s.numpy() for s in traced_layer.states]]
    return out


def test_stateful_across_calls(tf_oracle):
    assert_parity(tf_oracle, _stateful, helpers=[fix_weights, sequences])
