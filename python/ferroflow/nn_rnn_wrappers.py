"""`tf.nn.RNNCellDropoutWrapper`, `RNNCellResidualWrapper` and `RNNCellDeviceWrapper`: TensorFlow
2.21 exports its legacy Keras-2 cell wrappers (DropoutWrapper, ResidualWrapper, DeviceWrapper)
under these names; each is a layer around a cell (``call(inputs, states) -> (output,
new_states)`` with `state_size` and `output_size`) that calls the cell's `call` and changes
its inputs, outputs or states.

*Departure:* DropoutWrapper's masks come from `tf.nn.dropout` with TensorFlow's per-tensor
seeds (md5 of the seed and a salt), but ferroflow's dropout stream is not TensorFlow's, so
with a keep probability below 1 the dropped elements differ (the rate and scaling do not)."""

import hashlib
import numbers

import ferroflow as _tf
from ferroflow.keras.layers import Layer

__all__ = ["RNNCellDeviceWrapper", "RNNCellDropoutWrapper", "RNNCellResidualWrapper"]


class _CellWrapper(Layer):
    """A layer that calls `cell.call` and adapts what goes in and out."""

    def __init__(self, cell, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cell = cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def call(self, inputs, state, **kwargs):
        return self._call_wrapped_cell(inputs, state, self.cell.call, **kwargs)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return self.cell.get_initial_state(inputs=inputs, batch_size=batch_size, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        config["cell"] = {"class_name": type(self.cell).__name__, "config": self.cell.get_config()}
        return config


class ResidualWrapper(_CellWrapper):
    """Adds the cell's input to its output (or applies ``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def add(i, o):
            i, o = _tf.convert_to_tensor(i), _tf.convert_to_tensor(o)
            i.shape.assert_is_compatible_with(o.shape)
            return i + o

        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state
        _tf.nest.assert_same_structure(inputs, outputs)
        return _tf.nest.map_structure(add, inputs, outputs), new_state


class DeviceWrapper(_CellWrapper):
    """Runs the cell on `device`."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with _tf.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)


class DropoutWrapper(_CellWrapper):
    """Dropout on the cell's inputs, outputs and states, with keep probabilities."""

    def __init__(
        self,
        cell,
        input_keep_prob=1.0,
        output_keep_prob=1.0,
        state_keep_prob=1.0,
        variational_recurrent=False,
        input_size=None,
        dtype=None,
        seed=None,
        dropout_state_filter_visitor=None,
        **kwargs,
    ):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(
                "dropout_state_filter_visitor must be callable. "
                f"Received: {dropout_state_filter_visitor}"
            )
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            raise NotImplementedError(
                "ferroflow's RNNCellDropoutWrapper has no variational_recurrent masks yet"
            )
        self._filter = dropout_state_filter_visitor or (lambda _: True)
        self._seed = seed
        probs = {}
        for name, value in (
            ("input_keep_prob", input_keep_prob),
            ("state_keep_prob", state_keep_prob),
            ("output_keep_prob", output_keep_prob),
        ):
            if isinstance(value, numbers.Real):
                if value < 0 or value > 1:
                    raise ValueError(f"Parameter {name} must be between 0 and 1: {int(value)}")
            probs[name] = value
        self._input_keep_prob = probs["input_keep_prob"]
        self._state_keep_prob = probs["state_keep_prob"]
        self._output_keep_prob = probs["output_keep_prob"]

    def _gen_seed(self, salt_prefix, index):
        """TensorFlow's per-tensor seed: md5 of the seed and the salt."""
        if self._seed is None:
            return None
        salt = f"{salt_prefix}_{index}"
        digest = hashlib.md5((str(self._seed) + salt).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, keep_prob, shallow=None):
        def drop(i, value):
            return _tf.nn.dropout(value, rate=1 - keep_prob, seed=self._gen_seed(salt_prefix, i))

        flat = _tf.nest.flatten(values)
        keep = _tf.nest.flatten(shallow) if shallow is not None else [True] * len(flat)
        out = [drop(i, v) if k else v for i, (v, k) in enumerate(zip(flat, keep))]
        return _tf.nest.pack_sequence_as(values, out)

    @staticmethod
    def _active(prob):
        return not (isinstance(prob, numbers.Real) and prob == 1)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        if self._active(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if self._active(self._state_keep_prob):
            shallow = _tf.nest.map_structure(self._filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, shallow)
        if self._active(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


# TensorFlow's names for them in tf.nn.
RNNCellDropoutWrapper = DropoutWrapper
RNNCellResidualWrapper = ResidualWrapper
RNNCellDeviceWrapper = DeviceWrapper
