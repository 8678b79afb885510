"""`tf.linalg.LinearOperatorInversion`: the inverse of an operator."""

from ferroflow.linalg_operators._wrapped import WrappedOperator
from ferroflow.linalg_operators.base import make_composite_tensor

__all__ = ["LinearOperatorInversion"]


@make_composite_tensor
class LinearOperatorInversion(WrappedOperator):
    """``A^{-1}`` for a square non-singular operator ``A``: its matmul is ``A``'s solve and its
    solve ``A``'s matmul.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorFullMatrix([[2.0, 0.0], [0.0, 4.0]])
    >>> tf.linalg.LinearOperatorInversion(op).to_dense().numpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """

    _relation = "inverse"
    _suffix = "_inv"

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint "
                "`is_non_singular` equal to `True` or `None`. Found "
                f"`operator.is_non_singular`: {operator.is_non_singular}, `is_non_singular`: "
                f"{is_non_singular}."
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint "
                "`is_square` equal to `True` or `None`. Found `operator.is_square`: "
                f"{operator.is_square}, `is_square`: {is_square}."
            )
        hints = dict(
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
        )
        super().__init__(operator, hints, name)

    def _linop_inverse(self):
        return self.operator

    def _linop_solve(self, left_operator, right_operator):
        return left_operator.operator.matmul(right_operator)

    def _shape(self):
        return self.operator.shape

    def _shape_tensor(self):
        return self.operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self.operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self.operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1.0 / self.operator.eigvals()
