"""TensorFlow's execution-context names: whether code runs eagerly or inside a traced function,
static values, and the grouping ops (`no_op`, `group`, `tuple`), which in TensorFlow 2 order
effects that ferroflow's graphs already run in program order."""

from ferroflow import _core, _tracing
from ferroflow.array_ops import identity


def executing_eagerly():
    """False while a `tf.function` is being traced, True otherwise."""
    return not _tracing.tracing()


def inside_function():
    """True while a `tf.function` is being traced."""
    return _tracing.tracing()


def get_static_value(tensor, partial=False):
    """The numpy value of `tensor` where it is known without running a graph, else None."""
    if isinstance(tensor, _core.Tensor):
        return None if _core.is_symbolic(tensor) else tensor.numpy()
    if hasattr(tensor, "numpy"):
        return tensor.numpy()
    raise TypeError(f"Expected a tensor, got {type(tensor).__name__}: {tensor!r}")


def no_op(name=None):
    """Does nothing: None eagerly, a NoOp `tf.Operation` inside a trace (as TensorFlow)."""
    from ferroflow.name_scope import traced_operation

    return traced_operation("NoOp", name or "NoOp")


def group(*inputs, **kwargs):
    """Groups effects; ferroflow runs a graph's effects in program order, so nothing is left
    to group: None eagerly, a NoOp `tf.Operation` inside a trace (as TensorFlow)."""
    unknown = set(kwargs) - {"name"}
    if unknown:
        raise TypeError(f"Unknown keyword arguments: {sorted(unknown)}")
    from ferroflow.name_scope import traced_operation

    return traced_operation("NoOp", kwargs.get("name") or "group_deps")


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 - TensorFlow's name
    """The tensors, each through an identity (None stays None)."""
    if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors must be a list or tuple, got {type(tensors).__name__}")
    return [None if t is None else identity(t) for t in tensors]
