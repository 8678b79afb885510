"""`keras.ops` core: conversion, casts, shapes, control flow (cond, loops, scans, switch),
scatters and slices, as Keras 3's TensorFlow backend runs them."""

import builtins

import numpy as np

import ferroflow as tf
from ferroflow.keras.ops._dtypes import standardize_dtype
from ferroflow.keras.ops._scan_dynamic import dynamic_associative_scan

__all__ = [
    "associative_scan",
    "cast",
    "cond",
    "convert_to_numpy",
    "convert_to_tensor",
    "custom_gradient",
    "dtype",
    "fori_loop",
    "is_tensor",
    "map",
    "saturate_cast",
    "scan",
    "scatter",
    "scatter_update",
    "shape",
    "slice",
    "slice_update",
    "stop_gradient",
    "switch",
    "unstack",
    "vectorized_map",
    "while_loop",
]


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """Converts ``x`` to a tensor; with ``dtype``, Python/NumPy values become that dtype (through
    a cast for integer and bool dtypes, as Keras does) and tensors of another dtype are cast."""
    if isinstance(x, tf.SparseTensor) and sparse is False:
        x = tf.sparse.to_dense(x)
    if isinstance(x, tf.RaggedTensor) and ragged is False:
        x = x.to_tensor()
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if isinstance(x, tf.Variable):
        x = x.value()
    # A sparse tensor is a tensor (as `tf.is_tensor` says under TensorFlow): kept, its
    # values cast to ``dtype``.
    if not tf.is_tensor(x) and not isinstance(x, tf.SparseTensor):
        if dtype == "bool" or (dtype is not None and "int" in dtype):
            return tf.cast(tf.convert_to_tensor(x), dtype)
        return tf.convert_to_tensor(x, dtype=dtype)
    if dtype is not None and standardize_dtype(x.dtype) != dtype:
        return cast(x, dtype)
    return x


def convert_to_numpy(x):
    """The value of ``x`` as a NumPy array."""
    if isinstance(x, tf.SparseTensor):
        x = tf.sparse.to_dense(x)
    elif isinstance(x, tf.RaggedTensor):
        x = x.to_tensor()
    elif isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return np.array(x)


def is_tensor(x):
    """Whether ``x`` is a backend tensor."""
    return tf.is_tensor(x)


def dtype(x):
    """The dtype of ``x`` as Keras names it ("float32")."""
    return standardize_dtype(x.dtype)


def cast(x, dtype):
    """Casts ``x`` to ``dtype`` (a sparse tensor's values, keeping its static shape)."""
    dtype = standardize_dtype(dtype)
    if isinstance(x, tf.SparseTensor):
        cast_values = x.with_values(tf.cast(x.values, dtype))
        cast_values.set_shape(x.shape)
        return cast_values
    return tf.cast(x, dtype)


def _limits(name):
    if name == "bool":
        return 0, 1
    info = np.iinfo(name) if "int" in name else _finfo(name)
    return info.min, info.max


def _finfo(name):
    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.finfo(ml_dtypes.bfloat16)
    return np.finfo(name)


def saturate_cast(x, dtype):
    """Casts ``x`` to ``dtype``, clipping values to the target's range first."""
    from ferroflow.keras.ops.numpy import clip

    dtype = standardize_dtype(dtype)
    x = convert_to_tensor(x)
    in_dtype = standardize_dtype(x.dtype)
    in_np = np.float32 if in_dtype == "bfloat16" else np.dtype(in_dtype)
    (in_min, in_max), (out_min, out_max) = _limits(in_dtype), _limits(dtype)
    lo = np.array(np.maximum(in_min, out_min)).astype(in_np)
    if lo < out_min:
        lo = np.nextafter(lo, np.array(0, in_np))
    hi = np.array(np.minimum(in_max, out_max)).astype(in_np)
    if hi > out_max:
        hi = np.nextafter(hi, np.array(0, in_np))
    return tf.cast(clip(x, lo, hi), dtype)


def shape(x):
    """The shape of ``x`` as a tuple: static dims as ints, unknown dims as scalar tensors."""
    if not tf.is_tensor(x):
        x = tf.convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError(
            "All tensors passed to `ops.shape` must have a statically known rank. "
            f"Received: x={x} with unknown rank."
        )
    dims = x.shape.as_list()
    if None in dims:
        dynamic = tf.shape(x)
        dims = [dynamic[i] if d is None else d for i, d in enumerate(dims)]
    return tuple(dims)


