"""What the operators defined by their sizes share (Identity, ScaledIdentity, Zeros): the
``num_rows``/``num_columns``/``batch_shape`` arguments and their checks, broadcasting a result
against ``batch_shape``, and batch slicing by slicing ``batch_shape``."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator
from ferroflow.tensor_shape import TensorShape


def _static(tensor):
    from ferroflow.framework_ops import get_static_value

    value = get_static_value(tensor)
    return None if value is None else np.asarray(value)


def refuse_ref(value, what):
    if _util.is_ref(value):
        raise TypeError(f"Argument {what} cannot be reference type. Found: {type(value)}.")


def shape_arg(value, what):
    """A shape argument as an int tensor (variables refused, as TensorFlow)."""
    from ferroflow.array_ops import convert_to_tensor

    refuse_ref(value, what)
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, (list, tuple)) and not value:
        return convert_to_tensor(value, dtype=_dtypes.int32)
    return convert_to_tensor(value)


class SizedOperator(LinearOperator):
    """An operator given by sizes; subclasses set ``_assert_proper_shapes`` first."""

    def _size_arg(self, value, what):
        """(tensor, static value) of a size argument, checked: an integer scalar >= 0."""
        tensor = shape_arg(value, what)
        static = _static(tensor)
        if self._assert_proper_shapes:
            from ferroflow.check_ops import assert_non_negative, assert_rank

            assert_rank(tensor, 0, message=f"Argument {what} must be a 0-D Tensor.")
            assert_non_negative(tensor, message=f"Argument {what} must be non-negative.")
        if not tensor.dtype.is_integer:
            raise TypeError(f"Argument {what} must be integer type.  Found: {tensor}")
        if static is not None:
            if static.ndim != 0:
                raise ValueError(f"Argument {what} must be a 0-D Tensor.  Found: {static}")
            if static < 0:
                raise ValueError(f"Argument {what} must be non-negative.  Found: {static}")
        return tensor, static

    def _init_batch_shape(self, batch_shape):
        self._batch_shape_arg = None
        if batch_shape is None:
            return
        arg = shape_arg(batch_shape, "batch_shape")
        self._batch_shape_arg = arg
        self._batch_shape_static = _static(arg)
        if self._assert_proper_shapes:
            from ferroflow.check_ops import assert_non_negative, assert_rank

            assert_rank(arg, 1, message="Argument batch_shape must be a 1-D Tensor.")
            assert_non_negative(arg, message="Argument batch_shape must be non-negative.")
        if not arg.dtype.is_integer:
            raise TypeError(f"Argument batch_shape must be integer type.  Found: {arg}")
        static = self._batch_shape_static
        if static is None:
            return
        if static.ndim != 1:
            raise ValueError(f"Argument batch_shape must be a 1-D Tensor.  Found: {static}")
        if np.any(static < 0):
            raise ValueError(f"Argument batch_shape must be non-negative.  Found:{static}")

    def _with_batch_shape(self, matrix_shape):
        """The static shape: ``batch_shape`` (when given) + ``matrix_shape``."""
        if self._batch_shape_arg is None:
            return matrix_shape
        if self._batch_shape_static is None:
            return TensorShape(None)
        return TensorShape([int(d) for d in self._batch_shape_static]).concatenate(matrix_shape)

    def _with_batch_shape_tensor(self, matrix_shape):
        from ferroflow.array_ops import concat

        if self._batch_shape_arg is None:
            return matrix_shape
        return concat([self._batch_shape_arg, matrix_shape], 0)

    def _possibly_broadcast_batch_shape(self, x):
        """``x`` broadcast against ``batch_shape``."""
        from ferroflow.array_ops import concat, zeros

        if self._batch_shape_arg is None:
            return x
        special = self.batch_shape.concatenate([1, 1])
        if special.is_fully_defined():
            if _util.broadcast_static_shape(x.shape, special) == x.shape:
                return x
            return x + zeros(special.as_list(), dtype=self.dtype)
        return x + zeros(concat([self.batch_shape_tensor(), [1, 1]], 0), dtype=self.dtype)

    def _check_proper_shape(self, x):
        """With ``assert_proper_shapes``: InvalidArgumentError when ``x``'s rows are not the
        operator's columns."""
        if self._assert_proper_shapes:
            from ferroflow.array_ops import shape
            from ferroflow.check_ops import assert_equal

            assert_equal(
                shape(x)[-2],
                self.domain_dimension_tensor(),
                message="Dimensions are not compatible.  shape[-2] of argument to be the same "
                "as this operator",
            )
        return x

    def _min_matrix_dim(self):
        if self.domain_dimension is None or self.range_dimension is None:
            return None
        return min(self.domain_dimension, self.range_dimension)

    def _min_matrix_dim_tensor(self):
        from ferroflow.math import reduce_min

        return reduce_min(self.shape_tensor()[-2:])

    def _filled_diag(self, fill):
        """``fill(shape, dtype)`` (ones or zeros) shaped as the diagonal."""
        from ferroflow.array_ops import concat

        if self.shape.is_fully_defined():
            shape = self.batch_shape.as_list() + [self._min_matrix_dim()]
        else:
            shape = concat([self.batch_shape_tensor(), [self._min_matrix_dim_tensor()]], axis=0)
        return fill(shape, dtype=self.dtype)

    def _batch_filled(self, fill):
        if self.batch_shape.is_fully_defined():
            return fill(self.batch_shape.as_list(), dtype=self.dtype)
        return fill(self.batch_shape_tensor(), dtype=self.dtype)

    def _slice_batch_shape(self, slices):
        """This operator with ``batch_shape`` sliced (TensorFlow slices a tensor of ones)."""
        from ferroflow.array_ops import ones, shape

        new_batch_shape = shape(ones(self._batch_shape_arg)[slices])
        return type(self)(**dict(self.parameters, batch_shape=new_batch_shape))
