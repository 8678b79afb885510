"""`tf.linalg.LinearOperatorDiag`: a (batch of) diagonal matrix given by its diagonal."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorDiag"]


@make_composite_tensor
class LinearOperatorDiag(LinearOperator):
    """``diag(d)`` for ``d`` of shape ``batch_shape + [N]``: products and solves are
    elementwise.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorDiag([1.0, 2.0])
    >>> op.solvevec([1.0, 1.0]).numpy()
    array([1. , 0.5], dtype=float32)
    """

    def __init__(
        self,
        diag,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorDiag",
    ):
        parameters = _util.parameters_of(locals())
        self._diag = _util.convert_nonref_to_tensor(diag)
        self._check_diag(self._diag)
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        is_square = True
        super().__init__(
            dtype=self._diag.dtype, parameters=parameters, name=name, **_util.hints_of(locals())
        )

    def _check_diag(self, diag):
        if diag.shape.rank is not None and diag.shape.rank < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {diag}")

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        shape = TensorShape(self._diag.shape)
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self):
        from ferroflow.array_ops import concat, shape

        d_shape = shape(self._diag)
        return concat([d_shape, d_shape[-1:]], 0)

    def _hints_with(self, left, right):
        return dict(
            is_non_singular=_util.combined_non_singular_hint(left, right),
            is_self_adjoint=_util.combined_commuting_self_adjoint_hint(left, right),
            is_positive_definite=_util.combined_commuting_positive_definite_hint(left, right),
            is_square=True,
        )

    def _combine(self, left, right, combine, fallback):
        """``left @ right`` (``combine`` multiplies) or ``left^-1 @ right`` (divides) for a
        diagonal ``left``, as TensorFlow: a diagonal or scaled identity ``right`` gives a
        diagonal, a lower triangular one a lower triangular."""
        from ferroflow.linalg_operators.lower_triangular import LinearOperatorLowerTriangular

        hints = self._hints_with(left, right)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(diag=combine(right.diag, left.diag), **hints)
        if hasattr(right, "_ones_diag") and hasattr(right, "multiplier"):
            return LinearOperatorDiag(diag=combine(right.multiplier, left.diag), **hints)
        if isinstance(right, LinearOperatorLowerTriangular):
            hints["is_positive_definite"] = None
            return LinearOperatorLowerTriangular(
                tril=combine(right.to_dense(), left.diag[..., None]), **hints
            )
        return fallback(left, right)

    def _linop_matmul(self, left_operator, right_operator):
        return self._combine(
            left_operator, right_operator, lambda r, d: d * r, super()._linop_matmul
        )

    def _linop_solve(self, left_operator, right_operator):
        return self._combine(
            left_operator, right_operator, lambda r, d: r / d, super()._linop_solve
        )

    def _linop_inverse(self):
        return LinearOperatorDiag(
            1.0 / self.diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_adjoint(self):
        from ferroflow.math import conj

        diag = conj(self.diag) if self.diag.dtype.is_complex else self.diag
        return LinearOperatorDiag(
            diag=diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        from ferroflow.math import sqrt

        return LinearOperatorDiag(
            sqrt(self.diag),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _assert_non_singular(self):
        return _util.assert_no_entries_with_modulus_zero(
            self._diag, message="Singular operator:  Diagonal contained zero values."
        )

    def _assert_positive_definite(self):
        from ferroflow.check_ops import assert_positive
        from ferroflow.math import real

        if self.dtype.is_complex:
            message = (
                "Diagonal operator had diagonal entries with non-positive real part, thus was "
                "not positive definite."
            )
        else:
            message = (
                "Real diagonal operator had non-positive diagonal entries, thus was not "
                "positive definite."
            )
        return assert_positive(real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return _util.assert_zero_imag_part(
            self._diag,
            message="This diagonal operator contained non-zero imaginary values.   Thus it "
            "was not self-adjoint.",
        )

    def _diag_term(self, adjoint):
        from ferroflow.math import conj

        return conj(self._diag) if adjoint else self._diag

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import expand_dims
        from ferroflow.linalg_ops import adjoint as adjoint_

        x = adjoint_(x) if adjoint_arg else x
        return expand_dims(self._diag_term(adjoint), -1) * x

    def _matvec(self, x, adjoint=False):
        return self._diag_term(adjoint) * x

    def _determinant(self):
        from ferroflow.math import reduce_prod

        return reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import cast, log, reduce_sum

        log_det = reduce_sum(log(abs_(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = cast(log_det, dtype=self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import expand_dims
        from ferroflow.linalg_ops import adjoint as adjoint_

        rhs = adjoint_(rhs) if adjoint_arg else rhs
        return rhs * expand_dims(1.0 / self._diag_term(adjoint), -1)

    def _to_dense(self):
        from ferroflow.linalg_ops import diag

        return diag(self._diag)

    def _diag_part(self):
        return self.diag

    def _add_to_tensor(self, x):
        from ferroflow.linalg_ops import diag_part, set_diag

        return set_diag(x, self._diag + diag_part(x))

    def _eigvals(self):
        from ferroflow.array_ops import convert_to_tensor

        return convert_to_tensor(self.diag)

    def _cond(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import reduce_max, reduce_min

        abs_diag = abs_(self.diag)
        return reduce_max(abs_diag, axis=-1) / reduce_min(abs_diag, axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("diag",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"diag": 1}
