"""Each iterator runs its own instances of the dataset functions' graphs.

TensorFlow instantiates a dataset's functions for every iterator, so the random ops in a
`map`/`filter` function start their sequence again with each iterator: under a global or op
seed, two epochs (two `for` loops, two `iter()`, two `reduce` calls) draw the same numbers;
without one, they draw different ones. Within one iterator the instance keeps drawing: a
`repeat()` goes on with new numbers.

`elements(dataset)` is how a new iterator reads a dataset: it opens a scope, the graphs that
run while one of its elements is computed are this scope's instances (`graph_for`,
`Graph.fresh_instance` in Rust), and the prefetch thread carries the scope with it
(`contextvars`).

Elements are computed on the host, as TensorFlow's input pipelines run (its dataset kernels
are CPU kernels, and so are the elements an iterator returns): every step runs in a CPU device
scope (`on_host`), whatever scope the consumer has open. Only `prefetch_to_device` and
`copy_to_device` place elements elsewhere.
"""

import contextlib
import contextvars

__all__ = [
    "elements",
    "graph_for",
    "iterator_scope",
    "on_host",
    "optimization_enabled",
    "shared_scope",
]

_SCOPE = contextvars.ContextVar("ferroflow_data_iterator_scope", default=None)


class _Scope:
    """One iterator's graph instances, by the graph they copy, and the options of the dataset
    it iterates (which optimizations apply). A shared scope runs the graphs themselves, as
    TensorFlow's DatasetToSingleElement and GetElementAtIndex ops do; an unoptimized one applies
    no optimization, as the first of those (the second applies the options)."""

    def __init__(self, options=None, shared=False, optimized=True):
        self._graphs = {}
        self.options = options
        self.shared = shared
        self.optimized = optimized

    def graph(self, core):
        if self.shared:
            return core
        entry = self._graphs.get(id(core))
        if entry is None:
            # The original is kept so that its id is not reused while this scope lives.
            instance = core.fresh_instance() if core.draws_random else core
            entry = self._graphs[id(core)] = (core, instance)
        return entry[1]


def graph_for(core):
    """The graph to run for ``core`` (a `_core.Graph`): the current iterator's instance of it,
    or ``core`` itself outside any iterator."""
    scope = _SCOPE.get()
    return core if scope is None else scope.graph(core)


def on_host():
    """The device scope in which elements are computed (see the module docstring)."""
    from ferroflow.device_scope import device

    return device("/device:CPU:0")


@contextlib.contextmanager
def iterator_scope(dataset):
    """A new iterator's scope over ``dataset`` for the block (`Dataset.reduce` folds its
    elements in one), on the host, with the dataset's options."""
    from ferroflow.data._options import dataset_options

    token = _SCOPE.set(_Scope(dataset_options(dataset)))
    try:
        with on_host():
            yield
    finally:
        _SCOPE.reset(token)


@contextlib.contextmanager
def shared_scope(dataset, optimized):
    """The scope of a one-off read of ``dataset`` for the block: on the host, with the
    functions' shared instances (their random draws go on from one call to the next), and
    ``dataset``'s optimizations where ``optimized`` (`experimental.at`, as TensorFlow's
    GetElementAtIndex), else none whatever its options say (`get_single_element`, as
    TensorFlow's DatasetToSingleElement)."""
    from ferroflow.data._options import dataset_options

    token = _SCOPE.set(_Scope(dataset_options(dataset), shared=True, optimized=optimized))
    try:
        with on_host():
            yield
    finally:
        _SCOPE.reset(token)


def optimization_enabled(name, default):
    """Whether the iterated dataset's options allow the optimization ``name`` (an attribute of
    `experimental_optimization`): its own setting, else `apply_default_optimizations` for one
    TensorFlow applies by default (``default``)."""
    scope = _SCOPE.get()
    if scope is not None and not scope.optimized:
        return False
    options = None if scope is None else scope.options
    if options is None:
        return default
    optimization = options.experimental_optimization
    value = getattr(optimization, name)
    if value is not None:
        return value
    return default and optimization.apply_default_optimizations is not False


def elements(dataset):
    """The elements of a new iterator over ``dataset`` (an iterator)."""
    from ferroflow.data._options import dataset_options

    scope = _Scope(dataset_options(dataset))
    token = _SCOPE.set(scope)
    try:
        with on_host():
            upstream = iter(dataset._elements())
    finally:
        _SCOPE.reset(token)
    return _Scoped(upstream, scope)


class _Scoped:
    """``upstream``'s elements computed in ``scope``. A class, not a generator: a generator
    ends at its first exception, and an iterator goes on past an element that failed."""

    def __init__(self, upstream, scope):
        self._upstream = upstream
        self._scope = scope

    def __iter__(self):
        return self

    def __next__(self):
        token = _SCOPE.set(self._scope)
        try:
            with on_host():
                return next(self._upstream)
        finally:
            _SCOPE.reset(token)
