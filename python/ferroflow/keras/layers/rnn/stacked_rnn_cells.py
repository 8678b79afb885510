"""`tf.keras.layers.StackedRNNCells`: several RNN cells run as one, each cell's output
feeding the next; the states are one entry per cell."""

from ferroflow import nest
from ferroflow.array_ops import zeros
from ferroflow.keras.layers.layer import Layer

__all__ = ["StackedRNNCells"]


def _output_size(cell):
    if getattr(cell, "output_size", None) is not None:
        return cell.output_size
    if isinstance(cell.state_size, (list, tuple)):
        return cell.state_size[0]
    return cell.state_size


class StackedRNNCells(Layer):
    """Wraps a list of RNN cells so that an `RNN` runs them as one (a stacked RNN)."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(
                    "All cells must have a `call` method. Received cell without a `call` "
                    f"method: {cell}"
                )
            if "state_size" not in dir(cell):
                raise ValueError(
                    "All cells must have a `state_size` attribute. Received cell without a "
                    f"`state_size`: {cell}"
                )
        self.cells = cells

    @property
    def state_size(self):
        return [c.state_size for c in self.cells]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size=None):
        """Each cell's initial state (its own `get_initial_state`, else zeros)."""
        states = []
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if fn is not None:
                states.append(fn(batch_size=batch_size))
            elif isinstance(cell.state_size, int):
                states.append(zeros((batch_size, cell.state_size), dtype=self.compute_dtype))
            else:
                states.append(
                    [zeros((batch_size, d), dtype=self.compute_dtype) for d in cell.state_size]
                )
        return states

    def call(self, inputs, states, training=False, **kwargs):
        from ferroflow.keras.layers.rnn.rnn import call_cell

        new_states = []
        for cell, cell_states in zip(self.cells, states):
            was_list = nest.is_nested(cell_states)
            cell_states = list(cell_states) if was_list else [cell_states]
            inputs, cell_states = call_cell(cell, inputs, cell_states, training)
            if not nest.is_nested(cell_states):
                cell_states = [cell_states]
            if len(cell_states) == 1 and not was_list:
                cell_states = cell_states[0]
            new_states.append(cell_states)
        if len(new_states) == 1:
            new_states = new_states[0]
        return inputs, new_states

    def build(self, input_shape):
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(input_shape)
                cell.built = True
            input_shape = (nest.flatten(input_shape)[0], _output_size(cell))
        self.built = True

    def get_config(self):
        from ferroflow.keras.layers import serialization

        cells = [serialization.serialize(cell) for cell in self.cells]
        return {**super().get_config(), "cells": cells}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.layers import serialization

        cells = [
            serialization.deserialize(c, custom_objects=custom_objects) for c in config.pop("cells")
        ]
        return cls(cells, **config)
