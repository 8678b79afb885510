"""`tf.linalg.LinearOperatorToeplitz`: a square Toeplitz matrix given by its first column and
row; products embed it in a circulant of size ``2N`` (FFTs), as TensorFlow's; solves and
determinants use the dense matrix (TensorFlow's defaults)."""

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorToeplitz"]


@make_composite_tensor
class LinearOperatorToeplitz(LinearOperator):
    """``A[i, j] = col[i - j]`` below the diagonal and ``row[j - i]`` above it (``col[0]`` on
    the diagonal), batch shapes of ``col`` and ``row`` broadcast.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorToeplitz(col=[1.0, 2.0, 3.0], row=[1.0, 4.0, 5.0])
    >>> op.to_dense().numpy().tolist()
    [[1.0, 4.0, 5.0], [2.0, 1.0, 4.0], [3.0, 2.0, 1.0]]
    """

    def __init__(
        self,
        col,
        row,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorToeplitz",
    ):
        parameters = dict(
            col=col,
            row=row,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._row = _util.convert_nonref_to_tensor(row)
        self._col = _util.convert_nonref_to_tensor(col)
        for arg, t in (("row", self._row), ("col", self._col)):
            if t.shape.rank is not None and t.shape.rank < 1:
                raise ValueError(f"Argument {arg} must have at least 1 dimension.  Found: {t}")
        r, c = self._row.shape[-1], self._col.shape[-1]
        if r is not None and c is not None and r != c:
            raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        super().__init__(
            dtype=self._row.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        shape = _util.broadcast_static_shape(self._row.shape, self._col.shape)
        return shape.concatenate(shape[-1:])

    def _assert_self_adjoint(self):
        from ferroflow.check_ops import assert_equal

        return assert_equal(
            self.row,
            self.col,
            message="row and col are not the same, and so this operator is not self-adjoint.",
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import concat, convert_to_tensor, reverse, zeros_like
        from ferroflow.linalg_operators.circulant import LinearOperatorCirculant
        from ferroflow.linalg_ops import adjoint as adjoint_of
        from ferroflow.math import cast
        from ferroflow.signal import fft

        x = adjoint_of(x) if adjoint_arg else x
        expanded = concat([x, zeros_like(x)], axis=-2)
        col, row = convert_to_tensor(self.col), convert_to_tensor(self.row)
        circulant_col = concat(
            [col, zeros_like(col[..., 0:1]), reverse(row[..., 1:], axis=[-1])], axis=-1
        )
        wide = _dtypes.complex128 if row.dtype in (_dtypes.float64, _dtypes.complex128) else None
        circulant = LinearOperatorCirculant(
            fft(cast(circulant_col, wide or _dtypes.complex64)), input_output_dtype=row.dtype
        )
        result = circulant.matmul(expanded, adjoint=adjoint)
        return cast(result[..., : self.domain_dimension, :], self.dtype)

    def _trace(self):
        from ferroflow.math import cast

        return cast(self.domain_dimension, self.dtype) * self.col[..., 0]

    def _diag_part(self):
        from ferroflow.array_ops import ones

        return self.col[..., 0:1] * ones([self.domain_dimension], self.dtype)

    def _to_dense(self):
        from ferroflow.array_ops import broadcast_to, concat, gather, reverse

        shape = _util.broadcast_static_shape(self._row.shape, self._col.shape).as_list()
        n = shape[-1]
        row, col = broadcast_to(self.row, shape), broadcast_to(self.col, shape)
        elements = concat([reverse(col, axis=[-1]), row[..., 1:]], axis=-1)
        import numpy as np

        indices = (np.arange(n)[None, :] + np.arange(n - 1, -1, -1)[:, None]) % max(2 * n - 1, 1)
        return gather(elements, indices.astype(np.int32), axis=-1)

    @property
    def _composite_tensor_fields(self):
        return ("col", "row")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"col": 1, "row": 1}
