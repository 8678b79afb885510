"""The `tf.TensorArray` of a `tf.function` trace, and how one crosses a staged loop or `if`.

TensorFlow's graph TensorArray is a TensorList: writes return new lists, a slot never written
reads as zeros of the element shape, a slot may be written twice, and reading or writing out
of range raises InvalidArgumentError when the graph runs. Here a list of `length` slots is a
`length` (an int, or an int32 scalar known when the graph runs) and a *buffer* holding its
first k slots, `[k, *element_shape]`; the slots past k are unwritten (zeros):

* a write at or past k appends (a concat, zeros filling any gap), so the usual loop that
  writes slot i at step i costs one copy per step; a write below k replaces the slot by a
  select; with an index known only when the graph runs the two are a `tf.cond`;
* `read(i)` gathers slot i (zeros past k), `stack()` is the buffer padded with zeros to
  `length`, `unstack(v)` makes `v` the buffer; gradients are those of these ops (a slot's
  gradient goes to the value last written there, an overwritten value gets zeros, as
  TensorFlow's TensorList gradients);
* an array crosses a staged `tf.while_loop` or `tf.cond` as its buffer and length. One that
  enters a loop before any write starts from an empty buffer of its element shape: where that
  is not known, from one iteration traced and thrown away (as AutoGraph finds loop variables'
  types), and where sizes stay unknown the empty buffer's are 0, replaced by the first write.

Departures: elements of one array share one shape (TensorFlow's `infer_shape=False` arrays may
hold differently shaped elements, concatenated by `concat()`), so `split` into unequal lengths
is refused; `flow` is the buffer (TensorFlow's is a variant tensor).
"""

import numpy as np

from ferroflow import _core, control_flow, nest
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.array_ops import (
    concat,
    convert_to_tensor,
    expand_dims,
    identity,
    reshape,
    take_rows,
    where,
    zeros,
    zeros_like,
)
from ferroflow.array_ops import range as _range
from ferroflow.array_ops import shape as _shape
from ferroflow.errors import InvalidArgumentError, UnimplementedError
from ferroflow.tensor_array_ops import TensorArray, _EagerTensorArray
from ferroflow.tensor_shape import TensorShape, as_shape

_UNINITIALIZED = (
    "Trying to read an uninitialized tensor but element_shape is not fully defined: {shape} "
    "and no list element is set."
)


class _Meta:
    """What the arrays one construction leads to share: TensorFlow shares the element shape
    between an array and those its writes return, so a later write's shape shows in all."""

    __slots__ = ("dtype", "dynamic_size", "element_shape", "infer_shape", "size")

    def __init__(self, dtype, size, dynamic_size, infer_shape, element_shape):
        self.dtype = dtype
        self.size = size
        self.dynamic_size = dynamic_size
        self.infer_shape = infer_shape
        self.element_shape = element_shape


