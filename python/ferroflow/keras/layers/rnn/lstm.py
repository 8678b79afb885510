"""`tf.keras.layers.LSTMCell` and `LSTM` (Hochreiter 1997), Keras's weight layout: kernels
``(input, 4 * units)`` and ``(units, 4 * units)`` with gates in i, f, c, o order."""

from ferroflow.array_ops import concat, ones, split
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.rnn._cell_base import (
    CELL_ATTRIBUTES,
    build_cell_and_rnn,
    forward_to_cell,
    recurrent_layer_config,
)
from ferroflow.keras.layers.rnn._gated import (
    GatedCell,
    GatedRNN,
    check_use_cudnn,
    gate_inputs,
)

__all__ = ["LSTM", "LSTMCell"]


class LSTMCell(GatedCell):
    """The cell of an LSTM layer; states ``[h, c]``."""

    gates = 4

    def __init__(self, units, *, unit_forget_bias=True, **kwargs):
        super().__init__(units, **kwargs)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        units = self.units
        bias_initializer = None
        if self.use_bias and self.unit_forget_bias:
            # The forget gate's bias starts at one (Jozefowicz et al., 2015).
            def bias_initializer(_, *args, **kwargs):
                init = self.bias_initializer
                return concat(
                    [
                        init((units,), *args, **kwargs),
                        ones((units,), *args, **kwargs),
                        init((units * 2,), *args, **kwargs),
                    ],
                    0,
                )

        self._add_cell_weights(
            (input_shape[-1], units * 4), (units, units * 4), (units * 4,), bias_initializer
        )
        self.built = True

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        act, ract = self.activation, self.recurrent_activation
        if self.implementation == 1:
            xs, hs = gate_inputs(self, inputs, h_tm1, training)
            kernels = split(self.kernel, 4, axis=1)
            recurrent = split(self.recurrent_kernel, 4, axis=1)
            biases = split(self.bias, 4, axis=0) if self.use_bias else [None] * 4
            z = []
            for x, h, k, r, b in zip(xs, hs, kernels, recurrent, biases):
                x = x @ k
                if b is not None:
                    x = x + b
                z.append(x + h @ r)
        else:
            if training and 0.0 < self.dropout < 1.0:
                inputs = inputs * self.get_dropout_mask(inputs)
            z = inputs @ self.kernel + h_tm1 @ self.recurrent_kernel
            if self.use_bias:
                z = z + self.bias
            z = split(z, 4, axis=1)
        i, f, o = ract(z[0]), ract(z[1]), ract(z[3])
        c = f * c_tm1 + i * act(z[2])
        h = o * act(c)
        return h, [h, c]

    def get_config(self):
        # Keras lists a cell's ``unit_forget_bias`` right after ``use_bias``.
        config = super().get_config()
        forget = config.pop("unit_forget_bias")
        items = list(config.items())
        at = [k for k, _ in items].index("use_bias") + 1
        return dict(items[:at] + [("unit_forget_bias", forget)] + items[at:])


class LSTM(GatedRNN):
    """Long Short-Term Memory layer over ``(batch, time, features)`` inputs."""

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        use_cudnn="auto",
        **kwargs,
    ):
        build_cell_and_rnn(
            self, LSTMCell, "lstm_cell", locals(), ("recurrent_activation", "unit_forget_bias")
        )
        self.input_spec = InputSpec(ndim=3)
        self.use_cudnn = check_use_cudnn(use_cudnn)

    def get_config(self):
        return {**recurrent_layer_config(self, super().get_config()), "seed": self.cell.seed}


forward_to_cell(LSTM, (*CELL_ATTRIBUTES, "recurrent_activation", "unit_forget_bias"))
