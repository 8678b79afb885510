"""`tf.train.ExponentialMovingAverage`: shadow variables that track exponential moving averages
of variables (or, inside a `tf.function`, of tensors), as TensorFlow's.

Each `apply` moves every average toward its value by ``(1 - decay)``:
``average -= (average - value) * (1 - decay)``, with ``decay = min(decay, (1 + n) / (10 + n))``
when `num_updates` n is given. An average starts at the variable's value when it is first
applied. TensorFlow 2 averages only variables (a tensor raises TypeError, inside a
`tf.function` too), so `zero_debias`, which TensorFlow applies only to tensors, changes nothing.
"""

from ferroflow import _tracing
from ferroflow import array_ops as _a
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.device_scope import device as _device
from ferroflow.framework_ops import group
from ferroflow.variables import Variable

__all__ = ["ExponentialMovingAverage"]

_FLOATS = (_dtypes.bfloat16, _dtypes.float16, _dtypes.float32, _dtypes.float64)

# As TensorFlow's eager variable-scope store, for the whole process: how many averages have
# been named "<variable>/<average name>" (the second is "..._1"), and every variable any
# `ExponentialMovingAverage` has averaged (TensorFlow's MOVING_AVERAGE_VARIABLES collection,
# which `variables_to_restore` reads by default).
_scope_counts = {}
_moving_average_variables = []


def _unique_scope(name):
    count = _scope_counts.get(name, 0)
    _scope_counts[name] = count + 1
    return name if count == 0 else f"{name}_{count}"


def _op_name(value):
    name = getattr(value, "name", None) or "Tensor"
    return name[: -len(":0")] if name.endswith(":0") else name.split(":")[0]


class ExponentialMovingAverage:
    """Maintains moving averages of variables by exponential decay.

    >>> import ferroflow as tf
    >>> v = tf.Variable(1.0)
    >>> ema = tf.train.ExponentialMovingAverage(decay=0.9)
    >>> ema.apply([v])  # creates the shadow variable (v's value); later calls move it toward v
    >>> _ = v.assign(3.0)
    >>> ema.apply([v])
    >>> float(ema.average(v).numpy())
    1.2000000476837158
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # variable.ref() -> shadow variable

    @property
    def name(self):
        return self._name

    def _create_average(self, var):
        # Read outside any trace: the average starts at the variable's current value.
        name = _unique_scope(f"{_op_name(var)}/{self._name}")
        with _device(var.device):
            average = Variable(var._peek(), trainable=False, name=name)
        if not any(v is var for v in _moving_average_variables):
            _moving_average_variables.append(var)
        return average

    def apply(self, var_list=None):
        """Creates the averages of `var_list` not yet averaged, then updates all of them.

        Returns None eagerly and an op grouping the updates inside a `tf.function`. Raises
        TypeError for a non-float variable and for a tensor that is not a variable."""
        var_list = [] if var_list is None else list(var_list)
        for value in var_list:
            if value.dtype.base_dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {value.name}")
            if not isinstance(value, Variable):
                raise TypeError(
                    "tf.train.ExponentialMovingAverage does not support non-Variable tensors "
                    "when eager execution is enabled."
                )
        for value in var_list:
            if value.ref() not in self._averages:
                self._averages[value.ref()] = self._create_average(value)
        decay = _a.convert_to_tensor(self._decay, dtype=_dtypes.float32)
        if self._num_updates is not None:
            updates = _a.cast(self._num_updates, _dtypes.float32)
            decay = _m.minimum(decay, (1.0 + updates) / (10.0 + updates))
        ops = [self._update(self._averages[v.ref()], v, decay) for v in var_list]
        return group(*ops) if _tracing.tracing() and ops else None

    def _update(self, average, var, decay):
        one_minus_decay = 1.0 - _a.cast(decay, average.dtype)
        return average.assign_sub((average - var.read_value()) * one_minus_decay)

    def average(self, var):
        """The shadow variable of `var`, or None when `var` was never applied."""
        return self._averages.get(var.ref())

    def average_name(self, var):
        """The name of the average of `var` (its variable's name without ``:0``), or the name it
        would get, ``<var>/<name>``, when `var` was never applied."""
        average = self.average(var)
        return _op_name(average) if average is not None else f"{_op_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{average name: variable}`` for restoring averages into the variables themselves
        (with a name-based saver): of `moving_avg_variables`, else of every variable that any
        ExponentialMovingAverage of this process has averaged, as TensorFlow's collection."""
        chosen = _moving_average_variables if moving_avg_variables is None else moving_avg_variables
        return {self.average_name(v): v for v in chosen}
