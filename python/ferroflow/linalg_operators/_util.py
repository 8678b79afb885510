"""Helpers shared by the linear operators (TensorFlow's `linear_operator_util` and
`property_hint_util`): tensor conversion that keeps variables, batch broadcasting for solves,
and the rules that combine two operators' `is_*` hints."""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import broadcast_to, convert_to_tensor
from ferroflow.manip_ops import broadcast_static_shape
from ferroflow.variables import Variable


def is_ref(x):
    """A variable (or a module standing for a tensor): kept as it is, so every use reads it."""
    from ferroflow.module import Module

    return isinstance(x, Variable) or (
        isinstance(x, Module) and hasattr(x, "dtype") and hasattr(x, "shape")
    )


def convert_nonref_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`value` as a tensor, except a variable, which is kept (its dtype checked)."""
    if value is None:
        return None
    if is_ref(value):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise TypeError(
                f"Argument `value` must be of dtype `{_dtypes.as_dtype(dtype).name}` "
                f"Received: `{value.dtype.name}`."
            )
        return value
    if dtype is None and dtype_hint is not None and not _core.is_tensor(value):
        try:
            return convert_to_tensor(value, dtype=dtype_hint)
        except (TypeError, ValueError):
            return convert_to_tensor(value)
    return convert_to_tensor(value, dtype=dtype)


def static_dims(shape):
    """The dims of a TensorShape as a list (None for an unknown rank)."""
    return None if shape.rank is None else list(shape.dims)


def broadcast_matrix_batch_dims(batch_matrices):
    """The matrices broadcast against each other's batch shapes (their last two dims kept)."""
    from ferroflow.array_ops import concat, shape

    mats = [convert_to_tensor(m) for m in batch_matrices]
    for m in mats:
        if m.shape.rank is not None and m.shape.rank < 2:
            raise ValueError(
                f"Expected [batch] matrix to have at least two dimensions. Found: {m}."
            )
    if len(mats) < 2:
        return mats
    batch = mats[0].shape[:-2]
    for m in mats[1:]:
        batch = broadcast_static_shape(batch, m.shape[:-2])
    if batch.is_fully_defined():
        return [
            m
            if m.shape[:-2] == batch
            else broadcast_to(m, concat([batch.as_list(), shape(m)[-2:]], 0))
            for m in mats
        ]
    from ferroflow.manip_ops import broadcast_dynamic_shape

    dynamic = shape(mats[0])[:-2]
    for m in mats[1:]:
        dynamic = broadcast_dynamic_shape(dynamic, shape(m)[:-2])
    return [broadcast_to(m, concat([dynamic, shape(m)[-2:]], 0)) for m in mats]


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False):
    """`tf.linalg.solve` with the batch dims of `matrix` and `rhs` broadcast."""
    from ferroflow.linalg_ops import solve

    matrix = convert_to_tensor(matrix)
    rhs = convert_to_tensor(rhs, dtype=matrix.dtype)
    matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
    return solve(matrix, rhs, adjoint=adjoint)


def assert_no_entries_with_modulus_zero(x, message=None):
    from ferroflow.check_ops import assert_less
    from ferroflow.math import abs as abs_

    x = convert_to_tensor(x)
    zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
    return assert_less(zero, abs_(x), message=message)


def assert_zero_imag_part(x, message=None):
    from ferroflow.check_ops import assert_equal
    from ferroflow.math import imag

    x = convert_to_tensor(x)
    if x.dtype.is_floating:
        return None
    zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
    return assert_equal(zero, imag(x), message=message)


def use_operator_or_provided_hint_unless_contradicting(operator, hint_attr_name, provided, message):
    """The hint `operator` carries merged with the one given; ValueError when they disagree."""
    op_hint = getattr(operator, hint_attr_name)
    if (op_hint is False and provided) or (op_hint and provided is False):
        raise ValueError(message)
    if op_hint or provided:
        return True
    if op_hint is False or provided is False:
        return False
    return None


# --- combining two operators' hints (TensorFlow's property_hint_util) -------------------------


def combined_commuting_self_adjoint_hint(a, b):
    if a.is_self_adjoint and b.is_self_adjoint:
        return True
    if (a.is_self_adjoint is True and b.is_self_adjoint is False) or (
        a.is_self_adjoint is False and b.is_self_adjoint is True
    ):
        return False
    return None


def is_square(a, b):
    if a.is_square and b.is_square:
        return True
    if a.is_square is False and b.is_square is False:
        m, n = a.range_dimension, b.domain_dimension
        if m is not None and n is not None:
            return m == n
    if a.is_square != b.is_square and a.is_square is not None and b.is_square is not None:
        return False
    return None


def combined_commuting_positive_definite_hint(a, b):
    if (
        a.is_positive_definite is True
        and a.is_self_adjoint is True
        and b.is_positive_definite is True
        and b.is_self_adjoint is True
    ):
        return True
    return None


def combined_non_singular_hint(a, b):
    if a.is_non_singular is False or b.is_non_singular is False:
        return False
    return a.is_non_singular and b.is_non_singular


# --- constructor plumbing shared by the operators -----------------------------------------------

_HINT_NAMES = ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square")


def parameters_of(arguments):
    """An operator's ``parameters``: its constructor's arguments, from ``locals()`` taken as
    the constructor's first statement."""
    return {k: v for k, v in arguments.items() if k not in ("self", "__class__")}


def hints_of(arguments):
    """The four ``is_*`` hints among ``arguments`` (a constructor's ``locals()``)."""
    return {k: arguments[k] for k in _HINT_NAMES}


def checked_operators(operators):
    """(the operators as a list, their common dtype) for Composition and BlockDiag:
    ValueError when empty, TypeError when the dtypes differ."""
    from ferroflow.check_ops import assert_proper_iterable

    assert_proper_iterable(operators)
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtype = operators[0].dtype
    if any(op.dtype != dtype for op in operators):
        found = "   ".join(str((o.name, o.dtype)) for o in operators)
        raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
    return operators, dtype


def reduce_operators(operators, method, combine):
    """``combine`` folded over each operator's ``method()`` (a product of determinants...)."""
    result = getattr(operators[0], method)()
    for op in operators[1:]:
        result = combine(result, getattr(op, method)())
    return result


def broadcast_batch_shape(operators):
    """The static batch shape all ``operators`` broadcast to."""
    batch = operators[0].batch_shape
    for op in operators[1:]:
        batch = broadcast_static_shape(batch, op.batch_shape)
    return batch


def broadcast_batch_shape_tensor(operators):
    """The dynamic batch shape all ``operators`` broadcast to."""
    from ferroflow.manip_ops import broadcast_dynamic_shape

    batch = operators[0].batch_shape_tensor()
    for op in operators[1:]:
        batch = broadcast_dynamic_shape(batch, op.batch_shape_tensor())
    return batch
