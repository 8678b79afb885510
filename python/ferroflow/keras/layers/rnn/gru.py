"""`tf.keras.layers.GRUCell` and `GRU` (Cho et al., 2014), Keras's weight layout: kernels
``(input, 3 * units)`` and ``(units, 3 * units)`` with gates in z, r, h order; with
``reset_after`` (the default, cuDNN's variant) the bias is ``(2, 3 * units)``: input bias
and recurrent bias."""

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

__all__ = ["GRU", "GRUCell"]


class GRUCell(GatedCell):
    """The cell of a GRU layer; one state ``h``."""

    gates = 3

    def __init__(self, units, *, reset_after=True, **kwargs):
        super().__init__(units, **kwargs)
        self.reset_after = reset_after
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        units = self.units
        bias_shape = (2, 3 * units) if self.reset_after else (3 * units,)
        self._add_cell_weights((input_shape[-1], 3 * units), (units, 3 * units), bias_shape)
        self.built = True

    def call(self, inputs, states, training=False):
        from ferroflow.nest import is_nested

        h_tm1 = states[0] if is_nested(states) else states
        u = self.units
        input_bias = recurrent_bias = None
        if self.use_bias:
            if self.reset_after:
                input_bias, recurrent_bias = self.bias[0], self.bias[1]
            else:
                input_bias = self.bias
        act, ract, rk = self.activation, self.recurrent_activation, self.recurrent_kernel
        if self.implementation == 1:
            (x_z, x_r, x_h), (h_z, h_r, h_h) = gate_inputs(self, inputs, h_tm1, training)
            x_z, x_r, x_h = (
                x_z @ self.kernel[:, :u],
                x_r @ self.kernel[:, u : 2 * u],
                x_h @ self.kernel[:, 2 * u :],
            )
            if input_bias is not None:
                x_z, x_r, x_h = (
                    x_z + input_bias[:u],
                    x_r + input_bias[u : 2 * u],
                    x_h + input_bias[2 * u :],
                )
            rec_z, rec_r = h_z @ rk[:, :u], h_r @ rk[:, u : 2 * u]
            if recurrent_bias is not None:
                rec_z, rec_r = rec_z + recurrent_bias[:u], rec_r + recurrent_bias[u : 2 * u]
            z, r = ract(x_z + rec_z), ract(x_r + rec_r)
            if self.reset_after:
                rec_h = h_h @ rk[:, 2 * u :]
                if recurrent_bias is not None:
                    rec_h = rec_h + recurrent_bias[2 * u :]
                rec_h = r * rec_h
            else:
                rec_h = (r * h_h) @ rk[:, 2 * u :]
        else:
            if training and 0.0 < self.dropout < 1.0:
                inputs = inputs * self.get_dropout_mask(inputs)
            matrix_x = inputs @ self.kernel
            if input_bias is not None:
                matrix_x = matrix_x + input_bias
            x_z, x_r, x_h = matrix_x[:, :u], matrix_x[:, u : 2 * u], matrix_x[:, 2 * u :]
            if self.reset_after:
                inner = h_tm1 @ rk
                if recurrent_bias is not None:
                    inner = inner + recurrent_bias
            else:
                inner = h_tm1 @ rk[:, : 2 * u]
            z, r = ract(x_z + inner[:, :u]), ract(x_r + inner[:, u : 2 * u])
            if self.reset_after:
                rec_h = r * inner[:, 2 * u :]
            else:
                rec_h = (r * h_tm1) @ rk[:, 2 * u :]
        hh = act(x_h + rec_h)
        h = z * h_tm1 + (1 - z) * hh
        return h, ([h] if is_nested(states) else h)

    def get_config(self):
        config = super().get_config()
        seed = config.pop("seed")
        return {**config, "reset_after": self.reset_after, "seed": seed}


class GRU(GatedRNN):
    """Gated Recurrent Unit layer over ``(batch, time, features)`` inputs."""

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
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
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        reset_after=True,
        use_cudnn="auto",
        **kwargs,
    ):
        build_cell_and_rnn(
            self, GRUCell, "gru_cell", locals(), ("recurrent_activation", "reset_after")
        )
        self.input_spec = InputSpec(ndim=3)
        self.use_cudnn = check_use_cudnn(use_cudnn)

    def get_config(self):
        config = recurrent_layer_config(self, super().get_config())
        return {**config, "reset_after": self.reset_after, "seed": self.cell.seed}


forward_to_cell(GRU, (*CELL_ATTRIBUTES, "recurrent_activation", "reset_after"))
