"""`tf.linalg.LinearOperatorTridiag`: a square tridiagonal matrix given by its diagonals in
one of `tf.linalg.tridiagonal_solve`'s formats ('compact' ``[..., 3, N]``, 'sequence' of three
``[..., N]``, or 'matrix' ``[..., N, N]``); products and solves are the tridiagonal ops."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorTridiag"]

_FORMATS = ("compact", "matrix", "sequence")


@make_composite_tensor
class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix; 'compact' and 'sequence' pad the superdiagonal at its end and the
    subdiagonal at its start.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorTridiag([[1.0, 2.0, 0.0], [4.0, 5.0, 6.0], [0.0, 7.0, 8.0]])
    >>> op.to_dense().numpy().tolist()
    [[4.0, 1.0, 0.0], [7.0, 5.0, 2.0], [0.0, 8.0, 6.0]]
    """

    def __init__(
        self,
        diagonals,
        diagonals_format="compact",
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorTridiag",
    ):
        parameters = dict(
            diagonals=diagonals,
            diagonals_format=diagonals_format,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        if diagonals_format not in _FORMATS:
            raise ValueError(
                "Argument `diagonals_format` must be one of compact, matrix, or sequence. "
                f"Received : {diagonals_format}."
            )
        if diagonals_format == "sequence":
            self._diagonals = [_util.convert_nonref_to_tensor(d) for d in diagonals]
            dtype = self._diagonals[0].dtype
        else:
            self._diagonals = _util.convert_nonref_to_tensor(diagonals)
            dtype = self._diagonals.dtype
        self._diagonals_format = diagonals_format
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
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._diagonals_format

    def _shape(self):
        d = self.diagonals
        if self.diagonals_format == "matrix":
            return d.shape
        if self.diagonals_format == "compact":
            shape = d.shape[:-2].concatenate(d.shape[-1:])
        else:
            batch = _util.broadcast_static_shape(d[0].shape[:-1], d[1].shape[:-1])
            batch = _util.broadcast_static_shape(batch, d[2].shape[:-1])
            shape = batch.concatenate(d[1].shape[-1:])
        return shape.concatenate(shape[-1:])

    def _assert_self_adjoint(self):
        from ferroflow.check_ops import assert_equal
        from ferroflow.linalg_ops import adjoint
        from ferroflow.manip_ops import roll
        from ferroflow.math import conj

        if self.diagonals_format == "matrix":
            return assert_equal(
                self.diagonals,
                adjoint(self.diagonals),
                message="Matrix was not equal to its adjoint.",
            )
        sup, main, sub = self._three()
        _util.assert_zero_imag_part(
            main,
            message="This tridiagonal operator contained non-zero imaginary values on the "
            "diagonal.",
        )
        sub = roll(sub, shift=-1, axis=-1)
        return assert_equal(
            conj(sub[..., :-1]),
            sup[..., :-1],
            message="This tridiagonal operator has non-conjugate subdiagonal and superdiagonal.",
        )

    def _three(self):
        from ferroflow.array_ops import convert_to_tensor

        if self.diagonals_format == "sequence":
            return list(self.diagonals)
        d = convert_to_tensor(self.diagonals)
        return [d[..., 0, :], d[..., 1, :], d[..., 2, :]]

    def _adjoint_diagonals(self):
        """The diagonals of the adjoint, in this operator's format."""
        from ferroflow.array_ops import stack
        from ferroflow.linalg_ops import adjoint
        from ferroflow.manip_ops import roll
        from ferroflow.math import conj

        if self.diagonals_format == "matrix":
            return adjoint(self.diagonals)
        sup, main, sub = [conj(d) for d in self._three()]
        new = [roll(sub, shift=-1, axis=-1), main, roll(sup, shift=1, axis=-1)]
        return new if self.diagonals_format == "sequence" else stack(new, axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg_ops import adjoint as adjoint_of
        from ferroflow.linalg_ops import tridiagonal_matmul

        diagonals = self._adjoint_diagonals() if adjoint else self.diagonals
        x = adjoint_of(x) if adjoint_arg else x
        return tridiagonal_matmul(diagonals, x, diagonals_format=self.diagonals_format)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import broadcast_to
        from ferroflow.linalg_ops import tridiagonal_solve

        diagonals = self._adjoint_diagonals() if adjoint else self.diagonals
        k = self.domain_dimension
        batch = _util.broadcast_static_shape(self.batch_shape, rhs.shape[:-2]).as_list()
        rhs = broadcast_to(rhs, batch + rhs.shape.as_list()[-2:])
        if self.diagonals_format == "matrix":
            diagonals = broadcast_to(diagonals, batch + [k, k])
        elif self.diagonals_format == "compact":
            diagonals = broadcast_to(diagonals, batch + [3, k])
        else:
            diagonals = [broadcast_to(d, batch + [k]) for d in diagonals]
        return tridiagonal_solve(
            diagonals,
            rhs,
            diagonals_format=self.diagonals_format,
            transpose_rhs=adjoint_arg,
            conjugate_rhs=adjoint_arg,
        )

    def _diag_part(self):
        from ferroflow.array_ops import broadcast_to
        from ferroflow.linalg_ops import diag_part

        if self.diagonals_format == "matrix":
            return diag_part(self.diagonals)
        if self.diagonals_format == "sequence":
            return broadcast_to(self.diagonals[1], self.shape[:-1].as_list())
        return self.diagonals[..., 1, :]

    def _to_dense(self):
        from ferroflow.array_ops import convert_to_tensor, stack
        from ferroflow.linalg_ops import diag

        if self.diagonals_format == "matrix":
            return convert_to_tensor(self.diagonals)
        if self.diagonals_format == "compact":
            bands = self.diagonals
        else:
            bands = stack([convert_to_tensor(d) for d in self.diagonals], axis=-2)
        return diag(bands, k=(-1, 1), align="LEFT_RIGHT")

    @property
    def _composite_tensor_fields(self):
        return ("diagonals", "diagonals_format")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        ndims = [1, 1, 1] if self.diagonals_format == "sequence" else 2
        return {"diagonals": ndims}
