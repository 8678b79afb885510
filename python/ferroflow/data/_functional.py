"""`map` and `filter`: user functions traced once into graphs, as TensorFlow's `tf.data` traces
them, and run per element.

A function is traced when the transformation is made, with the input's element spec as its
signature (a tuple element unpacked into positional arguments, any other element, dicts and
namedtuples included, passed as one argument), on the CPU (TensorFlow's input pipelines run
on the host). Inside it `tf.executing_eagerly()` is False, Python side effects run once,
`x.shape` shows the spec's unknown dimensions as None, and stateful random ops draw new
numbers on every element. The graph then runs per element: one call at a time for a plain
`map`/`filter`, chunks of elements on Rust's thread pool without the GIL for
`map(num_parallel_calls=...)` (see `_parallel.py`).

Other transformations that take functions (`interleave`, `flat_map`, `scan`...) trace theirs
through `trace_dataset_function`.
"""

import os

from ferroflow import _core, errors, nest
from ferroflow.concrete_function import GraphTensor, _CompositeSlot, fill_template
from ferroflow.data import _composite, _instances, _structure
from ferroflow.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ferroflow.device_scope import device
from ferroflow.function import Function, _example_for
from ferroflow.tensor_spec import TensorSpec

__all__ = ["FilterDataset", "MapDataset", "TracedFunction", "trace_dataset_function"]

AUTOTUNE = -1


def call_on_element(fn, element):
    """TensorFlow's convention: a tuple element is passed as separate arguments."""
    return fn(*element) if type(element) is tuple else fn(element)


def trace_dataset_function(fn, element_spec, kind):
    """``fn`` traced once for elements of ``element_spec`` (a `TracedFunction`).

    ``kind`` names the transformation in messages (``"Dataset.map()"``). The trace happens
    now, as TensorFlow traces when the dataset is made: errors of the trace (a shape rule, a
    Python exception) are raised here. Call the result with an element
    (``traced(element)``) for the function's output as a dataset element (every leaf a tensor
    or composite value, a returned list a tuple), read ``traced.output_spec`` for its
    element spec, and run many elements with ``traced.run_many(elements, parallel)``.

    Where the trace fails because a ferroflow op inside needs a value that TensorFlow's graph
    computes only when it runs (`tf.pad` with paddings computed from the element's shape, as
    `tf.image.resize_with_pad` makes them), the result is an `EagerFunction`: the same
    interface, the function called eagerly per element (outputs equal to TensorFlow's for
    functions of their inputs; Python side effects run per element).
    """
    traced_for = getattr(fn, "traced_for", None)
    if traced_for is not None:
        # A function of a dataset built in a tf.function, traced once (data/_deferred.py).
        traced = traced_for(element_spec, kind)
        if traced is not None:
            return traced
        fn = fn.__wrapped__
    try:
        return TracedFunction(fn, element_spec, kind)
    except TypeError as e:
        if not _untraceable_here(e):
            raise
    except errors.InternalError as e:
        from ferroflow.data._deferred import unreachable_capture

        clear = unreachable_capture(e)
        if clear is None:
            raise
        raise clear from None
    # A ferroflow op inside needs a value TensorFlow's graph computes when it runs (a padding
    # or size from the element's shape, say): the function runs eagerly on each element.
    return EagerFunction(fn, element_spec, kind)


def _untraceable_here(error):
    """Whether a trace failed in ferroflow's own code asking for a symbolic tensor's value
    (TensorFlow traces that op), rather than in the user's (`int(x)`, which TensorFlow
    refuses too)."""
    if "needs the value of the symbolic tensor" not in str(error):
        return False
    tb, last = error.__traceback__, None
    while tb is not None:
        last, tb = tb.tb_frame.f_code.co_filename, tb.tb_next
    return last is not None and last.startswith(_PACKAGE_DIR)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _returned(out):
    """A function's return value as a dataset element; as in TensorFlow, a returned list is
    a tuple (more likely a list of results, a numpy_function's, than one tensor's rows; nested
    lists are still tensors)."""
    return _structure.normalize(tuple(out) if isinstance(out, list) else out)


