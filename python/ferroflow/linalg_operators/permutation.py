"""`tf.linalg.LinearOperatorPermutation`: the permutation matrix that reorders rows by
``perm`` (a gather); its adjoint gathers by the inverse permutation, which is also its
solve."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorPermutation"]


@make_composite_tensor
class LinearOperatorPermutation(LinearOperator):
    """``(A x)[i] = x[perm[i]]`` for ``perm`` of shape ``[..., N]``; arguments are ``dtype``.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorPermutation([2, 0, 1])
    >>> op.matvec([10.0, 20.0, 30.0]).numpy().tolist()
    [30.0, 10.0, 20.0]
    """

    def __init__(
        self,
        perm,
        dtype=_dtypes.float32,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorPermutation",
    ):
        parameters = dict(
            perm=perm,
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._perm = _util.convert_nonref_to_tensor(perm)
        self._check_perm(self._perm)
        if is_non_singular is False:
            raise ValueError(
                "A Permutation operator is always non-singular. Expected argument "
                f"`is_non_singular` to be True. Received: {is_non_singular}."
            )
        if is_square is False:
            raise ValueError(
                "A Permutation operator is always square. Expected argument `is_square` to be "
                f"True. Received: {is_square}."
            )
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    @staticmethod
    def _check_perm(perm):
        from ferroflow.framework_ops import get_static_value

        if perm.shape.rank is not None and perm.shape.rank < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {perm}.")
        if not perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}.")
        static = get_static_value(perm)
        if static is not None:
            if np.any(np.sort(static, axis=-1) != np.arange(0, static.shape[-1])):
                raise ValueError(
                    "Argument `perm` must be a vector of unique integers from 0 to "
                    f"{static.shape[-1] - 1}."
                )

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        shape = self._perm.shape
        return shape.concatenate(shape[-1:])

    def _assert_non_singular(self):
        return None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from ferroflow.array_ops import argsort, broadcast_to, convert_to_tensor, gather, reshape
        from ferroflow.linalg_ops import adjoint as adjoint_of

        perm = convert_to_tensor(self.perm)
        if adjoint and not self.is_self_adjoint:
            perm = argsort(perm, axis=-1)
        x = adjoint_of(x) if adjoint_arg else x
        batch = _util.broadcast_static_shape(x.shape[:-1], perm.shape).as_list()
        k = x.shape[-1]
        x = broadcast_to(x, batch + [k])
        perm = broadcast_to(perm, batch)
        m = x.shape[-2]
        y = gather(reshape(x, [-1, m, k]), reshape(perm, [-1, m]), axis=-2, batch_dims=1)
        return reshape(y, batch + [k])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _log_abs_determinant(self):
        from ferroflow.array_ops import zeros

        return zeros(self.batch_shape.as_list(), dtype=self.dtype)

    def _cond(self):
        from ferroflow.array_ops import ones

        return ones(self.batch_shape.as_list(), dtype=self.dtype)

    def _identity_mask(self, perm):
        from ferroflow.array_ops import range as range_
        from ferroflow.math import cast, equal

        return cast(equal(range_(0, self.domain_dimension, dtype=perm.dtype), perm), self.dtype)

    def _to_dense(self):
        return self._identity_mask(self.perm[..., None])

    def _diag_part(self):
        return self._identity_mask(self.perm)

    @property
    def _composite_tensor_fields(self):
        return ("perm", "dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"perm": 1}