class _GraphTensorArray:
    """One state of a graph TensorArray: `buffer` (None before anything is written) holds the
    first slots of a list of `length`; `full` says (while tracing) that it holds them all."""

    def __init__(
        self, dtype, size=None, dynamic_size=None, clear_after_read=None,
        tensor_array_name=None, handle=None, flow=None, infer_shape=True, element_shape=None,
        colocate_with_first_write_call=True, name=None,
    ):  # fmt: skip
        if handle is not None:
            raise ValueError("A TensorArray made inside a tf.function takes no `handle`.")
        if flow is not None:
            flow_dtype = getattr(flow, "dtype", type(flow).__name__)
            raise TypeError(
                f"Expected `flow` to be a variant tensor, but received `{flow_dtype}` instead."
            )
        if size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        size = _size_value(size)
        meta = _Meta(
            _dtypes.as_dtype(dtype), size, bool(dynamic_size), infer_shape, as_shape(element_shape)
        )
        self._init(meta, None, size, _static(size) == 0)

    def _init(self, meta, buffer, length, full):
        self._meta = meta
        self._buffer = buffer
        self._length = length
        self._full = full
        self._element_dims = None  # an empty buffer's element dims, None where unknown
        self.parent = None

    @classmethod
    def _state(cls, meta, buffer, length, full):
        impl = cls.__new__(cls)
        impl._init(meta, buffer, length, full)
        return impl

    def _derived(self, buffer, length, full):
        return TensorArray._wrap(self._state(self._meta, buffer, length, full))

    # --- properties -------------------------------------------------------------------------

    @property
    def _dtype(self):
        return self._meta.dtype

    @property
    def _dynamic_size(self):
        return self._meta.dynamic_size

    @property
    def _infer_shape(self):
        return self._meta.infer_shape

    @property
    def dtype(self):
        return self._meta.dtype

    @property
    def element_shape(self):
        return self._meta.element_shape

    @property
    def handle(self):
        return None

    @property
    def flow(self):
        if self._buffer is not None:
            return self._buffer
        return convert_to_tensor(0.0)

    # --- helpers ----------------------------------------------------------------------------

    def _check_element_shape(self, shape):
        current = self._meta.element_shape
        if not shape.is_compatible_with(current):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {current} ")
        if self._meta.infer_shape:
            self._meta.element_shape = current.merge_with(shape)

    def _converted(self, value):
        value = convert_to_tensor(value, dtype_hint=self._meta.dtype)
        if value.dtype != self._meta.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid data types; op elements {value.dtype.name} but list elements "
                f"{self._meta.dtype.name}",
            )
        return value

    def _element_zeros(self, leading=()):
        """Zeros for unwritten slots: of the buffer's element shape once something is
        written, else of the element shape, which must then be fully known (TensorFlow's
        rule: `[*leading, *element]`)."""
        shape = self._meta.element_shape
        dtype = self._meta.dtype
        if self._buffer is None:
            if not shape.is_fully_defined():
                raise InvalidArgumentError(None, None, _UNINITIALIZED.format(shape=shape))
            return zeros([*leading, *shape.as_list()], dtype)
        dims = _dims(self._buffer)[1:]
        if None not in dims and (shape.is_fully_defined() or _static(self._count()) != 0):
            return zeros([*leading, *dims], dtype)
        if not shape.is_fully_defined():
            # An empty buffer's unknown sizes are placeholders: nothing tells the shape.
            _assert(_m.greater(self._count(), 0), _UNINITIALIZED.format(shape=shape))
        element = _shape(self._buffer)[1:]
        if shape.is_fully_defined():
            element = shape.as_list()
        lead = [reshape(convert_to_tensor(d, dtype=_dtypes.int32), [1]) for d in leading]
        return zeros(concat([*lead, element], 0) if lead else element, dtype)

    def _check_not_empty(self):
        """TensorFlow stacks no element only with a fully known element shape."""
        count = self._count()
        message = self._empty_stack_message()
        if _static(count) is not None:
            if _static(count) == 0:
                raise InvalidArgumentError(None, None, message)
            return
        _assert(_m.greater(count, 0), message)

    def _count(self):
        """How many slots the buffer holds: an int when known while tracing."""
        return 0 if self._buffer is None else _length_of(self._buffer)

    def _len(self):
        """The list's length: the buffer's for a full one (nothing else is kept for it)."""
        if self._full and self._buffer is not None:
            return _length_of(self._buffer)
        return self._length

    def _padded(self):
        """The buffer padded with zeros to all `length` slots."""
        if self._buffer is None:
            return self._element_zeros([self._length])
        if self._full:
            return self._buffer
        count, length = self._count(), self._len()
        if _static(count) is not None and _static(count) == _static(length):
            return self._buffer
        missing = _difference(length, count)
        pad = self._element_zeros([missing])
        if self._buffer is None:
            return pad
        return concat([self._buffer, pad], 0)

    def _shaped(self, value, leading=0):
        """`value` with the static element shape TensorFlow's read gives it."""
        known = self._meta.element_shape
        dims = _dims(value)
        if known.rank is None or len(dims) != leading + known.rank:
            return value
        wanted = dims[:leading] + [d if d is not None else k for d, k in zip(dims[leading:], known)]
        if wanted == dims:
            return value
        from ferroflow.array_ops import ensure_shape

        return ensure_shape(value, wanted)

    # --- TensorArray's methods ----------------------------------------------------------------

    def identity(self):
        buffer = None if self._buffer is None else identity(self._buffer)
        return self._derived(buffer, self._len(), self._full)

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError()

    def read(self, index, name=None):
        i = _index(index, "TensorListGetItem")
        _check_range(i, self._len(), "access")
        if self._buffer is None:
            return self._element_zeros()
        if self._full:
            return self._shaped(take_rows(self._buffer, i))
        count = self._count()
        si, sc = _static(i), _static(count)
        if si is not None and sc is not None:
            if si < sc:
                return self._shaped(take_rows(self._buffer, i))
            # An unwritten slot reads as zeros that, as TensorFlow's list, still depend on
            # the written ones (their gradient is zeros, not None).
            return self._shaped(take_rows(concat([self._buffer, self._element_zeros([1])], 0), sc))
        buffer = self._buffer
        return self._shaped(
            control_flow.cond(
                _m.less(i, count), lambda: take_rows(buffer, i), lambda: self._element_zeros()
            )
        )

    def write(self, index, value, name=None):
        value = self._converted(value)
        self._check_element_shape(value.shape)
        i = _index(index, "TensorListSetItem")
        value = self._shaped(value)
        dynamic = self._meta.dynamic_size
        limit = None if dynamic else self._len()
        # Writes keep a full buffer full (an append past the end grows both); a full array
        # keeps no length of its own.
        full = self._full
        count = self._count()
        si, sc = _static(i), _static(count)
        if si is not None and (sc is not None or self._buffer is None):
            _check_range(si, limit, "modify")
            length = None if full else _maximum(self._len(), si + 1) if dynamic else limit
            if self._buffer is None:
                return self._derived(_appended(None, 0, si, value), length, full)
            buffer = self._matching(value, count)
            if si >= sc:
                return self._derived(_appended(buffer, sc, si, value), length, full)
            return self._derived(_replaced(buffer, si, value), length, full)
        length = None if full else _maximum(self._len(), _plus_one(i)) if dynamic else limit
        if self._buffer is None:
            _check_range(i, limit, "modify")
            return self._derived(_appended(None, 0, i, value), length, full)
        buffer = self._matching(value, count)

        def append():
            # The loop's usual step writes the next slot: i == count, so i >= 0.
            if limit is not None:
                _check_range(i, limit, "modify", known_nonnegative=True)
            return concat([buffer, expand_dims(value, 0)], 0)

        def elsewhere():
            _check_range(i, limit, "modify")
            return control_flow.cond(
                _m.greater(i, count),
                lambda: _appended(buffer, count, i, value),
                lambda: _replaced(buffer, i, value),
            )

        written = control_flow.cond(_m.equal(i, count), append, elsewhere)
        return self._derived(written, length, full)

    def _matching(self, value, count):
        """The buffer, checked to hold elements of `value`'s shape; an empty buffer whose
        sizes were placeholders (unknown when the array entered a loop) takes the value's."""
        buffer = self._buffer
        _check_same_element(buffer, value, count)
        if _dims(buffer)[1:] != _dims(value) or None in _dims(value):
            lead = reshape(convert_to_tensor(count, dtype=_dtypes.int32), [1])
            buffer = reshape(buffer, concat([lead, _shape(value)], 0))
        return buffer

    def stack(self, name=None):
        expected = None if self._meta.dynamic_size else _static(self._meta.size)
        if expected is not None:
            _check_count(expected, self._len())
        if not self._meta.element_shape.is_fully_defined():
            if self._buffer is None:
                if _static(self._length) == 0:
                    raise InvalidArgumentError(None, None, self._empty_stack_message())
            elif self._full:
                self._check_not_empty()
        return self._shaped(self._padded(), leading=1)

    def _empty_stack_message(self):
        return (
            "Tried to stack elements of an empty list with non-fully-defined element_shape: "
            f"{self._meta.element_shape}"
        )

    def gather(self, indices, name=None):
        indices = _indices(indices, "TensorListGather")
        _check_all_in_range(indices, self._len(), "gather")
        if self._buffer is None:
            return self._element_zeros([_length_of(indices)])
        return self._shaped(_gather_last_wins(self._padded(), indices), leading=1)

    def concat(self, name=None):
        shape = self._meta.element_shape
        if self._buffer is None:
            if shape.rank == 0 and _static(self._length) != 0:
                raise _scalar_concat()
            if not shape.is_fully_defined():
                raise InvalidArgumentError(None, None, _UNINITIALIZED.format(shape=shape))
            if shape.rank == 0:
                return zeros([0], self._meta.dtype)
            dims = shape.as_list()
            return zeros([_times(self._length, dims[0]), *dims[1:]], self._meta.dtype)
        dims = _dims(self._buffer)
        if len(dims) == 1:
            raise _scalar_concat()
        stacked = self._padded()
        rest = dims[2:]
        target = concat([[-1], _shape(stacked)[2:]], 0) if None in rest else [-1, *rest]
        return reshape(stacked, target)

    def unstack(self, value, name=None):
        value = self._converted(value)
        if value.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        self._check_element_shape(value.shape[1:])
        return self._derived(value, _length_of(value), True)

    def scatter(self, indices, value, name=None):
        value = self._converted(value)
        if value.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        self._check_element_shape(value.shape[1:])
        indices = _indices(indices, "TensorListScatterIntoExistingList")
        _check_all_in_range(indices, None, "scatter to")
        # TensorFlow's scatter grows the list to hold every index, dynamic_size or not.
        static = _static_values(indices)
        if static is not None:
            needed = int(static.max()) + 1 if static.size else 0
        else:
            needed = _m.reduce_max(concat([indices + 1, [0]], 0))
        length = _maximum(self._len(), needed)
        if self._buffer is None:
            dims = _dims(value)[1:]
            base = _zeros(length, dims, lambda: _shape(value)[1:], value.dtype)
        else:
            _check_same_element(self._buffer, value[0], self._count())
            base = self._state(self._meta, self._buffer, length, False)._padded()
        return self._derived(_scattered(base, indices, value), length, True)

    def split(self, value, lengths, name=None):
        value = self._converted(value)
        if value.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        lengths = _m.cast(convert_to_tensor(lengths), _dtypes.int64)
        if lengths.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.rank}")
        count = lengths.shape[0]
        if count is None:
            raise UnimplementedError(
                None,
                None,
                "TensorArray.split inside a tf.function needs the number of lengths while "
                "tracing (ferroflow keeps the pieces in one tensor)",
            )
        total = _dims(value)[0]
        static = _static_values(lengths)
        rest = _dims(value)[1:]
        if static is not None:
            used = int(static.sum())
            if total is not None and used != total:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Unused values in tensor. Length of tensor: {total} Values used: {used}",
                )
            if count and (static != static[0]).any():
                raise UnimplementedError(
                    None,
                    None,
                    "TensorArray.split into pieces of different lengths inside a tf.function: "
                    "ferroflow's graph TensorArray holds elements of one shape",
                )
            piece = int(static[0]) if count else 0
            if total is None:
                _assert(
                    _m.equal(_shape(value)[0], used),
                    "Unused values in tensor. Length of tensor:",
                    _shape(value)[0],
                    "Values used:",
                    used,
                )
            self._check_element_shape(TensorShape([piece, *value.shape[1:]]))
        else:
            piece = _m.cast(lengths[0], _dtypes.int32) if count else 0
            if count:
                _assert(
                    _m.reduce_all(_m.equal(lengths, lengths[0])),
                    "TensorArray.split inside a tf.function needs pieces of one length, got",
                    lengths,
                )
            _assert(
                _m.equal(_m.cast(_m.reduce_sum(lengths), _dtypes.int32), _shape(value)[0]),
                "Unused values in tensor. Length of tensor:",
                _shape(value)[0],
                "Values used:",
                _m.reduce_sum(lengths),
            )
        if None in rest or _static(piece) is None:
            lead = [reshape(convert_to_tensor(d, dtype=_dtypes.int32), [1]) for d in (count, piece)]
            target = concat([*lead, _shape(value)[1:]], 0)
        else:
            target = [count, piece, *rest]
        return self._derived(reshape(value, target), count, True)

    def size(self, name=None):
        if not self._meta.dynamic_size and self._meta.size is not None:
            return convert_to_tensor(self._meta.size, dtype=_dtypes.int32)
        return convert_to_tensor(self._len(), dtype=_dtypes.int32)

    def close(self, name=None):
        return None

    # --- crossing staged control flow ---------------------------------------------------------

    def needs_element_shape(self):
        """True when nothing is written yet and the element shape is not fully known."""
        return self._buffer is None and not self._meta.element_shape.is_fully_defined()

    def written_dims(self):
        """The static element dims of the buffer, or None when nothing was written."""
        return None if self._buffer is None else _dims(self._buffer)[1:]

    def carried(self, written=None):
        """This state with a buffer (empty if nothing is written yet: of the element shape,
        or the dims `written` by one iteration, 0 standing for sizes not known), ready to
        cross a staged loop or `if`; itself if no element rank is known."""
        if self._buffer is not None:
            return self
        length = self._length
        shape = self._meta.element_shape
        if shape.rank is not None:
            dims = list(shape.dims)
            if written is not None and len(written) == len(dims):
                dims = [d if d is not None else w for d, w in zip(dims, written)]
        elif written is not None:
            dims = list(written)
        else:
            return self
        # Unknown sizes are 0 in the empty buffer: placeholders the first write replaces, and
        # unknown in the loop's shape invariants.
        empty = zeros([0, *[0 if d is None else d for d in dims]], self._meta.dtype)
        full = _static(length) == 0
        state = self._state(self._meta, empty, None if full else length, full)
        state._element_dims = dims
        return state

    def components(self, compact=True):
        """The tensors this state crosses staged control flow as: the buffer, and the length
        unless the array is full (`compact`) and the buffer's size is its length."""
        if self._buffer is None:
            return ()
        if compact and self._full:
            return (self._buffer,)
        return (self._buffer, convert_to_tensor(self._len(), dtype=_dtypes.int32))

    def invariants(self):
        """Shape invariants of the components: the buffer's first dimension is unknown (it
        grows as slots are written)."""
        parts = self.components()
        if not parts:
            return ()
        dims = self._element_dims
        if dims is None:
            dims = _dims(self._buffer)[1:]
        return (TensorShape([None, *dims]), TensorShape([]))[: len(parts)]

    def from_components(self, components, full=None):
        """The state `components` (in this state's layout) stand for."""
        if not components:
            return self
        if len(components) == 1:
            return self._state(self._meta, components[0], None, True)
        full = False if full is None else full
        return self._state(self._meta, components[0], components[1], full)

    def components_like(self, entry):
        """The components of this state in `entry`'s layout (a loop body's result)."""
        layout = entry.components()
        if not layout:
            if self._buffer is not None:
                raise ValueError(
                    "a TensorArray first written inside a staged loop needs a known element "
                    "rank (give it an element_shape)"
                )
            return ()
        state = self.carried(_dims(entry._buffer)[1:])
        if state._buffer is None:
            raise ValueError("a TensorArray leaves a staged loop without elements")
        if len(layout) == 1 and not state._full:
            raise ValueError("a TensorArray changed how it crosses a staged loop")
        return state.components(compact=len(layout) == 1)


