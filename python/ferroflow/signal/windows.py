"""`tf.signal`'s windows, composed of ops in the requested dtype so that they round as
TensorFlow's (hann, hamming, kaiser, Kaiser-Bessel-derived, Vorbis).

>>> import ferroflow as tf
>>> tf.signal.hann_window(4).numpy()
array([0. , 0.5, 1. , 0.5], dtype=float32)
"""

import math as _pymath

from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow.array_ops import cast, concat, convert_to_tensor, ones, range, reverse, where
from ferroflow.errors import InvalidArgumentError
from ferroflow.framework_ops import get_static_value

__all__ = [
    "hamming_window",
    "hann_window",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "vorbis_window",
]

# Cephes' Chebyshev coefficients of exp(-x) I0(x) on [0, 8] and of sqrt(x) exp(-x) I0(x) on
# (8, inf) (the expansions TensorFlow's Eigen bessel_i0e evaluates).
_I0E_A = [
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
]
_I0E_B = [
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
]


def _chebyshev(x, coefficients):
    b0, b1, b2 = x * 0.0 + coefficients[0], x * 0.0, x * 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _bessel_i0e(x):
    """exp(-|x|) I0(x), Cephes' evaluation (tf.math.bessel_i0e's)."""
    x = _math.abs(x)
    small = _chebyshev(x / 2.0 - 2.0, _I0E_A)
    large = _chebyshev(32.0 / _math.maximum(x, 8.0) - 2.0, _I0E_B) / _math.sqrt(
        _math.maximum(x, 8.0)
    )
    return where(x <= 8.0, small, large)


def _check_params(window_length, dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    window_length = convert_to_tensor(window_length, dtype=_dtypes.int32)
    if len(window_length.shape) != 0:
        raise ValueError(f"Shape {window_length.shape} must have rank 0")
    return window_length, dtype


def _raised_cosine(window_length, periodic, dtype, a, b):
    window_length, dtype = _check_params(window_length, dtype)
    if get_static_value(window_length) == 1:
        return ones([1], dtype=dtype)
    periodic = cast(convert_to_tensor(periodic, dtype=_dtypes.bool), _dtypes.int32)
    even = 1 - _math.floormod(window_length, 2)
    n = cast(window_length + periodic * even - 1, dtype)
    count = cast(range(window_length), dtype)
    cos_arg = convert_to_tensor(2 * _pymath.pi, dtype=dtype) * count / n
    window = cast(a - b * _math.cos(cos_arg), dtype)
    if get_static_value(window_length) is None:
        window = where(window_length == 1, ones([window_length], dtype=dtype), window)
    return window


def hann_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / N)``, N = length (periodic) or length - 1."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / N)``, N as in `hann_window`."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def kaiser_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser window with shape parameter ``beta``.

    >>> import ferroflow as tf
    >>> tf.signal.kaiser_window(3, beta=0.0).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    window_length, dtype = _check_params(window_length, dtype)
    if get_static_value(window_length) == 1:
        return ones([1], dtype=dtype)
    if get_static_value(window_length) is not None and get_static_value(window_length) < 1:
        # TensorFlow's Range refuses the empty range it builds (0.5 down to -0.4).
        raise InvalidArgumentError(
            None, None, "Requires start <= limit when delta > 0: 0.5/-0.4 [Op:Range]"
        )
    half = (cast(window_length, _dtypes.float32) - 1.0) / 2.0
    arg = cast(range(-half, half + 0.1, dtype=_dtypes.float32), dtype)
    beta = cast(beta, dtype)
    half = cast(half, dtype)
    num = beta * _math.sqrt(_math.maximum(cast(0.0, dtype), 1.0 - _math.square(arg / half)))
    return _math.exp(num - beta) * (_bessel_i0e(num) / _bessel_i0e(beta))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window (for MDCTs): square roots of the Kaiser window's
    normalised running sums, mirrored."""
    window_length, dtype = _check_params(window_length, dtype)
    kaiser = kaiser_window(window_length // 2 + 1, beta, dtype=dtype)
    sums = _math.cumsum(kaiser)
    half = _math.sqrt(sums[:-1] / sums[-1])
    return concat([half, reverse(half, [0])], axis=0)


def vorbis_window(window_length, dtype=_dtypes.float32, name=None):
    """The Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 0.5) / N))``."""
    window_length, dtype = _check_params(window_length, dtype)
    arg = cast(range(window_length), dtype)
    inner = _math.sin(_pymath.pi / cast(window_length, dtype) * (arg + 0.5))
    return _math.sin(_pymath.pi / 2.0 * _math.pow(inner, 2.0))
