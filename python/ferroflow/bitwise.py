"""`tf.bitwise`: bitwise operations on integer tensors. Shift amounts outside [0, bits - 1]
are clamped to that range, as TensorFlow's CPU kernels do."""

from ferroflow import _core
from ferroflow.math import _binary

bitwise_and = _binary("bitwise_and", "x & y element-wise.")
bitwise_or = _binary("bitwise_or", "x | y element-wise.")
bitwise_xor = _binary("bitwise_xor", "x ^ y element-wise.")
left_shift = _binary("left_shift", "x << y element-wise.")
right_shift = _binary("right_shift", "x >> y element-wise (arithmetic for signed types).")


def invert(x, name=None):
    """~x element-wise (integers only)."""
    return _core.unary("invert", x)