# --- index and range checks ---------------------------------------------------------------


def _size_value(size):
    if isinstance(size, _core.Tensor):
        if _core.is_symbolic(size):
            if size.dtype != _dtypes.int32:
                size = _m.cast(size, _dtypes.int32)
            return size
        return int(size.numpy())
    if isinstance(size, (int, np.integer)):
        return int(size)
    raise TypeError(
        f"Expected int32 passed to parameter 'num_elements' of op 'TensorListReserve', got "
        f"{size!r} of type '{type(size).__name__}' instead."
    )


def _static(value):
    """The Python int of a scalar known while tracing, else None."""
    if value is None:
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, _core.Tensor) and not _core.is_symbolic(value):
        return int(value.numpy())
    return None


def _static_values(tensor):
    if _core.is_symbolic(tensor):
        return None
    return np.asarray(tensor.numpy()).reshape(-1)


def _index(index, op):
    if isinstance(index, _core.Tensor):
        if index.dtype != _dtypes.int32:
            raise TypeError(
                f"Input 'index' of '{op}' Op has type {index.dtype.name} that does not match "
                "expected type of int32."
            )
        if index.shape.rank != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {index.shape.rank} for '{op}'")
        static = _static(index)
        return index if static is None else static
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        return int(index)
    raise TypeError(
        f"Expected int32 passed to parameter 'index' of op '{op}', got {index!r} of type "
        f"'{type(index).__name__}' instead."
    )


