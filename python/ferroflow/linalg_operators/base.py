"""`tf.linalg.LinearOperator`: the abstract base of TensorFlow's structured matrices.

An operator stands for a (batch of) matrix ``A`` of shape ``batch_shape + [M, N]`` without
necessarily storing it. The public methods (``matmul``, ``solve``, ``determinant``...) check
their arguments (dtype, compatible dimensions, the ``is_*`` hints) and then call a protected
hook a subclass overrides; the base class gives a dense default for every hook but the two that
are abstract.

Hooks a subclass defines (as TensorFlow's):

* ``_shape()`` (abstract): the static ``TensorShape``; ``_shape_tensor()``: the dynamic one
  (only called when the static shape is not fully defined);
* ``_matmul(x, adjoint=False, adjoint_arg=False)`` (abstract): ``A @ x`` with ``x`` a tensor
  already checked; ``_matvec(x, adjoint=False)`` defaults to ``_matmul`` on ``x[..., None]``;
* ``_solve(rhs, adjoint=False, adjoint_arg=False)`` (default: dense solve, by Cholesky when
  ``is_self_adjoint and is_positive_definite``) and ``_solvevec``;
* ``_determinant``, ``_log_abs_determinant`` (defaults: dense det/slogdet or Cholesky),
  ``_trace``, ``_diag_part``, ``_to_dense`` (default: ``matmul(eye)``), ``_add_to_tensor``,
  ``_eigvals``, ``_cond``;
* ``_assert_non_singular``, ``_assert_positive_definite``, ``_assert_self_adjoint``;
* the operator algebra, whose result types follow TensorFlow: ``_linop_adjoint()`` (default a
  ``LinearOperatorAdjoint``), ``_linop_inverse()`` (``LinearOperatorInversion``),
  ``_linop_cholesky()`` (``LinearOperatorLowerTriangular``), and
  ``_linop_matmul(left, right)``/``_linop_solve(left, right)`` for operator arguments
  (``LinearOperatorComposition``, with ``Identity``/``Zeros`` shortcuts);
* ``_composite_tensor_fields``: the constructor arguments that hold tensors (or operators);
  with them the class decorated by ``make_composite_tensor`` gets a ``_type_spec``, so an
  operator can be passed to and returned from a ``tf.function`` and flattened by
  ``tf.nest(expand_composites=True)``; ``_composite_tensor_prefer_static_fields`` name the
  arguments whose constant values are kept in the spec (``num_rows``);
* ``_experimental_parameter_ndims_to_matrix_ndims``: for batch slicing (``op[i]``), each
  tensor parameter's number of trailing non-batch dims.

A subclass calls ``super().__init__(dtype=..., is_non_singular=..., is_self_adjoint=...,
is_positive_definite=..., is_square=..., parameters=dict(...), name=...)`` with ``parameters``
the constructor's arguments (what ``op.parameters`` returns).
"""

import abc
import contextlib

import numpy as np

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.module import Module
from ferroflow.tensor_shape import TensorShape
from ferroflow.type_spec import BatchableTypeSpec, CompositeTensor, TypeSpec, register_type_spec

__all__ = ["LinearOperator", "make_composite_tensor"]


def _ops():
    # Imported on use: this package loads while ferroflow's namespace is still being built.
    from ferroflow import array_ops, check_ops, linalg_ops, math

    return array_ops, math, linalg_ops, check_ops


