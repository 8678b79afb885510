"""What LSTM and GRU add to the plain cells and layers: a ``recurrent_activation``, Keras's
``implementation`` 1 (one product per gate, per-gate dropout masks) or 2 (one fused
product), and ``use_cudnn`` (ferroflow has no cuDNN: ``True`` is Keras's error off-GPU)."""

from ferroflow.keras.layers.rnn._cell_base import RecurrentCell
from ferroflow.keras.layers.rnn.rnn import RNN

__all__ = ["GatedCell", "GatedRNN", "check_use_cudnn", "gate_inputs", "refuse_cudnn"]


class GatedCell(RecurrentCell):
    """A cell with ``gates`` gates laid out side by side in its kernels."""

    def __init__(self, units, *, recurrent_activation="sigmoid", **kwargs):
        from ferroflow.keras import activations

        implementation = kwargs.pop("implementation", 2)
        super().__init__(units, **kwargs)
        self.implementation = implementation
        self.recurrent_activation = activations.get(recurrent_activation)
        if self.recurrent_dropout != 0.0:
            self.implementation = 1
        if self.implementation == 1:
            self.dropout_mask_count = self.gates


def gate_inputs(cell, inputs, h_tm1, training):
    """Per gate: the (dropped-out) input and previous state that gate multiplies, as Keras's
    implementation 1 does."""
    if training and 0.0 < cell.dropout < 1.0:
        dp = cell.get_dropout_mask(inputs)
        xs = [inputs * m for m in dp]
    else:
        xs = [inputs] * cell.gates
    if training and 0.0 < cell.recurrent_dropout < 1.0:
        rdp = cell.get_recurrent_dropout_mask(h_tm1)
        hs = [h_tm1 * m for m in rdp]
    else:
        hs = [h_tm1] * cell.gates
    return xs, hs


def check_use_cudnn(use_cudnn):
    if use_cudnn not in ("auto", True, False):
        raise ValueError(
            "Invalid valid received for argument `use_cudnn`. Expected one of {'auto', True, "
            f"False}}. Received: use_cudnn={use_cudnn}"
        )
    return use_cudnn


def refuse_cudnn(layer):
    """Keras's error for ``use_cudnn=True`` where cuDNN cannot run (always, in ferroflow)."""
    if layer.use_cudnn is True:
        raise ValueError(
            "use_cudnn=True was specified, but cuDNN is not supported for this layer "
            "configuration with this backend. Pass use_cudnn='auto' to fallback to a "
            "non-cuDNN implementation."
        )


class GatedRNN(RNN):
    """What the LSTM and GRU layers share beyond `RNN`: ``use_cudnn`` and the order of
    `call`'s arguments."""

    def inner_loop(self, sequences, initial_state, mask, training=False):
        refuse_cudnn(self)
        return super().inner_loop(sequences, initial_state, mask=mask, training=training)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)

    @classmethod
    def from_config(cls, config):
        return cls(**config)