def _indices(indices, op):
    if isinstance(indices, _core.Tensor):
        if indices.dtype != _dtypes.int32:
            raise TypeError(
                f"Input 'indices' of '{op}' Op has type {indices.dtype.name} that does not "
                "match expected type of int32."
            )
    else:
        indices = convert_to_tensor(indices, dtype=_dtypes.int32)
    if indices.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {indices.shape.rank} for '{op}'")
    return indices


def _assert(condition, *parts):
    from ferroflow.check_ops import Assert

    Assert(condition, list(parts))


def _check_range(i, length, verb, known_nonnegative=False):
    """InvalidArgumentError unless 0 <= i < length (length None: only i >= 0)."""
    si, sn = _static(i), _static(length)
    message = "Trying to {verb} element {i} in a list with {n} elements."
    if si is not None and (length is None or sn is not None):
        if si < 0 or (sn is not None and si >= sn):
            shown = sn if sn is not None else "?"
            raise InvalidArgumentError(None, None, message.format(verb=verb, i=si, n=shown))
        return
    if length is None:
        ok = _m.greater_equal(i, 0)
    elif known_nonnegative:
        ok = _m.less(i, length)
    else:
        ok = _m.logical_and(_m.greater_equal(i, 0), _m.less(i, length))
    count = length if length is not None else "?"
    _assert(ok, f"Trying to {verb} element", i, "in a list with", count, "elements.")


