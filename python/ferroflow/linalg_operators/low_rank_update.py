"""`tf.linalg.LinearOperatorLowRankUpdate`: ``L + U D V^H`` for an operator ``L`` and a
low-rank update, solved with the Woodbury identity and with determinants from the matrix
determinant lemma (both through the ``r x r`` capacitance ``D^-1 + V^H L^-1 U``)."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorLowRankUpdate"]


def _assert_compatible(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


@make_composite_tensor
class LinearOperatorLowRankUpdate(LinearOperator):
    """``A = L + U D V^H``: ``L`` an operator of shape ``[..., M, N]``, ``U`` ``[..., M, K]``,
    ``V`` ``[..., N, K]`` (default ``U``), ``D`` diagonal with ``diag_update`` (default the
    identity). Self-adjoint positive definite ``L`` with positive ``D`` and ``V = U`` solves by
    Cholesky.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorLowRankUpdate(
    ...     tf.linalg.LinearOperatorIdentity(2), u=[[1.0], [1.0]])
    >>> op.to_dense().numpy()
    array([[2., 1.],
           [1., 2.]], dtype=float32)
    """

    def __init__(
        self,
        base_operator,
        u,
        diag_update=None,
        v=None,
        is_diag_update_positive=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowRankUpdate",
    ):
        parameters = _util.parameters_of(locals())
        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError(
                    "Default diagonal is the identity, which is positive.  However, user set "
                    "'is_diag_update_positive' to False."
                )
            is_diag_update_positive = True
        self._use_cholesky = bool(
            base_operator.is_positive_definite
            and base_operator.is_self_adjoint
            and is_diag_update_positive
            and v is None
        )
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError(
                    "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is "
                    "self-adjoint, this must be a self-adjoint operator."
                )
            is_self_adjoint = True
        if self._use_cholesky:
            if (
                is_positive_definite is False
                or is_self_adjoint is False
                or is_non_singular is False
            ):
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        self._u = _util.convert_nonref_to_tensor(u)
        self._v = self._u if v is None else _util.convert_nonref_to_tensor(v)
        self._diag_update = (
            None if diag_update is None else _util.convert_nonref_to_tensor(diag_update)
        )
        self._base_operator = base_operator
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_of(locals()))
        self._set_diag_operator(is_diag_update_positive)
        self._is_diag_update_positive = is_diag_update_positive
        self._check_shapes()

    def _check_shapes(self):
        uv = _util.broadcast_static_shape(self.u.shape, self.v.shape)
        batch = _util.broadcast_static_shape(self.base_operator.batch_shape, uv[:-2])
        if uv.rank is None:
            return
        _assert_compatible(self.base_operator.domain_dimension, uv.dims[-2])
        if self._diag_update is not None:
            _assert_compatible(uv.dims[-1], self._diag_update.shape.dims[-1])
            _util.broadcast_static_shape(batch, self._diag_update.shape[:-1])

    def _set_diag_operator(self, is_diag_update_positive):
        from ferroflow.linalg_operators.diag import LinearOperatorDiag
        from ferroflow.linalg_operators.identity import LinearOperatorIdentity

        if self._diag_update is not None:
            self._diag_operator = LinearOperatorDiag(
                self._diag_update, is_positive_definite=is_diag_update_positive
            )
            return
        r = self.u.shape.dims[-1] if self.u.shape.rank is not None else None
        if r is None:
            from ferroflow.array_ops import shape

            r = shape(self.u)[-1]
        self._diag_operator = LinearOperatorIdentity(num_rows=r, dtype=self.dtype)

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def diag_operator(self):
        return self._diag_operator

    @property
    def base_operator(self):
        return self._base_operator

    def _assert_self_adjoint(self):
        if self.u is self.v and self.diag_update is None:
            return self.base_operator.assert_self_adjoint()
        return super()._assert_self_adjoint()

    def _shape(self):
        batch = _util.broadcast_static_shape(
            self.base_operator.batch_shape, self.diag_operator.batch_shape
        )
        batch = _util.broadcast_static_shape(batch, self.u.shape[:-2])
        batch = _util.broadcast_static_shape(batch, self.v.shape[:-2])
        return batch.concatenate(self.base_operator.shape[-2:])

    def _shape_tensor(self):
        from ferroflow.array_ops import broadcast_dynamic_shape, concat, shape

        batch = broadcast_dynamic_shape(
            self.base_operator.batch_shape_tensor(), self.diag_operator.batch_shape_tensor()
        )
        batch = broadcast_dynamic_shape(batch, shape(self.u)[:-2])
        batch = broadcast_dynamic_shape(batch, shape(self.v)[:-2])
        return concat([batch, self.base_operator.shape_tensor()[-2:]], axis=0)

    def _uv(self):
        from ferroflow.array_ops import convert_to_tensor

        u = convert_to_tensor(self.u)
        return u, (u if self.v is self.u else convert_to_tensor(self.v))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg import matmul

        u, v = self._uv()
        leading = self.base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        # A x = L x + U (D (V^H x)); A^H x = L^H x + V (D^H (U^H x)).
        left, right = (v, u) if adjoint else (u, v)
        rh_x = matmul(right, x, adjoint_a=True, adjoint_b=adjoint_arg)
        return leading + matmul(left, self.diag_operator.matmul(rh_x, adjoint=adjoint))

    def _determinant(self):
        from ferroflow.linalg_ops import det
        from ferroflow.math import exp

        if self.is_positive_definite:
            return exp(self.log_abs_determinant())
        u, v = self._uv()
        det_c = det(self._make_capacitance(u=u, v=v))
        return det_c * self.diag_operator.determinant() * self.base_operator.determinant()

    def _diag_part(self):
        from ferroflow.array_ops import expand_dims
        from ferroflow.math import conj, reduce_sum

        u, v = self._uv()
        product = u * conj(v)
        if self.diag_update is not None:
            product = product * expand_dims(self.diag_update, axis=-2)
        return reduce_sum(product, axis=-1) + self.base_operator.diag_part()

    def _log_abs_determinant(self):
        from ferroflow.linalg_ops import cholesky, det, diag_part
        from ferroflow.math import abs as abs_
        from ferroflow.math import cast, log, reduce_sum

        u, v = self._uv()
        log_abs_det_d = self.diag_operator.log_abs_determinant()
        log_abs_det_l = self.base_operator.log_abs_determinant()
        capacitance = self._make_capacitance(u=u, v=v)
        if self._use_cholesky:
            chol_diag = diag_part(cholesky(capacitance))
            log_abs_det_c = 2 * reduce_sum(log(chol_diag), axis=[-1])
        else:
            log_abs_det_c = log(abs_(det(capacitance)))
            if self.dtype.is_complex:
                log_abs_det_c = cast(log_abs_det_c, dtype=self.dtype)
        return log_abs_det_c + log_abs_det_d + log_abs_det_l

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        from ferroflow.linalg import matmul
        from ferroflow.linalg_ops import cholesky, cholesky_solve

        if self.base_operator.is_non_singular is False:
            raise ValueError(
                "Solve not implemented unless this is a perturbation of a non-singular "
                "LinearOperator."
            )
        base = self.base_operator
        u, v = self._uv()
        capacitance = self._make_capacitance(u=u, v=v)
        if adjoint:
            u, v = v, u  # A^H = L^H + V D^H U^H, whose capacitance is C^H
        # Woodbury: A^-1 = L^-1 - L^-1 U C^-1 V^H L^-1.
        linv_rhs = base.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = matmul(v, linv_rhs, adjoint_a=True)
        if self._use_cholesky:
            chol, vh_linv_rhs = _util.broadcast_matrix_batch_dims(
                [cholesky(capacitance), vh_linv_rhs]
            )
            capinv = cholesky_solve(chol, vh_linv_rhs)
        else:
            capinv = _util.matrix_solve_with_broadcast(capacitance, vh_linv_rhs, adjoint=adjoint)
        return linv_rhs - base.solve(matmul(u, capinv), adjoint=adjoint)

    def _make_capacitance(self, u, v):
        from ferroflow.linalg import matmul

        linv_u = self.base_operator.solve(u)
        return self._diag_operator.inverse().add_to_tensor(matmul(v, linv_u, adjoint_a=True))

    @property
    def _composite_tensor_fields(self):
        return ("base_operator", "u", "diag_update", "v", "is_diag_update_positive")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"base_operator": 0, "u": 2, "diag_update": 1, "v": 2}
