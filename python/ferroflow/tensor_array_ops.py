"""`tf.TensorArray` and `tf.TensorArraySpec`, as TensorFlow 2.21 has them.

Like TensorFlow, a `TensorArray` picks its implementation when it is made:

* eagerly (`_EagerTensorArray`) it is a Python list of tensors, mutated in place (`write`
  returns the same object); unwritten slots read as zeros of the element shape, a slot read
  once is cleared unless `clear_after_read=False`, and TensorFlow's eager errors are raised
  (OutOfRangeError past the end of a fixed-size array, InvalidArgumentError for a dtype
  mismatch or a second read, ValueError for an element shape mismatch);
* inside a `tf.function` (`_GraphTensorArray`, in `_tensor_array_graph.py`) it follows
  TensorFlow's graph TensorArray, a TensorList: every `write` returns a new array and leaves
  the old one as it was, a slot never written reads as zeros, a slot may be written twice,
  and errors are TensorFlow's graph errors (InvalidArgumentError when the graph runs). Its
  elements live in one tensor of shape `[size, *element_shape]`, so it can be carried through a
  `tf.while_loop` (or an AutoGraph `for i in tf.range(n)` loop) of any length.

Gradients flow through reads, writes, stacks, gathers, scatters, splits and concats by the ops
they are made of.
"""

import numpy as np

from ferroflow import _core, _tracing
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import concat as _concat
from ferroflow.array_ops import convert_to_tensor, zeros
from ferroflow.array_ops import split as _split
from ferroflow.array_ops import stack as _stack
from ferroflow.array_ops import unstack as _unstack
from ferroflow.errors import InvalidArgumentError, OutOfRangeError
from ferroflow.tensor_shape import TensorShape, as_shape
from ferroflow.type_spec import (
    TypeSpec,
    register_type_spec_from_value_converter,
    type_spec_from_value,
)

__all__ = ["TensorArray", "TensorArraySpec"]


def _partial_shape_error(shape):
    return ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")


