"""`Bidirectional` (merge modes, masks, states, a given backward layer), `TimeDistributed`
over Dense and Conv2D, and ConvLSTM1D/2D/3D against Keras 3 under TensorFlow 2.21 on both
devices, with fixed weights: outputs and gradients."""

import pytest

from .harness import assert_parity
from .test_keras_rnn import fix_weights, outputs_and_gradients, sequences

DEVICES = ["CPU:0", "GPU:0"]
HELPERS = [fix_weights, outputs_and_gradients, sequences]


def _bidirectional(tf, device):
    import numpy as np

    L = tf.keras.layers
    mask = tf.constant(np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool))
    out = []
    with tf.device(device):
        x = sequences(tf, (2, 4, 3))
        for merge in ("concat", "sum", "ave", "mul", None):
            for seqs in (False, True):
                layer = L.Bidirectional(L.LSTM(3, return_sequences=seqs), merge_mode=merge)
                layer.build((2, 4, 3))
                fix_weights(layer)
                out.append(outputs_and_gradients(tf, layer, x, mask=mask))
        layer = L.Bidirectional(
            L.GRU(2, return_state=True, return_sequences=True),
            backward_layer=L.SimpleRNN(
                2, go_backwards=True, return_state=True, return_sequences=True
            ),
        )
        layer.build((2, 4, 3))
        fix_weights(layer)
        out.append(outputs_and_gradients(tf, layer, x))
        out.append([w.path for w in layer.weights])
        init = [sequences(tf, (2, 3), seed=s) for s in range(4)]
        stateful = L.Bidirectional(L.LSTM(3, return_state=True))
        stateful.build((2, 4, 3))
        fix_weights(stateful)
        out.append(stateful(x, initial_state=init))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_bidirectional(tf_oracle, device):
    assert_parity(tf_oracle, _bidirectional, (device,), helpers=HELPERS)


def _time_distributed_and_conv_lstm(tf, device):
    L = tf.keras.layers
    out = []
    with tf.device(device):
        cases = [
            (L.TimeDistributed(L.Dense(3)), (2, 4, 5)),
            (L.TimeDistributed(L.Conv2D(2, 3, padding="same")), (2, 3, 5, 5, 2)),
            (L.ConvLSTM1D(2, 3, return_sequences=True), (2, 3, 6, 2)),
            (L.ConvLSTM2D(2, (3, 2), padding="same", return_state=True), (1, 3, 4, 5, 2)),
            (L.ConvLSTM2D(2, 3, strides=2, data_format="channels_first"), (1, 2, 2, 5, 5)),
            (L.ConvLSTM2D(2, 3, dilation_rate=2, go_backwards=True), (1, 3, 6, 6, 1)),
            (L.ConvLSTM3D(2, 2, return_sequences=True), (1, 2, 3, 3, 3, 1)),
        ]
        for layer, shape in cases:
            layer.build(shape)
            fix_weights(layer)
            out.append(outputs_and_gradients(tf, layer, sequences(tf, shape)))
            out.append([w.path for w in layer.weights])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_time_distributed_and_conv_lstm(tf_oracle, device):
    assert_parity(
        tf_oracle, _time_distributed_and_conv_lstm, (device,), rtol=1e-5, atol=2e-6, helpers=HELPERS
    )
