"""`tf.linalg.LinearOperatorComposition`: the product of several operators."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorComposition"]


def is_adjoint_pair(x, y):
    """Whether ``y`` is known to be ``x``'s adjoint (by identity of the objects)."""
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def is_aat_form(operators):
    """Whether the product has the form ``A1 ... An An^H ... A1^H``."""
    operators = list(operators)
    if not operators:
        raise ValueError("AAT form is undefined for empty operators")
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


@make_composite_tensor
class LinearOperatorComposition(LinearOperator):
    """``A1 @ A2 @ ... @ An``, applied one operator at a time.

    >>> import ferroflow as tf
    >>> a = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
    >>> b = tf.linalg.LinearOperatorDiag([1.0, 10.0])
    >>> tf.linalg.LinearOperatorComposition([a, b]).to_dense().numpy()
    array([[ 1., 20.],
           [ 3., 40.]], dtype=float32)
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = _util.parameters_of(locals())
        operators, dtype = _util.checked_operators(operators)
        self._operators = operators
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError(
                    "The composition of non-singular operators is always non-singular."
                )
            is_non_singular = True
        aat = is_aat_form(operators)
        if (len(operators) == 1 and operators[0].is_self_adjoint) or aat:
            if is_self_adjoint is False:
                raise ValueError(
                    "The composition was determined to be self-adjoint but user provided "
                    "incorrect `False` hint."
                )
            is_self_adjoint = True
        if aat:
            if is_square is False:
                raise ValueError(
                    "The composition was determined have the form A @ A.H, hence it must be "
                    "square. The user provided an incorrect `False` hint."
                )
            is_square = True
            if is_non_singular:
                if is_positive_definite is False:
                    raise ValueError(
                        "The composition was determined to be non-singular and have the form "
                        "A @ A.H, hence it must be positive-definite. The user provided an "
                        "incorrect `False` hint."
                    )
                is_positive_definite = True
        if name is None:
            name = "_o_".join(op.name for op in operators)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_of(locals()))

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        domain = self.operators[0].domain_dimension
        for op in self.operators[1:]:
            if (
                domain is not None
                and op.range_dimension is not None
                and (domain != op.range_dimension)
            ):
                raise ValueError(f"Dimensions {domain} and {op.range_dimension} are not compatible")
            domain = op.domain_dimension
        first, last = self.operators[0], self.operators[-1]
        matrix = TensorShape([first.range_dimension, last.domain_dimension])
        return _util.broadcast_batch_shape(self.operators).concatenate(matrix)

    def _shape_tensor(self):
        from ferroflow.array_ops import concat, stack

        first, last = self.operators[0], self.operators[-1]
        dims = stack([first.range_dimension_tensor(), last.domain_dimension_tensor()])
        return concat([_util.broadcast_batch_shape_tensor(self.operators), dims], 0)

    def _linop_cholesky(self):
        from ferroflow.array_ops import expand_dims
        from ferroflow.linalg_operators.lower_triangular import LinearOperatorLowerTriangular
        from ferroflow.math import sign

        left = self.operators[0]
        llt = (
            len(self.operators) == 2
            and is_aat_form(self.operators)
            and isinstance(left, LinearOperatorLowerTriangular)
        )
        if not llt:
            return super()._linop_cholesky()
        if left.is_positive_definite:
            return left
        diag_sign = expand_dims(sign(left.diag_part()), axis=-2)
        return LinearOperatorLowerTriangular(
            tril=left.tril / diag_sign,
            is_non_singular=left.is_non_singular,
            is_self_adjoint=left.is_self_adjoint,
            is_positive_definite=True if left.is_positive_definite else None,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self.operators if adjoint else list(reversed(self.operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            result = op.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        return _util.reduce_operators(self.operators, "determinant", lambda a, b: a * b)

    def _log_abs_determinant(self):
        return _util.reduce_operators(self.operators, "log_abs_determinant", lambda a, b: a + b)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self.operators)) if adjoint else self.operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            solution = op.solve(solution, adjoint=adjoint)
        return solution

    def _assert_non_singular(self):
        if all(op.is_square for op in self.operators):
            from ferroflow.framework_ops import group

            return group(*[op.assert_non_singular() for op in self.operators])
        return super()._assert_non_singular()

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}
