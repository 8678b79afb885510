"""`tf.keras.layers.SimpleRNNCell` and `SimpleRNN`: ``h = activation(x @ W + h @ U + b)``."""

from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.rnn._cell_base import (
    CELL_ATTRIBUTES,
    RecurrentCell,
    build_cell_and_rnn,
    forward_to_cell,
    recurrent_layer_config,
)
from ferroflow.keras.layers.rnn.rnn import RNN

__all__ = ["SimpleRNN", "SimpleRNNCell"]


class SimpleRNNCell(RecurrentCell):
    """The cell of a fully connected RNN whose output is fed back as its state."""

    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        self._add_cell_weights(
            (input_shape[-1], self.units), (self.units, self.units), (self.units,)
        )
        self.built = True

    def call(self, sequence, states, training=False):
        prev_output = states[0] if isinstance(states, (list, tuple)) else states
        dp_mask = self.get_dropout_mask(sequence)
        rec_dp_mask = self.get_recurrent_dropout_mask(prev_output)
        if training and dp_mask is not None:
            sequence = sequence * dp_mask
        h = sequence @ self.kernel
        if self.bias is not None:
            h = h + self.bias
        if training and rec_dp_mask is not None:
            prev_output = prev_output * rec_dp_mask
        output = h + prev_output @ self.recurrent_kernel
        if self.activation is not None:
            output = self.activation(output)
        new_state = [output] if isinstance(states, (list, tuple)) else output
        return output, new_state


class SimpleRNN(RNN):
    """A fully connected RNN over ``(batch, time, features)`` inputs."""

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        seed=None,
        **kwargs,
    ):
        build_cell_and_rnn(self, SimpleRNNCell, "simple_rnn_cell", locals())
        self.input_spec = InputSpec(ndim=3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, mask=mask, training=training, initial_state=initial_state)

    def get_config(self):
        return recurrent_layer_config(self, super().get_config())

    @classmethod
    def from_config(cls, config):
        return cls(**config)


forward_to_cell(SimpleRNN, CELL_ATTRIBUTES)
