"""Datasets built inside a `tf.function` from values known only when the graph runs.

``tf.data.Dataset.from_tensor_slices(x)`` on a function argument, ``range(n)``,
``batch(size)`` with a traced ``size``, a ``map`` whose function closes over a traced value:
TensorFlow builds these as graph ops that read their inputs when the graph runs. ferroflow's
datasets are Python objects that need their values when made, so every dataset construction
passes through `made_in_trace` (`Dataset`'s metaclass calls it while a trace is open): when
the arguments hold symbolic tensors, deferred datasets, or functions whose closure cells or
defaults do, the result is a `DeferredDataset`, which records the construction
(``cls(*args, **kwargs)``) instead of running it, and a host node where it was made (as
TensorFlow's dataset op): each time the graph runs, the node makes the dataset with the
values its symbolic tensors have then (closures rebuilt on new cells) from the datasets its
upstream nodes made in the same run. So each call sees its own values (never the first
call's baked in), and within a run every use reads one dataset (a second iteration of a
shuffle reshuffles, as TensorFlow's). The uses are staged (`_in_function.py`: loops,
`reduce`, `iter`/`next`, `get_single_element`, `cardinality`): their nodes take the
construction node's output (a token) as an input and read the dataset it made.

The element spec is known while tracing, as TensorFlow's: the construction runs on two
stand-ins for the symbolic values (unknown dimensions 12 and 24 long, entries 1 and 2), and
dimensions that differ between them are unknown (a batch of a traced size, rows of an
argument of unknown length). A symbolic value reached otherwise than through arguments,
closure cells and defaults (a global, an attribute of an object) is not replaced: a dataset
function reading one raises UnimplementedError (see `_functional.trace_dataset_function`).

A dataset made from constants that draws random seeds (a `shuffle`, `Dataset.random`,
`sample_from_datasets`, or a construction with one of those as its part) is deferred as
well, with itself as its stand-in: TensorFlow makes it anew in every call, so a seeded one
starts each call from the same numbers and an unseeded one from new ones, where one dataset
kept across calls would go on to its next iteration's. A run's construction takes its seeds
under the trace's global seed (`_seeds.trace_global_seed`), as TensorFlow's graph holds them.

The functions of a deferred construction (a `map` function) are traced once, as TensorFlow
traces them with the function (`_FunctionTemplate`): for the spec their input has while
tracing (stand-in constructions see upstream deferred datasets with their merged spec), with
the symbolic tensors they close over as extra inputs of their graph; the stand-ins and each
run call that graph with their own values, so the Python body does not run again.
"""

import contextlib
import copy
import functools
import threading
import types

import numpy as np

from ferroflow import _core, _random_seed, errors, nest
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.data import _composite, _structure
from ferroflow.data._seeds import trace_global_seed
from ferroflow.data.dataset import UNKNOWN_CARDINALITY, Dataset
from ferroflow.type_spec import CompositeTensor

__all__ = ["DeferredDataset", "made_in_trace", "unreachable_capture"]

# The stand-ins of the two trial constructions: (length of unknown dimensions, every entry,
# rank of a value of unknown rank).
_TRIALS = ((12, 1, 1), (24, 2, 2))


