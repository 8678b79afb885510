"""`experimental_enable_numpy_behavior`: NumPy methods on Tensor, NumPy-style promotion in the
Tensor operators and NumPy-style (advanced) indexing. As in TensorFlow it changes the process
for good: there is no public way back (tests run it in a subprocess)."""

import numbers

import numpy as np

import ferroflow as tf
from ferroflow.experimental.numpy import _dtypes
from ferroflow.experimental.numpy._arrays import is_ndarray
from ferroflow.tensor_shape import TensorShape

_MODES = ("off", "legacy", "safe", "all")
_PROMOTED_OPERATORS = ("add sub mul truediv floordiv mod pow and or xor lt le gt ge eq ne").split()


def _operand_dtype(x):
    if isinstance(x, numbers.Real):
        return x
    if is_ndarray(x):
        return x.dtype.as_numpy_dtype
    if isinstance(x, tf.DType):
        return x.as_numpy_dtype
    if isinstance(x, TensorShape):
        return np.int32
    return x


def _promote(x, y):
    # TensorFlow flattens the operands first (nest.flatten): a list operand contributes its
    # elements.
    dtype = _dtypes._np_result_type(*[_operand_dtype(v) for v in _dtypes._flatten([x, y])])
    return [tf.cast(v, dtype) if is_ndarray(v) else tf.convert_to_tensor(v, dtype) for v in (x, y)]


def _promoting(original, reflected):
    def operator(self, other):
        # `tensor == None` is False before any promotion (TensorFlow's tensor_equals).
        if not _dtypes._config.promotion or other is None:
            return original(self, other)
        if reflected:
            other, self = _promote(other, self)
        else:
            self, other = _promote(self, other)
        return original(self, other)

    operator.__name__ = original.__name__
    operator.__doc__ = original.__doc__
    return operator


def _numpy_matmul(original, reflected):
    def operator(self, other):
        from ferroflow.experimental.numpy._linalg import matmul

        if not _dtypes._config.promotion:
            return original(self, other)
        return matmul(other, self) if reflected else matmul(self, other)

    return operator


def _tolist(self):
    if tf.is_symbolic_tensor(self):
        raise ValueError("Symbolic Tensors do not support the tolist API.")
    return self.numpy().tolist()


def _size(self):
    if not self.shape.is_fully_defined():
        return None
    return np.prod(self.shape.as_list())


def _reshape(a, *newshape, **kwargs):
    from ferroflow.experimental.numpy._shape import reshape

    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError(f"Unsupported arguments: {kwargs.keys()}")
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


def _enable_methods():
    from ferroflow.experimental.numpy import _math, _reductions, _shape
    from ferroflow.experimental.numpy._rounding import around

    methods = {
        "T": property(lambda self: _shape.transpose(self)),
        "size": property(_size),
        "data": property(lambda self: self),
        "__pos__": lambda self: self,
        "tolist": _tolist,
        "transpose": _shape.transpose,
        "flatten": _shape.flatten,
        "reshape": _reshape,
        "ravel": _shape.ravel,
        "clip": _math.clip,
        "astype": lambda x, dtype, name=None: tf.cast(x, dtype, name=name),
        "__round__": around,
        "max": _reductions.amax,
        "mean": _reductions.mean,
        "min": _reductions.amin,
    }
    for name, value in methods.items():
        setattr(tf.Tensor, name, value)


def _enable_promotion():
    for op in _PROMOTED_OPERATORS:
        for name, reflected in ((f"__{op}__", False), (f"__r{op}__", True)):
            original = getattr(tf.Tensor, name, None)
            if original is None:
                continue
            setattr(tf.Tensor, name, _promoting(original, reflected))
    tf.Tensor.__matmul__ = _numpy_matmul(tf.Tensor.__matmul__, False)
    tf.Tensor.__rmatmul__ = _numpy_matmul(tf.Tensor.__rmatmul__, True)


def _enable_indexing():
    from ferroflow.experimental.numpy._getitem import numpy_style_getitem

    original = tf.Tensor.__getitem__

    def __getitem__(self, key):  # noqa: N807 - the operator
        return numpy_style_getitem(self, key, original)

    tf.Tensor.__getitem__ = __getitem__
    # A Variable keeps TensorFlow's own indexing (TensorFlow's getitem takes the NumPy path
    # only for tensors).
    tf.Variable.__getitem__ = lambda self, key: original(self.value(), key)


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Enables NumPy behavior on Tensors for the rest of the process: NumPy methods (`T`,
    `reshape`, `ravel`, `astype`, `clip`, `tolist`, `mean`, ...), NumPy's type promotion in the
    Tensor operators (`int32 + float32` gives float64) and NumPy-style indexing (integer and
    boolean arrays). `prefer_float32` makes Python floats float32 in dtype inference.

    Only `dtype_conversion_mode='legacy'` is supported ('off' too, which changes no promotion);
    'safe' and 'all' (TensorFlow's WeakTensor promotion) raise NotImplementedError.
    """
    if dtype_conversion_mode not in _MODES:
        raise ValueError(
            f"The provided promotion mode {dtype_conversion_mode} does not exist. Make sure the "
            "provided dtype conversion mode is one of the followings: 'off', 'legacy', 'safe' "
            "or 'all'."
        )
    if dtype_conversion_mode in ("safe", "all"):
        raise NotImplementedError(
            f"dtype_conversion_mode={dtype_conversion_mode!r} (WeakTensor promotion) is not "
            "supported by ferroflow"
        )
    if not _dtypes._config.numpy_behavior:
        _enable_indexing()
        _enable_methods()
        _enable_promotion()
    _dtypes._config.promotion = dtype_conversion_mode == "legacy"
    _dtypes._config.numpy_behavior = True
    _dtypes._config.prefer_float32 = bool(prefer_float32)