def _cpu():
    """Dataset functions run on the host, as TensorFlow places them."""
    return device("/device:CPU:0")


class TracedFunction:
    """A dataset function traced for an element spec (see `trace_dataset_function`)."""

    def __init__(self, fn, element_spec, kind):
        if not callable(fn):
            raise TypeError(f"`{_argument_name(kind)}` must be callable, got {fn!r}.")
        from ferroflow import autograph

        converted = autograph.to_graph(fn)

        def dataset_function(element):
            out = call_on_element(converted, element)
            try:
                return _returned(out)
            except (TypeError, ValueError):
                raise TypeError(
                    f"Unsupported return value from function passed to {kind}: {out}."
                ) from None

        self.kind = kind
        self.element_spec = element_spec
        self._signature = (element_spec,)
        name = getattr(fn, "__name__", "function")
        self._function = Function(
            dataset_function,
            name=name if name != "<lambda>" else "lambda",
            input_signature=self._signature,
            autograph=False,
        )
        self._leaf_specs = _structure.flatten(element_spec)
        self._flat_specs = nest.flatten(self._signature, expand_composites=True)
        self._plain = all(isinstance(s, TensorSpec) for s in self._leaf_specs)
        self._unknown_rank = any(
            isinstance(s, TensorSpec) and s.shape.rank is None for s in self._leaf_specs
        )
        self._concretes = {}
        self._builders = {}
        with _cpu():
            traces = [
                self._trace_example(rank) for rank in ((1, 2) if self._unknown_rank else (0,))
            ]
        # With an input of unknown rank, ferroflow traces one graph per rank: the outputs'
        # spec is what the traces at ranks 1 and 2 agree on (a rank or size that follows the
        # input's becomes unknown), as TensorFlow's shape functions leave it.
        specs = [_output_spec(c) for c in traces]
        merged = specs[0]
        for other in specs[1:]:
            merged = _structure.merge_specs(merged, other, f"{kind} outputs")
        self.output_spec = merged
        self._concrete = traces[0]
        # The graph runs every element directly when nothing about an element can change it
        # (else each element finds its graph: per rank, or per size for a graph specialised
        # to the sizes it was traced at).
        self._direct = not self._unknown_rank and not self._concrete._core.specialised

    # --- tracing ------------------------------------------------------------------------------

    def _trace_example(self, rank):
        """The concrete function for an example element (unknown ranks as ``rank``)."""

        def example(spec):
            if isinstance(spec, TensorSpec) and spec.shape.rank is None:
                spec = TensorSpec([None] * rank, spec.dtype)
            return _example_for(spec, composites=True)

        element = nest.map_structure(example, self.element_spec)
        return self._concrete_of((element,), self.flatten(element))

    def _concrete_of(self, values, tensors):
        """The graph for these flat tensors: one per rank of the inputs of unknown rank, and,
        for a graph specialised to the sizes it was traced at, one per sizes."""
        key = tuple(
            len(t._dims) if isinstance(s, TensorSpec) and s.shape.rank is None else None
            for s, t in zip(self._flat_specs, tensors)
        )
        concrete = self._concretes.get(key)
        if concrete is not None and concrete._core.specialised:
            key = ("exact", tuple(tuple(t._dims) for t in tensors))
            concrete = self._concretes.get(key)
        if concrete is None:
            with _cpu():
                concrete = self._function._signature_concrete(None, values, tensors)
            self._concretes[key] = concrete
        return concrete

    # --- running ------------------------------------------------------------------------------

    def flatten(self, element):
        """The element's flat input tensors, in the signature's order (a composite by its
        spec's components: rows of a ragged dataset may be dense tensors)."""
        leaves = _structure.flatten(element)
        if self._plain:
            return [t if isinstance(t, _core.Tensor) else _structure.to_tensor(t) for t in leaves]
        flat = []
        for spec, leaf in zip(self._leaf_specs, leaves):
            if isinstance(spec, TensorSpec):
                flat.append(leaf if isinstance(leaf, _core.Tensor) else _structure.to_tensor(leaf))
            else:
                flat.extend(spec._to_tensor_list(leaf))
        return flat

    def flat_inputs(self, element):
        """(concrete function, flat input tensors) for one element."""
        flat = self.flatten(element)
        if self._direct:
            return self._concrete, flat
        return self._concrete_of((element,), flat), flat

    def __call__(self, element):
        """The function's output for ``element``, as a dataset element."""
        concrete, tensors = self.flat_inputs(element)
        return self.output(concrete, _instances.graph_for(concrete._core).call(tensors))

    def output(self, concrete, outputs):
        """The element the flat ``outputs`` of ``concrete`` make."""
        build = self._builders.get(id(concrete))
        if build is None:
            build = self._builders[id(concrete)] = self._output_builder(concrete)
        return build(outputs)

    def _output_builder(self, concrete):
        """How ``concrete``'s flat outputs become an element, worked out once per graph: the
        template filled in, each composite built once, by its output spec when that describes
        it (a composite has the static shape of the output spec, as TensorFlow's elements)."""
        template = concrete._output_template
        slots = [v for v in nest.flatten(template) if isinstance(v, _CompositeSlot)]
        if not slots:
            return lambda outputs: fill_template(template, outputs)
        leaves = [
            s for s in _structure.flatten(self.output_spec) if _composite.is_composite_spec(s)
        ]
        if len(leaves) != len(slots):
            return lambda outputs: self._output_by_value(template, outputs)
        spec_of_slot = {
            id(slot): spec if spec.is_compatible_with(slot.spec) else slot.spec
            for slot, spec in zip(slots, leaves)
        }

        def rebuild(slot, parts):
            return spec_of_slot[id(slot)]._from_tensor_list(parts)

        return lambda outputs: fill_template(template, outputs, rebuild)

    def _output_by_value(self, template, outputs):
        element = fill_template(template, outputs)
        return _structure.map_element(_composite.as_spec, element, self.output_spec)

    def run_many(self, elements, parallel):
        """The outputs for ``elements`` in order, each an element or the exception its run
        raised; on Rust's thread pool without the GIL when ``parallel``."""
        groups = {}
        prepared = []
        for element in elements:
            try:
                concrete, tensors = self.flat_inputs(element)
            except Exception as e:  # noqa: BLE001 - reported in the element's place
                prepared.append(e)
                continue
            groups.setdefault(id(concrete), (concrete, []))[1].append(len(prepared))
            prepared.append(tensors)
        results = list(prepared)
        for concrete, slots in groups.values():
            graph = _instances.graph_for(concrete._core)
            outs = graph.call_many([prepared[i] for i in slots], parallel)
            for i, out in zip(slots, outs):
                results[i] = out if isinstance(out, BaseException) else self.output(concrete, out)
        return results