class _EagerTensorArray:
    """TensorFlow's eager TensorArray: a list of tensors (None for a slot not written)."""

    def __init__(
        self, dtype, size=None, dynamic_size=None, clear_after_read=None,
        tensor_array_name=None, handle=None, flow=None, infer_shape=True, element_shape=None,
        colocate_with_first_write_call=True, name=None,
    ):  # fmt: skip
        if handle is not None:
            raise ValueError(
                "TensorArray handles are not supported when eager execution is enabled."
            )
        if size is None:
            raise ValueError(
                "Size must be declared for TensorArrays when eager execution is enabled."
            )
        self._handle = None
        self._flow = convert_to_tensor(0, dtype=_dtypes.int32)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size or False
        self._clear_after_read = True if clear_after_read is None else clear_after_read
        self._previously_read_indices = []
        self._tensor_array = [None for _ in range(_slots(_number(size)))]
        self.parent = None

    @property
    def flow(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def element_shape(self):
        return self._element_shape

    def identity(self):
        return self.parent()

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient "
            "implementation does not use/need this function to compute gradients of operations "
            "that use TensorArrays."
        )

    def read(self, index, name=None):
        index = _number(index)
        if index < 0:
            raise OutOfRangeError(
                None, None, f"Reading from negative indices (index {index}) is not allowed."
            )
        if index >= len(self._tensor_array):
            raise OutOfRangeError(
                None,
                None,
                f"Tried to read from index {index} but array size is: {len(self._tensor_array)} ",
            )
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read_indices:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Could not read index {index} twice because it was cleared after a previous "
                    "read (perhaps try setting clear_after_read = false?)",
                )
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read_indices.append(index)
        return tensor

    def _write(self, index, value):
        index = _number(index)
        if index < 0:
            raise OutOfRangeError(
                None, None, f"Writing to negative indices (index {index}) is not allowed."
            )
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(
                    None,
                    None,
                    f"Tried to write to index {index} but array is not resizeable and size "
                    f"is: {size} ",
                )
            self._tensor_array.extend(None for _ in range(_slots(index - size + 1)))
        if not isinstance(value, _core.Tensor) or _core.is_symbolic(value):
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if self._dtype != value.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{value.dtype.name} ",
            )
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})"
            )
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value

    def write(self, index, value, name=None):
        self._write(index, value)
        return self.parent()

    def _maybe_zero(self, ix):
        val = self._tensor_array[ix]
        if val is None:
            if not self._element_shape.is_fully_defined():
                raise _partial_shape_error(self._element_shape)
            val = self._tensor_array[ix] = zeros(self._element_shape.as_list(), self._dtype)
        return val

    def stack(self, name=None):
        if self._tensor_array:
            for ix in range(len(self._tensor_array)):
                self._maybe_zero(ix)
        if not self._tensor_array and self._element_shape.is_fully_defined():
            return zeros([0, *self._element_shape.as_list()], self._dtype)
        if not self._tensor_array:
            return convert_to_tensor([], dtype=self._dtype)
        return _stack_as(self._tensor_array, self._dtype)

    def gather(self, indices, name=None):
        indices = _numbers(indices)
        return _stack([self._maybe_zero(i) for i in indices])

    def concat(self, name=None):
        parts = [self._maybe_zero(ix) for ix in range(len(self._tensor_array))]
        if not parts:
            raise InvalidArgumentError(
                None, None, "ConcatOp : Expected a list of at least one tensor to concatenate"
            )
        ranks = [t.shape.rank for t in self._tensor_array]
        if 0 in ranks:
            raise InvalidArgumentError(
                None,
                None,
                f"Concat saw a scalar shape at index {ranks.index(0)} but requires at least "
                "vectors.",
            )
        return _concat(parts, 0)

    def unstack(self, value, name=None):
        tensors = _unstack(convert_to_tensor(value))
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(
                f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                f"{len(self._tensor_array)} "
            )
        self._tensor_array = tensors
        return self.parent()

    def scatter(self, indices, value, name=None):
        indices = _numbers(indices)
        for index, val in zip(indices, _unstack(convert_to_tensor(value))):
            self._write(index, val)
        return self.parent()

    def split(self, value, lengths, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = convert_to_tensor(lengths)
        if lengths.shape.rank != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected lengths to be a vector, received shape: {lengths.shape.as_list()} ",
            )
        if value.shape.rank == 0:
            raise InvalidArgumentError(
                None,
                None,
                "Expected value to be at least a vector, but received shape: "
                f"{value.shape.as_list()} ",
            )
        total = int(np.sum(lengths.numpy()))
        if total != value.shape[0]:
            raise InvalidArgumentError(
                None,
                None,
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{total} and value's shape is: {value.shape.as_list()} ",
            )
        if not self._dynamic_size and lengths.shape[0] != len(self._tensor_array):
            raise InvalidArgumentError(
                None,
                None,
                "TensorArray's size is not equal to the size of lengths "
                f"({len(self._tensor_array)} vs. {lengths.shape[0]}), and the TensorArray is not "
                "marked as dynamically resizeable.",
            )
        self._tensor_array = list(_split(value, lengths))
        return self.parent()

    def size(self, name=None):
        return convert_to_tensor(len(self._tensor_array), dtype=_dtypes.int32)

    def close(self, name=None):
        del self._tensor_array[:]


# More slots than any list of tensors could use: refused before the list of them is built.
_MAX_SLOTS = 2**26


def _slots(count):
    if isinstance(count, int) and count > _MAX_SLOTS:
        from ferroflow.errors import ResourceExhaustedError

        raise ResourceExhaustedError(
            None, None, f"a TensorArray of {count} elements is more than memory can hold"
        )
    return count


def _number(value):
    """A Python scalar from an index or size: tensors read as numpy values (as TensorFlow's
    `.numpy()`), so a float index fails where Python's list indexing does."""
    if isinstance(value, _core.Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        raise TypeError(f"list indices must be integers or slices, not {type(value).__name__}")
    return value


def _numbers(values):
    if isinstance(values, _core.Tensor):
        values = values.numpy()
    return [_number(v) for v in np.asarray(values).reshape(-1)]


def _stack_as(tensors, dtype):
    for t in tensors:
        if t.dtype != dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"cannot compute Pack as input #1(zero-based) was expected to be a {dtype.name} "
                f"tensor but is a {t.dtype.name} tensor",
            )
    return _stack(list(tensors))


