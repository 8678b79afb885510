"""`scan`, `reduce` and `counter`: a state carried from element to element."""

from ferroflow import _tracing
from ferroflow import dtypes as _dtypes
from ferroflow.data import _calls, _instances, _structure
from ferroflow.data.dataset import Dataset

__all__ = ["ScanDataset", "reduce_dataset", "state_spec"]


def _check_pair(out, what):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(
            f"Invalid `{what}`. `{what}` should return a pair consisting of new state and the "
            f"output value but its return type is {out!r}."
        )
    return out


def _types_match(old, new, what):
    """TensorFlow's checks of a new state against the state: same classes, same dtypes."""
    _structure.assert_same_structure(old, new, f"the `{what}` states")
    for a, b in zip(_structure.flatten(old), _structure.flatten(new)):
        if type(a) is not type(b):
            raise TypeError(
                f"Invalid `{what}`. The element classes for the new state must match the "
                f"initial state. Expected {old}, got {new}."
            )
        if getattr(a, "dtype", None) != getattr(b, "dtype", None):
            raise TypeError(
                f"Invalid `{what}`. The element types for the new state must match the "
                f"initial state. Expected {a.dtype!r}, got {b.dtype!r}."
            )


def state_spec(fn, initial_spec, element_spec, what, pair):
    """TensorFlow's state relaxation: ``fn`` is traced with the state's spec, and dimensions
    of the new state that differ from the state's become unknown until the spec settles.
    Returns (state spec, output spec or None); None for both when ``fn`` cannot run on
    stand-in values."""
    spec = initial_spec
    while True:
        out = _calls.output_spec(
            fn,
            (spec, element_spec),
            lambda o: _described(o, what, pair),
        )
        if out is None:
            return None, None
        new_state, output = out if pair else (out, None)
        _types_match(spec, new_state, what)
        relaxed = _structure.merge_specs(spec, new_state, f"the `{what}` states")
        if relaxed == spec:
            return spec, output
        spec = relaxed


def state_function(fn, initial_spec, element_spec, what, pair, kind):
    """``fn`` traced once for (state, element) arguments, as TensorFlow traces `scan` and
    `reduce` functions: Python side effects run at the trace, random ops draw per element.
    The state is relaxed as in `state_spec`: ``fn`` is traced again with dimensions of the
    new state that differ from the state's unknown, until the spec settles. Returns (traced
    function, state spec, output spec); the specs are None when ferroflow calls ``fn``
    eagerly (`trace_dataset_function`) and the stand-in elements did not suit it."""
    from ferroflow.data._functional import trace_dataset_function

    spec = initial_spec
    while True:
        traced = trace_dataset_function(fn, (spec, element_spec), kind)
        if traced.output_spec is None:
            return traced, None, None
        out = _settled_spec(traced.output_spec, what, pair)
        new_state, output = out if pair else (out, None)
        _types_match(spec, new_state, what)
        relaxed = _structure.merge_specs(spec, new_state, f"the `{what}` states")
        if relaxed == spec:
            return traced, spec, output
        spec = relaxed


def _settled_spec(out, what, pair):
    """The (state, output) specs of a traced function's output spec (the state's alone
    without ``pair``)."""
    if pair:
        state, output = _check_pair(out, what)
        return state, output
    return out


def _described(out, what, pair):
    if pair:
        state, output = _check_pair(out, what)
        return (
            _structure.spec_of(_structure.normalize(state)),
            _structure.spec_of(_structure.normalize(output)),
        )
    return _structure.spec_of(_structure.normalize(out))


class ScanDataset(Dataset):
    _repr_name = "_ScanDataset"

    def __init__(self, input_dataset, initial_state, scan_func):
        if not callable(scan_func):
            raise TypeError(f"`scan_func` must be callable, got {scan_func!r}.")
        self._input = input_dataset
        self._initial = _structure.normalize(initial_state)
        self._fn, _, self._spec = state_function(
            scan_func,
            _structure.spec_of(self._initial),
            input_dataset.element_spec,
            "scan_func",
            pair=True,
            kind="Dataset.scan()",
        )

    @property
    def element_spec(self):
        if self._spec is None:
            for element in self._elements():
                self._spec = _structure.spec_of(element)
                break
        return self._spec

    def _cardinality(self):
        return self._input._cardinality()

    def _elements(self):
        state = self._initial
        for element in self._input._elements():
            new_state, output = _check_pair(self._fn((state, element)), "scan_func")
            new_state = _structure.normalize(new_state)
            _types_match(_structure.spec_of(state), _structure.spec_of(new_state), "scan_func")
            state = new_state
            yield _structure.normalize(output)


def reduce_dataset(dataset, initial_state, reduce_func):
    """`Dataset.reduce`: ``reduce_func(state, element)`` folded over the elements."""
    state = _structure.normalize(initial_state)
    spec = _structure.spec_of(state)
    if _tracing.tracing():
        settled, _ = state_spec(reduce_func, spec, dataset.element_spec, "reduce_func", False)
        if settled is None:
            # Stand-in values cannot show the state's spec (an element of unknown rank, as a
            # `py_function` without `set_shape` returns): a trace of the function shows it.
            _, settled, _ = state_function(
                reduce_func, spec, dataset.element_spec, "reduce_func", False, "Dataset.reduce()"
            )
        if settled is not None:
            # Inside a tf.function the elements are pulled when the graph runs, never baked
            # in; the function is traced into the loop's body.
            from ferroflow.data._in_function import staged_reduce

            return staged_reduce(dataset, state, reduce_func, settled, _calls.call)
    # The function is traced first, as TensorFlow does: type errors come before any element.
    traced, _, _ = state_function(
        reduce_func, spec, dataset.element_spec, "reduce_func", False, "Dataset.reduce()"
    )
    with _instances.iterator_scope(dataset):
        for element in dataset._elements():
            new_state = _structure.normalize(traced((state, element)))
            _types_match(spec, _structure.spec_of(new_state), "reduce_func")
            state = new_state
    return state


def counter(start, step, dtype):
    """`Dataset.counter`: ``start, start + step, ...`` forever."""
    from ferroflow.array_ops import constant
    from ferroflow.data._sources import TensorDataset

    dtype = _dtypes.as_dtype(dtype)
    start = _scalar(start, dtype, "start")
    step = _scalar(step, dtype, "step")
    return (
        TensorDataset(constant(0, dtype=_dtypes.int64))
        .repeat()
        .scan(start, lambda state, _: (state + step, state))
    )


def _scalar(value, dtype, what):
    """``value`` as a ``dtype`` tensor; TensorFlow's ValueError, naming the argument, for a
    tensor of another dtype."""
    from ferroflow.array_ops import convert_to_tensor

    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