class EagerFunction:
    """A dataset function ferroflow cannot trace yet (see `trace_dataset_function`), called
    eagerly on each element, with `TracedFunction`'s interface. Its output spec comes from
    calls on stand-in elements."""

    def __init__(self, fn, element_spec, kind):
        self.kind = kind
        self.element_spec = element_spec
        self._fn = fn
        try:
            self.output_spec = _spec_from_examples(self, element_spec)
        except Exception:  # noqa: BLE001 - the stand-ins do not suit it
            self.output_spec = None

    def _call(self, element):
        with _cpu():
            return _returned(call_on_element(self._fn, element))

    def __call__(self, element):
        out = self._call(element)
        if self.output_spec is None:
            self.output_spec = _structure.spec_of(out)
        if any(_structure.is_component(leaf) for leaf in _structure.flatten(out)):
            out = _structure.map_element(_composite.as_spec, out, self.output_spec)
        return out

    def run_many(self, elements, parallel):
        results = []
        for element in elements:
            try:
                results.append(self(element))
            except Exception as e:  # noqa: BLE001 - reported in the element's place
                results.append(e)
        return results


def _spec_from_examples(function, spec):
    """The spec of an eager function's outputs, from calls on two stand-in elements, of zeros
    and of ones (so sizes computed from values come out unknown); dimensions that change with
    the inputs' unknown ones (tried as 12 and 24, which most reshapes divide) are unknown."""
    from ferroflow import script_ops

    unknown = any(_composite.unknown_dims(s) for s in _structure.flatten(spec))
    examples = ((12, 0), (24, 1)) if unknown else ((1, 0), (1, 1))

    def probe(size, fill):
        element = _structure.map_element(lambda s: _composite.example(s, size, fill), spec)
        return _structure.spec_of(function._call(element))

    try:
        with script_ops.probing():
            specs = [probe(size, fill) for size, fill in examples]
    except script_ops.ProbeNeedsTrace:
        specs = [script_ops.traced(lambda s=size, f=fill: probe(s, f)) for size, fill in examples]
    merged = specs[0]
    for other in specs[1:]:
        merged = _structure.merge_specs(merged, other, f"{function.kind} outputs")
    return merged


