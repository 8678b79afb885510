"""`tf.linalg.LinearOperatorHouseholder`: the reflection ``I - 2 v vᴴ`` (``v`` the normalized
reflection axis), applied in O(N) per column; it is its own adjoint and inverse, with
determinant -1."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorHouseholder"]


@make_composite_tensor
class LinearOperatorHouseholder(LinearOperator):
    """The reflection about the hyperplane orthogonal to ``reflection_axis`` (``[..., N]``).

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorHouseholder([0.0, 1.0])
    >>> op.matvec([3.0, 4.0]).numpy().tolist()
    [3.0, -4.0]
    """

    def __init__(
        self,
        reflection_axis,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorHouseholder",
    ):
        parameters = dict(
            reflection_axis=reflection_axis,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._reflection_axis = _util.convert_nonref_to_tensor(reflection_axis)
        axis = self._reflection_axis
        if axis.shape.rank is not None and axis.shape.rank < 1:
            raise ValueError(
                f"Argument reflection_axis must have at least 1 dimension.  Found: {axis}"
            )
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        super().__init__(
            dtype=axis.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=True,
            is_positive_definite=False,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    @property
    def reflection_axis(self):
        return self._reflection_axis

    def _shape(self):
        shape = self._reflection_axis.shape
        return shape.concatenate(shape[-1:])

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(
            None, None, "Householder operators are always non-positive definite."
        )

    def _assert_self_adjoint(self):
        return None

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _normalized_axis(self):
        from ferroflow.math import l2_normalize

        return l2_normalize(self.reflection_axis, axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg import matmul
        from ferroflow.linalg_ops import adjoint as adjoint_of

        x = adjoint_of(x) if adjoint_arg else x
        mat = self._normalized_axis()[..., None]
        return x - 2 * mat * matmul(mat, x, adjoint_a=True)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _batch_filled(self, value):
        from ferroflow.array_ops import fill
        from ferroflow.math import cast

        return fill(self.batch_shape.as_list(), cast(value, self.dtype))

    def _trace(self):
        return self._batch_filled(self.domain_dimension - 2)

    def _determinant(self):
        return self._batch_filled(-1)

    def _log_abs_determinant(self):
        return self._batch_filled(0)

    def _cond(self):
        return self._batch_filled(1)

    def _to_dense(self):
        from ferroflow.linalg import matmul
        from ferroflow.linalg_ops import diag_part, set_diag

        mat = self._normalized_axis()[..., None]
        matrix = -2 * matmul(mat, mat, adjoint_b=True)
        return set_diag(matrix, 1.0 + diag_part(matrix))

    def _diag_part(self):
        from ferroflow.math import conj

        v = self._normalized_axis()
        return 1.0 - 2 * v * conj(v)

    def _eigvals(self):
        from ferroflow.array_ops import concat, ones

        shape = self.reflection_axis.shape.as_list()
        ones_ = ones(shape[:-1] + [shape[-1] - 1], dtype=self.dtype)
        return concat([-ones(shape[:-1] + [1], dtype=self.dtype), ones_], axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("reflection_axis",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"reflection_axis": 1}
