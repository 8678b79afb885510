"""`tf.keras.metrics.Metric`: the base class of the stateful metrics (Keras 3 semantics)."""

from ferroflow import array_ops, dtypes
from ferroflow.keras._naming import auto_name
from ferroflow.keras._variables import Variable as KerasVariable
from ferroflow.keras.losses import _backend as K
from ferroflow.name_scope import name_scope
from ferroflow.train.trackable import AutoTrackable
from ferroflow.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = ["Metric"]

_AGGREGATIONS = {
    None: VariableAggregation.NONE,
    "none": VariableAggregation.NONE,
    "sum": VariableAggregation.SUM,
    "mean": VariableAggregation.MEAN,
    "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA,
}


def _initial_value(initializer, shape, dtype):
    if initializer is None:
        return array_ops.zeros(shape, dtype=dtype)
    if isinstance(initializer, str):
        if initializer == "zeros":
            return array_ops.zeros(shape, dtype=dtype)
        if initializer == "ones":
            return array_ops.ones(shape, dtype=dtype)
        raise ValueError(f"Could not interpret initializer identifier: {initializer!r}")
    if callable(initializer):
        return K.convert(initializer(shape, dtype=dtype), dtype)
    return array_ops.broadcast_to(K.convert(initializer, dtype), shape)


class Metric(AutoTrackable):
    """Encapsulates metric logic and state.

    Subclasses create their state in ``__init__`` with ``self.add_variable(...)`` (plain,
    non-trainable `tf.Variable` attributes that checkpoints track), accumulate it in
    ``update_state`` with ``assign``/``assign_add``, and compute the value in ``result``.
    Creating state in ``__init__`` lets a metric built outside a `tf.function` be updated
    inside one.
    """

    _no_dependency_attributes = frozenset(
        {"_variables", "_metrics", "_fn", "_fn_kwargs", "_dtype", "_direction"}
    )

    def __init__(self, dtype=None, name=None):
        self.name = name or auto_name(self.__class__.__name__)
        self._dtype = K.standardize_dtype(dtype)
        self._metrics = []
        self._variables = []

    def __setattr__(self, name, value):
        if "_variables" in self.__dict__:
            if isinstance(value, Variable):
                if not any(v is value for v in self._variables):
                    self._variables.append(value)
            elif isinstance(value, Metric) and not any(m is value for m in self._metrics):
                self._metrics.append(value)
        super().__setattr__(name, value)

    def _check_super_called(self):
        if "_variables" not in self.__dict__:
            raise RuntimeError(
                "You forgot to call `super().__init__()` in the `__init__()` method. Go add it!"
            )

    @property
    def dtype(self):
        return self._dtype

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """Creates a non-trainable state variable, tracked in ``self.variables``."""
        self._check_super_called()
        dtype = dtypes.as_dtype(dtype or K.FLOATX)
        shape = list(shape) if shape is not None else []
        if aggregation not in _AGGREGATIONS:
            raise ValueError(f"Invalid value for argument `aggregation`: {aggregation!r}")
        with name_scope(self.name.replace("/", ">")):
            variable = KerasVariable(
                _initial_value(initializer, shape, dtype),
                trainable=False,
                name=name,
                dtype=dtype,
                synchronization=VariableSynchronization.ON_READ,
                aggregation=_AGGREGATIONS[aggregation],
            )
        variable.path = f"{self.name}/{name}" if name else self.name
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    @property
    def variables(self):
        variables = list(self._variables)
        for metric in self._metrics:
            variables.extend(metric.variables)
        return variables

    def reset_state(self):
        """Sets every state variable back to zeros."""
        for v in self.variables:
            v.assign(array_ops.zeros(v.shape, dtype=v.dtype))

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then the new ``result()``."""
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{self.__class__.__name__} name={self.name}>"

    def __str__(self):
        return self.__repr__()
