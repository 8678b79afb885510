"""`tf.linalg`: matrix products and norms."""

import math as _math

from ferroflow import _core
from ferroflow.array_ops import eye, transpose  # noqa: F401 - tf.linalg API


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):  # fmt: skip
    """Matrix product of the last two axes; leading axes broadcast as batch dimensions."""
    return _core.matmul(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b)


def tensordot(a, b, axes, name=None):
    return _core.tensordot(a, b, axes)


def einsum(equation, *inputs, **kwargs):
    return _core.einsum(equation, *inputs)


_ORDS = {"euclidean": 2.0, "fro": 2.0, 1: 1.0, 2: 2.0, _math.inf: _math.inf, "inf": _math.inf}


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (1, 2, inf, p > 0) and matrix norms (fro, 1, inf) when ``axis`` has two."""
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord not in _ORDS:
        p = float(ord)
    else:
        try:
            p = _ORDS[ord]
        except (KeyError, TypeError):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}") from None
    if isinstance(axis, int):
        axis = [axis]
    return _core.norm(tensor, p, axis, bool(keepdims))


def matvec(a, b, transpose_a=False, adjoint_a=False, name=None):
    from ferroflow.array_ops import expand_dims, squeeze

    return squeeze(matmul(a, expand_dims(b, -1), transpose_a, False, adjoint_a), -1)
