"""Datasets and iterators used inside a `tf.function`, as TensorFlow stages them: the elements
are pulled when the graph runs, never read while tracing.

Without this, a trace would iterate the dataset once in Python and bake the elements it saw
into the graph as constants: every call would then see the same elements (a shuffled
dataset would repeat one order, an iterator made outside the function would return its first
element forever). Instead:

* ``next(iterator)`` (or ``iterator.get_next()``) is a host node that advances the iterator
  each time the graph runs (OutOfRangeError at the end, as TensorFlow's ``IteratorGetNext``):
  an iterator made outside the function continues where it is; one made inside it
  (``iter(dataset)`` in the function) is opened afresh by a node each time the graph runs;
* ``for x in dataset`` (AutoGraph) is a staged while loop: a node opens a fresh iterator of the
  dataset when the graph runs, the loop test advances it and the body reads the element, and a
  node after the loop closes it. The open iterators live in a per-thread stack of the loop,
  so recursive or concurrent runs of the graph each iterate their own.

A dataset built inside the function from its symbolic values (`_deferred.py`) is made by a
node where it is built, each time the graph runs (`staged_construction`); the nodes that use
it take that node's output as an input and read the dataset it made; `get_single_element`
and `cardinality` of such a dataset are nodes of their own.

Elements with composite parts (ragged, sparse) travel as their component tensors.
"""

import threading

from ferroflow import _core, errors, nest
from ferroflow.array_ops import constant, ensure_shape
from ferroflow.data import _instances

__all__ = [
    "open_in_trace",
    "staged_cardinality",
    "staged_construction",
    "staged_dataset_loop",
    "staged_reduce",
    "staged_single_element",
    "traced_next",
    "traced_next_as_optional",
]


def _component_specs(element_spec):
    return nest.flatten(element_spec, expand_composites=True)


def _host(forward, dtypes, inputs=()):
    """A stateful host node (a `PyFunc`, where TensorFlow's graph has iterator ops) calling
    `forward(*values)` each time the graph runs, with the values `inputs` have then; it returns
    tensors of `dtypes`."""
    enums = [d.as_datatype_enum for d in dtypes]
    return _core.host_call(
        "PyFunc", lambda args, record: (forward(*args), None), False, list(inputs), enums
    )


def _made(dataset):
    """(inputs, current): ``current()`` is ``dataset`` as the graph run makes it, where
    `inputs` (the output of the node that makes it, for one built from symbolic values)
    order the reading node after it; a dataset made while tracing is itself."""
    from ferroflow.data._deferred import DeferredDataset

    if isinstance(dataset, DeferredDataset):
        return [dataset.token], lambda *_: dataset.current()
    return [], lambda: dataset


def staged_construction(inputs, make):
    """The node that calls ``make(*values)`` (``values`` those of `inputs`) each time the
    graph runs, to make a dataset; its output (a token) orders the nodes reading it after."""
    from ferroflow import dtypes

    def forward(*values):
        make(*values)
        return [constant(0, dtype=dtypes.int64)]

    return ensure_shape(_host(forward, [dtypes.int64], inputs)[0], [])


def _element_outputs(element_spec, pull, inputs=()):
    """The element `pull(*values)` returns when the graph runs (``values`` those of
    `inputs`), as symbolic values of `element_spec`."""
    specs = _component_specs(element_spec)

    def forward(*values):
        flat = nest.flatten(pull(*values), expand_composites=True)
        if len(flat) != len(specs):
            raise errors.InvalidArgumentError(
                None, None, f"Expected {len(specs)} components, got {len(flat)}"
            )
        return flat

    outputs = _host(forward, [s.dtype for s in specs], inputs)
    outputs = [ensure_shape(t, s.shape) for t, s in zip(outputs, specs)]
    return nest.pack_sequence_as(element_spec, outputs, expand_composites=True)


class _TraceCursor(threading.local):
    """The Python iteration of an iterator made inside a trace, per thread: replaced by a fresh
    one each time the graph runs its opening node."""

    iterator = None


def open_in_trace(dataset):
    """`iter(dataset)` inside a trace: a node that starts a fresh iteration each graph run.
    Returns the cursor that `next` nodes read."""
    cursor = _TraceCursor()
    inputs, make = _made(dataset)

    def forward(*values):
        cursor.iterator = _instances.elements(make(*values))
        return []

    _host(forward, [], inputs)
    return cursor


def _advance(iterator):
    """The Python iteration behind `iterator` advanced (when the graph runs)."""
    if iterator._made_outside_trace:
        return iterator._next_eagerly()
    return next(iterator._cursor.iterator)


def traced_next(iterator):
    """``next(iterator)`` inside a trace: a node that advances `iterator` each graph run."""

    def pull():
        try:
            return _advance(iterator)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    return _element_outputs(iterator.element_spec, pull)


