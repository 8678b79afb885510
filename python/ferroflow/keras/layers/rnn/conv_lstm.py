"""`tf.keras.layers.ConvLSTM1D/2D/3D`: an LSTM whose input and recurrent transformations
are convolutions (Shi et al., 2015). Kernels ``kernel_size + (channels, 4 * filters)`` and
``kernel_size + (filters, 4 * filters)``, gates in i, f, c, o order, as in Keras 3."""

from ferroflow.array_ops import concat, ones, reshape, split, transpose, zeros
from ferroflow.keras.layers._shapes import (
    standardize_data_format,
    standardize_padding,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.rnn._cell_base import RecurrentCell, _arguments_config
from ferroflow.keras.layers.rnn.rnn import RNN
from ferroflow.nn import conv3d, convolution

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


def _conv_out_size(size, kernel, stride, dilation, padding):
    if padding == "same":
        return -(-size // stride)
    return (size - dilation * (kernel - 1) - 1) // stride + 1


class ConvLSTMCell(RecurrentCell):
    """The cell of the ConvLSTM layers; states ``[h, c]`` of the output's spatial shape."""

    gates = 4

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        recurrent_activation="sigmoid",
        unit_forget_bias=True,
        **kwargs,
    ):
        from ferroflow.keras import activations

        if rank > 3:
            raise ValueError(
                f"Rank {rank} convolutions are not currently implemented. Received: rank={rank}"
            )
        super().__init__(filters, **kwargs)
        self.rank = rank
        self.filters = filters
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = standardize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = standardize_padding(padding)
        self.data_format = standardize_data_format(data_format)
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "Specifying `strides > 1` is not compatible with `dilation_rate > 1`. Please "
                f"provide `strides=1` or `dilation_rate=1`. Received: strides={self.strides} "
                f"and dilation_rate={self.dilation_rate}"
            )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.dropout_mask_count = 4
        self.input_spec = InputSpec(ndim=rank + 2)
        self.state_size = -1

    def build(self, inputs_shape, states_shape=None):
        first = self.data_format == "channels_first"
        self.spatial_dims = tuple(inputs_shape[2:] if first else inputs_shape[1:-1])
        if None in self.spatial_dims:
            raise ValueError(
                "ConvLSTM layers only support static input shapes for the spatial dimension. "
                f"Received invalid input shape: input_shape={inputs_shape}"
            )
        channels = inputs_shape[1 if first else -1]
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs (last axis) should be defined. Found "
                f"None. Full input shape received: input_shape={inputs_shape}"
            )
        self.input_spec = InputSpec(ndim=self.rank + 3, shape=(None, *inputs_shape[1:]))
        self.input_dim = channels
        f = self.filters
        bias_initializer = None
        if self.use_bias and self.unit_forget_bias:

            def bias_initializer(_, *args, **kwargs):
                init = self.bias_initializer
                return concat(
                    [
                        init((f,), *args, **kwargs),
                        ones((f,), *args, **kwargs),
                        init((f * 2,), *args, **kwargs),
                    ],
                    0,
                )

        self.kernel_shape = (*self.kernel_size, channels, f * 4)
        self._add_cell_weights(
            self.kernel_shape, (*self.kernel_size, f, f * 4), (f * 4,), bias_initializer
        )
        self.built = True

    def _conv(self, x, w, strides, padding, dilation):
        first = self.data_format == "channels_first"
        if first:
            # Computed channels_last between transposes (TensorFlow's CPU kernels are NHWC).
            x = transpose(x, [0, *range(2, self.rank + 2), 1])
        if self.rank == 3:
            out = conv3d(x, w, [1, *strides, 1], padding.upper(), dilations=[1, *dilation, 1])
        else:
            out = convolution(x, w, list(strides), padding.upper(), dilations=list(dilation))
        if first:
            out = transpose(out, [0, self.rank + 1, *range(1, self.rank + 1)])
        return out

    def call(self, inputs, states, training=False):
        from ferroflow.keras.layers.rnn._gated import gate_inputs

        h_tm1, c_tm1 = states[0], states[1]
        xs, hs = gate_inputs(self, inputs, h_tm1, training)
        kernels = split(self.kernel, 4, axis=self.rank + 1)
        recurrent = split(self.recurrent_kernel, 4, axis=self.rank + 1)
        biases = split(self.bias, 4) if self.use_bias else [None] * 4
        ones_rank = (1,) * self.rank
        z = []
        for x, h, k, r, b in zip(xs, hs, kernels, recurrent, biases):
            x = self._conv(x, k, self.strides, self.padding, self.dilation_rate)
            if b is not None:
                shape = (1, *ones_rank, self.filters)
                if self.data_format == "channels_first":
                    shape = (1, self.filters, *ones_rank)
                x = x + reshape(b, shape)
            z.append(x + self._conv(h, r, (1,) * self.rank, "same", (1,) * self.rank))
        act, ract = self.activation, self.recurrent_activation
        i, f, o = ract(z[0]), ract(z[1]), ract(z[3])
        c = f * c_tm1 + i * act(z[2])
        h = o * act(c)
        return h, [h, c]

    def _state_shape(self, batch_size):
        sizes = [
            _conv_out_size(s, k, st, d, self.padding)
            for s, k, st, d in zip(
                self.spatial_dims, self.kernel_size, self.strides, self.dilation_rate
            )
        ]
        if self.data_format == "channels_first":
            return (batch_size, self.filters, *sizes)
        return (batch_size, *sizes, self.filters)

    def get_initial_state(self, batch_size=None):
        shape = self._state_shape(batch_size)
        return [zeros(shape, self.compute_dtype), zeros(shape, self.compute_dtype)]

    def get_config(self):
        # The base Layer's part, then the convolution's arguments (no ``units``).
        base = super(RecurrentCell, self).get_config()
        return {**base, **_conv_config(self), "seed": self.seed}


