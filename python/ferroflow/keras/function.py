"""`keras.Function`: the graph of operations recorded from symbolic inputs to symbolic outputs,
callable on new values. Like a functional model without the `Layer` API or state."""

from ferroflow.keras import tree
from ferroflow.keras._operations import Operation
from ferroflow.keras.models.functional import _map_graph, run_nodes

__all__ = ["Function"]


class Function(Operation):
    """``Function(inputs, outputs, name=None)``: ``inputs`` and ``outputs`` are (structures
    of) `KerasTensor`s; calling the function on values runs the operations between them."""

    def __init__(self, inputs, outputs, name=None):
        super().__init__(name=name)
        self._inputs_struct = tree.map_structure(lambda x: x, inputs)
        self._outputs_struct = tree.map_structure(lambda x: x, outputs)
        self._inputs = tree.flatten(inputs)
        self._outputs = tree.flatten(outputs)
        if not self._inputs:
            raise ValueError(
                f"`inputs` argument cannot be empty. Received:\ninputs={inputs}\noutputs={outputs}"
            )
        if not self._outputs:
            raise ValueError(
                f"`outputs` argument cannot be empty. Received:\ninputs={inputs}\noutputs={outputs}"
            )
        paths = [".".join(str(p) for p in path) for path, _ in tree.flatten_with_path(outputs)]
        self._nodes, self._nodes_by_depth, self._operations = _map_graph(
            self._inputs, self._outputs, paths
        )

    @property
    def operations(self):
        return self._operations[:]

    @property
    def inputs(self):
        """Flat list of the symbolic inputs of the Function."""
        return self._inputs

    @property
    def outputs(self):
        """Flat list of the symbolic outputs of the Function."""
        return self._outputs

    def call(self, inputs):
        """Computes output tensors for new inputs."""
        self._assert_input_compatibility(inputs)
        computed = {id(x): y for x, y in zip(self._inputs, tree.flatten(inputs))}
        run_nodes(self._nodes_by_depth, computed)
        return tree.pack_sequence_as(self._outputs_struct, [computed[id(x)] for x in self._outputs])

    def __call__(self, inputs):
        return self.call(inputs)

    def _assert_input_compatibility(self, inputs):
        try:
            tree.assert_same_structure(inputs, self._inputs_struct)
        except ValueError:
            raise ValueError(
                "Function was called with an invalid input structure. Expected input "
                f"structure: {self._inputs_struct}\nReceived input structure: {inputs}"
            ) from None
        for x, x_ref in zip(tree.flatten(inputs), self._inputs):
            shape, ref = tuple(_shape(x)), tuple(x_ref.shape)
            if len(shape) != len(ref) or any(
                r is not None and d is not None and d != r for d, r in zip(shape, ref)
            ):
                raise ValueError(
                    f"{type(self).__name__} was passed incompatible inputs. For input "
                    f"'{x_ref.name}', expected shape {ref}, but received instead a tensor with "
                    f"shape {shape}."
                )


def _shape(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        import numpy as np

        shape = np.shape(x)
    return tuple(shape)
