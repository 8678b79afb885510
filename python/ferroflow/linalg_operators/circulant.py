"""`tf.linalg.LinearOperatorCirculant` (and the block circulant 2D/3D operators): a circulant
matrix given by its spectrum ``H`` (the DFT of its convolution kernel), applied as the Fourier
multiplier ``A u = IDFT[H * DFT[u]]`` with `tf.signal`'s FFTs; solves divide by the spectrum,
determinants multiply it. Arguments and results are ``input_output_dtype`` (complex64 unless
given; a real dtype takes the real part, right only for a Hermitian spectrum, as TensorFlow)."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator, make_composite_tensor

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D"]


def _to_complex(x):
    from ferroflow.math import cast

    if x.dtype.is_complex:
        return x
    return cast(x, _dtypes.complex128 if x.dtype == _dtypes.float64 else _dtypes.complex64)


def _rotate(x, shift):
    """The axes of ``x`` rolled by ``shift`` (TensorFlow's rotate_transpose)."""
    from ferroflow.array_ops import transpose

    return transpose(x, np.roll(np.arange(x.shape.rank), shift).tolist())


class _BaseLinearOperatorCirculant(LinearOperator):
    """What the circulant operators share; ``block_depth`` 1, 2 or 3 trailing spectrum axes
    are the (nested) blocks. TensorFlow's adjoint and inverse of the base class are base
    class instances; each public class returns its own class."""

    def __init__(
        self,
        spectrum,
        block_depth,
        input_output_dtype=_dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        parameters=None,
        name="LinearOperatorCirculant",
    ):
        self._name = name
        if block_depth not in (1, 2, 3):
            raise ValueError(
                f"Argument `block_depth` must be one of [1, 2, 3]. Received: {block_depth}."
            )
        self._block_depth = block_depth
        self._spectrum = _util.convert_nonref_to_tensor(spectrum)
        if self._spectrum.shape.rank is not None and self._spectrum.shape.rank < block_depth:
            raise ValueError(
                f"Argument `spectrum` must have at least {block_depth} dimensions. "
                f"Received: {self._spectrum}."
            )
        if not self._spectrum.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError(
                    "A real spectrum always corresponds to a self-adjoint operator. Expected "
                    "argument `is_self_adjoint` to be True when `spectrum.dtype.is_complex` = "
                    f"True. Received: {is_self_adjoint}."
                )
            is_self_adjoint = True
        if is_square is False:
            raise ValueError(
                "A [[nested] block] circulant operator is always square. Expected argument "
                f"`is_square` to be True. Received: {is_square}."
            )
        super().__init__(
            dtype=_dtypes.as_dtype(input_output_dtype),
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=True,
            parameters=parameters,
            name=name,
        )

    # The class the algebra returns (the public classes return themselves).
    def _same_kind(self, spectrum, **kwargs):
        if type(self) is _BaseLinearOperatorCirculant:
            return _BaseLinearOperatorCirculant(spectrum, self.block_depth, **kwargs)
        return type(self)(spectrum, **kwargs)

    @property
    def block_depth(self):
        return self._block_depth

    @property
    def block_shape(self):
        return self._spectrum.shape[-self.block_depth :]

    def block_shape_tensor(self):
        from ferroflow.array_ops import shape

        return shape(self._spectrum)[-self.block_depth :]

    @property
    def spectrum(self):
        return self._spectrum

    def _linop_adjoint(self):
        from ferroflow.math import conj

        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = conj(spectrum)
        # As TensorFlow: the adjoint keeps the default input_output_dtype.
        return self._same_kind(
            spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self):
        return self._same_kind(
            1.0 / self.spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _combined(self, left, right, spectrum):
        return self._same_kind(
            spectrum,
            is_non_singular=_util.combined_non_singular_hint(left, right),
            is_self_adjoint=_util.combined_commuting_self_adjoint_hint(left, right),
            is_positive_definite=_util.combined_commuting_positive_definite_hint(left, right),
            is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        kind = type(self)
        if not isinstance(right_operator, kind) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return self._combined(
            left_operator, right_operator, left_operator.spectrum * right_operator.spectrum
        )

    def _linop_solve(self, left_operator, right_operator):
        kind = type(self)
        if not isinstance(right_operator, kind) or (
            kind is _BaseLinearOperatorCirculant
            and not isinstance(left_operator, type(right_operator))
        ):
            return super()._linop_solve(left_operator, right_operator)
        return self._combined(
            left_operator, right_operator, right_operator.spectrum / left_operator.spectrum
        )

    def _shape(self):
        from ferroflow.tensor_shape import TensorShape

        shape = self._spectrum.shape
        trailing = shape[-self.block_depth :]
        n = int(np.prod(trailing.as_list())) if trailing.is_fully_defined() else None
        return shape[: -self.block_depth].concatenate(TensorShape([n, n]))

    def _shape_tensor(self):
        from ferroflow.array_ops import concat, shape
        from ferroflow.math import reduce_prod

        s = shape(self._spectrum)
        n = reduce_prod(s[-self.block_depth :])
        return concat([s[: -self.block_depth], [n, n]], 0)

    # --- the Fourier multiplier -------------------------------------------------------------

    def _fft(self, x, inverse=False):
        from ferroflow import signal

        ops = (
            (signal.ifft, signal.ifft2d, signal.ifft3d)
            if inverse
            else (signal.fft, signal.fft2d, signal.fft3d)
        )
        return ops[self.block_depth - 1](_to_complex(x))

    def _unblockify(self, x):
        from ferroflow.array_ops import reshape

        dims = x.shape.as_list()
        block = dims[-self.block_depth :]
        return reshape(x, dims[: -self.block_depth] + [int(np.prod(block))])

    def _multiply(self, x, spectrum, divide):
        """``IDFT[H * DFT[x]]`` (or ``IDFT[DFT[x] / H]``) column by column."""
        from ferroflow.array_ops import broadcast_to, reshape

        block_shape = self.block_shape.as_list()
        s_batch = spectrum.shape[: -self.block_depth]
        batch = _util.broadcast_static_shape(x.shape[:-2], s_batch).as_list()
        x = broadcast_to(x, batch + x.shape.as_list()[-2:])
        spectrum = broadcast_to(spectrum, batch + block_shape)
        vec = _rotate(x, 1)
        blocks = reshape(vec, vec.shape.as_list()[:-1] + block_shape)
        f = self._fft(blocks)
        out = self._fft(f / spectrum if divide else spectrum * f, inverse=True)
        return _rotate(self._unblockify(out), -1)

    def _apply(self, x, adjoint, adjoint_arg, divide):
        from ferroflow.linalg_ops import adjoint as adjoint_of
        from ferroflow.math import cast, conj

        x = adjoint_of(x) if adjoint_arg else x
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = conj(spectrum)
        if not divide:
            x = cast(x, spectrum.dtype)
        elif _to_complex(x).dtype != spectrum.dtype:
            # TensorFlow's solve divides the FFT of rhs as it is (its matmul casts first).
            raise TypeError(
                f"`x` and `y` must have the same dtype, got {_to_complex(x).dtype!r} != "
                f"{spectrum.dtype!r}."
            )
        return cast(self._multiply(x, spectrum, divide), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, adjoint, adjoint_arg, divide=False)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, adjoint, adjoint_arg, divide=True)

    def convolution_kernel(self, name="convolution_kernel"):
        """The kernel ``h = IDFT[H]`` (the first column of the matrix), as the operator's
        dtype."""
        from ferroflow.math import cast

        return cast(self._fft(self.spectrum, inverse=True), self.dtype)

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op raising InvalidArgumentError when the kernel has an imaginary part (the
        spectrum is not Hermitian)."""
        from ferroflow.check_ops import assert_less
        from ferroflow.math import abs as abs_
        from ferroflow.math import cast, imag

        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        max_err = eps * cast(self.domain_dimension_tensor(), self.dtype.real_dtype)
        kernel = self.convolution_kernel()
        imaginary = imag(kernel) if kernel.dtype.is_complex else kernel * 0
        return assert_less(abs_(imaginary), max_err, message="Spectrum was not Hermitian")

    def _assert_non_singular(self):
        return _util.assert_no_entries_with_modulus_zero(
            self.spectrum, message="Singular operator:  Spectrum contained zero values."
        )

    def _assert_positive_definite(self):
        from ferroflow.check_ops import assert_positive
        from ferroflow.math import real

        return assert_positive(
            real(self.spectrum),
            message="Not positive definite:  Real part of spectrum was not all positive.",
        )

    def _assert_self_adjoint(self):
        return _util.assert_zero_imag_part(
            self.spectrum,
            message="Not self-adjoint:  The spectrum contained non-zero imaginary part.",
        )

    def _cond(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import reduce_max, reduce_min

        values = abs_(self._unblockify(self.spectrum))
        return reduce_max(values, axis=-1) / reduce_min(values, axis=-1)

    def _eigvals(self):
        return self._unblockify(self.spectrum)

    def _block_axes(self):
        return [-(i + 1) for i in range(self.block_depth)]

    def _determinant(self):
        from ferroflow.math import cast, reduce_prod

        return cast(reduce_prod(self.spectrum, axis=self._block_axes()), self.dtype)

    def _log_abs_determinant(self):
        from ferroflow.math import abs as abs_
        from ferroflow.math import cast, log, reduce_sum

        return cast(reduce_sum(log(abs_(self.spectrum)), axis=self._block_axes()), self.dtype)

    def _diag_part(self):
        from ferroflow.array_ops import ones
        from ferroflow.math import cast

        diag = ones(self.shape[:-1].as_list(), dtype=self.dtype)
        value = self.trace() / cast(self.domain_dimension, self.dtype)
        return value[..., None] * diag

    def _trace(self):
        from ferroflow.array_ops import zeros_like
        from ferroflow.math import cast, complex, imag, real, reduce_sum

        axes = self._block_axes()
        re = reduce_sum(real(self.spectrum), axis=axes)
        if not self.dtype.is_complex:
            return cast(re, self.dtype)
        if self.is_self_adjoint:
            im = zeros_like(re)
        else:
            im = reduce_sum(imag(self.spectrum), axis=axes)
        return cast(complex(re, im), self.dtype)

    @property
    def _composite_tensor_fields(self):
        return ("spectrum", "input_output_dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"spectrum": self.block_depth}


def _circulant_class(name, depth, doc):
    """A public circulant class of ``depth`` block levels (TensorFlow's three classes differ
    only in that and their name)."""

    def __init__(
        self,
        spectrum,
        input_output_dtype=_dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=name,
    ):
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        _BaseLinearOperatorCirculant.__init__(
            self,
            spectrum,
            block_depth=depth,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    cls = type(name, (_BaseLinearOperatorCirculant,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return make_composite_tensor(cls)


LinearOperatorCirculant = _circulant_class(
    "LinearOperatorCirculant",
    1,
    """A circulant matrix ``[B1, ..., Bb, N, N]`` given by its spectrum ``[B1, ..., Bb, N]``.

    >>> import ferroflow as tf
    >>> op = tf.linalg.LinearOperatorCirculant([6.0, 4.0, 2.0, 4.0], input_output_dtype=tf.float32)
    >>> op.to_dense().numpy().round(3).tolist()[0]
    [4.0, 1.0, 0.0, 1.0]
    """,
)
LinearOperatorCirculant2D = _circulant_class(
    "LinearOperatorCirculant2D",
    2,
    """A block circulant matrix of circulant blocks, given by its 2-D spectrum
    ``[B1, ..., Bb, N0, N1]`` (``N = N0 * N1``).""",
)
LinearOperatorCirculant3D = _circulant_class(
    "LinearOperatorCirculant3D",
    3,
    """A nested block circulant matrix given by its 3-D spectrum ``[B1, ..., Bb, N0, N1, N2]``
    (``N = N0 * N1 * N2``).""",
)
