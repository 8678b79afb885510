"""Tensor creation, conversion, shapes and indexing (TensorFlow's array_ops)."""

import collections

from ferroflow import _core, _dispatch, _dynamic_slice, _tracing
from ferroflow import dtypes as _dtypes
from ferroflow.dtypes import enum_of as _enum
from ferroflow.extension_type import ExtensionType
from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import CompositeTensor

Tensor = _core.Tensor
newaxis = None

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
Unique = collections.namedtuple("Unique", ["y", "idx"])


def _dims(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list()
    return shape


def constant(value, dtype=None, shape=None, name="Const"):
    """Creates a constant tensor from a Python value, numpy array or tensor.

    >>> import ferroflow as tf
    >>> tf.constant([[1., 2.], [3., 4.]]).shape
    TensorShape([2, 2])
    """
    value, dtype = _dtypes.unwrap_quantized(value, dtype)
    return _core.constant(value, _enum(dtype), _dims(shape))


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts a value to a tensor; ``dtype`` must then match, ``dtype_hint`` is a preference."""
    return _core.convert_to_tensor(value, _enum(dtype), _enum(dtype_hint))


def is_tensor(x):
    """True for tensors, variables and TensorFlow's built-in composite tensors (SparseTensor,
    RaggedTensor, IndexedSlices), as TensorFlow's `tf.is_tensor`; False for ExtensionType
    values (StructuredTensor included), which TensorFlow does not count as tensors."""
    if _core.is_tensor(x):
        return True
    return isinstance(x, CompositeTensor) and not isinstance(x, ExtensionType)


def identity(input, name=None):  # noqa: A002 - TensorFlow's argument name
    try:
        return _core.unary("identity", convert_to_tensor(input))
    except Exception:
        return _dispatch.dispatch_on_error(identity, (input,), {})


_dispatch.declare(identity, "unary")


def cast(x, dtype, name=None):
    """Casts to ``dtype``: floats to ints truncate, complex to real keeps the real part."""
    try:
        return _core.cast(x, _enum(dtype))
    except Exception:
        return _dispatch.dispatch_on_error(cast, (x, dtype), {})


_dispatch.declare(cast, "unary")


@_dispatch.add_dispatch_support
def zeros(shape, dtype=_dtypes.float32, name=None, layout=None):
    return _core.zeros(_dims(shape), _enum(dtype))


@_dispatch.add_dispatch_support
def ones(shape, dtype=_dtypes.float32, name=None, layout=None):
    return _core.ones(_dims(shape), _enum(dtype))


def _filled_like(kind, input, dtype):  # noqa: A002
    # ZerosLike/OnesLike take their shape when they run, so a traced size stays unknown.
    t = convert_to_tensor(input)
    if dtype is not None and _enum(dtype) != t._dtype_enum:
        # Another dtype: as TensorFlow, zeros or ones of the input's shape alone, whatever
        # the input's dtype (strings too; ones of strings is TensorFlow's TypeError).
        make = zeros if kind == "zeros_like" else ones
        return make(shape(t), dtype)
    return _core.unary(kind, t)


@_dispatch.add_dispatch_support(kind="unary")
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    return _filled_like("zeros_like", input, dtype)


@_dispatch.add_dispatch_support(kind="unary")
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    return _filled_like("ones_like", input, dtype)


@_dispatch.add_dispatch_support
def fill(dims, value, name=None, layout=None):
    return _core.fill(_dims(dims), value)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None):
    if _core.is_symbolic(num_rows) or _core.is_symbolic(num_columns):
        return _eye_at_run_time(num_rows, num_columns, batch_shape, dtype)
    return _core.eye(num_rows, num_columns, batch_shape, _enum(dtype))


def _eye_at_run_time(num_rows, num_columns, batch_shape, dtype):
    """`eye` whose sizes a traced graph computes: ones where the row and column indices meet."""
    from ferroflow import math as _math

    rows = range(cast(num_rows, _dtypes.int32))
    cols = rows if num_columns is None else range(cast(num_columns, _dtypes.int32))
    matrix = cast(_math.equal(expand_dims(rows, 1), expand_dims(cols, 0)), dtype)
    if batch_shape is None:
        return matrix
    target = concat([cast(batch_shape, _dtypes.int32), shape(matrix)], 0)
    return broadcast_to(matrix, target)


_RANGE_ORDER = ["int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _range_dtype(values):
    best = None
    for v in values:
        d = convert_to_tensor(v).dtype
        if d.name in _RANGE_ORDER and (
            best is None or _RANGE_ORDER.index(d.name) > _RANGE_ORDER.index(best.name)
        ):
            best = d
    return best or _dtypes.int32


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """Like Python's range: ``tf.range(5)``, ``tf.range(1, 2, 0.3)``."""
    if limit is None:
        start, limit = 0, start
    if dtype is None:
        dtype = _range_dtype((start, limit, delta))
    result = _core.range(start, limit, delta, _enum(dtype))
    if _tracing.tracing():
        _tracing.note_range(result, start, limit, delta)
    return result


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    if axis != 0:
        raise NotImplementedError("linspace supports axis=0 only")
    if _core.is_symbolic(num):
        return _linspace_at_run_time(start, stop, num)
    return _core.linspace(start, stop, num)