def _check_all_in_range(indices, length, verb):
    static, sn = _static_values(indices), _static(length)
    if static is not None and (length is None or sn is not None):
        for i in static.tolist():
            if i < 0 or (sn is not None and i >= sn):
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Trying to {verb} element {i} in a list with "
                    f"{sn if sn is not None else '?'} elements.",
                )
        return
    ok = _m.greater_equal(indices, 0)
    if length is not None:
        ok = _m.logical_and(ok, _m.less(indices, length))
    count = length if length is not None else "?"
    _assert(_m.reduce_all(ok), f"Trying to {verb} elements", indices, "in a list with", count)


def _check_count(expected, length):
    message = "Operation expected a list with {e} elements but got a list with {n} elements."
    sn = _static(length)
    if sn is not None:
        if sn != expected:
            raise InvalidArgumentError(None, None, message.format(e=expected, n=sn))
        return
    _assert(
        _m.equal(length, expected),
        f"Operation expected a list with {expected} elements but got a list with",
        length,
        "elements.",
    )


def _scalar_concat():
    return InvalidArgumentError(
        None, None, "Concat saw a scalar shape at index 0 but requires at least vectors."
    )


# --- buffer arithmetic -------------------------------------------------------------------------


def _dims(t):
    info = _core.symbolic_info(t)
    return list(info[1]) if info is not None else list(t._dims)