def cond(pred, true_fn, false_fn):
    """`true_fn()` if ``pred`` else `false_fn()` (a graph conditional when traced)."""
    return tf.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Runs ``body`` while ``cond`` holds; a single (non-tuple) loop variable is returned bare."""
    is_tuple = isinstance(loop_vars, tuple | list)
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def _body(*args):
        out = body(*args)
        return tuple(out) if is_tuple else (out,)

    out = tf.while_loop(cond, _body, loop_vars, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for ``i`` in ``[lower, upper)``."""
    return tf.while_loop(
        lambda i, val: i < upper, lambda i, val: (i + 1, body_fun(i, val)), (lower, init_val)
    )[1]


def stop_gradient(variable):
    """``variable`` with no gradient flowing through it."""
    return tf.stop_gradient(variable)


def unstack(x, num=None, axis=0):
    """Splits ``x`` along ``axis`` into a list of tensors."""
    return tf.unstack(x, num=num, axis=axis)


def custom_gradient(f):
    """`tf.custom_gradient`: ``f`` returns ``(y, grad_fn)``."""
    return tf.custom_gradient(f=f)


def vectorized_map(function, elements):
    """Maps ``function`` over the first dimension of ``elements``."""
    return tf.vectorized_map(function, elements)


def map(f, xs):
    """Stacks `f(x)` for each slice ``x`` of ``xs`` along its first dimension."""
    xs = tf.nest.map_structure(convert_to_tensor, xs)
    first = tf.nest.map_structure(lambda t: t[0], xs)
    signature = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), f(first))
    return tf.map_fn(f, xs, fn_output_signature=signature)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """`carry, y = f(carry, x)` over the leading axis of ``xs`` (or ``length`` steps with
    ``x=None``); returns the last carry and the stacked ``y``s."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(
            f"`unroll` must be an positive integer or boolean. Received: unroll={unroll}"
        )
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    in_nested = tf.nest.is_nested(xs)
    out_nested = tf.nest.is_nested(init)
    xs_flat = [] if xs is None else [tf.convert_to_tensor(t) for t in tf.nest.flatten(xs)]
    if length is not None:
        n = int(length)
    else:
        n = xs_flat[0].shape[0]
        if n is None:
            n = tf.shape(xs_flat[0])[0]
    carry_flat = [tf.convert_to_tensor(c) for c in tf.nest.flatten(init)]
    xs_ta = [tf.TensorArray(t.dtype, size=n, element_shape=t.shape[1:]).unstack(t) for t in xs_flat]
    ys_ta = [tf.TensorArray(c.dtype, size=n, element_shape=c.shape) for c in carry_flat]

    def pack(structure, flat, nested):
        return tf.nest.pack_sequence_as(structure, flat) if nested else flat[0]

    def body(i, carry, ys):
        x = pack(xs, [t.read(i) for t in xs_ta], in_nested) if xs_ta else None
        new_carry, y = f(pack(init, list(carry), out_nested), x)
        if y is not None:
            ys = [t.write(i, v) for t, v in zip(ys, tf.nest.flatten(y), strict=False)]
        if new_carry is not None:
            carry = [
                tf.cast(v, c.dtype) if tf.is_tensor(v) else tf.constant(v, c.dtype)
                for v, c in zip(tf.nest.flatten(new_carry), carry, strict=True)
            ]
        return (i - 1 if reverse else i + 1, carry, ys)

    start = (n - 1) if reverse else 0
    _, carry_flat, ys_ta = tf.while_loop(
        (lambda i, c, y: i >= 0) if reverse else (lambda i, c, y: i < n),
        body,
        (start, carry_flat, ys_ta),
    )
    return pack(init, list(carry_flat), out_nested), pack(
        init, [t.stack() for t in ys_ta], out_nested
    )


def _take(x, start, stop, step, axis):
    index = [builtins.slice(None)] * len(x.shape)
    index[axis] = builtins.slice(start, stop, step)
    return x[tuple(index)]


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of the associative ``f`` over ``axis`` of ``elems`` (a nest of
    tensors), computed by the parallel odd/even recursion Keras uses (so the order of ``f``'s
    applications, hence float rounding, matches)."""
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    flat = [tf.convert_to_tensor(e) for e in tf.nest.flatten(elems)]
    if reverse:
        flat = [tf.reverse(e, [axis]) for e in flat]
    lengths = {e.shape[axis] for e in flat}
    if len(flat) > 1 and None in lengths:
        # Keras's backend compares the lengths with `==`: a run-time length makes that a
        # tensor, which `all()` cannot turn into a Python bool in a graph.
        raise tf.errors.OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: "
            "`ops.associative_scan` over several tensors needs their lengths along `axis` "
            "known when the function is traced."
        )
    if len(lengths) != 1:
        raise ValueError(
            "Array inputs to associative_scan must have the same first dimension. "
            f"(saw: {[tuple(e.shape) for e in flat]})"
        )

    def combine(a, b):
        return tf.nest.flatten(
            f(tf.nest.pack_sequence_as(elems, a), tf.nest.pack_sequence_as(elems, b))
        )

    if None in lengths:
        out = dynamic_associative_scan(combine, flat, axis % len(flat[0].shape))
        if reverse:
            out = [tf.reverse(e, [axis]) for e in out]
        return tf.nest.pack_sequence_as(elems, out)

    def interleave(a, b):
        # a has len(b) or len(b) + 1 items along the axis: a0 b0 a1 b1 ...
        na, nb = a.shape[axis], b.shape[axis]
        head = _take(a, 0, nb, 1, axis)
        pairs = tf.stack([head, b], axis=axis + 1 if axis >= 0 else axis)
        shape = list(head.shape)
        shape[axis] = 2 * nb
        merged = tf.reshape(pairs, shape)
        if na == nb + 1:
            merged = tf.concat([merged, _take(a, na - 1, na, 1, axis)], axis=axis)
        return merged

    def scan_(level):
        n = level[0].shape[axis]
        if n < 2:
            return level
        reduced = combine(
            [_take(e, 0, -1, 2, axis) for e in level], [_take(e, 1, None, 2, axis) for e in level]
        )
        if n == 2:
            return [
                tf.concat([_take(e, 0, 1, 1, axis), r], axis=axis)
                for e, r in zip(level, reduced, strict=True)
            ]
        if n == 3:
            again = combine(reduced, [_take(e, 2, 3, 1, axis) for e in level])
            return [
                tf.concat([_take(e, 0, 1, 1, axis), r, rr], axis=axis)
                for e, r, rr in zip(level, reduced, again, strict=True)
            ]
        odd = scan_(reduced)
        if n % 2 == 0:
            results = combine(
                [_take(o, 0, -1, 1, axis) for o in odd], [_take(e, 2, None, 2, axis) for e in level]
            )
        else:
            results = combine(odd, [_take(e, 2, None, 2, axis) for e in level])
        even = [
            tf.concat([_take(e, 0, 1, 1, axis), r], axis=axis)
            for e, r in zip(level, results, strict=True)
        ]
        return [interleave(e, o) for e, o in zip(even, odd, strict=True)]

    out = scan_(flat)
    if reverse:
        out = [tf.reverse(e, [axis]) for e in out]
    return tf.nest.pack_sequence_as(elems, out)