def _linspace_at_run_time(start, stop, num):
    """`linspace` with a count a traced graph computes, as TensorFlow composes it: the start,
    ``start + i * delta`` for i in 1..num-2, the stop, cut to ``num`` values."""
    from ferroflow import math as _math

    start = convert_to_tensor(start)
    dtype = start.dtype if start.dtype.is_floating else _dtypes.float32
    start, stop = cast(start, dtype), cast(stop, dtype)
    count = cast(num, _dtypes.int32)
    steps = _math.maximum(count - 1, 1)
    delta = (stop - start) / cast(steps, dtype)
    middle = start + cast(range(1, steps), dtype) * delta
    ends = concat([reshape(start, [1]), middle, reshape(stop, [1])], 0)
    return gather(ends, range(count))


def reshape(tensor, shape, name=None):
    return _core.reshape(tensor, _dims(shape))


def transpose(a, perm=None, conjugate=False, name="transpose"):
    return _core.transpose(a, perm, conjugate)


@_dispatch.add_dispatch_support
def concat(values, axis, name="concat"):
    return _core.concat(values, axis)


@_dispatch.add_dispatch_support
def stack(values, axis=0, name="stack"):
    return _core.stack(values, axis)


def unstack(value, num=None, axis=0, name="unstack"):
    if num is None and _core.graph_tracing():
        # The number of outputs is the size along `axis`: unknown while tracing, TensorFlow
        # asks for `num` rather than tie the graph to one size.
        shape = getattr(value, "shape", None)
        rank = getattr(shape, "rank", None)
        if rank is not None and -rank <= axis < rank and shape[axis] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {shape}")
    return _core.unstack(value, num, axis)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    return _core.split(value, num_or_size_splits, axis)


def tile(input, multiples, name=None):  # noqa: A002
    return _core.tile(input, multiples)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    if str(mode).upper() in ("REFLECT", "SYMMETRIC"):
        # TensorFlow's MirrorPad: constant_values is not read at all.
        return _core.pad(tensor, paddings, mode, None)
    is_string = isinstance(constant_values, (str, bytes)) or (
        getattr(getattr(constant_values, "dtype", None), "name", None) == "string"
    )
    if not is_string:
        _refuse_quantized_pad_value(tensor, mode, constant_values)
        dtype = getattr(tensor, "dtype", None)
        # TensorFlow pads with a zero through Pad (no conversion: a string tensor pads with
        # b''), with anything else through PadV2, which converts the value to the tensor's
        # dtype: a float for an integer tensor, a bool, None or an out-of-range number raise
        # there (never truncated).
        # The converted scalar itself is padded with: through a float, an int64 above 2**53
        # would lose its low bits.
        is_zero = isinstance(constant_values, (int, float)) and constant_values == 0
        if is_zero:
            constant_values = 0.0  # TensorFlow's Pad pads with +0, also for -0.0
        elif isinstance(constant_values, _core.Tensor):
            pass
        elif dtype is not None:
            constant_values = convert_to_tensor(constant_values, dtype=dtype)
        else:
            constant_values = float(constant_values)
    return _core.pad(tensor, paddings, mode, constant_values)


def _refuse_quantized_pad_value(tensor, mode, constant_values):
    """TensorFlow pads with a nonzero value through PadV2, whose graph builder cannot convert
    a Python number to a quantized type (eagerly it can): TypeError while tracing."""
    dtype = getattr(tensor, "dtype", None)
    if (
        isinstance(constant_values, (int, float))
        and constant_values != 0
        and str(mode).upper() == "CONSTANT"
        and getattr(dtype, "is_quantized", False)
        and _core.graph_tracing()
    ):
        raise TypeError(
            f"Expected {dtype.name} passed to parameter 'constant_values' of op 'PadV2', got "
            f"{constant_values!r} of type '{type(constant_values).__name__}' instead. Error: "
            f"Expected {dtype.name}, but got {constant_values!r} of type "
            f"'{type(constant_values).__name__}'."
        )


def squeeze(input, axis=None, name=None):  # noqa: A002
    # TensorFlow's empty axis list means every size-1 dimension, as None does.
    if isinstance(axis, (list, tuple)) and not axis:
        axis = None
    return _core.squeeze(input, axis)


@_dispatch.add_dispatch_support
def expand_dims(input, axis, name=None):  # noqa: A002
    return _core.expand_dims(input, axis)


def broadcast_to(input, shape, name=None):  # noqa: A002
    return _core.broadcast_to(input, _dims(shape))


def ensure_shape(x, shape, name=None):
    """`x`, checked when it is computed to have a shape compatible with `shape`."""
    shape = TensorShape(shape)
    x = convert_to_tensor(x)
    if shape.rank is None:
        return identity(x)
    return _core.ensure_shape(x, shape.as_list())


