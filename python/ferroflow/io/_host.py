"""Host ops of `tf.io` written in Python (file access, CSV, base64, decompression): eagerly a
direct call on numpy values; inside a `tf.function` a host-call node (TensorFlow's kernels for
these ops are host kernels too) that runs the same function each time the graph runs, whose
outputs get the static shapes the op declares. Errors raised by the function keep their
`tf.errors` class in both modes."""

import numpy as np

from ferroflow import _core, _tracing, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant, convert_to_tensor, ensure_shape

__all__ = ["expect_string", "run", "string_input"]


def string_input(value, op):
    """``value`` as a string tensor, refusing other dtypes with TensorFlow's error."""
    tensor = convert_to_tensor(value)
    expect_string(tensor, 0, op)
    return tensor


def expect_string(tensor, index, op):
    """TensorFlow's error for input ``index`` of ``op`` that is not a string tensor."""
    if tensor.dtype != _dtypes.string:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"cannot compute {op} as input #{index}(zero-based) was expected to be a string "
            f"tensor but is a {tensor.dtype.name} tensor [Op:{op}]",
        )


def _numpy(tensor):
    """A tensor's value as a numpy array; a string scalar as a 0-d object array, since a numpy
    bytes scalar drops trailing NUL bytes (a serialized proto can end with one)."""
    value = tensor.numpy()
    if isinstance(value, bytes):
        return np.array(value, dtype=object)
    return np.asarray(value)


class _Forward:
    """What the host-call node calls: the function on numpy values, results as tensors."""

    def __init__(self, fn, out_dtypes):
        self._fn = fn
        self._dtypes = out_dtypes

    def __call__(self, args, record):
        values = self._fn(*[_numpy(a) for a in args])
        return [constant(v, dtype=d) for v, d in zip(values, self._dtypes)], None


def run(fn, inputs, out_dtypes, out_shapes=None, stateful=False):
    """``fn(*numpy inputs)`` (a list of numpy values, one per dtype of ``out_dtypes``) as
    tensors: now when eager, in a host-call node when tracing. ``out_shapes`` (TensorShape-like,
    None for unknown) are the static shapes of a traced call's outputs."""
    out_dtypes = [_dtypes.as_dtype(d) for d in out_dtypes]
    if _tracing.tracing():
        kind = "PyFunc" if stateful else "PyFuncStateless"
        enums = [d.as_datatype_enum for d in out_dtypes]
        outputs = _core.host_call(kind, _Forward(fn, out_dtypes), False, list(inputs), enums)
        shapes = out_shapes or [None] * len(outputs)
        return [o if s is None else ensure_shape(o, s) for o, s in zip(outputs, shapes)]
    values = fn(*[_numpy(x) for x in inputs])
    return [constant(v, dtype=d) for v, d in zip(values, out_dtypes)]