class LinearOperator(Module, CompositeTensor, metaclass=abc.ABCMeta):
    """Base class for a (batch of) linear operator(s) ``A`` of shape ``batch_shape + [M, N]``.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorDiag([1.0, 2.0])
    >>> op.matvec([3.0, 4.0]).numpy()
    array([3., 8.], dtype=float32)
    """

    def __init__(
        self,
        dtype,
        graph_parents=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
        parameters=None,
    ):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = []
        if graph_parents is not None:
            self._set_graph_parents(graph_parents)
        self._dtype = _dtypes.as_dtype(dtype) if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = parameters
        self._name = name or type(self).__name__

    def _set_graph_parents(self, graph_parents):
        """Deprecated in TensorFlow and unused; each must still be a tensor (ValueError)."""
        for i, t in enumerate(graph_parents):
            if t is None or not (_util.is_ref(t) or _core.is_tensor(t)):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        self._graph_parents = list(graph_parents)

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        """The scope each public method runs in (kept for subclasses; ops are not renamed)."""
        yield f"{self.name}/{name}" if name else self.name

    # --- hints and metadata -----------------------------------------------------------------

    @property
    def parameters(self):
        """The constructor's arguments (a dict)."""
        return dict(self._parameters or {})

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def graph_parents(self):
        return self._graph_parents

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """True when ``M == N`` (the hint when given; ValueError when the hint says False of a
        square operator)."""
        auto = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto
        return self._is_square_set_or_implied_by_hints

    # --- shapes -----------------------------------------------------------------------------

    @abc.abstractmethod
    def _shape(self):
        raise NotImplementedError("_shape is not implemented.")

    @property
    def shape(self):
        """The static ``TensorShape`` ``batch_shape + [M, N]``."""
        return self._shape()

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented.")

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 tensor."""
        if self.shape.is_fully_defined():
            return _shape_as_tensor(self.shape.as_list())
        return self._shape_tensor()

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self._batch_shape_tensor()

    def _batch_shape_tensor(self, shape=None):
        if self.batch_shape.is_fully_defined():
            return _shape_as_tensor(self.batch_shape.as_list())
        shape = self.shape_tensor() if shape is None else shape
        return shape[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return self._tensor_rank_tensor()

    def _tensor_rank_tensor(self, shape=None):
        array_ops = _ops()[0]
        if self.tensor_rank is not None:
            return array_ops.convert_to_tensor(self.tensor_rank)
        shape = self.shape_tensor() if shape is None else shape
        return array_ops.size(shape)

    @property
    def domain_dimension(self):
        """N, the number of columns (None when unknown)."""
        if self.shape.rank is None:
            return None
        return self.shape.dims[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self._domain_dimension_tensor()

    def _domain_dimension_tensor(self, shape=None):
        if self.domain_dimension is not None:
            return _ops()[0].convert_to_tensor(self.domain_dimension)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-1]

    @property
    def range_dimension(self):
        """M, the number of rows (None when unknown)."""
        if self.shape.dims:
            return self.shape.dims[-2]
        return None

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self._range_dimension_tensor()

    def _range_dimension_tensor(self, shape=None):
        if self.range_dimension is not None:
            return _ops()[0].convert_to_tensor(self.range_dimension)
        shape = self.shape_tensor() if shape is None else shape
        return shape[-2]

    # --- assertions -------------------------------------------------------------------------

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        _, math, linalg_ops, check_ops = _ops()
        singular_values = linalg_ops.svd(self.to_dense(), compute_uv=False)
        cond = math.reduce_max(singular_values, axis=-1) / math.reduce_min(singular_values, axis=-1)
        return check_ops.assert_less(
            cond,
            self._max_condition_number_to_be_non_singular(),
            message="Singular matrix up to precision epsilon.",
        )

    def _max_condition_number_to_be_non_singular(self):
        math = _ops()[1]
        eps = np.finfo(self.dtype.as_numpy_dtype).eps
        dims = [100.0, self.range_dimension_tensor(), self.domain_dimension_tensor()]
        biggest = math.reduce_max([math.cast(d, self.dtype) for d in dims])
        return 1.0 / (biggest * eps)

    def assert_non_singular(self, name="assert_non_singular"):
        """An op raising InvalidArgumentError when the operator is singular."""
        return self._assert_non_singular()

    def _assert_positive_definite(self):
        _, _, linalg_ops, check_ops = _ops()
        if self.is_self_adjoint:
            return check_ops.assert_positive(
                linalg_ops.diag_part(linalg_ops.cholesky(self.to_dense())),
                message="Matrix was not positive definite.",
            )
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """An op raising InvalidArgumentError when the operator is not positive definite."""
        return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        _, _, linalg_ops, check_ops = _ops()
        dense = self.to_dense()
        return check_ops.assert_equal(
            dense, linalg_ops.adjoint(dense), message="Matrix was not equal to its adjoint."
        )

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """An op raising InvalidArgumentError when the operator is not self-adjoint."""
        return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype != self.dtype:
            raise TypeError(
                f"Expected argument to have dtype {self.dtype}.  Found: {arg.dtype} in tensor {arg}"
            )

    # --- products and solves ----------------------------------------------------------------

    @abc.abstractmethod
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` (``A^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``); an operator
        ``x`` gives an operator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            _check_operator_dims(left, right, "x")
            return self._linop_matmul(left, right)
        x = _ops()[0].convert_to_tensor(x)
        self._check_input_dtype(x)
        _assert_dims_compatible(
            self.shape, -2 if adjoint else -1, x.shape, -1 if adjoint_arg else -2
        )
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator
        if hasattr(right_operator, "_zeros_diag"):
            if not right_operator.is_square or not left_operator.is_square:
                raise ValueError(
                    "Matmul with non-square `LinearOperator`s or non-square "
                    "`LinearOperatorZeros` not supported at this time."
                )
            return right_operator
        from ferroflow.linalg_operators.composition import LinearOperatorComposition

        return LinearOperatorComposition(
            operators=[left_operator, right_operator],
            **_product_hints(left_operator, right_operator),
        )

    def __matmul__(self, other):
        return self.matmul(other)

    def _matvec(self, x, adjoint=False):
        array_ops = _ops()[0]
        y = self.matmul(array_ops.expand_dims(x, axis=-1), adjoint=adjoint)
        return array_ops.squeeze(y, axis=-1)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for a (batch of) vector(s) ``x``."""
        x = _ops()[0].convert_to_tensor(x)
        self._check_input_dtype(x)
        _assert_dims_compatible(self.shape, -2 if adjoint else -1, x.shape, -1)
        return self._matvec(x, adjoint=adjoint)

    def _determinant(self):
        _, math, linalg_ops, _ = _ops()
        if self._can_use_cholesky():
            return math.exp(self.log_abs_determinant())
        return linalg_ops.det(self.to_dense())

    def determinant(self, name="det"):
        """The determinant of each matrix of the batch."""
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to not be square."
            )
        return self._determinant()

    def _log_abs_determinant(self):
        _, math, linalg_ops, _ = _ops()
        if self._can_use_cholesky():
            diag = linalg_ops.diag_part(linalg_ops.cholesky(self.to_dense()))
            return 2 * math.reduce_sum(math.log(diag), axis=[-1])
        _, log_abs_det = linalg_ops.slogdet(self.to_dense())
        return log_abs_det

    def log_abs_determinant(self, name="log_abs_det"):
        """``log|det A|`` of each matrix of the batch."""
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to not be square."
            )
        return self._log_abs_determinant()

    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        """Solves with the dense matrix: by Cholesky for a self-adjoint positive definite
        operator, else LU, batch dims broadcast."""
        _, _, linalg_ops, _ = _ops()
        if self.is_square is False:
            raise NotImplementedError("Solve is not yet implemented for non-square operators.")
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            chol, rhs = _util.broadcast_matrix_batch_dims(
                [linalg_ops.cholesky(self.to_dense()), rhs]
            )
            return linalg_ops.cholesky_solve(chol, rhs)
        return _util.matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs`` (``A^H`` with ``adjoint``, ``rhs^H`` with
        ``adjoint_arg``); an operator ``rhs`` gives an operator."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            _check_operator_dims(left, right, "rhs")
            return self._linop_solve(left, right)
        rhs = _ops()[0].convert_to_tensor(rhs)
        self._check_input_dtype(rhs)
        _assert_dims_compatible(
            self.shape, -1 if adjoint else -2, rhs.shape, -1 if adjoint_arg else -2
        )
        return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _check_solvable(self):
        """NotImplementedError for an operator hinted singular or non-square."""
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to be singular."
            )
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square."
            )

    def _linop_solve(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator.inverse()
        from ferroflow.linalg_operators.composition import LinearOperatorComposition
        from ferroflow.linalg_operators.inversion import LinearOperatorInversion

        return LinearOperatorComposition(
            operators=[LinearOperatorInversion(left_operator), right_operator],
            **_product_hints(left_operator, right_operator),
        )

    def _solvevec(self, rhs, adjoint=False):
        array_ops = _ops()[0]
        x = self.solve(array_ops.expand_dims(rhs, axis=-1), adjoint=adjoint)
        return array_ops.squeeze(x, axis=-1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``A x = rhs`` for a (batch of) vector(s)."""
        rhs = _ops()[0].convert_to_tensor(rhs)
        self._check_input_dtype(rhs)
        _assert_dims_compatible(self.shape, -1 if adjoint else -2, rhs.shape, -1)
        return self._solvevec(rhs, adjoint=adjoint)

    # --- the operator algebra ---------------------------------------------------------------

    def adjoint(self, name="adjoint"):
        """The conjugate transpose, as an operator (``self`` when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self):
        from ferroflow.linalg_operators.adjoint import LinearOperatorAdjoint

        return LinearOperatorAdjoint(
            self,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=self.is_square,
        )

    def inverse(self, name="inverse"):
        """The inverse, as an operator (ValueError for an operator hinted non-square or
        singular)."""
        if self.is_square is False:
            raise ValueError(
                "Cannot take the Inverse: This operator represents a non square matrix."
            )
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return self._linop_inverse()

    def _linop_inverse(self):
        from ferroflow.linalg_operators.inversion import LinearOperatorInversion

        return LinearOperatorInversion(
            self,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=self.is_square,
        )

    def cholesky(self, name="cholesky"):
        """The Cholesky factor, as an operator (needs the self-adjoint and positive definite
        hints: ValueError otherwise)."""
        if not self._can_use_cholesky():
            raise ValueError(
                "Cannot take the Cholesky decomposition: Not a positive definite self adjoint "
                "matrix."
            )
        return self._linop_cholesky()

    def _linop_cholesky(self):
        from ferroflow.linalg_operators.lower_triangular import LinearOperatorLowerTriangular

        return LinearOperatorLowerTriangular(
            _ops()[2].cholesky(self.to_dense()),
            is_non_singular=True,
            is_self_adjoint=False,
            is_square=True,
        )

    # --- dense views and reductions ---------------------------------------------------------

    def _to_dense(self):
        array_ops = _ops()[0]
        n = self.domain_dimension
        if n is None:
            n = self.domain_dimension_tensor()
        if self.batch_shape.is_fully_defined():
            eye = array_ops.eye(n, batch_shape=self.batch_shape.as_list(), dtype=self.dtype)
        else:
            # A batch of identities whose batch shape is known only when the graph runs.
            square = array_ops.eye(n, dtype=self.dtype)
            dims = array_ops.concat([self.batch_shape_tensor(), array_ops.shape(square)], 0)
            eye = array_ops.broadcast_to(square, dims)
        return self.matmul(eye)

    def to_dense(self, name="to_dense"):
        """The dense matrix, a tensor of shape ``batch_shape + [M, N]``."""
        return self._to_dense()

    def _diag_part(self):
        return _ops()[2].diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        """The main diagonal of each matrix, shape ``batch_shape + [min(M, N)]``."""
        return self._diag_part()

    def _trace(self):
        return _ops()[1].reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name="trace"):
        """The trace of each matrix of the batch."""
        return self._trace()

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``A + x`` for a tensor ``x`` of the operator's dtype."""
        x = _ops()[0].convert_to_tensor(x)
        self._check_input_dtype(x)
        return self._add_to_tensor(x)

    def _eigvals(self):
        return _ops()[2].eigvalsh(self.to_dense())

    def eigvals(self, name="eigvals"):
        """The eigenvalues (only for an operator hinted self-adjoint)."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        return self._eigvals()

    def _cond(self):
        _, math, linalg_ops, _ = _ops()
        if not self.is_self_adjoint:
            vals = linalg_ops.svd(self.to_dense(), compute_uv=False)
        else:
            vals = math.abs(self._eigvals())
        return math.reduce_max(vals, axis=-1) / math.reduce_min(vals, axis=-1)

    def cond(self, name="cond"):
        """The condition number (largest over smallest singular value)."""
        return self._cond()

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite

    # --- composite-tensor protocol ----------------------------------------------------------

    @property
    def _composite_tensor_fields(self):
        return ()

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ()

    @property
    def _type_spec(self):
        # Replaced by make_composite_tensor; an undecorated subclass has none, and crossing a
        # tf.function boundary then fails with AttributeError, as in TensorFlow.
        return None

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return ()

    # A gradient with respect to an operator is an operator of the same class whose tensor
    # parameters are the gradients (TensorFlow's _LinearOperatorGradient).

    def _gradient_components(self):
        return _flat_params(self)

    def _with_gradient_components(self, grads):
        if all(g is None for g in grads):
            return None
        from ferroflow.array_ops import zeros_like

        leaves = _flat_params(self)
        grads = [zeros_like(c) if g is None else g for c, g in zip(leaves, grads)]
        return _rebuilt(self, iter(grads))

    def __getitem__(self, slices):
        from ferroflow.linalg_operators._slicing import batch_slice

        return batch_slice(self, slices)


def _shape_as_tensor(dims):
    from ferroflow.array_ops import convert_to_tensor

    return convert_to_tensor(dims, dtype=_dtypes.int32)


def _assert_dims_compatible(op_shape, op_axis, arg_shape, arg_axis):
    """ValueError (TensorFlow's message) when the operator's and the argument's dims differ."""
    if op_shape.rank is None or arg_shape.rank is None:
        return
    if arg_shape.rank < -arg_axis:
        # TensorFlow indexes the argument's static shape: IndexError.
        raise IndexError("list index out of range")
    a, b = op_shape.dims[op_axis], arg_shape.dims[arg_axis]
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


def _check_operator_dims(left, right, arg_name):
    if (
        right.range_dimension is not None
        and left.domain_dimension is not None
        and right.range_dimension != left.domain_dimension
    ):
        raise ValueError(
            f"Operators are incompatible. Expected `{arg_name}` to have dimension "
            f"{left.domain_dimension} but got {right.range_dimension}."
        )


def _product_hints(left, right):
    """The hints of ``left @ right`` (or ``left^-1 @ right``) as a composition."""
    square = _util.is_square(left, right)
    hints = dict(
        is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=square
    )
    if square:
        hints["is_non_singular"] = _util.combined_non_singular_hint(left, right)
    elif square is False:
        hints.update(is_non_singular=False, is_self_adjoint=False, is_positive_definite=False)
    return hints


# --- the type spec --------------------------------------------------------------------------


class _LinearOperatorSpec(BatchableTypeSpec):
    """The spec of an operator: the specs of its tensor (and operator) parameters and the
    values of the others (hints, static sizes)."""

    __slots__ = ("_param_specs", "_non_tensor_params", "_prefer_static_fields")

    value_type = None  # set per class by make_composite_tensor

    def __init__(self, param_specs, non_tensor_params, prefer_static_fields):
        self._param_specs = param_specs
        self._non_tensor_params = non_tensor_params
        self._prefer_static_fields = tuple(prefer_static_fields)

    @classmethod
    def from_operator(cls, operator):
        hints = ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square")
        kwargs = _extract_attrs(operator, tuple(operator._composite_tensor_fields) + hints)
        param_specs, non_tensor_params = {}, {}
        from ferroflow import nest

        for key, value in kwargs.items():
            spec_or_value = _spec_recursively(value)
            flags = [isinstance(x, TypeSpec) for x in nest.flatten(spec_or_value)]
            if flags and all(flags):
                param_specs[key] = spec_or_value
            elif not any(flags):
                non_tensor_params[key] = value
            else:
                raise NotImplementedError(
                    f"Field {key} contains a mix of `Tensor` and  non-`Tensor` values."
                )
        return cls(param_specs, non_tensor_params, operator._composite_tensor_prefer_static_fields)

    @property
    def _component_specs(self):
        return self._param_specs

    def _to_components(self, value):
        # Variables stay variables (found by Module.trainable_variables and
        # nest.flatten(expand_composites=True)); a tf.function call reads them.
        return _extract_attrs(value, tuple(self._param_specs))

    def _from_components(self, components):
        return self.value_type(**dict(self._non_tensor_params, **components))

    def _serialize(self):
        return (self._param_specs, self._non_tensor_params, self._prefer_static_fields)

    def _map_specs(self, fn):
        from ferroflow import nest

        return type(self)(
            nest.map_structure(fn, self._param_specs),
            self._non_tensor_params,
            self._prefer_static_fields,
        )

    def _batch(self, batch_size):
        return self._map_specs(lambda spec: spec._batch(batch_size))

    def _unbatch(self, batch_size):
        # TensorFlow's signature: its tf.data calls `_unbatch()`, so unbatching an operator
        # (Dataset.from_tensor_slices(op)) is a TypeError there, and here too.
        return self._map_specs(lambda spec: spec._unbatch())


def make_composite_tensor(cls, module_name="tf.linalg"):
    """Class decorator: gives an operator class its spec (``<Class>Spec``, registered as
    ``tf.linalg.<Class>Spec``), so its values can cross ``tf.function`` boundaries."""
    spec_name = f"{cls.__name__}Spec"
    spec_type = type(spec_name, (_LinearOperatorSpec,), {"value_type": cls, "__slots__": ()})
    register_type_spec(f"{module_name}.{spec_name}", spec_type)
    cls._type_spec = property(spec_type.from_operator)
    return cls


def _extract_attrs(op, keys):
    """Each key's value: the attribute ``key``, else ``_key``, else ``op.parameters[key]``."""
    from ferroflow.framework_ops import get_static_value

    kwargs = {}
    missing = object()
    for key in keys:
        value = getattr(op, key, missing)
        if value is missing:
            value = getattr(op, "_" + key, missing)
        if value is missing:
            value = op.parameters.get(key, missing)
        if value is missing:
            raise ValueError(
                f"Could not determine an appropriate value for field `{key}` in object  `{op}`."
            )
        if key in op._composite_tensor_prefer_static_fields and _core.is_tensor(value):
            static = get_static_value(value)
            if static is not None:
                value = static
        if isinstance(value, (np.ndarray, np.generic)):
            value = value.tolist()
        kwargs[key] = value
    return kwargs


def _spec_recursively(value):
    from ferroflow.tensor_spec import TensorSpec
    from ferroflow.variables import Variable

    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, Variable) or _core.is_tensor(value):
        return TensorSpec(TensorShape(value.shape), value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_spec_recursively(v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _spec_recursively(v)) for k, v in value.items())
    return value


def _param_values(op):
    """The operator's tensor (and operator) parameters by name, sorted, variables kept."""
    keys = sorted(op._type_spec._param_specs)
    return keys, _extract_attrs(op, tuple(keys))


def _flat_params(value):
    """The tensors (variables kept) in an operator's parameters, nested operators walked."""
    if isinstance(value, LinearOperator):
        keys, params = _param_values(value)
        return [leaf for key in keys for leaf in _flat_params(params[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flat_params(item)]
    return [value]


def _rebuilt(value, leaves):
    """``value`` (an operator, a list, a tensor) with its tensors taken from ``leaves``."""
    if isinstance(value, LinearOperator):
        keys, params = _param_values(value)
        new = {key: _rebuilt(params[key], leaves) for key in keys}
        return value._type_spec._from_components(new)
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuilt(item, leaves) for item in value)
    return next(leaves)
