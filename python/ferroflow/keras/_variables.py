"""`keras.Variable`: the variables Keras 3 layers, optimizers and metrics make. They are
ferroflow variables (they work in every op, on tapes and in checkpoints) that present
themselves as Keras 3 does under TensorFlow: ``name`` is the bare name (``'kernel'``, no
``:0``), ``path`` the layer path (``'dense/kernel'``), ``dtype`` a dtype name
(``'float32'``), and the repr is ``<Variable path=..., shape=..., dtype=..., value=...>``.
Unlike Keras's own class, they remain `tf.Variable` instances."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow.variables import Variable as _TFVariable
from ferroflow.variables import VariableAggregation, VariableSynchronization

__all__ = ["Variable", "DTypeName"]


class DTypeName(str):
    """A dtype's name (Keras 3 gives variables' dtypes as strings) that still answers the
    `tf.DType` questions (``is_floating``, ``as_numpy_dtype``...) ferroflow asks of it."""

    __slots__ = ()

    def __getattr__(self, attribute):
        return getattr(_dtypes.as_dtype(str(self)), attribute)


def _enum(kind, value):
    """Keras's names for synchronization and aggregation ("on_read", "sum"...), or the enum."""
    return kind[value.upper()] if isinstance(value, str) else kind(value)


class Variable(_TFVariable):
    """A Keras 3 variable: see the module docstring."""

    def __new__(
        cls,
        initializer=None,
        shape=None,
        dtype=None,
        trainable=True,
        autocast=True,
        aggregation="none",
        synchronization="auto",
        name=None,
        **kwargs,
    ):
        if "_share" in kwargs or "initial_value" in kwargs:  # views and variable creators
            return super().__new__(cls, **kwargs)
        if name is None:
            name = "variable"
        if callable(initializer):
            if shape is None:
                raise ValueError(
                    "When creating a Variable from an initializer, the `shape` argument "
                    f"should be specified. Received: initializer={initializer} and shape={shape}"
                )
            initializer = initializer(tuple(shape), dtype=dtype or "float32")
        self = super().__new__(
            cls,
            initializer,
            trainable=trainable,
            name=name,
            dtype=dtype,
            synchronization=_enum(VariableSynchronization, synchronization),
            aggregation=_enum(VariableAggregation, aggregation),
            **kwargs,
        )
        self._keras_name = name
        self.path = name
        self.autocast = autocast
        return self

    @property
    def name(self):
        return self.__dict__.get("_keras_name") or super().name

    # In a `keras.StatelessScope` an update is noted so the scope can take it back on exit.
    def assign(self, value, *args, **kwargs):
        _note_stateless_update(self)
        return super().assign(value, *args, **kwargs)

    def assign_add(self, delta, *args, **kwargs):
        _note_stateless_update(self)
        return super().assign_add(delta, *args, **kwargs)

    def assign_sub(self, delta, *args, **kwargs):
        _note_stateless_update(self)
        return super().assign_sub(delta, *args, **kwargs)

    @property
    def dtype(self):
        return DTypeName(super().dtype.name)

    # Keras lets a layer change a weight's `trainable` after creation (LoRA freezes the
    # kernel); as with Keras's TensorFlow variables, the underlying variable keeps its own
    # flag, so a tape still watches it.
    @property
    def trainable(self):
        value = self.__dict__.get("_keras_trainable")
        return super().trainable if value is None else value

    @trainable.setter
    def trainable(self, value):
        self.__dict__["_keras_trainable"] = bool(value)

    def __repr__(self):
        try:
            value = f", value={np.asarray(self.numpy())}"
        except Exception:  # noqa: BLE001 - a value that cannot be read is left out, as Keras does
            value = ""
        return f"<Variable path={self.path}, shape={self.shape}, dtype={self.dtype}{value}>"

    __str__ = __repr__


def _note_stateless_update(variable):
    from ferroflow.keras._scopes import get_stateless_scope

    scope = get_stateless_scope()
    if scope is not None:
        scope.touch(variable)
