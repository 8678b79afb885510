"""Map fusion and map-and-batch fusion: what TensorFlow's tf.data optimizer does to a pipeline
before it runs, done here when an iterator opens.

- **Map fusion.** Consecutive `map`s whose functions are traced graphs become one graph (the
  second function's concrete graph called on the first's outputs, inlined), so an element
  crosses into Python once instead of once per `map`: no dict of tensors, no SparseTensor is
  built in between. Only stateless graphs are fused (no variable, random op or Python call):
  the fused graph then computes exactly what the two did, whatever order its elements run in.
- **Read and batch.** A `batch` right after a TFRecord reader reads each batch's records
  into one string tensor in Rust (`TFRecordReader.read_batch`), making no tensor per record.
- **Map and batch.** A `batch` right after a traced `map` runs the map's graph on the batch's
  elements in Rust and stacks each output there (`Graph.call_many_stacked`): the batch is
  built once, from the stacked tensors, instead of element by element. The runs keep the
  map's own parallelism, so random draws and Python calls happen as they would unfused.

They change nothing observable but speed, except where TensorFlow's own fused MapAndBatch
kernel differs from `batch`, and then ferroflow does as that kernel does (TensorFlow applies
it by default): elements whose shapes differ but hold as many values are batched in the first
one's shape, other counts raise its "Cannot add tensor to the batch" error, and iteration goes
on after a batch whose element failed. `tf.data.Options().experimental_optimization`'s
`map_and_batch_fusion = False` (or `apply_default_optimizations = False`) turns it off, as in
TensorFlow; `map_fusion = False` turns map fusion off.

- **Map parallelization.** A sequential `map` whose graph is stateless runs its elements on the
  thread pool, as TensorFlow's default `map_parallelization` makes stateless maps parallel
  (`map_parallelization = False` turns it off).
"""

import itertools
import os

from ferroflow import _core, errors
from ferroflow.concrete_function import _TENSOR, _CompositeSlot
from ferroflow.data import _composite, _instances, _prefetch, _structure

__all__ = ["fuses_with_map", "map_and_batch", "map_chain", "read_and_batch"]


def _traced(map_dataset):
    """The map's traced function when it runs every element through one graph, else None."""
    from ferroflow.data._functional import MapDataset, TracedFunction

    if type(map_dataset) is not MapDataset:
        return None
    fn = map_dataset._fn
    if not isinstance(fn, TracedFunction) or not fn._direct:
        return None
    return fn


def _pure(fn):
    """Whether the function's graph is stateless (no variable, random op or Python call), so
    its runs may be fused and reordered, as TensorFlow fuses and parallelises only stateless
    functions."""
    return not fn._concrete._core.stateful


def map_chain(map_dataset):
    """(function, threads, input dataset) that compute ``map_dataset``'s elements: its own
    function over its input, or, where maps before it fuse with it, one traced function over
    the first one's input; with the cores as threads where a sequential map's graph is
    stateless (TensorFlow's default `map_parallelization`: the same elements in the same
    order)."""
    if _instances.optimization_enabled("map_fusion", default=True):
        fn, threads, source = _fused_chain(map_dataset)
    else:
        # Off only where the options turn it off: it changes nothing but speed.
        fn, threads, source = map_dataset._fn, map_dataset._threads, map_dataset._input
    if (
        threads is None
        and _traced_fn_of(fn) is not None
        and _pure(fn)
        and _instances.optimization_enabled("map_parallelization", default=True)
    ):
        threads = os.cpu_count() or 1
    return fn, threads, source


def _fused_chain(map_dataset):
    """The maps ending at ``map_dataset`` fused (see `map_chain`), worked out once per
    dataset."""
    cached = map_dataset.__dict__.get("_fused_chain")
    if cached is not None:
        return cached
    chain = [map_dataset]
    while _traced(chain[0]) is not None and _pure(chain[0]._fn):
        inner = chain[0]._input
        if _traced(inner) is None or not _pure(inner._fn):
            break
        chain.insert(0, inner)
    result = (map_dataset._fn, map_dataset._threads, map_dataset._input)
    if len(chain) > 1:
        try:
            result = (_compose(chain), _threads(chain), chain[0]._input)
        except Exception:  # noqa: BLE001 - an unforeseen trace failure: run them unfused
            pass
    map_dataset._fused_chain = result
    return result


def _threads(chain):
    threads = [m._threads for m in chain if m._threads is not None]
    return max(threads) if threads else None


def _compose(chain):
    """One traced function calling the chain's concrete graphs in turn."""
    from ferroflow.data._functional import TracedFunction

    concretes = [m._fn._concrete for m in chain]
    tuple_element = type(chain[0]._input.element_spec) is tuple

    def fused_maps(*args):
        element = args if tuple_element else args[0]
        for concrete in concretes:
            element = concrete(element)
        return element

    fused = TracedFunction(fused_maps, chain[0]._input.element_spec, "Dataset.map()")
    if not fused._direct:
        raise ValueError("the fused graph depends on element sizes")
    return fused


def read_and_batch(batch_dataset):
    """The batches of ``batch_dataset`` (a `BatchDataset` over a file reader) read whole, or
    None where the reader reads record by record."""
    from ferroflow.data._readers import _ReaderDataset

    source = batch_dataset._input
    if _core.graph_tracing() or not isinstance(source, _ReaderDataset):
        return None
    return source._record_batches(batch_dataset._batch_size, batch_dataset._drop_remainder)


