"""The few Keras backend services the losses and metrics need, written with ferroflow ops:
the fuzz factor, the default float type, dtype-converting `convert` and static-shape helpers."""

from ferroflow import array_ops, dtypes, errors
from ferroflow import math as tf_math
from ferroflow._core import Tensor
from ferroflow.keras import _backend_config as backend_config
from ferroflow.variables import Variable


def __getattr__(name):
    # ``EPSILON`` and ``FLOATX`` read `keras.backend.epsilon()`/`floatx()` at each use, so
    # `set_epsilon`/`set_floatx` reach every loss and metric.
    if name == "EPSILON":
        return backend_config.epsilon()
    if name == "FLOATX":
        return backend_config.floatx()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def standardize_dtype(dtype):
    """A dtype's name ("float32"): Keras keeps dtypes as strings; None means floatx."""
    if dtype is None:
        return backend_config.floatx()
    return dtypes.as_dtype(dtype).name


def _read(x):
    # `Variable.value()` is a read that tapes record from any device scope
    # (`tf.convert_to_tensor(v)` under another device's scope is not).
    return x.value() if isinstance(x, Variable) else x


def convert(x, dtype=None):
    """Keras' `ops.convert_to_tensor(x, dtype)`: tensors of another dtype are cast, Python and
    NumPy values are converted (through a cast where TensorFlow would refuse, as for floats to
    ints)."""
    x = _read(x)
    if dtype is None:
        return array_ops.convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else array_ops.cast(x, dtype)
    if dtype.is_floating:
        try:
            return array_ops.convert_to_tensor(x, dtype=dtype)
        except (TypeError, ValueError):
            pass
    return array_ops.cast(array_ops.convert_to_tensor(x), dtype)


def cast(x, dtype):
    """`ops.cast`: a no-op when ``x`` already has ``dtype``."""
    x = array_ops.convert_to_tensor(_read(x))
    dtype = dtypes.as_dtype(dtype)
    return x if x.dtype == dtype else array_ops.cast(x, dtype)


def ndim(x):
    return len(x.shape)


def num_elements(x, dtype):
    """The number of elements of ``x`` as a ``dtype`` scalar, known at run time (``tf.size``
    would freeze the traced example's size into a graph whose batch size is unknown)."""
    return array_ops.cast(tf_math.reduce_prod(array_ops.shape(x)), dtype)


def constant(value, dtype):
    """A scalar constant (a graph constant, where ``tf.ones([])`` would be a shape-baking fill
    that pins a trace with unknown dimensions to its example shapes)."""
    return array_ops.constant(value, dtype=dtypes.as_dtype(dtype))


def divide_no_nan(x, y):
    """``x / y``, and 0 where ``y`` is 0 (`tf.math.divide_no_nan`, from scalar constants)."""
    x = convert(x)
    y = convert(y, x.dtype)
    is_zero = tf_math.equal(y, constant(0, y.dtype))
    safe = array_ops.where(is_zero, constant(1, y.dtype), y)
    return array_ops.where(is_zero, constant(0, x.dtype), x / safe)


def broadcast_like(x, reference):
    """``x`` broadcast to the shape of the float tensor ``reference``, known at run time (an
    elementwise select; `tf.broadcast_to` needs the shape while tracing). Like `tf.broadcast_to`
    it refuses to grow ``reference``'s shape."""
    x_dims = list(x.shape)
    ref_dims = list(reference.shape)
    compatible = len(x_dims) <= len(ref_dims) and all(
        a is None or b is None or a in (1, b) for a, b in zip(reversed(x_dims), reversed(ref_dims))
    )
    if not compatible:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Unable to broadcast tensor of shape {x_dims} to tensor of shape {ref_dims}",
        )
    everywhere = tf_math.logical_or(
        tf_math.is_nan(reference), tf_math.logical_not(tf_math.is_nan(reference))
    )
    return array_ops.where(everywhere, x, constant(0, x.dtype))
