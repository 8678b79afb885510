"""How tensors look: the text TensorFlow prints for `str`, `repr` and the `shape`/`dtype`
attributes. The Rust extension calls these; nothing here runs per element."""

import numpy as np

from ferroflow import _core
from ferroflow.dtypes import as_dtype
from ferroflow.tensor_shape import TensorShape

__all__ = ["Reference", "TensorShape", "as_dtype", "tensor_repr", "tensor_str"]


def _numpy_text(tensor, is_repr):
    raw = tensor.numpy()
    if isinstance(raw, bytes):
        return repr(raw)  # a string scalar shows as Python's bytes literal, as TensorFlow's
    value = np.asarray(raw)
    if value.ndim == 0:
        # A 0-d array prints as numpy prints the bare value ("21.0"), whatever numpy's version.
        text = str(value)
        if tensor.dtype.name == "bfloat16" and text.lstrip("-").isdigit():
            text += ".0"  # ml_dtypes prints whole bfloat16 values without the point
    else:
        text = repr(value) if is_repr else str(value)
    return "\n" + text if "\n" in text else text


def _symbolic_text(tensor, info):
    name, dims = info
    if dims is None:  # unknown rank (a py_function's result)
        return name, None
    shape = "(" + ", ".join("None" if d is None else str(d) for d in dims)
    shape += ",)" if len(dims) == 1 else ")"
    return name, shape


def tensor_str(tensor):
    info = _core.symbolic_info(tensor)
    if info is not None:
        name, shape = _symbolic_text(tensor, info)
        if shape is None:
            return f'Tensor("{name}", dtype={tensor.dtype.name})'
        return f'Tensor("{name}", shape={shape}, dtype={tensor.dtype.name})'
    return (
        f"tf.Tensor({_numpy_text(tensor, False)}, shape={tensor.shape}, dtype={tensor.dtype.name})"
    )


def tensor_repr(tensor):
    info = _core.symbolic_info(tensor)
    if info is not None:
        name, shape = _symbolic_text(tensor, info)
        shape = "<unknown>" if shape is None else shape
        return f"<tf.Tensor '{name}' shape={shape} dtype={tensor.dtype.name}>"
    text = _numpy_text(tensor, True)
    return f"<tf.Tensor: shape={tensor.shape}, dtype={tensor.dtype.name}, numpy={text}>"


class Reference:
    """What ``tensor.ref()`` returns: hashable by identity; ``deref()`` gives the tensor back."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, Reference) and self._obj is other._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"