def _length_of(t):
    """A tensor's first dimension: an int when static, else an int32 scalar tensor."""
    first = _dims(t)[0]
    return first if first is not None else _shape(t)[0]


def _plus_one(i):
    return i + 1


def _times(a, b):
    sa = _static(a)
    return sa * b if sa is not None else a * b


def _maximum(a, b):
    sa, sb = _static(a), _static(b)
    if sa is not None and sb is not None:
        return max(sa, sb)
    return _m.maximum(convert_to_tensor(a, dtype=_dtypes.int32), b)


def _difference(a, b):
    sa, sb = _static(a), _static(b)
    if sa is not None and sb is not None:
        return sa - sb
    return convert_to_tensor(a, dtype=_dtypes.int32) - b


def _zeros(length, element_dims, element_shape, dtype):
    """Zeros of shape [length, *element], the element's dims static or, where any is unknown,
    from `element_shape()` (a shape tensor) when the graph runs."""
    if None not in element_dims:
        return zeros([length, *element_dims], dtype)
    lead = reshape(convert_to_tensor(length, dtype=_dtypes.int32), [1])
    return zeros(concat([lead, element_shape()], 0), dtype)


def _appended(buffer, count, i, value):
    """`buffer` (None: empty) holding `count` slots, extended to hold `value` at slot i >= count
    (zeros between): one concat."""
    row = expand_dims(value, 0)
    dims = _dims(value)
    pieces = [] if buffer is None else [buffer]
    gap = _difference(i, count)
    if _static(gap) != 0:
        if _static(gap) is None:
            # Run only where i > count, but a gradient's trace replays both branches of the
            # write's `tf.cond` on one example: the pad must be valid for the other's too.
            gap = _m.maximum(gap, 0)
        pieces.append(_zeros(gap, dims, lambda: _shape(value), value.dtype))
    pieces.append(row)
    return concat(pieces, 0) if len(pieces) > 1 else row


def _replaced(buffer, i, value):
    """`buffer` with slot i replaced by `value`: one select, so the value's gradient is the
    slot's and the other slots' pass through. With the buffer's shape known while tracing the
    value is scattered to its slot first (full-shape selects are the CPU's fast path);
    otherwise the condition broadcasts along the element."""
    from ferroflow.array_ops import ones_like, scatter_nd

    if value.shape.rank == 0:
        return where(_m.equal(_range(_length_of(buffer)), i), value, buffer)
    dims = _dims(buffer)
    if None in dims:
        hit = _m.equal(_range(_length_of(buffer)), i)
        hit = reshape(hit, [-1] + [1] * value.shape.rank)
        return where(hit, expand_dims(value, 0), buffer)
    where_to = reshape(convert_to_tensor(i, dtype=_dtypes.int32), [1, 1])
    row = expand_dims(value, 0)
    placed = scatter_nd(where_to, row, dims)
    hit = scatter_nd(where_to, ones_like(row, dtype=_dtypes.bool), dims)
    return where(hit, placed, buffer)


def _gather_last_wins(params, indices):
    """`gather(params, indices)` with TensorFlow's TensorList gradient: the gradients are
    scattered back into the list, so of repeated indices only the last one's lands."""
    from ferroflow.backprop import GradientTape, custom_gradient

    static = _static_values(indices)
    if static is not None and len(set(static.tolist())) == static.size:
        return take_rows(params, indices)

    @custom_gradient
    def gathered(params):
        def grad(upstream):
            same = _m.equal(expand_dims(indices, 1), expand_dims(indices, 0))
            later = _m.greater(
                expand_dims(_range(_length_of(indices)), 0),
                expand_dims(_range(_length_of(indices)), 1),
            )
            kept = _m.logical_not(_m.reduce_any(_m.logical_and(same, later), axis=1))
            kept = reshape(kept, [-1] + [1] * (upstream.shape.rank - 1))
            masked = where(kept, upstream, zeros_like(upstream))
            with GradientTape() as tape:
                tape.watch(params)
                again = take_rows(params, indices)
            return tape.gradient(again, params, output_gradients=masked)

        return take_rows(params, indices), grad

    return gathered(params)


