"""Symbolic calls for the functional API: a layer called on `KerasTensor`s records a node
instead of computing (being written)."""

__all__ = ["any_symbolic", "symbolic_call"]


def any_symbolic(inputs):
    return False


def symbolic_call(layer, inputs, args, kwargs):
    raise NotImplementedError("the functional API is being written")
