"""`tf.linalg.LinearOperatorKronecker`: the Kronecker product of operators, never formed for
products and solves (each factor is applied to a reshaped argument in turn, as TensorFlow's
`_solve_matmul_internal`); determinants, traces, diagonals and eigenvalues from the factors'."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorKronecker"]


def _all_hint(operators, attr, given, what):
    """True when every factor has the hint (ValueError when ``given`` says otherwise)."""
    if all(getattr(o, attr) for o in operators):
        if given is False:
            raise ValueError(
                f"The Kronecker product of {what} operators is always {what}. Expected argument "
                f"`{attr}` to be True. Received: {given}."
            )
        return True
    return given


@make_composite_tensor
class LinearOperatorKronecker(LinearOperator):
    """``op_1 ⊗ op_2 ⊗ ... ⊗ op_J``, batch shapes broadcast.

    >>> import ferroflow as tf
    >>> a = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
    >>> b = tf.linalg.LinearOperatorDiag([1.0, -1.0])
    >>> tf.linalg.LinearOperatorKronecker([a, b]).to_dense().numpy()[1].tolist()
    [0.0, -1.0, 0.0, -2.0]
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
        from ferroflow.check_ops import assert_proper_iterable

        parameters = dict(
            operators=operators,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        assert_proper_iterable(operators)
        operators = list(operators)
        if not operators:
            raise ValueError(
                f"Argument `operators` must be a list of >=1 operators. Received: {operators}."
            )
        self._operators = operators
        dtype = operators[0].dtype
        if any(o.dtype != dtype for o in operators):
            name_type = [str((o.name, o.dtype)) for o in operators]
            raise TypeError(
                "Expected every operation in argument `operators` to have the same dtype. "
                f"Received {name_type}."
            )
        is_non_singular = _all_hint(operators, "is_non_singular", is_non_singular, "non-singular")
        is_self_adjoint = _all_hint(operators, "is_self_adjoint", is_self_adjoint, "self-adjoint")
        is_positive_definite = _all_hint(
            operators, "is_positive_definite", is_positive_definite, "positive-definite"
        )
        if name is None:
            name = "_x_".join(o.name for o in operators)
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        from ferroflow.tensor_shape import TensorShape

        rows, cols = 1, 1
        batch = self.operators[0].batch_shape
        for o in self.operators:
            rows = None if rows is None or o.range_dimension is None else rows * o.range_dimension
            cols = None if cols is None or o.domain_dimension is None else cols * o.domain_dimension
        for o in self.operators[1:]:
            batch = _util.broadcast_static_shape(batch, o.batch_shape)
        return batch.concatenate(TensorShape([rows, cols]))

    def _linop_adjoint(self):
        return LinearOperatorKronecker(
            operators=[o.adjoint() for o in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorKronecker(
            operators=[o.cholesky() for o in self.operators],
            is_non_singular=True,
            is_self_adjoint=None,
            is_square=True,
        )

    def _linop_inverse(self):
        return LinearOperatorKronecker(
            operators=[o.inverse() for o in self.operators],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _apply(self, x, apply_fn, adjoint, adjoint_arg):
        """``apply_fn`` (matmul or solve) of each factor, last first, on ``x`` reshaped so the
        factor's dimension is the last axis (TensorFlow's order of operations)."""
        from ferroflow.array_ops import reshape
        from ferroflow.linalg_ops import matrix_transpose
        from ferroflow.math import conj

        complex_ = self.dtype.is_complex
        out = (conj(x) if complex_ else x) if adjoint_arg else matrix_transpose(x)
        for o in reversed(self.operators):
            dim = o.range_dimension if adjoint else o.domain_dimension
            shape = list(out.shape)
            out = reshape(out, shape[:-2] + [shape[-2] * shape[-1] // dim, dim])
            if complex_:
                out = conj(out)
            out = apply_fn(o, out, adjoint)
        col_dim = x.shape[-2] if adjoint_arg else x.shape[-1]
        row_dim = self.domain_dimension if adjoint else self.range_dimension
        return reshape(out, list(out.shape[:-2]) + [row_dim, col_dim])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        def matmul(o, x, adjoint):
            return o.matmul(x, adjoint=adjoint, adjoint_arg=True)

        return self._apply(x, matmul, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        def solve(o, x, adjoint):
            return o.solve(x, adjoint=adjoint, adjoint_arg=True)

        return self._apply(rhs, solve, adjoint, adjoint_arg)

    def _determinant(self):
        from ferroflow.math import cast

        total = self.domain_dimension
        determinant = 1.0
        for o in self.operators:
            power = cast(total / o.domain_dimension, o.dtype)
            determinant = determinant * o.determinant() ** power
        return determinant

    def _log_abs_determinant(self):
        from ferroflow.math import cast

        total = self.domain_dimension
        log_abs_det = 0.0
        for o in self.operators:
            log_abs_det += o.log_abs_determinant() * cast(total / o.domain_dimension, o.dtype)
        return log_abs_det

    def _trace(self):
        trace = 1.0
        for o in self.operators:
            trace = trace * o.trace()
        return trace

    def _outer_flat(self, parts):
        """The flattened outer product of the last axes of ``parts``."""
        from ferroflow.array_ops import reshape

        product = parts[0]
        for part in parts[1:]:
            product = product[..., :, None] * part[..., None, :]
            product = reshape(product, list(product.shape[:-2]) + [-1])
        return product

    def _diag_part(self):
        return self._outer_flat([o.diag_part() for o in self.operators])

    def _eigvals(self):
        return self._outer_flat([o.eigvals() for o in self.operators])

    def _to_dense(self):
        from ferroflow.array_ops import reshape

        product = self.operators[0].to_dense()
        for o in self.operators[1:]:
            product = product[..., :, None, :, None] * o.to_dense()[..., None, :, None, :]
            s = list(product.shape)
            product = reshape(product, s[:-4] + [s[-4] * s[-3], s[-2] * s[-1]])
        return product

    def _factors_square_or_raise(self):
        if not all(o.is_square for o in self.operators):
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None,
                None,
                "All Kronecker factors must be square for the product to be invertible. "
                "Expected hint `is_square` to be True for every operator in argument "
                "`operators`.",
            )

    def _assert_non_singular(self):
        self._factors_square_or_raise()
        for o in self.operators:
            o.assert_non_singular()

    def _assert_self_adjoint(self):
        self._factors_square_or_raise()
        for o in self.operators:
            o.assert_self_adjoint()

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}
