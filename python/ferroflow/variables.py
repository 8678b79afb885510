"""`tf.Variable`: TensorFlow's constructor arguments, names, presentation and update methods over
the Rust variable (`_core.BaseVariable`), which owns the storage and tells tapes about reads."""

import enum
import weakref

import numpy as np

from ferroflow import _core, _function_hooks, _variable_creators
from ferroflow import array_ops as _array_ops
from ferroflow import config as _config
from ferroflow import dtypes as _dtypes
from ferroflow._presentation import Reference, _numpy_text
from ferroflow.indexed_slices import IndexedSlices
from ferroflow.name_scope import scoped_name
from ferroflow.tensor_shape import TensorShape

__all__ = [
    "IndexedSlices",
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
]

# Variables by id, so tapes (which know ids) can hand back the Python objects.
_by_id = weakref.WeakValueDictionary()


def lookup(unique_id):
    return _by_id.get(unique_id)


def adopt(core_variable):
    """A `tf.Variable` for a variable the Rust core made (a loaded SavedModel's)."""
    variable = Variable(_share=core_variable)
    variable._synchronization = VariableSynchronization.AUTO
    variable._aggregation = VariableAggregation.NONE
    variable._constraint = None
    _by_id[variable._unique_id] = variable
    return variable


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _declared_shape(shape):
    if shape is None:
        return None
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    return None if shape.rank is None else shape.as_list()


def _initial_tensor(initial_value, dtype):
    if initial_value is None:
        raise ValueError(
            "The `initial_value` arg to `tf.Variable` must be specified except when you are not "
            "providing a `variable_def`. You provided neither."
        )
    if callable(initial_value) and not isinstance(initial_value, _core.BaseVariable):
        initial_value = initial_value()
    if isinstance(initial_value, _core.BaseVariable):
        initial_value = initial_value._peek()
    return _array_ops.convert_to_tensor(initial_value, dtype=dtype)


