"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: a Python function applied along the
leading dimension of (a nested structure of) tensors, the results stacked or accumulated.

The leading size must be known: eagerly it always is; inside a `tf.function` it must be
static (the loop is then unrolled into the graph). A size known only when the graph runs
needs `tf.TensorArray`, which ferroflow does not have yet: that case raises
NotImplementedError naming it, never a wrong result."""

from ferroflow import _tracing, errors, nest
from ferroflow.array_ops import convert_to_tensor, stack, zeros


def _leading_size(flat, what):
    sizes = set()
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError(f"{what}: elements must have rank at least 1, got a scalar {t!r}")
        sizes.add(t.shape[0])
    if None in sizes:
        raise NotImplementedError(
            f"{what} over a leading dimension whose size is known only when the graph runs "
            "needs tf.TensorArray, which ferroflow does not have yet; give the function an "
            "input_signature with that size, or call it eagerly"
        )
    if len(sizes) > 1:
        raise ValueError(
            f"{what}: all elements must have the same leading size, got {sorted(sizes)}"
        )
    return sizes.pop() if sizes else 0


def _elements(elems, what):
    """The structure of `elems` with tensor leaves, its flat leaves and their leading size."""
    structure = nest.map_structure(convert_to_tensor, elems)
    flat = nest.flatten(structure)
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor")
    return structure, flat, _leading_size(flat, what)


def _item(structure, flat, i):
    return nest.pack_sequence_as(structure, [t[i] for t in flat])


def _stack_results(results, empty_like):
    if not results:
        return nest.map_structure(lambda t: zeros([0] + t.shape.as_list()[1:], t.dtype), empty_like)
    return nest.map_structure(lambda *parts: stack(list(parts)), *results)


def map_fn(
    fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
    infer_shape=True, name=None, fn_output_signature=None,
):  # fmt: skip
    """`fn` applied to each slice of `elems` along axis 0, the results stacked."""
    structure, flat, n = _elements(elems, "map_fn")
    signature = fn_output_signature if fn_output_signature is not None else dtype
    results = []
    for i in range(n):
        out = fn(_item(structure, flat, i))
        if signature is not None:
            from ferroflow.array_ops import cast

            out = nest.map_structure(lambda t, d: cast(t, getattr(d, "dtype", d)), out, signature)
        results.append(nest.map_structure(convert_to_tensor, out))
    return _stack_results(results, structure)


def scan(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    infer_shape=True, reverse=False, name=None,
):  # fmt: skip
    """Every accumulator of `a = fn(a, x)` over the slices of `elems`, stacked."""
    structure, flat, n = _elements(elems, "scan")
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    results = []
    if initializer is None:
        if not order:
            return _stack_results([], structure)
        acc = _item(structure, flat, order[0])
        results.append(acc)
        order = order[1:]
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
    for i in order:
        acc = nest.map_structure(convert_to_tensor, fn(acc, _item(structure, flat, i)))
        results.append(acc)
    if reverse:
        results.reverse()
    if not results:
        return nest.map_structure(lambda t: zeros([0] + t.shape.as_list(), t.dtype), acc)
    return _stack_results(results, structure)


def _fold(fn, elems, initializer, reverse, what):
    structure, flat, n = _elements(elems, what)
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if initializer is None:
        if not order:
            # TensorFlow reads element 0 of an empty TensorArray: OutOfRange eagerly, an
            # InvalidArgument from the graph.
            error = errors.InvalidArgumentError if _tracing.tracing() else errors.OutOfRangeError
            raise error(None, None, "Tried to read from index 0 but array size is: 0")
        acc = _item(structure, flat, order[0])
        order = order[1:]
    else:
        acc = nest.map_structure(convert_to_tensor, initializer)
    for i in order:
        acc = fn(acc, _item(structure, flat, i))
    return acc


def foldl(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    name=None,
):  # fmt: skip
    """The last accumulator of `a = fn(a, x)` over the slices of `elems`, first to last."""
    return _fold(fn, elems, initializer, False, "foldl")


def foldr(
    fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
    name=None,
):  # fmt: skip
    """The last accumulator of `a = fn(a, x)` over the slices of `elems`, last to first."""
    return _fold(fn, elems, initializer, True, "foldr")
