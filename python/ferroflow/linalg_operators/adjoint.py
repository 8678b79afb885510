"""`tf.linalg.LinearOperatorAdjoint`: the conjugate transpose of an operator."""

from ferroflow.linalg_operators._wrapped import WrappedOperator
from ferroflow.linalg_operators.base import make_composite_tensor

__all__ = ["LinearOperatorAdjoint"]


@make_composite_tensor
class LinearOperatorAdjoint(WrappedOperator):
    """``A^H`` for an operator ``A``, computed through ``A``'s own adjoint methods.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
    >>> tf.linalg.LinearOperatorAdjoint(op).to_dense().numpy()
    array([[1., 3.],
           [2., 4.]], dtype=float32)
    """

    _relation = "adjoint"
    _suffix = "_adjoint"

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        hints = dict(
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
        )
        super().__init__(operator, hints, name)

    def _linop_adjoint(self):
        return self.operator

    def _shape(self):
        shape = self.operator.shape
        if shape.rank is None:
            return shape
        return shape[:-2].concatenate([shape.dims[-1], shape.dims[-2]])

    def _shape_tensor(self):
        from ferroflow.array_ops import concat

        shape = self.operator.shape_tensor()
        return concat([shape[:-2], [shape[-1], shape[-2]]], axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self.operator.matvec(x, adjoint=not adjoint)

    def _conj_unless_self_adjoint(self, value):
        from ferroflow.math import conj

        return value if self.is_self_adjoint else conj(value)

    def _determinant(self):
        return self._conj_unless_self_adjoint(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _trace(self):
        return self._conj_unless_self_adjoint(self.operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self.operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        from ferroflow.linalg_ops import adjoint

        if self.is_self_adjoint:
            return self.operator.to_dense()
        return adjoint(self.operator.to_dense())

    def _eigvals(self):
        from ferroflow.math import conj

        eigvals = self.operator.eigvals()
        return eigvals if self.operator.is_self_adjoint else conj(eigvals)