def _scalar_bool(spec):
    return isinstance(spec, TensorSpec) and spec.dtype.name == "bool" and spec.shape.rank == 0


def _argument_name(kind):
    return "predicate" if "filter" in kind else "map_func"


def _output_spec(concrete):
    """The element spec of a traced function's outputs."""
    return nest.map_structure(
        lambda v: TensorSpec(v.shape, v.dtype) if isinstance(v, GraphTensor) else v,
        concrete.structured_outputs,
    )


def parallel_calls(value):
    """``num_parallel_calls`` as a thread count (None: sequential; AUTOTUNE: the cores)."""
    if value is None:
        return None
    if hasattr(value, "numpy"):
        from ferroflow import dtypes as _dtypes

        if value.dtype != _dtypes.int64:
            raise ValueError(
                "num_parallel_calls: Tensor conversion requested dtype int64 for Tensor with "
                f"dtype {value.dtype.name}: {value!r}"
            )
        value = int(value.numpy())
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")
    if value == AUTOTUNE:
        return os.cpu_count() or 1
    if value <= 0:
        raise errors.InvalidArgumentError(
            None, None, "num_parallel_calls must be greater than zero. [Op:ParallelMapDatasetV2]"
        )
    return value


class MapDataset(Dataset):
    """``map_func``'s outputs, one per input element (see the module docstring)."""

    _repr_name = "_MapDataset"

    def __init__(self, input_dataset, map_func, num_parallel_calls=None, deterministic=None):
        if not callable(map_func):
            raise TypeError(f"`map_func` must be callable, got {map_func!r}.")
        self._input = input_dataset
        self._threads = parallel_calls(num_parallel_calls)
        self._deterministic = deterministic
        if self._threads is not None:
            self._repr_name = "_ParallelMapDataset"
        self._fn = trace_dataset_function(map_func, input_dataset.element_spec, "Dataset.map()")

    @property
    def element_spec(self):
        if self._fn.output_spec is None:
            # An eager function the stand-ins did not suit: the first element says.
            next(iter(self._elements()))
        return self._fn.output_spec

    def _cardinality(self):
        return self._input._cardinality()

    def _elements(self):
        from ferroflow.data import _fusion, _parallel

        # Maps before this one may fuse with it into one graph (data/_fusion.py).
        fn, threads, source = _fusion.map_chain(self)
        if threads is None or _core.graph_tracing():
            # Inside a trace the graph runs on this thread, where the trace records it.
            return _parallel.SequentialMap(fn, source._elements())
        return _parallel.ParallelMap(fn, source._elements(), threads)


class FilterDataset(Dataset):
    """The elements for which ``predicate`` (traced once) returns True."""

    _repr_name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        if not callable(predicate):
            raise TypeError(f"`predicate` must be callable, got {predicate!r}.")
        self._input = input_dataset
        self._predicate = trace_dataset_function(
            predicate, input_dataset.element_spec, "Dataset.filter()"
        )
        spec = self._predicate.output_spec
        if spec is not None and not _scalar_bool(spec):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                f"but its return type is {spec!r}."
            )

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n in (INFINITE_CARDINALITY, 0) else UNKNOWN_CARDINALITY

    def _elements(self):
        from ferroflow.data import _parallel

        # An eager predicate (see `trace_dataset_function`) is checked on each element.
        check = isinstance(self._predicate, EagerFunction)
        return _parallel.Filtered(self._predicate, self._input._elements(), check)