@_dispatch.add_dispatch_support
def shape(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    t = convert_to_tensor(input)
    info = _core.symbolic_info(t) if _core.graph_tracing() else None
    if info is not None and (info[1] is None or None in info[1]):
        # Traced with an unknown size (or rank): the shape is known only when the graph runs.
        return _core.shape_op(t, _enum(out_type))
    return _core.constant(t._dims, _enum(out_type))


@_dispatch.add_dispatch_support
def size(input, out_type=_dtypes.int32, name=None):  # noqa: A002
    t = convert_to_tensor(input)
    info = _core.symbolic_info(t) if _core.graph_tracing() else None
    if info is not None and (info[1] is None or None in info[1]):
        # Traced with an unknown size (or rank): the count is known only when the graph runs.
        return _core.reduce("prod", _core.shape_op(t, _enum(out_type)), None, False)
    n = 1
    for d in t._dims:
        n *= d
    return _core.constant(n, _enum(out_type))


@_dispatch.add_dispatch_support
def rank(input, name=None):  # noqa: A002
    t = convert_to_tensor(input)
    if t.ndim is None:  # a py_function's result while tracing: the rank is its shape's size
        return size(shape(t))
    return _core.constant(t.ndim, _enum(_dtypes.int32))


def slice(input_, begin, size, name=None):  # noqa: A001
    if _dynamic_slice.any_symbolic(begin, size):
        return _dynamic_slice.slice_(input_, begin, size)
    return _core.slice(input_, begin, size)


def strided_slice(
    input_, begin, end, strides=None, begin_mask=0, end_mask=0,
    ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None,
):  # fmt: skip
    if _dynamic_slice.any_symbolic(begin, end, strides):
        masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        return _dynamic_slice.strided_slice(input_, begin, end, strides, masks)
    return _core.strided_slice(
        input_, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
        shrink_axis_mask,
    )  # fmt: skip


def reverse(tensor, axis, name=None):
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.is_quantized:
        _refuse_quantized_reverse(tensor.dtype)
    return _core.reverse(tensor, axis)


def _refuse_quantized_reverse(dtype):
    """TensorFlow's ReverseV2 has no quantized kernel (ferroflow's reverse is a slice, which
    has one): the graph builder's TypeError while tracing, the kernel lookup's error eagerly."""
    allowed = (
        "uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, "
        "float, double, complex64, complex128, string"
    )
    if _core.graph_tracing():
        raise TypeError(
            f"Value passed to parameter 'tensor' has DataType {dtype.name} not in list of "
            f"allowed values: {allowed}"
        )
    from ferroflow.errors import InvalidArgumentError

    raise InvalidArgumentError(
        None,
        None,
        f"Value for attr 'T' of {dtype.name} is not in the list of allowed values: {allowed}"
        "\n\t; NodeDef: {{node ReverseV2}} [Op:ReverseV2]",
    )


@_dispatch.add_dispatch_support
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    return _core.gather(params, indices, axis, batch_dims)


def take_rows(params, indices):
    """`gather(params, indices)` along axis 0 whose gradient is a dense tensor. A gather's
    gradient is IndexedSlices, as TensorFlow's; compositions standing for a TensorFlow op
    whose gradient is dense (TensorList reads, repeat, roll, the sparse ops) gather by
    coordinates instead."""
    return gather_nd(params, expand_dims(convert_to_tensor(indices), -1))


def gather_nd(params, indices, batch_dims=0, name=None):
    if batch_dims != 0:
        raise NotImplementedError("gather_nd supports batch_dims=0 only")
    return _core.gather_nd(params, indices)


def scatter_nd(indices, updates, shape, name=None):
    return _core.scatter_nd(indices, updates, _dims(shape))


@_dispatch.add_dispatch_support
def where(condition, x=None, y=None, name=None):
    """``tf.where(c)``: coordinates of true elements; ``tf.where(c, x, y)``: element choice."""
    return _core.where_(condition, x, y)


@_dispatch.add_dispatch_support
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    return _core.boolean_mask(tensor, mask, 0 if axis is None else axis)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    if dtype is None:
        for v in (on_value, off_value):
            if v is not None:
                dtype = convert_to_tensor(v).dtype
                break
        else:
            dtype = _dtypes.float32
    on = constant(1 if on_value is None else on_value, dtype)
    off = constant(0 if off_value is None else off_value, dtype)
    return _core.one_hot(indices, depth, on, off, -1 if axis is None else axis)


def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction: {direction}")
    return direction == "DESCENDING"


def sort(values, axis=-1, direction="ASCENDING", name=None):
    return _core.sort(values, axis, _direction(direction), False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    return _core.sort(values, axis, _direction(direction), True)


def top_k(input, k=1, sorted=True, index_type=_dtypes.int32, name=None):  # noqa: A002
    return TopKV2(*_core.top_k(input, k))


def unique(x, out_idx=_dtypes.int32, name=None):
    return Unique(*_core.unique(x, _enum(out_idx)))
