"""The tf.linalg functions that accept an operator (TensorFlow's `dispatch_for_types`
registrations in linear_operator.py): `tf.linalg.adjoint(op)` is `op.adjoint()`, and so on."""

from ferroflow import _dispatch, array_ops, linalg, linalg_ops
from ferroflow.linalg_operators.base import LinearOperator, _flat_params, _rebuilt


def _adjoint(matrix, name=None):
    return matrix.adjoint(name)


def _cholesky(input, name=None):  # noqa: A002 - TensorFlow's argument name
    return input.cholesky(name)


def _diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    return input.diag_part(name)


def _det(input, name=None):  # noqa: A002
    return input.determinant(name)


def _inverse(input, adjoint=False, name=None):  # noqa: A002
    inv = input.inverse(name)
    return inv.adjoint() if adjoint else inv


def _logdet(matrix, name=None):
    if matrix.is_positive_definite and matrix.is_self_adjoint:
        return matrix.log_abs_determinant(name)
    raise ValueError("Expected matrix to be self-adjoint positive definite.")


def _matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
            a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False,
            grad_b=False, name=None):  # fmt: skip
    if transpose_a or transpose_b:
        raise ValueError("Transposing not supported at this time.")
    if a_is_sparse or b_is_sparse:
        raise ValueError("Sparse methods not supported at this time.")
    if not isinstance(a, LinearOperator):
        # x @ A = (A^H @ x^H)^H
        return linalg_ops.adjoint(b.matmul(a, adjoint=not adjoint_b, adjoint_arg=not adjoint_a))
    return a.matmul(b, adjoint=adjoint_a, adjoint_arg=adjoint_b)


def _solve(matrix, rhs, adjoint=False, name=None):
    if not isinstance(matrix, LinearOperator):
        raise ValueError(
            "Passing in `matrix` as a Tensor and `rhs` as a LinearOperator is not supported."
        )
    return matrix.solve(rhs, adjoint=adjoint)


def _trace(x, name=None):
    return x.trace(name)


def _identity(input, name=None):  # noqa: A002
    """An operator of the same class over the identities of its tensors (as TensorFlow's
    identity of a composite)."""
    return _rebuilt(input, iter([array_ops.identity(t) for t in _flat_params(input)]))


def install():
    for api, handler in (
        (array_ops.identity, _identity),
        (linalg_ops.adjoint, _adjoint),
        (linalg_ops.cholesky, _cholesky),
        (linalg_ops.diag_part, _diag_part),
        (linalg_ops.det, _det),
        (linalg_ops.inv, _inverse),
        (linalg_ops.logdet, _logdet),
        (linalg.matmul, _matmul),
        (linalg_ops.solve, _solve),
        (linalg_ops.trace, _trace),
    ):
        _dispatch.register(_dispatch.install(api), LinearOperator, handler)