def made_in_trace(cls, args, kwargs, make, element_spec=None):
    """``cls(*args, **kwargs)`` made while a trace is open (``make`` makes it now): a
    `DeferredDataset` when the arguments depend on values known only when the graph runs, or
    when it draws random seeds (see `_made_from_constants`).
    Constants of the trace among them are copied out of it first (a dataset function's trace
    would otherwise capture them from the enclosing graph). ``element_spec`` (a function of
    the arguments): the spec, where stand-in values cannot make the dataset."""
    read = _variables_read((args, kwargs))
    if read is not None:
        args, kwargs = read
    symbolic, upstream = {}, {}

    def own(value):
        parts = _parts(value)
        if not any(_core.is_symbolic(p) for p in parts):
            return _copied_out(value)
        for part in parts:
            if _core.is_symbolic(part):
                symbolic.setdefault(id(part), part)
        return value

    def note_dataset(dataset, _):
        upstream.setdefault(id(dataset), dataset)
        return dataset

    args, kwargs = _Rebuilder(_of_trace, own, note_dataset)((args, kwargs))
    if not symbolic and not upstream:
        made, draws_seeds = _made_from_constants(make, args, kwargs)
        if _making.depth > 0 or not draws_seeds:
            return made
        # TensorFlow makes a dataset built in a function anew in every call: a random one
        # (`shuffle`, `Dataset.random`, `sample_from_datasets`) starts each call from its
        # seeds (a seeded one with the same numbers every call, an unseeded one with new
        # ones), where one dataset kept across calls would go on to its next iteration's.
        return DeferredDataset(cls, args, kwargs, [], [], made=made)
    spec = None if element_spec is None else element_spec(*args, **kwargs)
    return DeferredDataset(
        cls, args, kwargs, list(symbolic.values()), list(upstream.values()), spec=spec
    )


# How many dataset constructors from constants are running on this thread, and whether one
# of the running ones has made a dataset that draws seeds (see `_made_from_constants`).
_making = threading.local()


def _made_from_constants(make, args, kwargs):
    """(``make(*args, **kwargs)``, whether it drew random seeds: it, or a dataset its
    constructor made as its part, has iteration seeds). A dataset made inside another's
    constructor is that one's part, never deferred itself."""
    depth = getattr(_making, "depth", 0)
    outer_drew = getattr(_making, "drew_seeds", False)
    _making.depth, _making.drew_seeds = depth + 1, False
    drew = False
    try:
        made = make(*args, **kwargs)
        drew = _making.drew_seeds or hasattr(made, "_iteration_seeds")
    finally:
        _making.depth, _making.drew_seeds = depth, outer_drew or drew
    return made, drew


@contextlib.contextmanager
def _standing_in():
    """Stand-in constructions (see `DeferredDataset`) make what they make now: as parts of
    the construction, never deferred themselves."""
    depth = getattr(_making, "depth", 0)
    _making.depth = depth + 1
    try:
        yield
    finally:
        _making.depth = depth


def _of_trace(tensor):
    """Whether ``tensor`` is a value of the trace in progress (symbolic or constant)."""
    return _core.symbolic_info(tensor) is not None


def _copied_out(value):
    """A tensor or composite with its parts that are constants of the trace as eager
    tensors of the same values."""

    def copy_of(part):
        if not isinstance(part, _core.Tensor) or not _of_trace(part):
            return part
        return convert_to_tensor(part.numpy(), dtype=part.dtype)

    if isinstance(value, _core.Tensor):
        return copy_of(value)
    parts = nest.flatten(value, expand_composites=True)
    return nest.pack_sequence_as(value, [copy_of(p) for p in parts], expand_composites=True)


def _variables_read(value):
    """``value`` (arguments) with the variables among them, in lists, tuples and dicts, read
    (as the constructors would convert them, but here, so that the reads are inputs of the
    nodes that make the dataset); None when it holds no variable. Variables a function
    closes over stay variables: the function reads them each time it runs."""
    if isinstance(value, _core.BaseVariable):
        return convert_to_tensor(value)
    if isinstance(value, (list, tuple)):
        items = [_variables_read(v) for v in value]
        if all(v is None for v in items):
            return None
        items = [v if r is None else r for v, r in zip(value, items)]
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, dict):
        items = {k: _variables_read(v) for k, v in value.items()}
        if all(v is None for v in items.values()):
            return None
        rebuilt = copy.copy(value)
        rebuilt.update({k: r for k, r in items.items() if r is not None})
        return rebuilt
    return None


