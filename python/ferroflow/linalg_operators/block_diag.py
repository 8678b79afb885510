"""`tf.linalg.LinearOperatorBlockDiag`: the direct sum of operators (a block diagonal
matrix); products and solves go block by block, and may take and give lists of blocks."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import (
    LinearOperator,
    _assert_dims_compatible,
    make_composite_tensor,
)
from ferroflow.tensor_shape import TensorShape

__all__ = ["LinearOperatorBlockDiag"]


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def arg_is_blockwise(block_dims, arg, split_dim):
    """Whether ``arg`` is a list of blocks (one per operator) rather than one tensor, as
    TensorFlow decides it (ValueError when that is ambiguous or the dims do not fit)."""
    from ferroflow.array_ops import convert_to_tensor

    if not (isinstance(arg, (tuple, list)) and len(arg) == len(block_dims)):
        return False
    if not any(_is_nested(x) for x in arg):
        return True
    arg_dims = [convert_to_tensor(x).shape.dims[split_dim] for x in arg]
    if all(d is None for d in block_dims):
        if len(arg_dims) == 1:
            return False
        if any(d != arg_dims[0] for d in arg_dims):
            return True
        raise ValueError(
            "Parsing of the input structure is ambiguous. Please input a blockwise iterable "
            "of `Tensor`s or a single `Tensor`."
        )
    if all(s == a or s is None for s, a in zip(block_dims, arg_dims)):
        return True
    total = sum(d for d in block_dims if d is not None)
    if all(a == arg_dims[0] for a in arg_dims) and arg_dims[0] >= total:
        return False
    raise ValueError("Input dimension does not match operator dimension.")


def _sum_hint(operators, attr, hint, message):
    if all(getattr(op, attr) for op in operators):
        if hint is False:
            raise ValueError(message)
        return True
    return hint


def _check_agree(right, left, message):
    if (
        right.range_dimension is not None
        and left.domain_dimension is not None
        and right.range_dimension != left.domain_dimension
    ):
        raise ValueError(message)


@make_composite_tensor
class LinearOperatorBlockDiag(LinearOperator):
    """``[[A1, 0, ...], [0, A2, ...], ...]`` for operators ``A1, A2, ...`` of one dtype.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorBlockDiag(
    ...     [tf.linalg.LinearOperatorDiag([1.0]), tf.linalg.LinearOperatorDiag([2.0, 3.0])])
    >>> op.diag_part().numpy()
    array([1., 2., 3.], dtype=float32)
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=None,
    ):
        parameters = _util.parameters_of(locals())
        operators, dtype = _util.checked_operators(operators)
        self._operators = operators
        is_non_singular = _sum_hint(
            operators,
            "is_non_singular",
            is_non_singular,
            "The direct sum of non-singular operators is always non-singular.",
        )
        is_self_adjoint = _sum_hint(
            operators,
            "is_self_adjoint",
            is_self_adjoint,
            "The direct sum of self-adjoint operators is always self-adjoint.",
        )
        is_positive_definite = _sum_hint(
            operators,
            "is_positive_definite",
            is_positive_definite,
            "The direct sum of positive definite operators is always positive definite.",
        )
        if name is None:
            name = "_ds_".join(op.name for op in operators)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_of(locals()))

    @property
    def operators(self):
        return self._operators

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self.operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self.operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self.operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self.operators]

    def _shape(self):
        def total(dims):
            return None if any(d is None for d in dims) else sum(dims)

        matrix = TensorShape(
            [total(self._block_range_dimensions()), total(self._block_domain_dimensions())]
        )
        return _util.broadcast_batch_shape(self.operators).concatenate(matrix)

    def _shape_tensor(self):
        from ferroflow.array_ops import concat, stack

        rows = sum(self._block_range_dimension_tensors())
        matrix = stack([rows, sum(self._block_domain_dimension_tensors())])
        return concat([_util.broadcast_batch_shape_tensor(self.operators), matrix], 0)

    def _blockwise(self, make, **hints):
        return LinearOperatorBlockDiag(operators=[make(op) for op in self.operators], **hints)

    def _linop_adjoint(self):
        return self._blockwise(
            lambda op: op.adjoint(),
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return self._blockwise(
            lambda op: op.cholesky(), is_non_singular=True, is_self_adjoint=None, is_square=True
        )

    def _linop_inverse(self):
        return self._blockwise(
            lambda op: op.inverse(),
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _pairwise(self, left, right, combine, fallback):
        if isinstance(right, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                operators=[combine(a, b) for a, b in zip(left.operators, right.operators)],
                is_non_singular=_util.combined_non_singular_hint(left, right),
                is_self_adjoint=None,
                is_positive_definite=None,
                is_square=True,
            )
        return fallback(left, right)

    def _linop_matmul(self, left_operator, right_operator):
        return self._pairwise(
            left_operator, right_operator, lambda a, b: a.matmul(b), super()._linop_matmul
        )

    def _linop_solve(self, left_operator, right_operator):
        return self._pairwise(
            left_operator, right_operator, lambda a, b: a.solve(b), super()._linop_solve
        )

    def _operator_arg(self, x, adjoint, adjoint_arg, what, combine):
        """``self @ x`` or ``self^-1 @ x`` for an operator ``x``: block by block when ``x``
        is block diagonal with as many blocks."""
        left = self.adjoint() if adjoint else self
        right = x.adjoint() if adjoint_arg else x
        _check_agree(
            right,
            left,
            f"Operators are incompatible. Expected `x` to have dimension "
            f"{left.domain_dimension} but got {right.range_dimension}.",
        )
        if isinstance(right, LinearOperatorBlockDiag):
            if len(left.operators) != len(right.operators):
                raise ValueError(f"Can not efficiently {what} when number of blocks differ.")
            for a, b in zip(left.operators, right.operators):
                _check_agree(
                    b,
                    a,
                    f"Blocks are incompatible. Expected `x` to have dimension "
                    f"{a.domain_dimension} but got {b.range_dimension}.",
                )
        return combine(left, right)

    def _checked_blocks(self, blocks, block_dims, axis):
        """The blocks as tensors (operators kept), each checked against its block's size.
        As TensorFlow, the caller's list is converted in place (a tuple: TypeError)."""
        from ferroflow.array_ops import convert_to_tensor

        for i, (dim, block) in enumerate(zip(block_dims, blocks)):
            if not isinstance(block, LinearOperator):
                block = convert_to_tensor(block)
                self._check_input_dtype(block)
                _assert_dims_compatible(TensorShape([dim]), 0, block.shape, axis)
                blocks[i] = block
        return blocks

    def _checked_tensor(self, x, dim, axis):
        from ferroflow.array_ops import convert_to_tensor

        x = convert_to_tensor(x)
        self._check_input_dtype(x)
        _assert_dims_compatible(TensorShape([dim]), 0, x.shape, axis)
        return x

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x``; ``x`` may be a list with one block per operator (the result then is a
        list)."""
        if isinstance(x, LinearOperator):
            return self._operator_arg(
                x, adjoint, adjoint_arg, "multiply two `LinearOperatorBlockDiag`s together",
                self._linop_matmul,
            )  # fmt: skip
        arg_dim = -1 if adjoint_arg else -2
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        if arg_is_blockwise(dims, x, arg_dim):
            x = self._checked_blocks(x, dims, arg_dim)
        else:
            x = self._checked_tensor(
                x, self.range_dimension if adjoint else self.domain_dimension, arg_dim
            )
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _split(self, x, dims, dim_tensors, axis):
        from ferroflow.array_ops import split

        sizes = dims if all(d is not None for d in dims) else dim_tensors()
        return split(x, sizes, axis=axis)

    def _joined(self, results, blockwise):
        from ferroflow.array_ops import concat

        if blockwise:
            return results
        return concat(_util.broadcast_matrix_batch_dims(results), axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        dims_fn = (
            self._block_range_dimension_tensors if adjoint else self._block_domain_dimension_tensors
        )
        blockwise = arg_is_blockwise(dims, x, arg_dim)
        split_x = x if blockwise else self._split(x, dims, dims_fn, arg_dim)
        results = [
            op.matmul(block, adjoint=adjoint, adjoint_arg=adjoint_arg)
            for op, block in zip(self.operators, split_x)
        ]
        return self._joined(results, blockwise)

    def _vector_call(self, x, dims, dim, method, adjoint):
        """``matvec``/``solvevec`` through ``matmul``/``solve`` on ``x[..., None]``, for one
        tensor or a list of blocks."""
        from ferroflow.array_ops import expand_dims, squeeze

        if arg_is_blockwise(dims, x, -1):
            x = self._checked_blocks(x, dims, -1)
            out = method([expand_dims(b, -1) for b in x], adjoint=adjoint)
            return [squeeze(y, axis=-1) for y in out]
        x = self._checked_tensor(x, dim, -1)
        return squeeze(method(expand_dims(x, -1), adjoint=adjoint), axis=-1)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for vectors; ``x`` may be a list of blocks."""
        dims = self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        dim = self.range_dimension if adjoint else self.domain_dimension
        return self._vector_call(x, dims, dim, self.matmul, adjoint)

    def _determinant(self):
        return _util.reduce_operators(self.operators, "determinant", lambda a, b: a * b)

    def _log_abs_determinant(self):
        return _util.reduce_operators(self.operators, "log_abs_determinant", lambda a, b: a + b)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``A^-1 @ rhs``; ``rhs`` may be a list of blocks (the result then is a list)."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            return self._operator_arg(
                rhs, adjoint, adjoint_arg, "solve `LinearOperatorBlockDiag`", self._linop_solve
            )
        dims = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
        arg_dim = -1 if adjoint_arg else -2
        blockwise = arg_is_blockwise(dims, rhs, arg_dim)
        if blockwise:
            split_rhs = self._checked_blocks(rhs, dims, arg_dim)
        else:
            rhs = self._checked_tensor(
                rhs, self.domain_dimension if adjoint else self.range_dimension, arg_dim
            )
            # TensorFlow splits by the domain dims whatever `adjoint` (blocks are square).
            split_rhs = self._split(
                rhs, self._block_domain_dimensions(), self._block_domain_dimension_tensors, arg_dim
            )
        results = [
            op.solve(block, adjoint=adjoint, adjoint_arg=adjoint_arg)
            for op, block in zip(self.operators, split_rhs)
        ]
        return self._joined(results, blockwise)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``A^-1 @ rhs`` for vectors; ``rhs`` may be a list of blocks."""
        dims = self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
        dim = self.domain_dimension if adjoint else self.range_dimension
        return self._vector_call(rhs, dims, dim, self.solve, adjoint)

    def _concat_blockwise(self, values, what):
        from ferroflow.array_ops import concat, squeeze

        if not all(op.is_square for op in self.operators):
            raise NotImplementedError(
                f"`{what}` not implemented for an operator whose blocks are not square."
            )
        columns = _util.broadcast_matrix_batch_dims([v[..., None] for v in values])
        return squeeze(concat(columns, axis=-2), axis=-1)

    def _diag_part(self):
        return self._concat_blockwise([op.diag_part() for op in self.operators], "diag_part")

    def _trace(self):
        if not all(op.is_square for op in self.operators):
            raise NotImplementedError(
                "`trace` not implemented for an operator whose blocks are not square."
            )
        return _util.reduce_operators(self.operators, "trace", lambda a, b: a + b)

    def _to_dense(self):
        from ferroflow.array_ops import concat, shape, zeros

        blocks = _util.broadcast_matrix_batch_dims([op.to_dense() for op in self.operators])
        n = self.domain_dimension_tensor()
        rows = []
        num_cols = 0
        for block in blocks:
            batch_row = shape(block)[:-1]
            before = zeros(concat([batch_row, [num_cols]], axis=-1), dtype=block.dtype)
            num_cols = num_cols + shape(block)[-1]
            after = zeros(concat([batch_row, [n - num_cols]], axis=-1), dtype=block.dtype)
            rows.append(concat([before, block, after], axis=-1))
        return concat(rows, axis=-2)

    def _group(self, method):
        from ferroflow.framework_ops import group

        return group(*[getattr(op, method)() for op in self.operators])

    def _assert_non_singular(self):
        return self._group("assert_non_singular")

    def _assert_self_adjoint(self):
        return self._group("assert_self_adjoint")

    def _assert_positive_definite(self):
        return self._group("assert_positive_definite")

    def _eigvals(self):
        return self._concat_blockwise([op.eigvals() for op in self.operators], "eigvals")

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}