def traced_next_as_optional(iterator):
    """``iterator.get_next_as_optional()`` inside a trace: a node that advances `iterator`
    each graph run and says whether it had an element (the value is zeros when not)."""
    from ferroflow import dtypes
    from ferroflow.array_ops import zeros
    from ferroflow.experimental_ops import _OptionalImpl

    element_spec = iterator.element_spec
    specs = _component_specs(element_spec)

    def forward():
        try:
            flat = nest.flatten(_advance(iterator), expand_composites=True)
            return [constant(True), *flat]
        except StopIteration:
            fillers = [zeros([d or 0 for d in (s.shape.dims or [])], s.dtype) for s in specs]
            return [constant(False), *fillers]

    has_value, *flat = _host(forward, [dtypes.bool] + [s.dtype for s in specs])
    flat = [ensure_shape(t, s.shape) for t, s in zip(flat, specs)]
    value = nest.pack_sequence_as(element_spec, flat, expand_composites=True)
    return _OptionalImpl(ensure_shape(has_value, []), value, element_spec)


class _LoopCursor(threading.local):
    """The iterators a staged loop over one dataset has open, innermost last, per thread."""

    def __init__(self):
        self.open = []
        self.current = []


class _StagedIteration:
    """The nodes of one staged pass over a dataset (a fresh iteration each graph run) or over
    an iterator made outside the function (its remaining elements): `open()` before the loop,
    `more()` in its test (advances; a bool scalar), `element()` in its body, `close()` after."""

    def __init__(self, iterable):
        from ferroflow.data.dataset import Dataset

        self._cursor = _LoopCursor()
        self.element_spec = iterable.element_spec
        if isinstance(iterable, Dataset):
            self._inputs, make = _made(iterable)
            self._source = lambda *values: _instances.elements(make(*values))
            self._advance = next
        else:
            self._inputs = []
            self._source, self._advance = (lambda: iterable), _advance

    def open(self):
        def forward(*values):
            self._cursor.open.append(self._source(*values))
            self._cursor.current.append(None)
            return []

        _host(forward, [], self._inputs)

    def more(self):
        from ferroflow import dtypes

        def forward():
            try:
                self._cursor.current[-1] = self._advance(self._cursor.open[-1])
                return [constant(True)]
            except StopIteration:
                return [constant(False)]

        return _host(forward, [dtypes.bool])[0]

    def element(self):
        return _element_outputs(self.element_spec, lambda: self._cursor.current[-1])

    def close(self):
        def forward():
            self._cursor.open.pop()
            self._cursor.current.pop()
            return []

        _host(forward, [])


def staged_dataset_loop(iterable, extra_test, set_target, body, staged_loop):
    """``for x in iterable: body()`` inside a trace. `staged_loop(test, step)` builds the while
    loop (AutoGraph's, which carries the loop's state variables); `extra_test` is the
    ``not break`` flag of a loop with ``break``, or None."""
    from ferroflow import math as _m

    iteration = _StagedIteration(iterable)
    iteration.open()

    def test(_):
        more = iteration.more()
        return more if extra_test is None else _m.logical_and(extra_test(), more)

    def step(counter):
        set_target(iteration.element())
        body()
        return counter

    staged_loop(test, step)
    iteration.close()


def staged_reduce(dataset, initial_state, reduce_func, state_spec, call):
    """`Dataset.reduce` inside a trace: a while loop over the state (of `state_spec`, the
    relaxed spec `reduce_func` settles on) that folds each element pulled at run time;
    ``call(fn, args)`` calls the user's function as the eager path does."""
    from ferroflow.control_flow import while_loop
    from ferroflow.data import _structure

    iteration = _StagedIteration(dataset)
    iteration.open()

    def body(*flat):
        state = nest.pack_sequence_as(state_spec, list(flat), expand_composites=True)
        new_state = _structure.normalize(call(reduce_func, (state, iteration.element())))
        return nest.flatten(new_state, expand_composites=True)

    start = nest.flatten(initial_state, expand_composites=True)
    invariants = [s.shape for s in _component_specs(state_spec)]
    final = while_loop(lambda *_: iteration.more(), body, start, shape_invariants=invariants)
    iteration.close()
    final = final if isinstance(final, (list, tuple)) else [final]
    return nest.pack_sequence_as(state_spec, list(final), expand_composites=True)


def staged_single_element(dataset):
    """`get_single_element` of a dataset built from symbolic values: a node that makes the
    dataset and reads its one element each time the graph runs."""
    from ferroflow.data._selecting import single_element

    inputs, make = _made(dataset)
    return _element_outputs(
        dataset.element_spec, lambda *values: single_element(make(*values)), inputs
    )


def staged_cardinality(dataset):
    """`cardinality()` of a dataset built from symbolic values, where tracing cannot know it
    (a `range` of a traced length): a node that counts when the graph runs."""
    from ferroflow import dtypes

    inputs, make = _made(dataset)

    def forward(*values):
        return [constant(make(*values)._cardinality(), dtype=dtypes.int64)]

    return ensure_shape(_host(forward, [dtypes.int64], inputs)[0], [])
