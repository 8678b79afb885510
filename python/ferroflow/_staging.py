"""Control flow over symbolic tensors inside a `tf.function` trace: each branch, condition
and loop body is traced into a subgraph, and the whole construct becomes one graph node."""

from ferroflow import _core, nest
from ferroflow.array_ops import convert_to_tensor
from ferroflow.concrete_function import output_template

_SAME_STRUCTURE = "{what} must have the same number, type, and overall structure of return values."


def _trace_subgraph(fn, args=(), placeholders=None):
    """Traces `fn(*args)` into a subgraph; returns (output template, subgraph)."""
    _core.trace_begin()
    try:
        if placeholders is not None:
            args = placeholders()
        outputs = fn(*args)
        template, flat = output_template(_tensors_for_python_numbers(outputs))
        return template, _core.trace_finish_subgraph(flat)
    except BaseException:
        _core.trace_abandon()
        raise


def _tensors_for_python_numbers(outputs):
    def convert(v):
        if (
            isinstance(v, (bool, int, float))
            or hasattr(v, "__array__")
            and not isinstance(v, _core.Tensor)
        ):
            return convert_to_tensor(v)
        return v

    return nest.map_structure(convert, outputs) if nest.is_nested(outputs) else convert(outputs)


def _same_structure(templates, what):
    first = templates[0]
    for other in templates[1:]:
        try:
            nest.assert_same_structure(first, other, check_types=False)
        except (TypeError, ValueError):
            raise ValueError(_SAME_STRUCTURE.format(what=what)) from None
        for a, b in zip(nest.flatten(first), nest.flatten(other)):
            if (a is None) != (b is None):
                raise ValueError(_SAME_STRUCTURE.format(what=what))


def _pack(template, tensors):
    from ferroflow.concrete_function import fill_template

    return fill_template(template, list(tensors))


def cond(pred, true_fn, false_fn):
    pred = convert_to_tensor(pred)
    if pred.dtype.name != "bool":
        from ferroflow.control_flow import _tf_type_name
        from ferroflow.errors import InvalidArgumentError

        # TensorFlow's graph refuses it when the Switch node is built.
        raise InvalidArgumentError(
            None,
            None,
            f"Input 'pred' passed {_tf_type_name(pred.dtype)} expected bool while building NodeDef "
            "'cond/switch_pred' using Op<name=Switch; signature=data:T, pred:bool -> "
            "output_false:T, output_true:T; attr=T:type>",
        )
    if pred.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for 'cond' (pred)")
    traced = [_trace_subgraph(fn) for fn in (true_fn, false_fn)]
    templates = [t for t, _ in traced]
    _same_structure(templates, "true_fn and false_fn arguments to tf.cond")
    return _pack(templates[0], _core.record_cond(pred, [g for _, g in traced]))


def switch_case(branch_index, branches):
    index = convert_to_tensor(branch_index)
    if index.dtype.name not in ("int32", "int64"):
        raise TypeError(f"branch_index must be an int32 or int64 tensor, got {index.dtype.name}")
    traced = [_trace_subgraph(fn) for fn in branches]
    templates = [t for t, _ in traced]
    _same_structure(templates, "branch_fns arguments to tf.switch_case")
    return _pack(templates[0], _core.record_cond(index, [g for _, g in traced]))


class _RaiseOnWrite:
    """The output stream of the print that stands in for an `Assert` op: writing raises."""

    def __init__(self, message):
        self.message = message

    def write(self, text):
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, self.message)


def assert_true(condition, message):
    """TensorFlow's `Assert(condition, [message])` in a trace: running the graph with
    `condition` false raises InvalidArgumentError "assertion failed: [message]". There is no
    Assert op: a print under `tf.cond` whose stream raises does its work (a saved and reloaded
    graph prints the message to stderr instead, and goes on)."""
    text = f"assertion failed: [{message}]"

    def fail():
        _core.print_tensors([text + "\n"], [], 1, _RaiseOnWrite(text), "other")
        return ()

    cond(condition, lambda: (), fail)


def while_loop(cond, body, loop_vars, maximum_iterations, shape_invariants):
    if maximum_iterations is not None:
        return _bounded_while(cond, body, loop_vars, maximum_iterations, shape_invariants)
    flat = [convert_to_tensor(v) for v in nest.flatten(loop_vars)]
    dims = _invariant_dims(flat, shape_invariants, loop_vars)

    def placeholders():
        made = [_core.trace_placeholder(t, "loop_var", d) for t, d in zip(flat, dims)]
        return _as_args(nest.pack_sequence_as(loop_vars, made))

    _, cond_graph = _trace_subgraph(lambda *a: convert_to_tensor(cond(*a)), (), placeholders)
    body_template, body_graph = _trace_subgraph(
        lambda *a: _normalize_body_result(body(*a), loop_vars), (), placeholders
    )
    _check_shapes(flat, dims, body_graph.output_dims())
    return nest.pack_sequence_as(loop_vars, _core.record_while(flat, cond_graph, body_graph))


