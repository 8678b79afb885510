"""Small `tf.keras.utils` helpers: `normalize`, `standardize_dtype`, `is_keras_tensor`,
`get_source_inputs` and the interactive-logging switches."""

import numpy as np

__all__ = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "get_source_inputs",
    "is_interactive_logging_enabled",
    "is_keras_tensor",
    "normalize",
    "standardize_dtype",
]

# Keras's ALLOWED_DTYPES.
_ALLOWED_DTYPES = frozenset(
    (
        "float16",
        "float32",
        "float64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "bfloat16",
        "bool",
        "string",
        "float8_e4m3fn",
        "float8_e5m2",
        "complex64",
        "complex128",
    )
)

_state = {"interactive_logging": True}


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis``: NumPy in, NumPy out (zero norms
    leave the values as they are); tensors go through `keras.ops.normalize`."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        axis = axis or -1
        return x / np.expand_dims(norm, axis)
    from ferroflow.keras.ops.nn import normalize as ops_normalize

    return ops_normalize(x, axis=axis, order=order)


def standardize_dtype(dtype):
    """A dtype's Keras name ("float32"): None is floatx, Python ``int`` is "int64"; a dtype
    Keras does not allow is a ValueError."""
    from ferroflow.keras.ops._dtypes import standardize_dtype as standardize

    if isinstance(dtype, str) and dtype == "float":
        raise ValueError(f"Invalid dtype: {dtype}")
    name = standardize(dtype)
    if name not in _ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return name


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic `KerasTensor` (a functional-API value)."""
    from ferroflow.keras.layers.input_layer import KerasTensor

    return isinstance(x, KerasTensor)


def get_source_inputs(tensor):
    """The `keras.Input` tensors that ``tensor`` is computed from (``[tensor]`` for an input;
    anything without a Keras history is returned as it is)."""
    from ferroflow.keras._symbolic import inbound_nodes

    history = getattr(tensor, "_keras_history", None)
    if history is None:
        return tensor
    operation, node_index, _ = history
    nodes = inbound_nodes(operation) if operation is not None else []
    if not nodes:
        return [tensor]
    node = nodes[node_index]
    if node.is_input:
        return list(node.output_tensors)
    sources = []
    for parent in node.input_tensors:
        for x in get_source_inputs(parent):
            if all(x is not t for t in sources):
                sources.append(x)
    return sources


def enable_interactive_logging():
    """Logs go to stdout (the default)."""
    _state["interactive_logging"] = True


def disable_interactive_logging():
    """Logs go to Python's logging instead of stdout."""
    _state["interactive_logging"] = False


def is_interactive_logging_enabled():
    return _state["interactive_logging"]