class DeferredDataset(Dataset):
    """A dataset made each time the graph runs, by the node `token` comes from (see the
    module docstring), from the values of the symbolic tensors ``symbolic`` and the datasets
    its ``upstream`` deferred datasets made in the same run. Its element spec is the stand-in
    constructions' (see `_TRIALS`)."""

    _deferrable = False

    def __init__(self, cls, args, kwargs, symbolic, upstream, made=None, spec=None):
        from ferroflow.data._in_function import staged_construction

        self._cls = cls
        # Its dataset functions are traced once (as TensorFlow traces them with the
        # function), not again in each stand-in construction and each run.
        self._args, self._kwargs = _with_templates((args, kwargs))
        # The seeds a run's construction takes are those of the trace (TensorFlow's graph
        # holds them), whatever the global seed is when it runs.
        self._global_seed = _random_seed.global_seed()
        if made is not None:
            # Made from constants while tracing: its own stand-in.
            first = second = made
        elif spec is not None:
            first, second = (_spec_stand_in(spec, trial) for trial in range(2))
        else:
            first, second = self._stand_ins()
        self._standins = (first, second)
        self._spec = _structure.merge_specs(
            first.element_spec, second.element_spec, f"{cls.__name__} elements"
        )
        self._repr_name = first._repr_name
        # The dataset the last run on each thread made (runs on other threads make their own).
        self._made = threading.local()
        inputs = symbolic + [d.token for d in upstream]
        self.token = staged_construction(inputs, lambda *values: self._make(symbolic, values))

    def _make(self, symbolic, values):
        """Makes the dataset of this run: ``values`` are those of ``symbolic`` (then the
        upstream tokens); the upstream datasets are those their nodes made in this run."""
        env = {id(t): v for t, v in zip(symbolic, values)}

        def value_of(value):
            if isinstance(value, _core.Tensor):
                return env[id(value)]
            parts = nest.flatten(value, expand_composites=True)
            return nest.pack_sequence_as(
                value, [env.get(id(p), p) for p in parts], expand_composites=True
            )

        rebuild = _Rebuilder(lambda t: id(t) in env, value_of, lambda d, _: d.current())
        with trace_global_seed(self._global_seed):
            self._made.dataset = self._cls(*rebuild(self._args), **rebuild(self._kwargs))

    def current(self):
        """The dataset this graph run made (on this thread)."""
        dataset = getattr(self._made, "dataset", None)
        if dataset is None:
            self._elements()  # raises: no run of the graph made it
        return dataset

    def _stand_ins(self):
        """The constructions with the stand-ins of both trials (see `_TRIALS`)."""
        try:
            first = self._stand_in(0)
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(
                    f"(raised making {self._cls.__name__} with stand-in values of the "
                    "tf.function's symbolic tensors, unknown dimensions 12 long and every "
                    "entry 1, to learn its element spec; see ferroflow/data/_deferred.py)"
                )
            raise
        try:
            second = self._stand_in(1)
        except Exception:  # noqa: BLE001 - the first stand-in alone decides
            second = first
        return first, second

    def _stand_in(self, trial):
        """The construction with the stand-ins of trial number ``trial``."""
        size, fill, rank = _TRIALS[trial]

        def stand_in(value):
            return _stand_in_value(value, size, fill, rank)

        def dataset(deferred, _):
            # With the spec the upstream dataset has while tracing (its stand-ins' merged),
            # as TensorFlow's static shapes: a function over its elements is traced once.
            return _SpecView(deferred._standins[trial], deferred._spec)

        rebuild = _Rebuilder(_core.is_symbolic, stand_in, dataset)
        with _standing_in():
            return self._cls(*rebuild(self._args), **rebuild(self._kwargs))

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        # Not the stand-ins': theirs may agree by chance (`range(n).skip(n)` is empty for
        # both). `cardinality()` counts when the graph runs.
        return UNKNOWN_CARDINALITY

    def _elements(self):
        # Reached by reads that are not staged (outside the function, or `as_numpy_iterator`).
        raise TypeError(
            f"{self!r} is built from tensors of a tf.function known only when its graph runs: "
            "read its elements inside the function (a `for` loop, `reduce`, `iter`, "
            "`get_single_element`), where they are read when the graph runs."
        )

    def cardinality(self):
        from ferroflow.data._in_function import staged_cardinality

        if not _core.graph_tracing():
            return super().cardinality()
        return staged_cardinality(self)

    def get_single_element(self, name=None):
        from ferroflow.data._in_function import staged_single_element

        if not _core.graph_tracing():
            self._elements()  # raises
        return staged_single_element(self)

    def options(self):
        return self._standins[0].options()

    def as_numpy_iterator(self):
        # TensorFlow's, inside a function (where such a dataset lives).
        raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")

    def __len__(self):
        # TensorFlow's `__len__` outside eager execution.
        raise TypeError(
            "`tf.data.Dataset` only supports `len` in eager mode. Use "
            "`tf.data.Dataset.cardinality()` instead."
        )


