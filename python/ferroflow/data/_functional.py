"""`map` and `filter`: user functions called on each element."""

from ferroflow import dtypes as _dtypes
from ferroflow.data import _composite, _structure
from ferroflow.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

__all__ = ["FilterDataset", "MapDataset"]


def call_on_element(fn, element):
    """TensorFlow's convention: a tuple element is passed as separate arguments."""
    return fn(*element) if type(element) is tuple else fn(element)


def _example(spec, size, fill):
    """An element of ``spec``, unknown dimensions ``size`` long, every entry ``fill``."""
    return _structure.map_element(lambda s: _composite.example(s, size, fill), spec)


def _spec_from_examples(fn, spec):
    """The spec of ``fn``'s outputs, from calls on two stand-in elements, of zeros and of ones
    (so sizes computed from values, `x[: x[0] + 1]`, come out unknown as in TensorFlow's
    trace); dimensions that change with the inputs' unknown ones (tried as 12 and 24, which
    most reshapes divide) are unknown too."""
    from ferroflow import script_ops

    leaves = _structure.flatten(spec)
    unknown = any(_composite.unknown_dims(s) for s in leaves)
    examples = ((12, 0), (24, 1)) if unknown else ((1, 0), (1, 1))

    def probe(size, fill):
        out = call_on_element(fn, _example(spec, size, fill))
        return _structure.spec_of(_structure.normalize(out))

    try:
        with script_ops.probing():
            specs = [probe(size, fill) for size, fill in examples]
    except script_ops.ProbeNeedsTrace:
        # A py_function inside: TensorFlow never calls it to learn the spec, so the probes run
        # in a discarded trace, where it is staged and its results have unknown shapes.
        specs = [script_ops.traced(lambda s=size, f=fill: probe(s, f)) for size, fill in examples]
    merged = specs[0]
    for other in specs[1:]:
        merged = _structure.merge_specs(merged, other, "map outputs")
    return merged


class MapDataset(Dataset):
    _repr_name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        if not callable(map_func):
            raise TypeError(f"`map_func` must be callable, got {map_func!r}.")
        self._input = input_dataset
        self._fn = map_func
        self._spec = None

    @property
    def element_spec(self):
        if self._spec is None:
            try:
                self._spec = _spec_from_examples(self._fn, self._input.element_spec)
            except Exception:
                # The function cannot run on stand-in zeros: the first element says.
                self._spec = _structure.spec_of(next(iter(self._results())))
        return self._spec

    def _cardinality(self):
        return self._input._cardinality()

    def _results(self):
        fn = self._fn
        return (
            _structure.normalize(call_on_element(fn, element))
            for element in self._input._elements()
        )

    def _elements(self):
        # TensorFlow's elements come out of the traced function: a composite has the static
        # shape of the element spec (a RaggedTensor's uniform row lengths only where the spec
        # knows them). The spec is worked out only when a composite comes out.
        for element in self._results():
            if any(_structure.is_component(leaf) for leaf in _structure.flatten(element)):
                element = _structure.map_element(_composite.as_spec, element, self.element_spec)
            yield element


class FilterDataset(Dataset):
    _repr_name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        if not callable(predicate):
            raise TypeError(f"`predicate` must be callable, got {predicate!r}.")
        self._input = input_dataset
        self._predicate = predicate

    @property
    def element_spec(self):
        return self._input.element_spec

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n in (INFINITE_CARDINALITY, 0) else UNKNOWN_CARDINALITY

    def _elements(self):
        for element in self._input._elements():
            keep = _structure.to_tensor(call_on_element(self._predicate, element))
            if keep.dtype != _dtypes.bool or keep.shape.rank != 0:
                raise ValueError(
                    "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                    f"but its return type is {keep.dtype.name} of shape {keep.shape}."
                )
            if bool(keep):
                yield element
