"""`tf.linalg.LinearOperatorIdentity` and `tf.linalg.LinearOperatorScaledIdentity`: (scaled)
identity matrices that store only their size (and multiplier)."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators._sized import SizedOperator, refuse_ref
from ferroflow.linalg_operators.base import make_composite_tensor
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorIdentity", "LinearOperatorScaledIdentity"]


class BaseLinearOperatorIdentity(SizedOperator):
    """What the identity operators share: ``num_rows`` and the diagonal of ones."""

    def _init_num_rows(self, num_rows):
        self._num_rows, self._num_rows_static = self._size_arg(num_rows, "num_rows")

    def _matrix_shape(self):
        n = None if self._num_rows_static is None else int(self._num_rows_static)
        return TensorShape([n, n])

    def _matrix_shape_tensor(self):
        from ferroflow.array_ops import stack

        return stack([self._num_rows, self._num_rows], axis=0)

    def _ones_diag(self):
        from ferroflow.array_ops import ones

        return self._filled_diag(ones)

    def _batch_of_ones(self):
        from ferroflow.array_ops import ones

        return self._batch_filled(ones)

    def _min_dim_as_dtype(self):
        from ferroflow.math import cast

        if self._min_matrix_dim() is not None:
            return self._min_matrix_dim()
        return cast(self._min_matrix_dim_tensor(), self.dtype)

    def _add_to_diagonal(self, mat, addend):
        from ferroflow.array_ops import convert_to_tensor
        from ferroflow.linalg_ops import diag_part, set_diag

        mat = convert_to_tensor(mat)
        return set_diag(mat, addend + diag_part(mat))


@make_composite_tensor
class LinearOperatorIdentity(BaseLinearOperatorIdentity):
    """The identity of size ``num_rows`` (optionally a batch of them, ``batch_shape``).

    >>> import ferroflow as tf
    >>> tf.linalg.LinearOperatorIdentity(2).to_dense().numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    def __init__(
        self,
        num_rows,
        batch_shape=None,
        dtype=None,
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorIdentity",
    ):
        parameters = _util.parameters_of(locals())
        dtype = _dtypes.as_dtype(dtype or _dtypes.float32)
        self._assert_proper_shapes = assert_proper_shapes
        for hint, word in (
            (is_self_adjoint, "self adjoint"),
            (is_non_singular, "non-singular"),
            (is_positive_definite, "positive-definite"),
            (is_square, "square"),
        ):
            if not hint:
                raise ValueError(f"An identity operator is always {word}.")
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_of(locals()))
        refuse_ref(num_rows, "num_rows")
        refuse_ref(batch_shape, "batch_shape")
        self._init_num_rows(num_rows)
        self._init_batch_shape(batch_shape)

    @property
    def batch_shape_arg(self):
        return self._batch_shape_arg

    def _shape(self):
        return self._with_batch_shape(self._matrix_shape())

    def _shape_tensor(self):
        return self._with_batch_shape_tensor(self._matrix_shape_tensor())

    def _linop_adjoint(self):
        return self

    def _linop_cholesky(self):
        return LinearOperatorIdentity(
            num_rows=self._num_rows,
            batch_shape=self.batch_shape,
            dtype=self.dtype,
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _linop_inverse(self):
        return self

    def _linop_matmul(self, left_operator, right_operator):
        return right_operator

    def _linop_solve(self, left_operator, right_operator):
        return right_operator

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        return None

    def _assert_self_adjoint(self):
        return None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg_ops import adjoint as adjoint_

        x = adjoint_(x) if adjoint_arg else x
        return self._possibly_broadcast_batch_shape(self._check_proper_shape(x))

    def _determinant(self):
        from ferroflow.array_ops import ones

        return ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        from ferroflow.array_ops import zeros

        return zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        return self._min_dim_as_dtype() * self._batch_of_ones()

    def _diag_part(self):
        return self._ones_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` with 1 added to its diagonal."""
        return self._add_to_diagonal(mat, 1)

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        from ferroflow.array_ops import ones

        return ones(self.batch_shape_tensor(), dtype=self.dtype)

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        return self._slice_batch_shape(slices)


@make_composite_tensor
class LinearOperatorScaledIdentity(BaseLinearOperatorIdentity):
    """``multiplier * I`` of size ``num_rows``; a batch ``multiplier`` gives a batch.

    >>> import ferroflow as tf
    >>> tf.linalg.LinearOperatorScaledIdentity(2, 3.0).to_dense().numpy()
    array([[3., 0.],
           [0., 3.]], dtype=float32)
    """

    def __init__(
        self,
        num_rows,
        multiplier,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorScaledIdentity",
    ):
        parameters = _util.parameters_of(locals())
        from ferroflow.math import cast

        self._assert_proper_shapes = assert_proper_shapes
        self._multiplier = _util.convert_nonref_to_tensor(multiplier)
        if not self._multiplier.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        refuse_ref(num_rows, "num_rows")
        super().__init__(
            dtype=self._multiplier.dtype,
            parameters=parameters,
            name=name,
            **_util.hints_of(locals()),
        )
        self._init_num_rows(num_rows)
        self._num_rows_cast_to_dtype = cast(self._num_rows, self.dtype)
        self._num_rows_cast_to_real_dtype = cast(self._num_rows, self.dtype.real_dtype)

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        return TensorShape(self._multiplier.shape).concatenate(self._matrix_shape())

    def _shape_tensor(self):
        from ferroflow.array_ops import concat, shape

        return concat([shape(self._multiplier), self._matrix_shape_tensor()], 0)

    def _assert_non_singular(self):
        from ferroflow.check_ops import assert_positive
        from ferroflow.math import abs as abs_

        return assert_positive(abs_(self.multiplier), message="LinearOperator was singular")

    def _assert_positive_definite(self):
        from ferroflow.check_ops import assert_positive
        from ferroflow.math import real

        return assert_positive(
            real(self.multiplier), message="LinearOperator was not positive definite."
        )

    def _assert_self_adjoint(self):
        from ferroflow.array_ops import zeros_like
        from ferroflow.check_ops import assert_equal
        from ferroflow.math import imag

        imag_part = imag(self.multiplier)
        return assert_equal(
            zeros_like(imag_part), imag_part, message="LinearOperator was not self-adjoint"
        )

    def _multiplier_matrix(self, conjugate=False):
        from ferroflow.array_ops import expand_dims
        from ferroflow.math import conj

        matrix = expand_dims(expand_dims(self.multiplier, -1), -1)
        return conj(matrix) if conjugate else matrix

    def _with_multiplier(self, multiplier, **hints):
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows, multiplier=multiplier, is_square=True, **hints
        )

    def _linop_adjoint(self):
        from ferroflow.math import conj

        multiplier = self.multiplier
        if multiplier.dtype.is_complex:
            multiplier = conj(multiplier)
        return self._with_multiplier(
            multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    def _linop_cholesky(self):
        from ferroflow.math import sqrt

        return self._with_multiplier(
            sqrt(self.multiplier),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
        )

    def _linop_inverse(self):
        return self._with_multiplier(
            1.0 / self.multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite,
        )

    def _combine(self, left, right, combine, fallback):
        """``left @ right`` or ``left^-1 @ right`` for a scaled identity ``left``:
        ``combine(right_values, multiplier)`` gives the result's multiplier or diagonal."""
        from ferroflow.linalg_operators.diag import LinearOperatorDiag

        hints = dict(
            is_non_singular=_util.combined_non_singular_hint(left, right),
            is_self_adjoint=_util.combined_commuting_self_adjoint_hint(left, right),
            is_positive_definite=_util.combined_commuting_positive_definite_hint(left, right),
            is_square=True,
        )
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left.domain_dimension_tensor(),
                multiplier=combine(right.multiplier, left.multiplier),
                **hints,
            )
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(diag=combine(right.diag, left.multiplier), **hints)
        return fallback(left, right)

    def _linop_matmul(self, left_operator, right_operator):
        return self._combine(
            left_operator, right_operator, lambda r, m: r * m, super()._linop_matmul
        )

    def _linop_solve(self, left_operator, right_operator):
        return self._combine(
            left_operator, right_operator, lambda r, m: r / m, super()._linop_solve
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg_ops import adjoint as adjoint_

        x = adjoint_(x) if adjoint_arg else x
        return self._check_proper_shape(x) * self._multiplier_matrix(conjugate=adjoint)

    def _determinant(self):
        return self.multiplier**self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import log

        return self._num_rows_cast_to_real_dtype * log(abs_(self.multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg_ops import adjoint as adjoint_

        rhs = adjoint_(rhs) if adjoint_arg else rhs
        return self._check_proper_shape(rhs) / self._multiplier_matrix(conjugate=adjoint)

    def _trace(self):
        return self.multiplier * self._min_dim_as_dtype() * self._batch_of_ones()

    def _diag_part(self):
        return self._ones_diag() * self.multiplier[..., None]

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``mat`` with the multiplier added to its diagonal."""
        from ferroflow.array_ops import expand_dims

        return self._add_to_diagonal(mat, expand_dims(self.multiplier, -1))

    def _eigvals(self):
        return self._ones_diag() * self.multiplier[..., None]

    def _cond(self):
        from ferroflow.array_ops import where
        from ferroflow.math import cast, equal

        return where(
            equal(self._multiplier, 0.0),
            cast(np.nan, dtype=self.dtype),
            cast(1.0, dtype=self.dtype),
        )

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows",)

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "multiplier", "assert_proper_shapes")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"multiplier": 0}