def _scattered(buffer, indices, value):
    """`buffer` (holding every slot indices name) with the slices of `value` written at
    `indices`, the last write to a slot winning."""
    if None not in _dims(buffer):
        from ferroflow.manip_ops import tensor_scatter_nd_update

        return tensor_scatter_nd_update(buffer, expand_dims(indices, -1), value)
    count = _dims(indices)[0]
    if count is None:
        raise UnimplementedError(
            None,
            None,
            "TensorArray.scatter inside a tf.function needs the number of indices or the "
            "array's shape while tracing",
        )
    for k in range(count):
        buffer = _replaced(buffer, take_rows(indices, k), take_rows(value, k))
    return buffer


def _check_same_element(buffer, value, count):
    """A written value must have the buffer's element shape (a select or concat would
    otherwise broadcast or fail obscurely); an empty buffer takes any. Static dims decide when
    they can; else the graph checks when it runs."""
    element = _dims(buffer)[1:]
    dims = _dims(value)
    if len(element) != len(dims):
        raise ValueError(
            f"Inconsistent shapes: saw {TensorShape(dims)} but expected {TensorShape(element)} "
        )
    static_count = _static(count)
    if static_count == 0:
        return
    if None not in element and None not in dims:
        if element != dims:
            raise UnimplementedError(
                None,
                None,
                "a TensorArray inside a tf.function holds elements of one shape in ferroflow: "
                f"writing shape {TensorShape(dims)} among elements of shape "
                f"{TensorShape(element)}",
            )
        return
    same = _m.reduce_all(_m.equal(_shape(value), _shape(buffer)[1:]))
    if static_count is None:
        same = _m.logical_or(_m.equal(count, 0), same)
    _assert(
        same,
        "a TensorArray holds elements of one shape: writing shape",
        _shape(value),
        "among elements of shape",
        _shape(buffer)[1:],
    )


# --- staged loops and branches -----------------------------------------------------------------


def _graph_state(value):
    """The graph implementation of a TensorArray loop variable (an eager array carried into
    a staged loop becomes a graph one holding its stacked elements, as TensorFlow converts)."""
    impl = value._implementation
    if isinstance(impl, _GraphTensorArray):
        return impl
    assert isinstance(impl, _EagerTensorArray)
    meta = _Meta(
        impl.dtype,
        len(impl._tensor_array),
        impl._dynamic_size,
        impl._infer_shape,
        impl.element_shape,
    )
    if not impl._tensor_array and not impl.element_shape.is_fully_defined():
        return _GraphTensorArray._state(meta, None, 0, True)
    return _GraphTensorArray._state(meta, impl.stack(), len(impl._tensor_array), True)


def has_tensor_arrays(structure):
    return any(isinstance(v, TensorArray) for v in nest.flatten(structure))


def _normalize(result, loop_vars):
    from ferroflow import _staging

    return _staging.body_result(result, loop_vars)


def while_loop(cond, body, loop_vars, maximum_iterations, shape_invariants):
    """A staged `tf.while_loop` whose loop variables hold TensorArrays: each array crosses the
    loop as its buffer and length."""
    from ferroflow import _staging

    flat = nest.flatten(loop_vars)
    slots = [k for k, v in enumerate(flat) if isinstance(v, TensorArray)]
    states = {k: _graph_state(flat[k]) for k in slots}
    unknown = [k for k in slots if states[k].needs_element_shape()]
    written = _one_iteration(body, loop_vars, unknown) if unknown else {}
    entries = {k: states[k].carried(written.get(k)) for k in slots}

    def components_of(values):
        out = []
        for k, v in enumerate(values):
            if k in entries:
                if not isinstance(v, TensorArray):
                    raise ValueError(
                        "body must return the structure of loop_vars: a TensorArray loop "
                        f"variable became {type(v).__name__}"
                    )
                out.append(_graph_state(v).components_like(entries[k]))
            else:
                out.append(v)
        return out

    def arrays_of(leaves):
        it = iter(leaves)
        values = []
        for k in range(len(flat)):
            if k in entries:
                parts = [next(it) for _ in entries[k].components()]
                values.append(TensorArray._wrap(entries[k].from_components(parts)))
            else:
                values.append(next(it))
        return nest.pack_sequence_as(loop_vars, values)

    carried = nest.pack_sequence_as(
        loop_vars, [entries[k].components() if k in entries else v for k, v in enumerate(flat)]
    )
    user = nest.flatten(shape_invariants) if shape_invariants is not None else [None] * len(flat)
    invariants = []
    for k in range(len(flat)):
        invariants.extend(entries[k].invariants() if k in entries else [user[k]])

    def staged_cond(*args):
        return cond(*_as_args(arrays_of(nest.flatten(args))))

    def staged_body(*args):
        result = _normalize(body(*_as_args(arrays_of(nest.flatten(args)))), loop_vars)
        return nest.pack_sequence_as(loop_vars, components_of(nest.flatten(result)))

    result = _staging.while_loop(staged_cond, staged_body, carried, maximum_iterations, invariants)
    return arrays_of(nest.flatten(result))