def _parts(value):
    """A tensor, or a composite's component tensors."""
    if isinstance(value, _core.Tensor):
        return [value]
    return [p for p in nest.flatten(value, expand_composites=True) if isinstance(p, _core.Tensor)]


def _spec_stand_in(spec, trial):
    """A dataset of one element of ``spec`` with the stand-ins of trial ``trial``."""
    size, fill, _ = _TRIALS[trial]
    element = _structure.map_element(lambda s: _composite.example(s, size, fill), spec)
    with _standing_in():
        return Dataset.from_tensors(element)


def _stand_in_value(value, size, fill, rank):
    """A concrete value of ``value``'s static type (a tensor or a composite): unknown
    dimensions ``size`` long, an unknown rank ``rank``, every entry ``fill``."""
    if isinstance(value, _core.Tensor):
        # Made from numpy, not by an op: a value the trace records would reach a dataset
        # function's trace as a capture of the enclosing graph, not as a constant.
        shape = value.shape
        dims = [None] * rank if shape.rank is None else shape.as_list()
        dims = [size if d is None else d for d in dims]
        dtype = value.dtype
        if dtype == _dtypes.string:
            array = np.full(dims, b"a" * fill, dtype=object)
        elif dtype == _dtypes.bool:
            # True in the first trial, False in the second: a traced flag (`drop_remainder`)
            # then leaves what it decides unknown, as TensorFlow's static shape does.
            array = np.full(dims, fill % 2 == 1, dtype=bool)
        else:
            array = np.full(dims, fill, dtype=dtype.as_numpy_dtype)
        return convert_to_tensor(array, dtype=dtype)
    return _composite.example(value._type_spec, size, fill)


class _SpecView(Dataset):
    """``dataset`` seen with the spec ``spec`` (as general as its own)."""

    _deferrable = False

    def __init__(self, dataset, spec):
        self._input = dataset
        self._spec = spec
        self._repr_name = dataset._repr_name

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._input._cardinality()

    def _elements(self):
        return self._input._elements()

    def options(self):
        return self._input.options()


def _with_templates(arguments):
    """``arguments`` (args and kwargs of a deferred construction) with the functions among
    them, in lists, tuples and dicts, as `_FunctionTemplate`s."""
    if isinstance(arguments, (types.FunctionType, types.MethodType, functools.partial)):
        return _FunctionTemplate.of(arguments)
    rebuilt = _items_converted(arguments, _with_templates)
    return arguments if rebuilt is _NOT_A_CONTAINER else rebuilt


_NOT_A_CONTAINER = object()