def _conv_config(source, with_activity=False):
    config = _arguments_config(source, with_activity)
    config.pop("units", None)
    return {
        "filters": source.filters,
        "kernel_size": source.kernel_size,
        "strides": source.strides,
        "padding": source.padding,
        "data_format": source.data_format,
        "dilation_rate": source.dilation_rate,
        **config,
    }


_FORWARDED = (
    "filters",
    "kernel_size",
    "strides",
    "padding",
    "data_format",
    "dilation_rate",
    "activation",
    "recurrent_activation",
    "use_bias",
    "kernel_initializer",
    "recurrent_initializer",
    "bias_initializer",
    "unit_forget_bias",
    "kernel_regularizer",
    "recurrent_regularizer",
    "bias_regularizer",
    "kernel_constraint",
    "recurrent_constraint",
    "bias_constraint",
    "dropout",
    "recurrent_dropout",
)


class ConvLSTM(RNN):
    """Base of ConvLSTM1D/2D/3D: a ConvLSTM cell of rank ``rank`` run over time."""

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        activity_regularizer=None,
        **kwargs,
    ):
        cell_args = {k: kwargs.pop(k) for k in list(kwargs) if k in _CELL_ARGS}
        cell = ConvLSTMCell(
            rank,
            filters,
            kernel_size,
            name="conv_lstm_cell",
            dtype=kwargs.get("dtype"),
            **cell_args,
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=rank + 3)

    def call(self, sequences, initial_state=None, mask=None, training=False):
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch_size, steps = sequences_shape[0], sequences_shape[1]
        if not self.cell.built:
            self.cell.spatial_dims = tuple(
                sequences_shape[3:]
                if self.cell.data_format == "channels_first"
                else sequences_shape[2:-1]
            )
        state_shape = self.cell._state_shape(batch_size)[1:]
        if self.return_sequences:
            output_shape = (batch_size, steps, *state_shape)
        else:
            output_shape = (batch_size, *state_shape)
        if self.return_state:
            state = (batch_size, *state_shape)
            return output_shape, state, state
        return output_shape

    def compute_mask(self, inputs, mask):
        from ferroflow import nest

        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask, None, None]
        return output_mask

    def get_config(self):
        base = dict(super().get_config())
        base.pop("cell", None)
        base.pop("activity_regularizer", None)
        return {**base, **_conv_config(self, with_activity=True), "seed": self.cell.seed}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


for _name in _FORWARDED:
    setattr(ConvLSTM, _name, property(lambda self, n=_name: getattr(self.cell, n)))

_CELL_ARGS = frozenset(
    {
        "strides",
        "padding",
        "data_format",
        "dilation_rate",
        "activation",
        "recurrent_activation",
        "use_bias",
        "kernel_initializer",
        "recurrent_initializer",
        "bias_initializer",
        "unit_forget_bias",
        "kernel_regularizer",
        "recurrent_regularizer",
        "bias_regularizer",
        "kernel_constraint",
        "recurrent_constraint",
        "bias_constraint",
        "dropout",
        "recurrent_dropout",
        "seed",
    }
)


def _make(rank):
    class _ConvLSTMnD(ConvLSTM):
        def __init__(self, filters, kernel_size, **kwargs):
            super().__init__(rank, filters, kernel_size, **kwargs)

    return _ConvLSTMnD


class ConvLSTM1D(_make(1)):
    """1-D convolutional LSTM over ``(batch, time, steps, channels)`` inputs."""


class ConvLSTM2D(_make(2)):
    """2-D convolutional LSTM over ``(batch, time, rows, cols, channels)`` inputs."""


class ConvLSTM3D(_make(3)):
    """3-D convolutional LSTM over ``(batch, time, d1, d2, d3, channels)`` inputs."""