def _as_args(loop_vars):
    return tuple(loop_vars) if isinstance(loop_vars, (list, tuple)) else (loop_vars,)


def _one_iteration(body, loop_vars, slots):
    """The element dims one iteration of `body` writes into the arrays at `slots` (None for
    one it does not write), from a trace that is thrown away."""
    from ferroflow import _staging

    def iteration(*args):
        result = nest.flatten(_normalize(body(*args), loop_vars))
        found = {}
        for k in slots:
            v = result[k]
            found[k] = _graph_state(v).written_dims() if isinstance(v, TensorArray) else None
        return found

    return _staging.trace_discarded(iteration, loop_vars)


class _Relayout(Exception):
    """The branches of an `if` disagree on how a TensorArray crosses it: trace them again."""


def cond(pred, true_fn, false_fn):
    """A staged `tf.cond` whose branches may return TensorArrays (see `_branches`)."""
    from ferroflow import _staging

    return _branches(
        lambda fns: _staging.cond(pred, *fns), [true_fn, false_fn], "true_fn and false_fn", "cond"
    )


def switch_case(index, branches):
    """A staged `tf.switch_case` whose branches may return TensorArrays (see `_branches`)."""
    from ferroflow import _staging

    return _branches(
        lambda fns: _staging.switch_case(index, fns), branches, "branch_fns", "switch_case"
    )


def _branches(stage, fns, what, op):
    """`stage(wrapped fns)` where each wrapped branch returns its TensorArrays as buffer and
    length, in one layout for every branch (an empty buffer where a branch writes nothing,
    shaped as another branch writes: a first tracing that finds branches disagreeing is
    redone with that shape)."""
    hints = {}
    for _ in range(2):
        seen = {}
        try:
            outputs = stage([_branch(fn, k, seen, hints, what, op) for k, fn in enumerate(fns)])
        except _Relayout:
            hints = dict(seen.get("written", {}))
            continue
        structure, states, _ = seen[0]
        if not states:
            return outputs
        leaves = iter(nest.flatten(outputs))
        values = []
        for k in range(len(nest.flatten(structure))):
            if k in states:
                parts = [next(leaves) for _ in states[k].components(compact=False)]
                full = all(seen[b][1][k]._full for b in range(len(fns)))
                values.append(TensorArray._wrap(states[k].from_components(parts, full)))
            else:
                values.append(next(leaves))
        return nest.pack_sequence_as(structure, values) if nest.is_nested(structure) else values[0]
    raise ValueError(f"the branches of a tf.{op} return TensorArrays that cannot be matched")


def _branch(fn, label, seen, hints, what, op):
    def run():
        out = fn()
        flat = nest.flatten(out)
        states = {}
        for k, v in enumerate(flat):
            if isinstance(v, TensorArray):
                states[k] = _graph_state(v).carried(hints.get(k))
                written = states[k].written_dims()
                if written is not None:
                    seen.setdefault("written", {}).setdefault(k, written)
        parts = [
            states[k].components(compact=False) if k in states else v for k, v in enumerate(flat)
        ]
        if label != 0:
            first_states, first_parts = seen[0][1], seen[0][2]
            if set(first_states) != set(states):
                raise ValueError(
                    f"{what} arguments to tf.{op} must have the same number, type, and overall "
                    "structure of return values."
                )
            if any(len(first_parts[k]) != len(parts[k]) for k in states):
                raise _Relayout()
        seen[label] = (out, states, parts)
        if not states:
            return out
        return nest.pack_sequence_as(out, parts) if nest.is_nested(out) else parts[0]

    return run