def map_and_batch(batch_dataset):
    """The batches of ``batch_dataset`` (a `BatchDataset` over a `map`) computed fused, or None
    where the map cannot be fused with it (see the module docstring)."""
    fused = _fusion_of(batch_dataset)
    return None if fused is None else _Batches(*fused, batch_dataset)


def fuses_with_map(batch_dataset):
    """Whether the options in effect fuse ``batch_dataset`` with the `map` before it (which
    TensorFlow then runs as its MapAndBatch dataset)."""
    return _fusion_of(batch_dataset) is not None


def _fusion_of(batch_dataset):
    """(function, threads, source, assembler) of ``batch_dataset`` fused with its map, or None
    where they do not fuse."""
    if _core.graph_tracing() or _traced(batch_dataset._input) is None:
        return None
    # TensorFlow fuses a plain batch only: `batch(num_parallel_calls=...)` keeps batch's rules.
    if batch_dataset._parallel:
        return None
    if not _instances.optimization_enabled("map_and_batch_fusion", default=True):
        return None
    fn, threads, source = map_chain(batch_dataset._input)
    if _traced_fn_of(fn) is None:
        return None
    assemble = _assembler(fn, batch_dataset)
    if assemble is None:
        return None
    return fn, threads, source, assemble


def _traced_fn_of(fn):
    from ferroflow.data._functional import TracedFunction

    return fn if isinstance(fn, TracedFunction) and fn._direct else None


class _Batches:
    """The fused batches: each batch's runs (`_Runs`) assembled into its element. Where the
    runs are parallel, a background thread computes the next batches' runs while this one is
    assembled and consumed, as TensorFlow's MapAndBatch keeps batches in flight: the thread
    pool is then not idle while one thread reads the input's elements and stacks a batch."""

    def __init__(self, fn, threads, source, assemble, batch_dataset):
        runs = _Runs(fn, threads, source, batch_dataset, assemble.stack)
        ahead = runs.parallel and not fn._concrete._core.calls_python
        self._runs = _prefetch.Prefetcher(runs, 1) if ahead else runs
        self._assemble = assemble

    def __iter__(self):
        return self

    def __next__(self):
        stacked, rows = next(self._runs)
        return self._assemble(stacked, rows)


class _Runs:
    """The map's runs for each batch, stacked in Rust: ``(columns, rows)`` per batch. An
    iterator object rather than a generator: as TensorFlow's MapAndBatch, a batch with a
    failing element raises its error and the next batch follows (a generator would end at its
    first exception)."""

    def __init__(self, fn, threads, source, batch_dataset, stack):
        self._fn = fn
        self._core = fn._concrete._core
        self.parallel = threads is not None and threads > 1
        self._stack = stack
        self._elements = iter(source._elements())
        self._size = batch_dataset._batch_size
        self._drop_remainder = batch_dataset._drop_remainder
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        chunk = list(itertools.islice(self._elements, self._size))
        if not chunk or (len(chunk) < self._size and self._drop_remainder):
            self._done = True
            raise StopIteration
        flat = [self._fn.flatten(element) for element in chunk]
        graph = _instances.graph_for(self._core)
        return graph.call_many_stacked(flat, self.parallel, self._stack), len(chunk)


def _assembler(fn, batch_dataset):
    """How the stacked outputs of ``fn``'s graph become one batch, or None where its outputs
    include something other than tensors and composites."""
    template = fn._concrete._output_template
    leaves = [template] if template is _TENSOR else _flatten_template(template)
    if not all(v is _TENSOR or isinstance(v, _CompositeSlot) for v in leaves):
        return None
    specs = _structure.flatten(batch_dataset._input.element_spec)
    batched = _structure.flatten(batch_dataset.element_spec)
    if len(specs) != len(leaves) or len(batched) != len(leaves):
        return None
    stack = []
    for v in leaves:
        stack.extend([True] if v is _TENSOR else [False] * v.count)

    def assemble(columns, rows):
        columns = iter(columns)
        values = []
        for component, (leaf, spec) in enumerate(zip(leaves, specs)):
            if leaf is _TENSOR:
                column = next(columns)
                if isinstance(column, list):
                    column = _copied_into_batch(column)
                values.append(column)
                continue
            parts = [next(columns) for _ in range(leaf.count)]
            # Each element's composite built as the unfused map builds it: by the output spec
            # where that describes it.
            own = spec if spec.is_compatible_with(leaf.spec) else leaf.spec
            items = [own._from_tensor_list([p[i] for p in parts]) for i in range(rows)]
            values.append(_composite.batch(spec, items, batched[component]))
        if template is _TENSOR:
            return values[0]
        from ferroflow import nest

        return nest.pack_sequence_as(template, values)

    assemble.stack = stack
    return assemble


def _flatten_template(template):
    from ferroflow import nest

    return nest.flatten(template)


def _copied_into_batch(column):
    """The batch of elements whose shapes differ, as TensorFlow's MapAndBatch kernel makes it:
    it allocates the batch from one element's shape and copies each element's values in,
    checking only their number. Elements of as many values as the first take its shape; any
    other count is its error. (TensorFlow allocates from whichever element finishes first;
    here that is the first in order, so the shapes its message names may be swapped.)"""
    from ferroflow.array_ops import reshape, stack
    from ferroflow.data._batching import _shape_text

    first = column[0].shape
    count = first.num_elements()
    for t in column:
        if t.shape.num_elements() != count:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {_shape_text(t.shape)}, [batch]: {_shape_text(first)}",
            )
    return stack([t if t.shape == first else reshape(t, first) for t in column])