def _items_converted(value, convert):
    """``value`` (a list, tuple, namedtuple or dict) with ``convert`` applied to its items:
    the same object where no item changed; `_NOT_A_CONTAINER` for any other value."""
    if isinstance(value, (list, tuple)):
        items = [convert(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return type(value)(*items)  # a namedtuple
        return type(value)(items)
    if isinstance(value, dict):
        items = {k: convert(v) for k, v in value.items()}
        if all(items[k] is v for k, v in value.items()):
            return value
        rebuilt = copy.copy(value)
        rebuilt.update(items)
        return rebuilt
    return _NOT_A_CONTAINER


class _FunctionTemplate:
    """A function given to a deferred construction (a `map` function), traced once per
    input spec and kind of transformation with the symbolic tensors it closes over
    (``captured``) as inputs of its graph: each stand-in construction and each run binds it
    to its values of them (`_BoundFunction`) and runs that graph, where rebuilding the
    function on the values and tracing it would run its Python body every time."""

    def __init__(self, fn, captured):
        self.fn = fn
        self.captured = captured
        self._traces = []  # (kind, spec, TracedFunction or None)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, fn):
        """A template of ``fn``, or ``fn`` itself where it closes over a composite or a
        deferred dataset (it is then rebuilt and traced anew for each use, as before)."""
        captured, other = {}, []

        def note(value):
            if isinstance(value, _core.Tensor):
                captured.setdefault(id(value), value)
            else:
                other.append(value)
            return value

        def dataset(deferred, _):
            other.append(deferred)
            return deferred

        _Rebuilder(_core.is_symbolic, note, dataset)(fn)
        if other:
            return fn
        return cls(fn, list(captured.values()))

    def traced(self, spec, kind):
        """(the spec traced for, its `TracedFunction` of ``(element, captured values)``) for
        elements of ``spec``, or None where the graph cannot be reused (an unknown rank, a
        graph that depends on the example's sizes)."""
        with self._lock:
            for traced_kind, traced_spec, traced in self._traces:
                if traced_kind == kind and _admits(traced_spec, spec):
                    return None if traced is None else (traced_spec, traced)
            traced = self._trace(spec, kind)
            self._traces.append((kind, spec, traced))
            return None if traced is None else (spec, traced)

    def _trace(self, spec, kind):
        from ferroflow import autograph
        from ferroflow.data._functional import TracedFunction, call_on_element
        from ferroflow.tensor_spec import TensorSpec

        leaves = _structure.flatten(spec)
        if not all(isinstance(s, TensorSpec) and s.shape.rank is not None for s in leaves):
            return None
        fn, captured = self.fn, self.captured

        def body(element, values):
            env = {id(t): v for t, v in zip(captured, values)}
            rebuilt = _Rebuilder(lambda t: id(t) in env, lambda t: env[id(t)], _keep)(fn)
            return call_on_element(autograph.to_graph(rebuilt), element)

        body.__name__ = getattr(fn, "__name__", "function")
        signature = (spec, tuple(TensorSpec(t.shape, t.dtype) for t in captured))
        traced = TracedFunction(body, signature, kind)
        if not traced._direct:
            return None
        return traced


def _keep(deferred, _):
    return deferred


def _admits(general, spec):
    """Whether elements of ``spec`` are elements of ``general`` too."""
    try:
        return _structure.merge_specs(general, spec, "elements") == general
    except (TypeError, ValueError):
        return False


class _BoundFunction:
    """A `_FunctionTemplate` with values for its captured tensors (a stand-in's or a run's):
    called, the function rebuilt on them; traced by `_functional.trace_dataset_function`,
    the template's graph run with them."""

    def __init__(self, template, rebuilt, values):
        self._template = template
        self.__wrapped__ = rebuilt
        self.__name__ = getattr(rebuilt, "__name__", "function")
        self._values = tuple(values)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def traced_for(self, spec, kind):
        """A `TracedFunction` for elements of ``spec`` that runs the template's graph with
        this binding's values, or None (trace ``__wrapped__`` instead)."""
        from ferroflow.data._functional import TracedFunction

        found = self._template.traced(spec, kind)
        if found is None:
            return None
        traced_spec, traced = found
        concrete, values = traced._concrete, self._values
        tuple_element = type(traced_spec) is tuple

        def bound(*args):
            return concrete((args if tuple_element else args[0], values))

        bound.__name__ = self.__name__
        return TracedFunction(bound, traced_spec, kind)


class _Rebuilder:
    """Rebuilds a value (arguments of a dataset constructor) with its tensors or composites
    that ``wanted`` parts of replaced by ``value(part)`` and its deferred datasets by
    ``dataset(deferred, self)``: through lists, tuples, dicts, and the closure cells and
    defaults of functions (a rebuilt function runs the same code on new cells). Whatever
    holds nothing to replace is kept as it is, the same object."""

    def __init__(self, wanted, value, dataset):
        self._wanted = wanted
        self._value = value
        self._dataset = dataset
        # By id, with the original kept so that ids stay unique: functions (a closure may
        # reach one twice, or itself) and deferred datasets (a pipeline may read one twice).
        self._memo = {}

    def __call__(self, value):
        if isinstance(value, (_core.Tensor, CompositeTensor)):
            wanted = any(self._wanted(p) for p in _parts(value))
            return self._value(value) if wanted else value
        if isinstance(value, DeferredDataset):
            return self._memoized(value, lambda d: self._dataset(d, self))
        if isinstance(value, _FunctionTemplate):
            return self._memoized(value, self._bound)
        rebuilt = _items_converted(value, self)
        if rebuilt is not _NOT_A_CONTAINER:
            return rebuilt
        if isinstance(value, types.FunctionType):
            return self._memoized(value, self._function)
        if isinstance(value, functools.partial):
            func, args, keywords = self(value.func), self(value.args), self(value.keywords)
            if func is value.func and args is value.args and keywords is value.keywords:
                return value
            return functools.partial(func, *args, **keywords)
        if isinstance(value, types.MethodType):
            func = self(value.__func__)
            return value if func is value.__func__ else types.MethodType(func, value.__self__)
        return value

    def _memoized(self, value, rebuild):
        entry = self._memo.get(id(value))
        if entry is None:
            # While it is being rebuilt, a reference back to it (recursion) keeps the original.
            self._memo[id(value)] = (value, value)
            entry = self._memo[id(value)] = (value, rebuild(value))
        return entry[1]

    def _bound(self, template):
        values = [self(t) for t in template.captured]
        return _BoundFunction(template, self(template.fn), values)

    def _function(self, fn):
        cells = fn.__closure__ or ()
        contents = [_contents(c) for c in cells]
        new_contents = [v if v is _EMPTY else self(v) for v in contents]
        defaults = self(fn.__defaults__) if fn.__defaults__ else fn.__defaults__
        kwdefaults = self(fn.__kwdefaults__) if fn.__kwdefaults__ else fn.__kwdefaults__
        if (
            all(a is b for a, b in zip(new_contents, contents))
            and defaults is fn.__defaults__
            and kwdefaults is fn.__kwdefaults__
        ):
            return fn
        closure = tuple(
            types.CellType() if v is _EMPTY else types.CellType(v) for v in new_contents
        )
        rebuilt = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, defaults, closure)
        rebuilt.__kwdefaults__ = kwdefaults
        rebuilt.__qualname__ = fn.__qualname__
        rebuilt.__module__ = fn.__module__
        rebuilt.__doc__ = fn.__doc__
        rebuilt.__dict__.update(fn.__dict__)
        return rebuilt


_EMPTY = object()


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet assigned
        return _EMPTY


def unreachable_capture(error):
    """``error`` as a clear one when it is a dataset function's trace reading a tensor of the
    enclosing function that ferroflow could not hand to it; None otherwise."""
    if isinstance(error, errors.InternalError) and "enclosing frame" in str(error):
        return errors.UnimplementedError(
            None,
            None,
            "A tf.data function reads a tensor of the enclosing tf.function other than through "
            "its closure variables or defaults (a global, or an attribute of an object, "
            "say): ferroflow hands such tensors to dataset functions only through closure "
            "variables and default arguments. Bind the tensor to a local variable that the "
            "function closes over.",
        )
    return None