class TensorArray:
    """A list of tensors of one dtype that `tf.while_loop` bodies and `tf.function`s can write
    one element at a time and read back stacked.

    >>> import ferroflow as tf
    >>> ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    >>> ta = ta.write(0, 10.0).write(1, 20.0).write(2, 30.0)
    >>> ta.read(1)
    <tf.Tensor: shape=(), dtype=float32, numpy=20.0>
    >>> ta.stack()
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([10., 20., 30.], dtype=float32)>

    Inside a `tf.function` a loop over `tf.range` writes one element per step:

    >>> @tf.function
    ... def squares(n):
    ...     ta = tf.TensorArray(tf.int32, size=n)
    ...     for i in tf.range(n):
    ...         ta = ta.write(i, i * i)
    ...     return ta.stack()
    >>> squares(tf.constant(4))
    <tf.Tensor: shape=(4,), dtype=int32, numpy=array([0, 1, 4, 9], dtype=int32)>
    """

    def __init__(
        self, dtype, size=None, dynamic_size=None, clear_after_read=None,
        tensor_array_name=None, handle=None, flow=None, infer_shape=True, element_shape=None,
        colocate_with_first_write_call=True, name=None,
    ):  # fmt: skip
        if _tracing.tracing():
            from ferroflow._tensor_array_graph import _GraphTensorArray as implementation
        else:
            implementation = _EagerTensorArray
        self._implementation = implementation(
            dtype,
            size=size,
            dynamic_size=dynamic_size,
            clear_after_read=clear_after_read,
            tensor_array_name=tensor_array_name,
            handle=handle,
            flow=flow,
            infer_shape=infer_shape,
            element_shape=element_shape,
            colocate_with_first_write_call=colocate_with_first_write_call,
            name=name,
        )
        self._implementation.parent = _parent_of(self)

    @classmethod
    def _wrap(cls, implementation):
        """A TensorArray around an existing implementation (a graph array's new state)."""
        ta = cls.__new__(cls)
        ta._implementation = implementation
        implementation.parent = _parent_of(ta)
        return ta

    @property
    def flow(self):
        """The flow tensor (a placeholder scalar: ferroflow orders effects by program order)."""
        return self._implementation.flow

    @property
    def dtype(self):
        """The data type of this TensorArray."""
        return self._implementation.dtype

    @property
    def handle(self):
        """The reference to the TensorArray (None: as TensorFlow 2's arrays)."""
        return self._implementation.handle

    @property
    def element_shape(self):
        """The `tf.TensorShape` of elements in this TensorArray."""
        return self._implementation.element_shape

    @property
    def dynamic_size(self):
        """Python bool; if True the TensorArray can grow dynamically."""
        return self._implementation._dynamic_size

    @property
    def _infer_shape(self):
        return self._implementation._infer_shape

    def identity(self):
        """A TensorArray with the same content and properties."""
        return self._implementation.identity()

    def grad(self, source, flow=None, name=None):
        return self._implementation.grad(source, flow=flow, name=name)

    def read(self, index, name=None):
        """The tensor at location `index`."""
        return self._implementation.read(index, name=name)

    def write(self, index, value, name=None):
        """Writes `value` at `index`; returns the TensorArray to use from now on."""
        return self._implementation.write(index, value, name=name)

    def stack(self, name=None):
        """The values stacked into one tensor (slots never written are zeros)."""
        return self._implementation.stack(name=name)

    def gather(self, indices, name=None):
        """The values at `indices`, stacked."""
        return self._implementation.gather(indices, name=name)

    def concat(self, name=None):
        """The values concatenated along their first dimension."""
        return self._implementation.concat(name=name)

    def unstack(self, value, name=None):
        """The slices of `value` along its first dimension become the elements."""
        return self._implementation.unstack(value, name=name)

    def scatter(self, indices, value, name=None):
        """Writes the slices of `value` at `indices`."""
        return self._implementation.scatter(indices, value, name=name)

    def split(self, value, lengths, name=None):
        """`value` split along its first dimension into pieces of `lengths`."""
        return self._implementation.split(value, lengths, name=name)

    def size(self, name=None):
        """The number of elements, an int32 scalar."""
        return self._implementation.size(name=name)

    def close(self, name=None):
        """Closes the TensorArray."""
        return self._implementation.close(name=name)


