"""The outputs of an operation called on `KerasTensor`s: their shapes and dtypes.

A layer with a `compute_output_spec` method (Keras 3's name) says them itself. Otherwise Keras
infers them with the framework's own shape rules, and so does ferroflow: the operation
runs once inside a trace whose placeholders have the symbolic shapes (None kept), and each
output's static dims are what the ops' declared shape rules (`Primitive::infer`) say -- the
rules `tf.function` uses. Where that cannot answer (the layer still has to build its weights,
a trace is already open, or the layer read an example's size or failed there), the operation
runs on zeros twice with different sizes, and an output dimension that differs between the runs
is None.
"""

from ferroflow import _core, nest
from ferroflow.array_ops import zeros
from ferroflow.tensor_shape import TensorShape

__all__ = ["output_keras_tensors"]

# Sizes the zeros runs give unknown dimensions: the batch dimension (axis 0) is 1; other unknown
# dimensions get two sizes large enough for kernels and pooling windows.
_UNKNOWN_SIZES = (64, 96)


def _keras_tensor_type():
    from ferroflow.keras.layers.input_layer import KerasTensor

    return KerasTensor


def _zeros_like_symbolic(x, inner_size):
    dims = [(1 if axis == 0 else inner_size) if d is None else d for axis, d in enumerate(x.shape)]
    return zeros(dims, x.dtype)


def _call(operation, call_args, kwargs, concrete):
    """``operation`` called with each `KerasTensor` replaced by ``concrete(tensor)``."""
    from ferroflow.keras.layers.layer import Layer

    keras_tensor = _keras_tensor_type()

    def replace(x):
        return concrete(x) if isinstance(x, keras_tensor) else x

    args = nest.map_structure(replace, list(call_args))
    kwargs = nest.map_structure(replace, dict(kwargs)) if kwargs else {}
    if not isinstance(operation, Layer):
        return operation.call(*args, **kwargs)
    from ferroflow.keras._symbolic import accepts_call_argument

    if accepts_call_argument(operation, "training"):
        kwargs["training"] = False
    # This is not the layer's first real call: keep what Layer.__call__ records of that one.
    first_call_specs = operation.__dict__.get("_first_call_specs")
    try:
        return operation(*args, **kwargs)
    finally:
        if "_first_call_specs" in operation.__dict__:
            object.__setattr__(operation, "_first_call_specs", first_call_specs)


def _check_tensor(operation, value):
    if not hasattr(value, "shape") or not hasattr(value, "dtype"):
        raise TypeError(
            f"{type(operation).__name__} '{operation.name}' returned {value!r}, which is not "
            "a tensor: layers used in functional models must return tensors."
        )


def _abstract(operation, call_args, kwargs):
    """(outputs, their static dims) from one traced call, or None where tracing cannot say."""
    from ferroflow.keras.layers.layer import Layer

    if _core.graph_tracing() or (isinstance(operation, Layer) and not operation.built):
        return None

    def placeholder(x):
        example = _zeros_like_symbolic(x, _UNKNOWN_SIZES[0])
        return _core.trace_placeholder(example, "input", list(TensorShape(x.shape).as_list()))

    _core.trace_begin()
    try:
        outputs = _call(operation, call_args, kwargs, placeholder)
        flat = nest.flatten(outputs)
        for value in flat:
            _check_tensor(operation, value)
        infos = [_core.symbolic_info(value) for value in flat]
        graph = _core.trace_finish([_core.convert_to_tensor(v, None, None) for v in flat])
    except Exception:
        # A layer that needs example values (or fails) in a trace: the zeros runs decide, and
        # raise its error if it has one.
        _core.trace_abandon()
        return None
    except BaseException:
        _core.trace_abandon()
        raise
    if graph.specialised or any(info is not None and info[1] is None for info in infos):
        return None
    # An output the trace never made (a constant) has its own shape.
    dims = [list(info[1]) if info else list(TensorShape(v.shape)) for v, info in zip(flat, infos)]
    return outputs, dims


def _by_zeros(operation, call_args, kwargs):
    """(outputs, dims) from runs on zeros: an unknown batch dimension is put back as None;
    unknown inner dimensions get a second run with another size, and output dimensions that
    follow them become None too."""
    keras_tensor = _keras_tensor_type()
    symbolic = [
        x for x in nest.flatten((list(call_args), dict(kwargs))) if isinstance(x, keras_tensor)
    ]

    def run(size):
        return _call(operation, call_args, kwargs, lambda x: _zeros_like_symbolic(x, size))

    first = run(_UNKNOWN_SIZES[0])
    flat_first = nest.flatten(first)
    flat_second = flat_first
    if any(d is None for x in symbolic for d in list(x.shape)[1:]):
        flat_second = nest.flatten(run(_UNKNOWN_SIZES[1]))
    unknown_batch = bool(symbolic) and all(len(x.shape) and x.shape[0] is None for x in symbolic)
    all_dims = []
    for value, other in zip(flat_first, flat_second):
        _check_tensor(operation, value)
        dims = list(TensorShape(value.shape))
        other_dims = list(TensorShape(other.shape))
        if len(other_dims) == len(dims):
            dims = [a if a == b else None for a, b in zip(dims, other_dims)]
        if unknown_batch and dims:
            dims[0] = None
        all_dims.append(dims)
    return first, all_dims


def output_keras_tensors(operation, call_args, kwargs):
    """`KerasTensor`s for the outputs of ``operation(*call_args, **kwargs)``."""
    keras_tensor = _keras_tensor_type()
    stated = getattr(operation, "compute_output_spec", None)
    if stated is not None:
        # A layer that states its outputs, as Keras 3's `compute_output_spec` does, is not
        # run: Keras's functional shapes are what that method says (EinsumDense keeps the
        # None of its `output_shape`, MultiHeadAttention's scores are (B, heads, T, T)).
        return stated(*call_args, **kwargs)
    found = _abstract(operation, call_args, kwargs) or _by_zeros(operation, call_args, kwargs)
    outputs, dims = found
    flat = nest.flatten(outputs)
    from ferroflow.sparse_tensor import SparseTensor

    made = [
        keras_tensor(shape=d, dtype=v.dtype, sparse=isinstance(v, SparseTensor))
        for v, d in zip(flat, dims)
    ]
    return nest.pack_sequence_as(outputs, made)
