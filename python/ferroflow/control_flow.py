"""`tf.cond`, `tf.while_loop`, `tf.switch_case`: plain Python control flow when eager; staged
into the graph when tracing a `tf.function` over a symbolic condition."""

from ferroflow import _tracing, nest
from ferroflow.array_ops import convert_to_tensor

__all__ = ["cond", "switch_case", "while_loop"]


def cond(pred, true_fn=None, false_fn=None, name=None):
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if _tracing.tracing() and isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    if _tracing.staged(pred):
        from ferroflow import _tensor_array_graph

        return _tensor_array_graph.cond(pred, true_fn, false_fn)
    return true_fn() if _truth(pred) else false_fn()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    branches = _branch_list(branch_fns)
    if default is not None:
        branches.append(default)
    _check_branch_index(branch_index)
    if _tracing.tracing() and branch_index.dtype.name != "int32":
        # The staged Case op takes int32 only; eagerly any integer dtype picks a branch.
        raise TypeError(
            f"Input 'branch_index' of 'StatelessCase' Op has type {branch_index.dtype.name} "
            "that does not match expected type of int32"
        )
    if branch_index.shape.rank not in (None, 0):
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None,
            None,
            f"The second input must be a scalar, but it has shape {branch_index.shape.as_list()}",
        )
    if _tracing.staged(branch_index):
        from ferroflow import _tensor_array_graph

        return _tensor_array_graph.switch_case(branch_index, branches)
    index = int(branch_index)
    # Out of range picks the default, or the last branch without one (as TensorFlow).
    return branches[index if 0 <= index < len(branches) else -1]()


def _check_branch_index(branch_index):
    """TensorFlow takes only an integer tensor, refusing Python numbers too."""
    from ferroflow._core import Tensor

    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")


def while_loop(
    cond,  # noqa: A002 - TensorFlow's argument name
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    maximum_iterations=None,
    name=None,
):
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if not nest.is_nested(loop_vars) and loop_vars is None:
        raise ValueError("'loop_vars' must be provided.")
    if not nest.is_nested(loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    if shape_invariants is None and _has_extension_types(loop_vars):
        return _while_over_components(cond, body, loop_vars, maximum_iterations)
    if _tracing.tracing():
        # As TensorFlow's: inside a function the loop is one While node, whatever its
        # variables' values (its gradient and its random ops depend on that).
        return _staged_while(cond, body, loop_vars, maximum_iterations, shape_invariants)
    # Eagerly too, loop variables become tensors (as TensorFlow's eager while_loop).
    loop_vars = nest.map_structure(_as_tensor, loop_vars)
    steps = 0
    while maximum_iterations is None or steps < int(maximum_iterations):
        keep_going = cond(*loop_vars)
        if _tracing.is_symbolic(keep_going):
            return _staged_while(
                cond,
                body,
                loop_vars,
                None if maximum_iterations is None else int(maximum_iterations) - steps,
                shape_invariants,
            )
        if not _truth(keep_going):
            break
        new_vars = body(*loop_vars)
        if len(nest.flatten(loop_vars)) == 1 and not nest.is_nested(new_vars):
            new_vars = type(loop_vars)([new_vars]) if isinstance(loop_vars, list) else (new_vars,)
        _check_same_structure(loop_vars, new_vars)
        loop_vars = nest.map_structure(_as_tensor, new_vars)
        steps += 1
    return loop_vars


def _has_extension_types(loop_vars):
    from ferroflow.extension_type import ExtensionType

    return any(isinstance(v, ExtensionType) for v in nest.flatten(loop_vars))


def _while_over_components(cond, body, loop_vars, maximum_iterations):
    """A loop whose variables hold ExtensionTypes runs over their component tensors, each
    iteration's values rebuilt from them (TensorFlow loops over composites the same way)."""

    def values(flat):
        return nest.pack_sequence_as(loop_vars, list(flat), expand_composites=True)

    def flat_body(*flat):
        new_vars = body(*values(flat))
        if len(nest.flatten(loop_vars)) == 1 and not nest.is_nested(new_vars):
            new_vars = [new_vars]
        nest.assert_same_structure(nest.flatten(loop_vars), nest.flatten(new_vars))
        return nest.flatten(new_vars, expand_composites=True)

    flat = while_loop(
        lambda *flat: cond(*values(flat)),
        flat_body,
        nest.flatten(loop_vars, expand_composites=True),
        maximum_iterations=maximum_iterations,
    )
    return values(flat)


def _staged_while(cond, body, loop_vars, maximum_iterations, shape_invariants):
    """The loop as one graph node; TensorArrays among the variables cross it as their
    component tensors (`_tensor_array_graph`)."""
    from ferroflow import _tensor_array_graph

    cond = _bool_condition(cond)
    if _tensor_array_graph.has_tensor_arrays(loop_vars):
        return _tensor_array_graph.while_loop(
            cond, body, loop_vars, maximum_iterations, shape_invariants
        )
    from ferroflow import _staging

    return _staging.while_loop(cond, body, loop_vars, maximum_iterations, shape_invariants)


def _bool_condition(cond):
    """`cond`, refusing a condition that is not a bool as TensorFlow's graph does (`LoopCond`
    takes a bool; a staged loop would otherwise stop on any non-zero number)."""

    def checked(*loop_vars):
        keep_going = convert_to_tensor(cond(*loop_vars))
        if keep_going.dtype.name != "bool":
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None,
                None,
                f"Input 'input' passed {_tf_type_name(keep_going.dtype)} expected bool while "
                "building NodeDef 'while/LoopCond' using Op<name=LoopCond; "
                "signature=input:bool -> output:bool>",
            )
        return keep_going

    return checked


def _tf_type_name(dtype):
    return {"float16": "half", "float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


def _as_tensor(value):
    from ferroflow.tensor_array_ops import TensorArray

    if value is None or isinstance(value, TensorArray):
        return value
    return convert_to_tensor(value)


def _truth(pred):
    if isinstance(pred, bool):
        return pred
    value = convert_to_tensor(pred)
    if value.shape.rank != 0:
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, None, f"The predicate must be a scalar, got shape {value.shape}"
        )
    return bool(value)


def _branch_list(branch_fns):
    if isinstance(branch_fns, dict):
        keys = sorted(branch_fns)
        if keys != list(range(len(keys))):
            raise ValueError(f"branch indices must be 0..{len(keys) - 1}, got {keys}")
        branches = [branch_fns[k] for k in keys]
    else:
        branches = [fn for _, fn in branch_fns] if _is_pairs(branch_fns) else list(branch_fns)
    if not branches:
        raise ValueError("branch_fns must not be empty")
    for fn in branches:
        if not callable(fn):
            raise TypeError("branch_fns must be callables")
    return branches


def _is_pairs(branch_fns):
    return all(isinstance(b, tuple) and len(b) == 2 for b in branch_fns)


def _check_same_structure(before, after):
    try:
        nest.assert_same_structure(before, after, check_types=False)
    except (TypeError, ValueError) as e:
        raise type(e)(f"body must return the structure of loop_vars: {e}") from None
