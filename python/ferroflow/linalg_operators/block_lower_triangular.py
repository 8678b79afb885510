"""`tf.linalg.LinearOperatorBlockLowerTriangular`: a square block lower triangular operator
from rows of operators ``[[op_00], [op_10, op_11], ...]``; products go block by block, solves
by block forward (or, for the adjoint, backward) substitution with the diagonal blocks' solves,
determinants from the diagonal blocks. Arguments may be one tensor or a list of blocks."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import (
    LinearOperator,
    _check_operator_dims,
    make_composite_tensor,
)
from ferroflow.linalg_operators.block_diag import LinearOperatorBlockDiag, arg_is_blockwise

__all__ = ["LinearOperatorBlockLowerTriangular"]

_ADDABLE = (
    "LinearOperatorDiag",
    "LinearOperatorLowerTriangular",
    "LinearOperatorFullMatrix",
    "LinearOperatorIdentity",
    "LinearOperatorScaledIdentity",
)


@make_composite_tensor
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """Block lower triangular: row ``i`` of ``operators`` holds ``i + 1`` operators, the last
    on the diagonal (square).

    >>> import ferroflow as tf
    >>> a = tf.linalg.LinearOperatorFullMatrix([[2.0]])
    >>> b = tf.linalg.LinearOperatorFullMatrix([[1.0]])
    >>> op = tf.linalg.LinearOperatorBlockLowerTriangular([[a], [b, a]])
    >>> op.to_dense().numpy().tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """

    # The argument checks and block plumbing are BlockDiag's.
    _checked_blocks = LinearOperatorBlockDiag._checked_blocks
    _checked_tensor = LinearOperatorBlockDiag._checked_tensor
    _vector_call = LinearOperatorBlockDiag._vector_call
    _split = LinearOperatorBlockDiag._split
    _joined = LinearOperatorBlockDiag._joined

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorBlockLowerTriangular",
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
        for row in operators:
            assert_proper_iterable(row)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(
                f"Argument `operators` must be a list of >=1 operators. Received: {operators}."
            )
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        self._validate_dtype(dtype)
        is_non_singular = self._validate_non_singular(is_non_singular)
        self._validate_num_operators()
        self._validate_operator_dimensions()
        self._validate_square(is_square)
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    # --- validation (TensorFlow's messages) ---------------------------------------------------

    def _validate_num_operators(self):
        for i, row in enumerate(self.operators):
            if len(row) != i + 1:
                raise ValueError(
                    f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: "
                    f"{len(row)} blocks."
                )

    def _validate_operator_dimensions(self):
        for i in range(1, len(self.operators)):
            for j in range(i):
                op = self.operators[i][j]
                above = self.operators[i - 1][j]
                right = self.operators[i][j + 1]
                a, b = op.domain_dimension, above.domain_dimension
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].domain_dimension` ({a}) must be the "
                        f"same as `operators[{i - 1}][{j}].domain_dimension` ({b})."
                    )
                a, b = op.range_dimension, right.range_dimension
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        f"Argument `operators[{i}][{j}].range_dimension` ({a}) must be the "
                        f"same as `operators[{i}][{j + 1}].range_dimension` ({b})."
                    )

    def _validate_non_singular(self, is_non_singular):
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    "A blockwise lower-triangular operator with non-singular operators on the "
                    "main diagonal is always non-singular. Expected argument `is_non_singular` "
                    f"to be True. Received: {is_non_singular}."
                )
            return True
        if any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    "A blockwise lower-triangular operator with a singular operator on the main "
                    "diagonal is always singular. Expected argument `is_non_singular` to be "
                    f"True. Received: {is_non_singular}."
                )
            return False
        return None

    def _validate_square(self, is_square):
        if is_square is False:
            raise ValueError(
                "`LinearOperatorBlockLowerTriangular` must be square. Expected argument "
                f"`is_square` to be True. Received: {is_square}."
            )
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError(
                    "Matrices on the diagonal (the final elements of each row-partition in the "
                    "`operators` list) must be square. Expected argument "
                    f"`operators[{i}][-1].is_square` to be True. Received: {op.is_square}."
                )

    def _validate_dtype(self, dtype):
        for i, row in enumerate(self.operators):
            for op in row:
                if op.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError(
                        f"Expected all operators to have the same dtype.  Found {name_type} in "
                        f"row {i} and {dtype} in row 0."
                    )

    # --- shapes -------------------------------------------------------------------------------

    @property
    def operators(self):
        return self._operators

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self._diagonal_operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self._diagonal_operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _shape(self):
        from ferroflow.tensor_shape import TensorShape

        def total(dims):
            return None if any(d is None for d in dims) else sum(dims)

        batch = self.operators[0][0].batch_shape
        for row in self.operators[1:]:
            for op in row:
                batch = _util.broadcast_static_shape(batch, op.batch_shape)
        dims = [total(self._block_domain_dimensions()), total(self._block_range_dimensions())]
        return batch.concatenate(TensorShape(dims))

    # --- the algebra --------------------------------------------------------------------------

    def _linop_inverse(self):
        """The blockwise inverse, ``[[A, 0], [B, C]]⁻¹ = [[A⁻¹, 0], [-C⁻¹ B A⁻¹, C⁻¹]]``."""
        from ferroflow.linalg_operators.full_matrix import LinearOperatorFullMatrix
        from ferroflow.linalg_operators.identity import LinearOperatorScaledIdentity
        from ferroflow.math import cast

        hints = dict(
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )
        if len(self.operators) == 1:
            return LinearOperatorBlockLowerTriangular([[self.operators[0][0].inverse()]], **hints)
        n = len(self.operators)
        upper_left = LinearOperatorBlockLowerTriangular(self.operators[:-1]).inverse()
        bottom = self.operators[-1]
        bottom_right = bottom[-1].inverse()
        new_row = []
        for i in range(n - 1):
            blocks = []
            for j in range(i, n - 1):
                block = bottom[j].matmul(upper_left.operators[j][i])
                if type(block).__name__ not in _ADDABLE:
                    block = LinearOperatorFullMatrix(block.to_dense())
                blocks.append(block)
            if len(blocks) > 1:
                # TensorFlow's add_operators sums them; a full matrix holds any sum.
                total = blocks[0].to_dense()
                for b in blocks[1:]:
                    total = total + b.to_dense()
                blocks = [LinearOperatorFullMatrix(total)]
            block = bottom_right.matmul(blocks[0])
            minus = LinearOperatorScaledIdentity(
                num_rows=bottom_right.domain_dimension_tensor(),
                multiplier=cast(-1, dtype=block.dtype),
            )
            new_row.append(minus.matmul(block))
        new_row.append(bottom_right)
        return LinearOperatorBlockLowerTriangular(upper_left.operators + [new_row], **hints)

    def _operator_arg(self, x, adjoint, adjoint_arg, arg_name, combine):
        left = self.adjoint() if adjoint else self
        right = x.adjoint() if adjoint_arg else x
        _check_operator_dims(left, right, arg_name)
        return combine(left, right)

    # --- products and solves ------------------------------------------------------------------

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x``; ``x`` may be a list of blocks (the result then is a list)."""
        if isinstance(x, LinearOperator):
            return self._operator_arg(x, adjoint, adjoint_arg, "x", self._linop_matmul)
        arg_dim = -1 if adjoint_arg else -2
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        if arg_is_blockwise(dims, x, arg_dim):
            x = self._checked_blocks(x, dims, arg_dim)
        else:
            dim = self.range_dimension if adjoint else self.domain_dimension
            x = self._checked_tensor(x, dim, arg_dim)
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        blockwise = arg_is_blockwise(dims, x, arg_dim)
        if not blockwise:
            x = self._split(
                x, self._block_domain_dimensions(), self._block_domain_dimension_tensors, arg_dim
            )
        ops = self.operators
        results = []
        for i in range(len(ops)):
            # Row i of A (or column i of A for the adjoint).
            terms = [(ops[i][j], j) for j in range(i + 1)]
            if adjoint:
                terms = [(ops[j][i], j) for j in range(i, len(ops))]
            result = None
            for op, j in terms:
                y = op.matmul(x[j], adjoint=adjoint, adjoint_arg=adjoint_arg)
                result = y if result is None else result + y
            results.append(result)
        return self._joined(results, blockwise)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for vectors; ``x`` may be a list of blocks."""
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        dim = self.range_dimension if adjoint else self.domain_dimension
        return self._vector_call(x, dims, dim, self.matmul, adjoint)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``A⁻¹ @ rhs`` by block substitution; ``rhs`` may be a list of blocks."""
        from ferroflow.linalg_ops import adjoint as adjoint_of

        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if isinstance(rhs, LinearOperator):
            return self._operator_arg(rhs, adjoint, adjoint_arg, "rhs", self._linop_solve)
        dims = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
        arg_dim = -1 if adjoint_arg else -2
        blockwise = arg_is_blockwise(dims, rhs, arg_dim)
        if blockwise:
            rhs = self._checked_blocks(rhs, dims, arg_dim)
            split = [adjoint_of(y) for y in rhs] if adjoint_arg else rhs
        else:
            dim = self.domain_dimension if adjoint else self.range_dimension
            rhs = self._checked_tensor(rhs, dim, arg_dim)
            rhs = adjoint_of(rhs) if adjoint_arg else rhs
            split = self._split(
                rhs, self._block_domain_dimensions(), self._block_domain_dimension_tensors, -2
            )
        ops = self.operators
        n = len(ops)
        solution = [None] * n
        order = reversed(range(n)) if adjoint else range(n)
        for i in order:
            y = split[i]
            known = range(i + 1, n) if adjoint else range(i)
            for j in known:
                op = ops[j][i] if adjoint else ops[i][j]
                y = y - op.matmul(solution[j], adjoint=adjoint)
            solution[i] = self._diagonal_operators[i].solve(y, adjoint=adjoint)
        return self._joined(solution, blockwise)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``A⁻¹ @ rhs`` for vectors; ``rhs`` may be a list of blocks."""
        dims = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
        dim = self.domain_dimension if adjoint else self.range_dimension
        return self._vector_call(rhs, dims, dim, self.solve, adjoint)

    # --- reductions and dense views -----------------------------------------------------------

    def _determinant(self):
        from ferroflow.math import exp

        if all(op.is_positive_definite for op in self._diagonal_operators):
            return exp(self._log_abs_determinant())
        return _util.reduce_operators(self._diagonal_operators, "determinant", lambda a, b: a * b)

    def _log_abs_determinant(self):
        return _util.reduce_operators(
            self._diagonal_operators, "log_abs_determinant", lambda a, b: a + b
        )

    def _trace(self):
        return _util.reduce_operators(self._diagonal_operators, "trace", lambda a, b: a + b)

    def _stacked(self, method):
        from ferroflow.array_ops import concat, squeeze

        parts = [getattr(op, method)()[..., None] for op in self._diagonal_operators]
        return squeeze(concat(_util.broadcast_matrix_batch_dims(parts), axis=-2), axis=-1)

    def _diag_part(self):
        return self._stacked("diag_part")

    def _eigvals(self):
        return self._stacked("eigvals")

    def _to_dense(self):
        from ferroflow.array_ops import concat, zeros

        flat = _util.broadcast_matrix_batch_dims(
            [op.to_dense() for row in self.operators for op in row]
        )
        rows, num_cols = [], 0
        for i in range(len(self.operators)):
            blocks = flat[i * (i + 1) // 2 : (i + 1) * (i + 2) // 2]
            num_cols += blocks[-1].shape[-1]
            pad = self.domain_dimension - num_cols
            blocks.append(zeros(blocks[0].shape.as_list()[:-1] + [pad], dtype=self.dtype))
            rows.append(concat(blocks, axis=-1))
        return concat(rows, axis=-2)

    def _assert_non_singular(self):
        for op in self._diagonal_operators:
            op.assert_non_singular()

    def __getitem__(self, slices):
        """Batch slicing: each block sliced against the operator's batch shape (the package's
        slicer maps one list level; the blocks are a list of lists)."""
        import collections.abc

        from ferroflow.linalg_operators._slicing import _slice_param

        if not isinstance(slices, collections.abc.Sequence):
            slices = (slices,)
        slices = list(slices)
        if len(slices) == 1 and slices[0] is Ellipsis:
            rows = self.operators
        else:
            if not self.batch_shape.is_fully_defined():
                raise NotImplementedError("Slicing an operator needs static batch shapes.")
            batch = self.batch_shape.as_list()
            rows = [[_slice_param(op, 0, slices, batch) for op in row] for row in self.operators]
        return LinearOperatorBlockLowerTriangular(**dict(self.parameters, operators=rows))

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [[0] * len(row) for row in self.operators]}