def _parent_of(ta):
    return lambda: ta


class TensorArraySpec(TypeSpec):
    """The type of a `tf.TensorArray`: element shape, dtype, `dynamic_size`, `infer_shape`.

    A TensorArray is no composite tensor (as in TensorFlow: `tf.nest` keeps it whole and
    `tf.function` retraces per array), but `tf.type_spec_from_value` gives its spec, and the
    spec's components are what a graph TensorArray crosses staged control flow as: its buffer
    `[size, *element_shape]` and its length.

    >>> import ferroflow as tf
    >>> tf.TensorArraySpec([2], tf.float32)
    TensorArraySpec(TensorShape([2]), tf.float32, False, True)
    """

    __slots__ = ("_dtype", "_dynamic_size", "_element_shape", "_infer_shape")

    def __init__(self, element_shape=None, dtype=_dtypes.float32, dynamic_size=False,
                 infer_shape=True):  # fmt: skip
        self._element_shape = as_shape(element_shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self):
        return TensorArray

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @property
    def _component_specs(self):
        from ferroflow.tensor_spec import TensorSpec

        buffer = TensorShape(None)
        if self._element_shape.rank is not None:
            buffer = TensorShape([None, *self._element_shape.dims])
        return [TensorSpec(buffer, self._dtype), TensorSpec([], _dtypes.int32)]

    def _to_components(self, value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        from ferroflow._tensor_array_graph import _graph_state

        state = _graph_state(value).carried()
        parts = state.components(compact=False)
        if not parts:
            raise ValueError(
                "a TensorArray with nothing written and an element shape of unknown rank has "
                "no components"
            )
        return list(parts)

    def _example_tensor_list(self):
        # An empty array: a buffer of no elements (scalars when the element rank is unknown).
        dims = [] if self._element_shape.rank is None else self._element_shape.as_list()
        return [
            zeros([0, *[1 if d is None else d for d in dims]], self._dtype),
            zeros([], _dtypes.int32),
        ]

    def _from_components(self, components):
        from ferroflow._tensor_array_graph import _GraphTensorArray, _Meta

        meta = _Meta(self._dtype, None, self._dynamic_size, self._infer_shape, self._element_shape)
        buffer, length = components
        return TensorArray._wrap(_GraphTensorArray._state(meta, buffer, length, False))

    # TensorFlow's own comparisons: infer_shape never counts, and a subtype needs only the
    # dtype and dynamic_size.
    def is_subtype_of(self, other):
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype == other._dtype
            and self._dynamic_size == other._dynamic_size
        )

    def most_specific_common_supertype(self, others):
        if not all(isinstance(other, TensorArraySpec) for other in others):
            return False  # TensorFlow's own answer for a spec of another kind
        shapes = [self._element_shape] + [o._element_shape for o in others]
        common = _common_shape(shapes)
        if not all(self._dtype == o._dtype for o in others):
            return None
        if not all(self._dynamic_size == o._dynamic_size for o in others):
            return None
        infer_shape = self._infer_shape and all(o._infer_shape for o in others)
        return TensorArraySpec(common, self._dtype, self._dynamic_size, infer_shape)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype == other._dtype
            and self._element_shape.is_compatible_with(other._element_shape)
            and self._dynamic_size == other._dynamic_size
        )

    @staticmethod
    def from_value(value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return TensorArraySpec(
            dtype=value.dtype,
            element_shape=value.element_shape,
            dynamic_size=value.dynamic_size,
            infer_shape=value._infer_shape,
        )


register_type_spec_from_value_converter(
    TensorArray, TensorArraySpec.from_value, allow_subclass=True
)


def _common_shape(shapes):
    first = shapes[0]
    if any(s.rank is None or s.rank != first.rank for s in shapes):
        return TensorShape(None)
    return TensorShape(
        [d if all(s.dims[i] == d for s in shapes) else None for i, d in enumerate(first.dims)]
    )
