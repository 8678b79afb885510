"""Keras 3's recurrent layers: `RNN` over cells, SimpleRNN/LSTM/GRU and their cells,
`StackedRNNCells`, `Bidirectional`, `TimeDistributed`, ConvLSTM1D/2D/3D."""

from ferroflow.keras.layers.rnn.bidirectional import Bidirectional
from ferroflow.keras.layers.rnn.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from ferroflow.keras.layers.rnn.gru import GRU, GRUCell
from ferroflow.keras.layers.rnn.lstm import LSTM, LSTMCell
from ferroflow.keras.layers.rnn.rnn import RNN
from ferroflow.keras.layers.rnn.simple_rnn import SimpleRNN, SimpleRNNCell
from ferroflow.keras.layers.rnn.stacked_rnn_cells import StackedRNNCells
from ferroflow.keras.layers.rnn.time_distributed import TimeDistributed

__all__ = [
    "GRU",
    "Bidirectional",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
    "TimeDistributed",
]