def trace_discarded(fn, loop_vars):
    """`fn(*placeholders)`, with placeholders shaped like `loop_vars` (as `while_loop`'s body
    gets them), traced into a graph that is then thrown away: how AutoGraph learns what one
    iteration of a loop body makes of its variables before it stages the loop. What `fn`
    returns must not hold symbolic values of the discarded trace. A `tf.TensorArray` among
    the variables is passed as it is (its writes in the discarded trace change nothing)."""
    from ferroflow.tensor_array_ops import TensorArray

    def placeholder(t):
        if isinstance(t, TensorArray):
            return t
        return _core.trace_placeholder(t, "loop_var", _static_dims(t))

    flat = [
        v if isinstance(v, TensorArray) else convert_to_tensor(v) for v in nest.flatten(loop_vars)
    ]
    _core.trace_begin()
    try:
        made = [placeholder(t) for t in flat]
        return fn(*_as_args(nest.pack_sequence_as(loop_vars, made)))
    finally:
        _core.trace_abandon()


def _as_args(loop_vars):
    return tuple(loop_vars) if isinstance(loop_vars, (list, tuple)) else (loop_vars,)


def body_result(result, loop_vars):
    """A loop body's `result` in the structure of `loop_vars` (a lone value for a single
    loop variable in a list or tuple is wrapped); ValueError when it has another structure."""
    if (
        len(nest.flatten(loop_vars)) == 1
        and not nest.is_nested(result)
        and nest.is_nested(loop_vars)
    ):
        result = type(loop_vars)([result]) if isinstance(loop_vars, list) else (result,)
    try:
        nest.assert_same_structure(loop_vars, result, check_types=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"body must return the structure of loop_vars: {e}") from None
    return result


def _normalize_body_result(result, loop_vars):
    return [convert_to_tensor(v) for v in nest.flatten(body_result(result, loop_vars))]


def _invariant_dims(flat, shape_invariants, loop_vars):
    if shape_invariants is None:
        return [_static_dims(t) for t in flat]
    shapes = nest.flatten(shape_invariants)
    from ferroflow.tensor_shape import TensorShape

    # A None invariant keeps the variable's own shape (as TensorFlow's while_v2).
    dims = [_static_dims(t) if s is None else TensorShape(s).dims for t, s in zip(flat, shapes)]
    if any(d is None for d in dims):
        from ferroflow.errors import UnimplementedError

        # As `_static_dims`: a loop variable's placeholder needs a rank.
        raise UnimplementedError(
            None,
            None,
            "a loop variable of unknown rank (a shape invariant of unknown rank, or a "
            "Dataset.reduce state that a tf.py_function or tf.numpy_function result makes "
            "unknown): ferroflow cannot stage control flow over it; give the value a shape "
            "first with tf.ensure_shape(value, shape)",
        )
    return [list(d) for d in dims]


def _static_dims(t):
    info = _core.symbolic_info(t)
    if info is not None and info[1] is None:
        from ferroflow.errors import UnimplementedError

        raise UnimplementedError(
            None,
            None,
            f"{info[0]} has an unknown rank (a tf.py_function or tf.numpy_function result): "
            "ferroflow cannot stage control flow over it; give it a shape first with "
            "tf.ensure_shape(value, shape)",
        )
    return list(info[1]) if info is not None else list(t._dims)


def _shape_text(dims):
    from ferroflow.tensor_shape import TensorShape

    return str(TensorShape(dims))


def _check_shapes(flat, dims, out_dims):
    for k, (before, after) in enumerate(zip(dims, out_dims)):
        fits = (
            after is not None
            and len(before) == len(after)
            and all(b is None or a == b for b, a in zip(before, after))
        )
        if not fits:
            raise ValueError(
                f"Input tensor 'loop_var_{k}' enters the loop with shape {_shape_text(before)}, "
                f"but has shape {_shape_text(after)} after one iteration. To allow the shape to "
                "vary across iterations, use the `shape_invariants` argument of tf.while_loop to "
                "specify a less-specific shape."
            )


def _bounded_while(cond, body, loop_vars, maximum_iterations, shape_invariants):
    from ferroflow.math import less, logical_and

    limit = convert_to_tensor(maximum_iterations)
    counter = convert_to_tensor(0, dtype=limit.dtype)

    def bounded_cond(i, *vs):
        return logical_and(less(i, limit), convert_to_tensor(cond(*vs)))

    def bounded_body(i, *vs):
        result = _normalize_body_result(body(*vs), loop_vars)
        return (i + 1, *_as_args(nest.pack_sequence_as(loop_vars, result)))

    wrapped = (counter, *_as_args(loop_vars))
    if shape_invariants is not None:
        from ferroflow.tensor_shape import TensorShape

        # The counter's invariant is a scalar shape (a `[]` would flatten to no leaf at all).
        shape_invariants = (TensorShape([]), *_as_args(shape_invariants))
    result = while_loop(bounded_cond, bounded_body, wrapped, None, shape_invariants)
    rest = result[1:]
    if isinstance(loop_vars, (list, tuple)):
        return (
            type(loop_vars)(rest) if not hasattr(loop_vars, "_fields") else type(loop_vars)(*rest)
        )
    return rest[0]