class Variable(_core.BaseVariable):
    """A tensor-valued, mutable, trainable piece of state.

    >>> import ferroflow as tf
    >>> v = tf.Variable([1.0, 2.0])
    >>> v.assign_add([1.0, 1.0]).numpy()
    array([2., 3.], dtype=float32)
    """

    def __new__(
        cls,
        initial_value=None,
        trainable=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        import_scope=None,
        constraint=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
        shape=None,
        experimental_enable_variable_lifting=True,
        _share=None,
    ):
        if _share is not None:
            return super().__new__(cls, None, _share._base_name, _share.trainable, None, _share)
        if _variable_creators.active():  # tf.variable_creator_scope
            return _variable_creators.create(
                lambda **kwargs: cls(**kwargs),
                {
                    "initial_value": initial_value,
                    "trainable": trainable,
                    "validate_shape": validate_shape,
                    "caching_device": caching_device,
                    "name": name,
                    "variable_def": variable_def,
                    "dtype": dtype,
                    "import_scope": import_scope,
                    "constraint": constraint,
                    "synchronization": synchronization,
                    "aggregation": aggregation,
                    "shape": shape,
                    "experimental_enable_variable_lifting": experimental_enable_variable_lifting,
                },
            )
        synchronization = VariableSynchronization(synchronization)
        aggregation = VariableAggregation(aggregation)
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        if initial_value is not None:  # TensorFlow checks the name before reading the value
            base_name = scoped_name(name, default="Variable")
        value = _initial_tensor(initial_value, dtype)
        _function_hooks.note_variable_created(value)
        declared = _declared_shape(shape) if shape is not None else list(value.shape)
        self = super().__new__(cls, value, base_name, bool(trainable), declared)
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._constraint = constraint
        _by_id[self._unique_id] = self
        return self

    def __init__(self, *args, **kwargs):
        pass

    # --- identity and metadata -------------------------------------------------------------

    @property
    def name(self):
        # What `assign` returns is TensorFlow's "UnreadVariable" view of the same variable.
        return getattr(self, "_shown_name", None) or f"{self._base_name}:0"

    @property
    def dtype(self):
        return self._peek().dtype

    @property
    def shape(self):
        declared = self._declared
        return TensorShape(None) if declared is None else TensorShape(declared)

    def get_shape(self):
        return self.shape

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def constraint(self):
        return self._constraint

    @property
    def initial_value(self):
        return self._peek()

    def ref(self):
        return Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError(
            f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})"
        )

    def __repr__(self):
        value = self._peek()
        text = _numpy_text(value, True)
        return (
            f"<tf.Variable '{self.name}' shape={self.shape} dtype={value.dtype.name}, numpy={text}>"
        )

    __str__ = __repr__

    # --- reading -----------------------------------------------------------------------------

    def read_value(self):
        """The value, as TensorFlow's read followed by an identity op: on a split host the
        result is on the logical CPU the reading scope places on (CPU:0 outside one)."""
        value = self.value()
        if _config._host_split() and "device:CPU:" in value.device:
            return _array_ops.identity(value)
        return value

    def numpy(self):
        return self._peek().numpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.numpy(), dtype=dtype)

    def sparse_read(self, indices, name=None):
        return _array_ops.gather(self.value(), indices)

    def gather_nd(self, indices, name=None):
        return _array_ops.gather_nd(self.value(), indices)

    # --- writing -----------------------------------------------------------------------------

    def _converted(self, value):
        return _array_ops.convert_to_tensor(value, dtype=self.dtype)

    def _result(self, read_value):
        if not read_value:
            return None
        unread = Variable(_share=self)
        unread._shown_name = "UnreadVariable"
        unread._synchronization = self._synchronization
        unread._aggregation = self._aggregation
        unread._constraint = self._constraint
        return unread

    def assign(self, value, use_locking=None, name=None, read_value=True):
        self._update("assign", self._converted(value))
        return self._result(read_value)

    def _check_same_shape(self, value):
        current = self._peek()
        if tuple(value.shape) != tuple(current.shape):
            from ferroflow.errors import InvalidArgumentError

            raise InvalidArgumentError(
                None,
                None,
                f"Cannot update variable with shape {list(current.shape)} using a Tensor with "
                f"shape {list(value.shape)}, shapes must be equal.",
            )

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        delta = self._converted(delta)
        self._check_same_shape(delta)
        self._update("add", delta)
        return self._result(read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        delta = self._converted(delta)
        self._check_same_shape(delta)
        self._update("sub", delta)
        return self._result(read_value)

    def _scatter(self, indices, updates, mode):
        # Inside a trace the current value must be a graph read, not today's value.
        current = self.value() if _core.graph_tracing() else self._peek()
        indices = _array_ops.convert_to_tensor(indices)
        updates = self._converted(updates)
        dims = list(current.shape)
        scattered = _array_ops.scatter_nd(indices, updates, dims)
        if mode == "update":
            ones = _array_ops.ones_like(updates, dtype=_dtypes.int32)
            hit = _array_ops.scatter_nd(indices, ones, dims) > 0
            new = _array_ops.where(hit, scattered, current)
        elif mode == "add":
            new = current + scattered
        else:
            new = current - scattered
        self._update("assign", new)
        return self._result(True)

    def scatter_nd_update(self, indices, updates, name=None):
        return self._scatter(indices, updates, "update")

    def scatter_nd_add(self, indices, updates, name=None):
        return self._scatter(indices, updates, "add")

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._scatter(indices, updates, "sub")

    def _rows(self, sparse_delta):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return _array_ops.expand_dims(sparse_delta.indices, -1), sparse_delta.values

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(*self._rows(sparse_delta), "update")

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(*self._rows(sparse_delta), "add")

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(*self._rows(sparse_delta), "sub")


def _delegate(method):
    def call(self, *args):
        return getattr(self.value(), method)(*args)

    call.__name__ = method
    return call


# Variables act as their value in every operator (TensorFlow overloads the same set).
for _method in (
    "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ "
    "__floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __matmul__ __rmatmul__ "
    "__and__ __rand__ __or__ __ror__ __xor__ __rxor__ __neg__ __abs__ __invert__ "
    "__lt__ __le__ __gt__ __ge__ __eq__ __ne__ __getitem__ __iter__ "
    "__float__ __int__ __bool__ __index__ __complex__"
).split():
    setattr(Variable, _method, _delegate(_method))

Variable.__array_priority__ = 100
Variable.__hash__ = Variable.__dict__["__hash__"]
del _method
