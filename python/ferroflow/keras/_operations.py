"""The operations Python operators record on `KerasTensor`s (``x + 1``, ``-x``, ``x[:, 1:]``):
Keras 3's `keras.ops` classes of the same names, so that functional models using them
summarise and serialise as in Keras (module ``keras.src.ops.numpy``). Applied to real tensors
they compute with ferroflow's ops. They hold no weights and are not layers."""

import abc
import operator

from ferroflow import math as _math
from ferroflow.array_ops import cast
from ferroflow.keras.layers.layer import unique_name
from ferroflow.module import camel_to_snake

__all__ = ["OPERATIONS", "Operation"]

KERAS_MODULE = "keras.src.ops.numpy"


class Operation(metaclass=abc.ABCMeta):  # noqa: B024 - an ABC only so that layers register
    """A tensor operation that can be recorded in a functional graph: calling it on
    `KerasTensor`s records a node, calling it on tensors computes. (`keras.Operation`; Keras
    layers are registered as operations, as Keras's `Layer` subclasses `Operation`.)"""

    def __init__(self, name=None):
        self._name = name or unique_name(camel_to_snake(type(self).__name__))

    @property
    def name(self):
        return self._name

    def __call__(self, *args, **kwargs):
        from ferroflow.keras import _symbolic

        if _symbolic.any_symbolic([args, kwargs]):
            return _symbolic.symbolic_call(self, args[0], args[1:], kwargs)
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<Operation name={self._name}>"


def _logical(fn):
    return lambda *xs: fn(*(cast(x, "bool") for x in xs))


def _round(x, decimals=0):
    if decimals == 0:
        return _math.round(x)
    scale = 10.0**decimals
    return _math.round(x * scale) / scale


def _operation_class(class_name, fn):
    def call(self, *args, **kwargs):
        return fn(*args, **kwargs)

    return type(class_name, (Operation,), {"call": call, "__doc__": f"Keras's `{class_name}`."})


class GetItem(Operation):
    """Keras's `GetItem`: ``x[key]``."""

    def call(self, x, key):
        # A key that went through JSON comes back as a list: tensors are indexed by tuples.
        if isinstance(key, list):
            key = tuple(key)
        return x[key]


class Round(Operation):
    """Keras's `Round`: rounds half to even, to ``decimals`` decimal places."""

    def __init__(self, decimals=0, name=None):
        super().__init__(name=name)
        self.decimals = decimals

    def call(self, x):
        return _round(x, self.decimals)

    def get_config(self):
        return {"name": self._name, "decimals": self.decimals}


OPERATIONS = {
    name: _operation_class(name, fn)
    for name, fn in {
        "Add": operator.add,
        "Subtract": operator.sub,
        "Multiply": operator.mul,
        "Matmul": operator.matmul,
        "TrueDivide": operator.truediv,
        "Divide": operator.truediv,
        "FloorDivide": operator.floordiv,
        "Mod": operator.mod,
        "Power": operator.pow,
        "Negative": operator.neg,
        "Absolute": operator.abs,
        "Less": operator.lt,
        "LessEqual": operator.le,
        "Greater": operator.gt,
        "GreaterEqual": operator.ge,
        "NotEqual": _math.not_equal,
        "LogicalAnd": _logical(_math.logical_and),
        "LogicalOr": _logical(_math.logical_or),
        "LogicalXor": _logical(_math.logical_xor),
        "LogicalNot": _logical(_math.logical_not),
    }.items()
}
OPERATIONS["GetItem"] = GetItem
OPERATIONS["Round"] = Round
for _cls in OPERATIONS.values():
    _cls.__module__ = __name__
