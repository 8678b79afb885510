"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: a Python function applied along the
leading dimension of (a nested structure of) tensors, the results stacked or accumulated.

Eagerly, and inside a `tf.function` when the leading size is known while tracing, the loop
runs in Python (unrolled into the graph when traced, so gradients taken inside the function
work as for any other op). When the size is known only when the graph runs, the loop is a
staged `tf.while_loop` whose results go into `tf.TensorArray`s, as TensorFlow builds these
functions: one graph serves every size."""

from ferroflow import _core, _tracing, control_flow, errors, nest
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor, stack, take_rows, zeros
from ferroflow.array_ops import shape as _shape
from ferroflow.tensor_array_ops import TensorArray


def _leading_size(flat, what):
    """The common leading size of `flat`: an int, or None inside a trace where it is known
    only when the graph runs."""
    sizes = set()
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError(f"{what}: elements must have rank at least 1, got a scalar {t!r}")
        sizes.add(t.shape[0])
    known = sizes - {None}
    if len(known) > 1:
        raise ValueError(
            f"{what}: all elements must have the same leading size, got {sorted(known)}"
        )
    if None in sizes:
        return None
    return sizes.pop() if sizes else 0


def _elements(elems, what):
    """The structure of `elems` with tensor leaves (or BatchableExtensionTypes, whose
    components all batch along axis 0), its flat leaves and their leading size."""
    structure = nest.map_structure(_element_leaf, elems)
    flat = nest.flatten(structure, expand_composites=True)
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor")
    return structure, flat, _leading_size(flat, what)


def _element_leaf(value):
    from ferroflow.extension_type import BatchableExtensionType, ExtensionTypeBatchEncoder

    if isinstance(value, BatchableExtensionType) and (
        type(value._type_spec.__batch_encoder__) is ExtensionTypeBatchEncoder
    ):
        return value
    return convert_to_tensor(value)


def _rows_structure(structure):
    """`structure` with each extension-type leaf replaced by the spec of one of its rows."""
    from ferroflow.extension_type import BatchableExtensionType

    return nest.map_structure(
        lambda v: v._type_spec._unbatch() if isinstance(v, BatchableExtensionType) else v,
        structure,
    )


def _item(structure, flat, i):
    return nest.pack_sequence_as(
        _rows_structure(structure), [t[i] for t in flat], expand_composites=True
    )


def _gathered(structure, flat, i):
    """The slices at a tensor index (a staged loop's counter). TensorFlow reads them from a
    TensorArray, whose gradient is dense, so a gather's IndexedSlices gradient would differ."""
    return nest.pack_sequence_as(
        _rows_structure(structure), [take_rows(t, i) for t in flat], expand_composites=True
    )


def _stack_results(results, empty_like):
    if not results:
        return nest.map_structure(lambda t: zeros([0] + t.shape.as_list()[1:], t.dtype), empty_like)
    return nest.map_structure(lambda *parts: stack(list(parts)), *results)


def _signature_dtype(spec):
    return _dtypes.as_dtype(getattr(spec, "dtype", spec))


def _as_output(value, dtype, step=None, shape=None):
    """A result of `fn` as TensorFlow's TensorArray write takes it: converted preferring the
    signature's dtype, which it must then have, and of a shape compatible with the signature's
    `shape` (a ValueError when the static shapes disagree, as TensorFlow's map_fn raises). In a
    staged loop (`step`: its counter) a mismatch only the run can see fails when an iteration
    runs, as TensorFlow's graph write does (a loop that runs no iteration raises nothing)."""
    value = convert_to_tensor(value, dtype_hint=dtype)
    if shape is not None and not shape.is_compatible_with(value.shape):
        raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({shape})")
    if value.dtype != dtype:
        message = (
            f"TensorArray dtype is {dtype.name} but Op is trying to write dtype {value.dtype.name} "
        )
        if step is None:
            raise errors.InvalidArgumentError(None, None, message)
        _fail_when_run(step, message)
        from ferroflow.array_ops import cast

        value = cast(value, dtype)
    if step is not None and shape is not None and shape.rank is not None:
        _check_shape_when_run(step, value, shape)
    return value


def _fail_when_run(step, message, ok=None):
    """An assertion that fails when the staged iteration `step` runs (unless `ok` holds)."""
    from ferroflow.check_ops import Assert
    from ferroflow.math import less, logical_or

    never = less(step, 0)  # the counter is never negative
    Assert(never if ok is None else logical_or(never, ok), [message])


def _check_shape_when_run(step, value, shape):
    """The dimensions `shape` fixes that `value` leaves to the run: checked when it runs."""
    from ferroflow.array_ops import gather
    from ferroflow.array_ops import shape as shape_of
    from ferroflow.math import equal, reduce_all

    known = [i for i, d in enumerate(shape.as_list()) if d is not None]
    unknown = [i for i in known if value.shape.as_list()[i] is None]
    if not unknown:
        return
    wanted = [shape.as_list()[i] for i in unknown]
    got = gather(shape_of(value), unknown)
    message = (
        "Tried to set a tensor with incompatible shape at a list index. Item element shape: "
        f"{value.shape} list shape: {shape}"
    )
    _fail_when_run(step, message, reduce_all(equal(got, wanted)))


def _check_structure(expected, got):
    nest.assert_same_structure(expected, got)


def _staged_size(flat):
    return _shape(flat[0])[0]


def map_fn(
    fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
    infer_shape=True, name=None, fn_output_signature=None,
):  # fmt: skip
    """`fn` applied to each slice of `elems` along axis 0, the results stacked.

    >>> import ferroflow as tf
    >>> tf.map_fn(lambda v: v * v, tf.constant([1.0, 2.0, 3.0]))
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 4., 9.], dtype=float32)>
    """
    structure, flat, n = _elements(elems, "map_fn")
    signature = fn_output_signature if fn_output_signature is not None else dtype
    out_structure = signature if signature is not None else structure
    dtypes = [
        _signature_dtype(s) if signature is not None else s.dtype
        for s in nest.flatten(out_structure)
    ]
    if n is None or (n == 0 and _tracing.tracing()):
        # (An empty input in a trace too: TensorFlow's graph stacks no element with the
        # shape the traced body writes.)
        return _staged_map(fn, structure, flat, signature, out_structure, dtypes, infer_shape)
    specs = nest.flatten(out_structure)
    results = []
    for i in range(n):
        out = fn(_item(structure, flat, i))
        _check_structure(out_structure, out)
        values = [
            _as_output(v, d, shape=_element_shape(s))
            for v, d, s in zip(nest.flatten(out), dtypes, specs)
        ]
        results.append(nest.pack_sequence_as(out_structure, values))
    if not results:
        # TensorFlow's eager TensorArray stacks no element as shape [0] unless the signature
        # gives the element shape.
        return nest.map_structure(
            lambda s, d: zeros([0, *_spec_dims(s)], d),
            out_structure,
            nest.pack_sequence_as(out_structure, dtypes),
        )
    return _stack_results(results, structure)


def _element_shape(spec):
    """The element shape a signature entry gives (a TensorSpec's), else None."""
    from ferroflow.tensor_spec import TensorSpec

    return spec.shape if isinstance(spec, TensorSpec) else None


def _spec_dims(spec):
    shape = _element_shape(spec)
    if shape is None or not shape.is_fully_defined():
        return []
    return shape.as_list()


def _staged_map(fn, structure, flat, signature, out_structure, dtypes, infer_shape):
    n = _staged_size(flat)
    specs = nest.flatten(out_structure) if signature is not None else [None] * len(dtypes)
    arrays = [
        TensorArray(d, size=n, infer_shape=infer_shape, element_shape=_element_shape(s))
        for d, s in zip(dtypes, specs)
    ]

    def body(i, arrays):
        out = fn(_gathered(structure, flat, i))
        _check_structure(out_structure, out)
        values = [
            _as_output(v, d, i, _element_shape(s))
            for v, d, s in zip(nest.flatten(out), dtypes, specs)
        ]
        return i + 1, [a.write(i, v) for a, v in zip(arrays, values)]

    if _core.is_symbolic(n):
        _, arrays = control_flow.while_loop(lambda i, _: i < n, body, (0, arrays))
    else:
        # No element while tracing: TensorFlow still traces the body, whose writes tell the
        # arrays' element shapes (an iteration traced and thrown away here).
        from ferroflow import _staging

        _staging.trace_discarded(lambda i, arrays: body(i, arrays) and None, (0, arrays))
    return nest.pack_sequence_as(out_structure, [a.stack() for a in arrays])


def scan(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    infer_shape=True, reverse=False, name=None,
):  # fmt: skip
    """Every accumulator of `a = fn(a, x)` over the slices of `elems`, stacked.

    >>> import ferroflow as tf
    >>> tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4]))
    <tf.Tensor: shape=(4,), dtype=int32, numpy=array([ 1,  3,  6, 10], dtype=int32)>
    """
    structure, flat, n = _elements(elems, "scan")
    if n is None:
        return _staged_scan(fn, structure, flat, initializer, infer_shape, reverse)
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    results = []
    if initializer is None:
        if not order:
            _empty_read(n - 1 if reverse else 0)
        acc = _item(structure, flat, order[0])
        results.append(acc)
        order = order[1:]
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
    for i in order:
        out = fn(acc, _item(structure, flat, i))
        _check_structure(structure if initializer is None else initializer, out)
        acc = nest.map_structure(convert_to_tensor, out)
        results.append(acc)
    if reverse:
        results.reverse()
    if not results:
        return nest.map_structure(lambda t: zeros([0] + t.shape.as_list(), t.dtype), acc)
    return _stack_results(results, structure)


def _staged_scan(fn, structure, flat, initializer, infer_shape, reverse):
    from ferroflow.math import greater_equal, less

    n = _staged_size(flat)
    out_structure = structure if initializer is None else initializer
    if initializer is None:
        first = n - 1 if reverse else 0
        _check_readable(first, n)
        acc = [take_rows(t, first) for t in flat]
        start = 1
    else:
        acc = [convert_to_tensor(v) for v in nest.flatten(initializer)]
        start = 0
    arrays = [
        TensorArray(
            a.dtype,
            size=n,
            infer_shape=infer_shape,
            element_shape=a.shape if infer_shape else None,
        )  # fmt: skip
        for a in acc
    ]
    if initializer is None:
        arrays = [t.write(first, a) for t, a in zip(arrays, acc)]

    def body(i, acc, arrays):
        out = fn(nest.pack_sequence_as(out_structure, acc), _gathered(structure, flat, i))
        _check_structure(out_structure, out)
        out = [convert_to_tensor(v) for v in nest.flatten(out)]
        arrays = [t.write(i, v) for t, v in zip(arrays, out)]
        return (i - 1 if reverse else i + 1), out, arrays

    if reverse:
        initial, condition = n - 1 - start, (lambda i, *_: greater_equal(i, 0))
    else:
        initial, condition = convert_to_tensor(start), (lambda i, *_: less(i, n))
    _, _, arrays = control_flow.while_loop(condition, body, (initial, acc, arrays))
    return nest.pack_sequence_as(out_structure, [t.stack() for t in arrays])


def _empty_read(index):
    """TensorFlow starts an accumulation without initializer by reading element 0 (n - 1
    reversed) of the elements' TensorArray: an empty one raises OutOfRange eagerly, an
    InvalidArgument from the graph."""
    if _tracing.tracing():
        raise errors.InvalidArgumentError(
            None, None, f"Trying to access element {index} in a list with 0 elements."
        )
    raise errors.OutOfRangeError(
        None, None, f"Tried to read from index {index} but array size is: 0 "
    )


def _check_readable(index, n):
    """TensorFlow reads element 0 (n - 1 reversed) of the elements' TensorArray to start an
    accumulation without initializer: an empty input raises when the graph runs."""
    from ferroflow.check_ops import Assert
    from ferroflow.math import greater

    Assert(
        greater(n, 0),
        ["Trying to access element", index, "in a list with", n, "elements."],
    )


def _fold(fn, elems, initializer, reverse, what):
    structure, flat, n = _elements(elems, what)
    if n is None:
        return _staged_fold(fn, structure, flat, initializer, reverse)
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if initializer is None:
        if not order:
            _empty_read(n - 1 if reverse else 0)
        acc = _item(structure, flat, order[0])
        order = order[1:]
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
    for i in order:
        acc = fn(acc, _item(structure, flat, i))
    return acc


def _staged_fold(fn, structure, flat, initializer, reverse):
    from ferroflow.math import greater_equal, less

    n = _staged_size(flat)
    if initializer is None:
        first = n - 1 if reverse else 0
        _check_readable(first, n)
        acc = _gathered(structure, flat, first)
        start = 1
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
        start = 0

    def body(i, acc):
        out = fn(acc, _gathered(structure, flat, i))
        _check_structure(acc, out)
        return (i - 1 if reverse else i + 1), nest.map_structure(convert_to_tensor, out)

    if reverse:
        initial, condition = n - 1 - start, (lambda i, _: greater_equal(i, 0))
    else:
        initial, condition = convert_to_tensor(start), (lambda i, _: less(i, n))
    return control_flow.while_loop(condition, body, (initial, acc))[1]


def foldl(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    name=None,
):  # fmt: skip
    """The last accumulator of `a = fn(a, x)` over the slices of `elems`, first to last.

    >>> import ferroflow as tf
    >>> tf.foldl(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(), dtype=int32, numpy=123>
    """
    return _fold(fn, elems, initializer, False, "foldl")


def foldr(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    name=None,
):  # fmt: skip
    """The last accumulator of `a = fn(a, x)` over the slices of `elems`, last to first.

    >>> import ferroflow as tf
    >>> tf.foldr(lambda a, x: a * 10 + x, tf.constant([1, 2, 3]))
    <tf.Tensor: shape=(), dtype=int32, numpy=321>
    """
    return _fold(fn, elems, initializer, True, "foldr")
