"""`tf.types.experimental`: abstract classes for functions and traced values, as TensorFlow 2.21
has them, each registered with the ferroflow classes whose TensorFlow counterparts subclass it,
so `isinstance` answers as in TensorFlow:

>>> import ferroflow as tf
>>> f = tf.function(lambda x: x * 2)
>>> isinstance(f, tf.types.experimental.GenericFunction)
True
"""

import abc as _abc
import inspect as _inspect
import typing as _typing

import numpy as _np

from ferroflow.types.experimental import distributed


class Callable(_abc.ABC):  # noqa: B024 - an interface with only concrete members in TensorFlow
    """Anything TensorFlow calls a function: `tf.function` objects and concrete functions."""

    @property
    def function_type(self):
        """The function's signature (a `FunctionType`)."""
        raise NotImplementedError


class ConcreteFunction(Callable):
    """A function traced for one input signature (`Function.get_concrete_function()`)."""


class PolymorphicFunction(Callable):
    """A `tf.function`: traces a `ConcreteFunction` per input signature."""


GenericFunction = PolymorphicFunction


class AtomicFunction(Callable):
    """TensorFlow's single-graph function below a `ConcreteFunction`; ferroflow has no separate
    object for it, so nothing is an instance."""


class FunctionType(_inspect.Signature):
    """A function's signature with the trace types of its parameters (TensorFlow's abstract
    `FunctionType`)."""


class TraceType(_abc.ABC):  # noqa: B024 - abstract in TensorFlow, methods unused here
    """The type `tf.function` traces on: `tf.TensorSpec` and every `tf.TypeSpec` are one."""


class _TracingMeta(_abc.ABCMeta):
    def __instancecheck__(cls, instance):
        return hasattr(type(instance), "__tf_tracing_type__") or super().__instancecheck__(instance)


class SupportsTracingProtocol(metaclass=_TracingMeta):
    """Values that give `tf.function` their own trace type: functions, specs, tensors and
    variables (and any class defining `__tf_tracing_type__`)."""

    def __tf_tracing_type__(self, context):
        raise NotImplementedError


TensorLike = _typing.Union[  # noqa: UP007 - TensorFlow's alias is a typing.Union
    "ferroflow.Tensor",  # noqa: F821 - resolved lazily, as a forward reference
    int,
    float,
    bool,
    str,
    bytes,
    complex,
    tuple,
    list,
    _np.ndarray,
    _np.generic,
]


def _register():
    from ferroflow._core import Tensor
    from ferroflow.concrete_function import ConcreteFunction as _Concrete
    from ferroflow.function import Function
    from ferroflow.type_spec import TypeSpec
    from ferroflow.variables import Variable

    ConcreteFunction.register(_Concrete)
    PolymorphicFunction.register(Function)
    TraceType.register(TypeSpec)
    for cls in (Function, TypeSpec, Tensor, Variable):
        SupportsTracingProtocol.register(cls)


_register()

__all__ = [
    "AtomicFunction",
    "Callable",
    "ConcreteFunction",
    "FunctionType",
    "GenericFunction",
    "PolymorphicFunction",
    "SupportsTracingProtocol",
    "TensorLike",
    "TraceType",
    "distributed",
]
