"""The legacy Keras 2 ``K.*`` functions that make, read and update variables and constants."""

import numpy as np

import ferroflow as tf
from ferroflow.keras._backend_config import floatx

__all__ = [
    "batch_get_value",
    "batch_set_value",
    "constant",
    "eval",
    "eye",
    "get_value",
    "moving_average_update",
    "name_scope",
    "ones",
    "ones_like",
    "set_value",
    "stop_gradient",
    "update",
    "update_add",
    "update_sub",
    "variable",
    "zeros",
    "zeros_like",
]


def variable(value, dtype=None, name=None, constraint=None):
    """A `tf.Variable` of ``value`` in ``dtype`` (floatx by default); a SciPy sparse matrix
    gives a `tf.SparseTensor`."""
    dtype = floatx() if dtype is None else dtype
    if hasattr(value, "tocoo"):
        coo = value.tocoo()
        indices = np.stack([coo.row, coo.col], axis=1)
        return tf.SparseTensor(indices=indices, values=coo.data, dense_shape=coo.shape)
    return tf.Variable(value, dtype=tf.as_dtype(dtype), name=name, constraint=constraint)


def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor of ``value`` in ``dtype`` (floatx by default)."""
    return tf.constant(value, dtype=floatx() if dtype is None else dtype, shape=shape, name=name)


def _filled(fill, shape, dtype, name):
    # A fully known, non-empty shape gives a variable, as in Keras 2.
    dtype = floatx() if dtype is None else dtype
    with tf.init_scope():
        value = fill(shape=shape, dtype=tf.as_dtype(dtype), name=name)
        if all(value.shape.as_list()):
            return variable(value, dtype=dtype, name=name)
        return value


def zeros(shape, dtype=None, name=None):
    """A variable of zeros (a tensor when a dimension is 0); floatx by default."""
    return _filled(tf.zeros, shape, dtype, name)


def ones(shape, dtype=None, name=None):
    """A variable of ones (a tensor when a dimension is 0); floatx by default."""
    return _filled(tf.ones, shape, dtype, name)


def eye(size, dtype=None, name=None):
    """A variable holding the identity matrix of ``size``; floatx by default."""
    dtype = floatx() if dtype is None else dtype
    return variable(tf.eye(size, dtype=tf.as_dtype(dtype)), dtype, name)


def zeros_like(x, dtype=None, name=None):
    """Zeros shaped like ``x``."""
    return tf.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    """Ones shaped like ``x``."""
    return tf.ones_like(x, dtype=dtype, name=name)


def get_value(x):
    """``x``'s value as a NumPy array; non-tensors are returned unchanged."""
    if not tf.is_tensor(x) and not isinstance(x, tf.Variable):
        return x
    return x.numpy()


def eval(x):  # noqa: A001 - Keras's name
    """``x``'s value as a NumPy array (sparse tensors made dense)."""
    from ferroflow.keras.backend.legacy_array import to_dense

    return get_value(to_dense(x))


def batch_get_value(tensors):
    """The values of ``tensors`` as NumPy arrays."""
    return [x.numpy() for x in tensors]


def set_value(x, value):
    """Assigns ``value`` (converted to ``x``'s dtype by NumPy) to the variable ``x``."""
    x.assign(np.asarray(value, dtype=x.dtype.name))


def batch_set_value(tuples):
    """`set_value` for each ``(variable, value)`` pair."""
    for x, value in tuples:
        set_value(x, value)


def update(x, new_x):
    """Assigns ``new_x`` to ``x``."""
    return x.assign(new_x)


def update_add(x, increment):
    """Adds ``increment`` to ``x``."""
    return x.assign_add(increment)


def update_sub(x, decrement):
    """Subtracts ``decrement`` from ``x``."""
    return x.assign_sub(decrement)


def moving_average_update(x, value, momentum):
    """``x <- x * momentum + value * (1 - momentum)``, computed as
    ``x - (x - value) * (1 - momentum)``."""
    momentum = tf.cast(momentum, x.dtype)
    value = tf.cast(value, x.dtype)
    return x.assign_sub((x - value) * (1 - momentum))


def stop_gradient(variables):
    """``variables`` with gradients blocked (a list or tuple gives a `map` object, as in
    Keras)."""
    if isinstance(variables, list | tuple):
        return map(tf.stop_gradient, variables)
    return tf.stop_gradient(variables)


def name_scope(name):
    """A `tf.name_scope` context."""
    return tf.name_scope(name)