def scatter(indices, values, shape):
    """A zero tensor of ``shape`` with ``values`` added at ``indices``."""
    return tf.scatter_nd(indices, values, shape)


def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices`` (replaced, or combined by
    ``reduction``: "add", "max", "min", "mul")."""
    if reduction is not None:
        reduction = reduction.lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError(
                f"Invalid reduction: {reduction}. Supported values are: None, 'add', 'max', "
                "'min', 'mul'."
            )
    if reduction is None:
        return tf.tensor_scatter_nd_update(inputs, indices, updates)
    if reduction == "mul":
        # Sequential products so repeated indices multiply, as Keras's loop does.
        inputs = tf.convert_to_tensor(inputs)
        updates = tf.convert_to_tensor(updates, inputs.dtype)
        indices = tf.convert_to_tensor(indices)
        count = tf.shape(indices)[0]

        def body(i, result):
            idx = indices[i : i + 1]
            return i + 1, tf.tensor_scatter_nd_update(
                result, idx, tf.gather_nd(result, idx) * updates[i]
            )

        return tf.while_loop(lambda i, _: i < count, body, [0, inputs])[1]
    op = {
        "add": tf.tensor_scatter_nd_add,
        "max": tf.tensor_scatter_nd_max,
        "min": tf.tensor_scatter_nd_min,
    }[reduction]
    return op(inputs, indices, updates)


def slice(inputs, start_indices, shape):
    """The block of ``inputs`` of size ``shape`` starting at ``start_indices``."""
    return tf.slice(inputs, start_indices, shape)


def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block starting at ``start_indices`` replaced by ``updates``. As XLA's
    dynamic_update_slice, start indices are clamped so the block fits."""
    inputs = tf.convert_to_tensor(inputs)
    updates = tf.convert_to_tensor(updates, inputs.dtype)
    dims = tf.shape(inputs)
    sizes = tf.shape(updates)
    starts = tf.cast(tf.stack([tf.convert_to_tensor(s) for s in start_indices]), dims.dtype)
    starts = tf.clip_by_value(starts, 0, dims - sizes)
    paddings = tf.stack([starts, dims - sizes - starts], axis=1)
    mask = tf.pad(tf.ones_like(updates, dtype=tf.bool), paddings)
    return tf.where(mask, tf.pad(updates, paddings), inputs)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, ``index`` clipped into range."""
    index = tf.clip_by_value(convert_to_tensor(index, "int32"), 0, len(branches) - 1)
    fns = [(lambda b=b: b(*operands)) for b in branches]
    return tf.switch_case(index, fns)
