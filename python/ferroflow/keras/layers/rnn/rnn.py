"""`tf.keras.layers.RNN`: runs a cell (``call(input_t, states) -> (output_t, new_states)``,
``state_size``) over the time axis, with masks, ``go_backwards``, ``stateful`` state
variables, ``return_sequences``/``return_state`` and ``unroll``, as Keras 3 does."""

import inspect

from ferroflow import nest
from ferroflow.array_ops import convert_to_tensor, ones, shape, zeros
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.rnn._loop import rnn as _rnn_loop
from ferroflow.keras.layers.rnn.dropout_rnn_cell import DropoutRNNCell
from ferroflow.keras.layers.rnn.stacked_rnn_cells import StackedRNNCells
from ferroflow.variables import Variable

__all__ = ["RNN", "call_cell", "output_spec"]


def _accepts(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def call_cell(cell, inputs, states, training=None):
    """One step of ``cell`` (a layer, or any object with ``call``), passing ``training``
    only to a cell whose ``call`` takes it."""
    kwargs = {"training": training} if _accepts(cell.call, "training") else {}
    fn = cell if isinstance(cell, Layer) else cell.call
    return fn(inputs, states, **kwargs)


def _keras_tensors(shapes, dtype):
    from ferroflow.keras.layers.input_layer import KerasTensor

    if isinstance(shapes, (tuple, list)) and all(d is None or isinstance(d, int) for d in shapes):
        return KerasTensor(tuple(shapes), dtype=dtype)
    return type(shapes)(_keras_tensors(s, dtype) for s in shapes)


def output_spec(layer, sequences):
    """`KerasTensor`s shaped as ``layer.compute_output_shape`` says for ``sequences``,
    building ``layer`` for that shape first."""
    shape = tuple(sequences.shape)
    if not layer.built:
        layer.build(shape)
        layer.built = True
    return _keras_tensors(layer.compute_output_shape(shape), layer.compute_dtype)


def _zeros_state(batch_size, size, dtype):
    return zeros((batch_size, *nest.flatten(size)), dtype=dtype)


class RNN(Layer):
    """Base class of recurrent layers: a cell (or a list of cells, stacked) run over the
    time axis of ``(batch, time, ...)`` inputs."""

    _no_dependency_attributes = Layer._no_dependency_attributes | {"states", "_build_shape"}

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if "call" not in dir(cell):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        if "state_size" not in dir(cell):
            raise ValueError(
                "The RNN cell should have a `state_size` attribute (single integer or list of "
                f"integers, one integer per RNN state). Received: cell={cell}"
            )
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.supports_masking = True
        self.states = None
        self._expected_batch_size = None
        state_size = getattr(cell, "state_size", None)
        if state_size is None:
            raise ValueError("state_size must be specified as property on the RNN cell.")
        if not isinstance(state_size, (list, tuple, int)):
            raise ValueError(
                "state_size must be an integer, or a list/tuple of integers (one for each "
                "state tensor)."
            )
        self.single_state = isinstance(state_size, int)
        self.state_size = [state_size] if self.single_state else list(state_size)

    # --- shapes and masks -----------------------------------------------------------------

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch_size, length = sequences_shape[0], sequences_shape[1]
        states_shape = []
        for size in self.state_size:
            if isinstance(size, int):
                states_shape.append((batch_size, size))
            else:
                states_shape.append([(batch_size, s) for s in size])
        output_size = getattr(self.cell, "output_size", None)
        if output_size is None:
            output_size = self.state_size[0]
        if not isinstance(output_size, int):
            raise ValueError("output_size must be an integer.")
        if self.return_sequences:
            output_shape = (batch_size, length, output_size)
        else:
            output_shape = (batch_size, output_size)
        if self.return_state:
            return output_shape, *states_shape
        return output_shape

    def get_build_config(self):
        """Keras's ``build_config``: the sequences' shape this layer was built for."""
        shape = self.__dict__.get("_build_shape")
        return {"input_shape": shape} if self.built and shape is not None else None

    def build_from_config(self, config):
        self.build(tuple(config["input_shape"]))

    def compute_output_spec(self, sequences, initial_state=None, mask=None, training=None):
        """The functional API's outputs, from `compute_output_shape` as in Keras 3 (the
        layer is built first; `call` does not run)."""
        return output_spec(self, sequences)

    def compute_mask(self, inputs, mask):
        """The input mask for ``return_sequences`` outputs, else None (and None per state)."""
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in self.state_size]
        return output_mask

    # --- building and states ---------------------------------------------------------------

    def build(self, sequences_shape, initial_state_shape=None):
        object.__setattr__(self, "_build_shape", tuple(sequences_shape))
        step_input_shape = (sequences_shape[0], *tuple(sequences_shape[2:]))
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build(step_input_shape)
            self.cell.built = True
        if self.stateful:
            if self.states is not None:
                self.reset_state()
            else:
                if sequences_shape[0] is None:
                    raise ValueError(
                        "When using `stateful=True` in a RNN, the batch size must be static. "
                        f"Found dynamic batch size: sequence.shape={sequences_shape}"
                    )
                self._create_state_variables(sequences_shape[0])
                self._expected_batch_size = sequences_shape[0]
        self.built = True

    def _create_state_variables(self, batch_size):
        states = nest.map_structure(
            lambda value: Variable(value, trainable=False, name="rnn_state"),
            self.get_initial_state(batch_size),
        )
        object.__setattr__(self, "states", states)

    def get_initial_state(self, batch_size):
        """The states a call starts from without ``initial_state``: the cell's
        `get_initial_state`, else zeros of ``(batch_size, size)`` per state."""
        fn = getattr(self.cell, "get_initial_state", None)
        if fn is None:
            return [_zeros_state(batch_size, d, self.cell_dtype) for d in self.state_size]
        state = fn(batch_size=batch_size)
        return list(state) if nest.is_nested(state) else [state]

    @property
    def cell_dtype(self):
        return getattr(self.cell, "compute_dtype", self.compute_dtype)

    def reset_states(self):
        """Alias of `reset_state`."""
        self.reset_state()

    def reset_state(self):
        """Sets a stateful layer's state variables back to zeros."""
        if self.states is not None:
            for v in nest.flatten(self.states):
                v.assign(zeros(v.shape, v.dtype))

    # --- calling ----------------------------------------------------------------------------

    def inner_loop(self, sequences, initial_state, mask, training=False):
        def step(inputs, states):
            output, new_states = call_cell(self.cell, inputs, states, training)
            if not nest.is_nested(new_states):
                new_states = [new_states]
            return output, new_states

        if not nest.is_nested(initial_state):
            initial_state = [initial_state]
        return _rnn_loop(
            step,
            sequences,
            initial_state,
            go_backwards=self.go_backwards,
            mask=mask,
            unroll=self.unroll,
            zero_output_for_mask=self.zero_output_for_mask,
            return_all_outputs=self.return_sequences,
        )

    def call(self, sequences, initial_state=None, mask=None, training=False):
        timesteps = sequences.shape[1]
        if self.unroll and timesteps is None:
            raise ValueError(
                "Cannot unroll a RNN if the time dimension is undefined. \n- If using a "
                "Sequential model, specify the time dimension by passing an `Input()` as your "
                "first layer.\n- If using the functional API, specify the time dimension by "
                "passing a `shape` or `batch_shape` argument to your `Input()`."
            )
        if initial_state is None:
            if self.stateful:
                initial_state = [v.value() for v in nest.flatten(self.states)]
                initial_state = nest.pack_sequence_as(self.states, initial_state)
            else:
                batch = sequences.shape[0]
                initial_state = self.get_initial_state(
                    batch if batch is not None else shape(sequences)[0]
                )
        if self.stateful:
            actual = sequences.shape[0]
            if (
                self._expected_batch_size is not None
                and actual is not None
                and actual != self._expected_batch_size
            ):
                raise ValueError(
                    "If an RNN is stateful, the batch size of the input sequences must be the "
                    "same as the batch size of the initial state. \n- Expected batch size: "
                    f"{self._expected_batch_size}\n- Received batch size: {actual}"
                )
        if not nest.is_nested(initial_state):
            initial_state = [initial_state]
        initial_state = nest.map_structure(
            lambda x: convert_to_tensor(x, dtype=self.cell_dtype), list(initial_state)
        )
        self._config_dropout_masks(self.cell, sequences[:, 0], initial_state)
        try:
            last_output, outputs, states = self.inner_loop(
                sequences=sequences, initial_state=initial_state, mask=mask, training=training
            )
        finally:
            self._reset_dropout_masks(self.cell)
        if self.stateful:
            for variable, state in zip(nest.flatten(self.states), nest.flatten(states)):
                variable.assign(state)
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return output, *states
        return output

    def _config_dropout_masks(self, cell, step_input, state):
        """Draws the dropout masks of this call before the loop, so every step (and every
        iteration of a graph loop) reuses them, as Keras does."""
        if isinstance(cell, DropoutRNNCell):
            first = state[0] if isinstance(state, (list, tuple)) else state
            cell.get_dropout_mask(step_input)
            cell.get_recurrent_dropout_mask(first)
        if isinstance(cell, StackedRNNCells):
            for inner, inner_state in zip(cell.cells, state):
                self._config_dropout_masks(inner, step_input, inner_state)
                # The next cell's inputs are this cell's outputs: only their shape matters.
                size = getattr(inner, "output_size", None) or nest.flatten(inner.state_size)[0]
                step_input = ones((shape(step_input)[0], size), dtype=step_input.dtype)

    def _reset_dropout_masks(self, cell):
        if isinstance(cell, DropoutRNNCell):
            cell.reset_dropout_mask()
            cell.reset_recurrent_dropout_mask()
        if isinstance(cell, StackedRNNCells):
            for inner in cell.cells:
                self._reset_dropout_masks(inner)

    # --- configs ----------------------------------------------------------------------------

    def get_config(self):
        from ferroflow.keras.layers import serialization

        config = {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
            "cell": serialization.serialize(self.cell),
        }
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.layers import serialization

        # Keras pops the cell from the caller's dict, which then lacks it: so does ferroflow.
        cell = serialization.deserialize(config.pop("cell"), custom_objects=custom_objects)
        return cls(cell, **config)
