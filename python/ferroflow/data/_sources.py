"""The datasets made from data: `from_tensor_slices`, `from_tensors` and `range`."""

import numpy as np

from ferroflow import _core, errors
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.data import _composite, _structure
from ferroflow.data.dataset import Dataset
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.type_spec import TypeSpec

__all__ = ["GeneratorDataset", "RangeDataset", "TensorDataset", "TensorSliceDataset"]


class TensorSliceDataset(Dataset):
    """The rows of in-memory tensors, kept as numpy arrays so that rows and batches of rows
    are slices."""

    _repr_name = "_TensorSliceDataset"

    def __init__(self, tensors):
        element = _structure.normalize(tensors)
        leaves = _structure.flatten(element)
        if not leaves:
            raise ValueError("Invalid `tensors` argument: the structure must contain a tensor.")
        batched = [_structure.spec_of(leaf) for leaf in leaves]
        # Composite components are split into their rows now (TensorFlow's batched encoding
        # fails here for specs that cannot be unbatched); tensors are sliced when read.
        self._rows = [
            None if isinstance(s, TensorSpec) else _composite.rows(s, leaf)
            for s, leaf in zip(batched, leaves)
        ]
        rows = None
        for leaf, s, split in zip(leaves, batched, self._rows):
            if split is None and leaf.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            for n in _composite.slice_dims(s):
                if rows is not None and n is not None and n != rows:
                    raise ValueError(f"Dimensions {rows} and {n} are not compatible")
                rows = n if rows is None else rows
        counts = {len(split) for split in self._rows if split is not None}
        counts |= {leaf.shape[0] for leaf, split in zip(leaves, self._rows) if split is None}
        if len(counts) > 1:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Input element must have the same batch size in each component: got sizes "
                f"{sorted(counts)}.",
            )
        self._structure = element
        self._arrays = [
            np.asarray(leaf) if split is None else None for leaf, split in zip(leaves, self._rows)
        ]
        self._dtypes = [getattr(leaf, "dtype", None) for leaf in leaves]
        self._row_specs = [_structure.unbatched_spec(s) for s in batched]
        self._spec = _structure.pack_as(element, self._row_specs)
        self._rows_count = counts.pop()

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._rows_count

    def _slice_source(self):
        return self

    def _indices(self):
        return range(self._rows_count)

    def _component(self, i, selection):
        """Component ``i`` of the rows ``selection`` (an index, a slice or an index array)."""
        split = self._rows[i]
        if split is None:
            return convert_to_tensor(self._arrays[i][selection], dtype=self._dtypes[i])
        if isinstance(selection, (int, np.integer)):
            return split[selection]
        chosen = np.arange(self._rows_count)[selection]
        row_spec = self._row_specs[i]
        return _composite.batch(
            row_spec, [split[j] for j in chosen], _structure.batched_spec(row_spec)
        )

    def _select(self, selection):
        """The element made of rows ``selection`` (an index, a slice or an index array)."""
        return _structure.pack_as(
            self._structure, [self._component(i, selection) for i in range(len(self._arrays))]
        )

    _row = _select


class TensorDataset(Dataset):
    """One element."""

    _repr_name = "_TensorDataset"

    def __init__(self, tensors):
        self._element = _structure.normalize(tensors)
        self._spec = _structure.spec_of(self._element)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return 1

    def _elements(self):
        return iter((self._element,))


def _range_bound(value, name):
    """A bound of `Dataset.range` as an int, converted as TensorFlow converts it to int64: a
    tensor of another dtype is ValueError, a Python float or string TypeError, a numpy value
    truncated. (A bound traced inside a tf.function defers the dataset: see `_deferred.py`.)"""
    from ferroflow._core import Tensor

    if isinstance(value, Tensor) and value.dtype != _dtypes.int64:
        raise ValueError(
            f"{name}: Tensor conversion requested dtype int64 for Tensor with dtype "
            f"{value.dtype.name}: {value!r}"
        )
    array = np.asarray(value)
    # As TensorFlow's conversion: Python floats and strings are refused, numpy values cast.
    if isinstance(value, (float, str, bytes)) or array.dtype.kind not in "biuf":
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")
    return int(array.astype(np.int64))


class RangeDataset(Dataset):
    """``start, start + step, ...`` below ``stop`` (above it for a negative step)."""

    _repr_name = "_RangeDataset"

    def __init__(self, *args, dtype=_dtypes.int64, name=None):
        if not 1 <= len(args) <= 3:
            raise ValueError(
                "Invalid `args`. The length of `args` should be between 1 and 3 but was "
                f"{len(args)}."
            )
        names = {1: ["stop"], 2: ["start", "stop"], 3: ["start", "stop", "step"]}[len(args)]
        bounds = [_range_bound(a, n) for a, n in zip(args, names)]
        if len(bounds) == 1:
            bounds = [0, bounds[0]]
        if len(bounds) == 2:
            bounds.append(1)
        if bounds[2] == 0:
            raise ValueError("step must be a non zero integer.")
        self._range = range(*bounds)
        self._dtype = _dtypes.as_dtype(dtype)
        self._spec = TensorSpec([], self._dtype)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return len(self._range)

    def _elements(self):
        dtype = self._dtype
        return (constant(i, dtype=dtype) for i in self._range)


def _generator_error(error):
    """What an exception raised while producing a generator's element becomes, as
    TensorFlow's `py_func` maps it."""
    message = f"{type(error).__name__}: {error}"
    if isinstance(error, (TypeError, ValueError)):
        return errors.InvalidArgumentError(None, None, message)
    if isinstance(error, MemoryError):
        return errors.ResourceExhaustedError(None, None, message)
    if isinstance(error, NotImplementedError):
        return errors.UnimplementedError(None, None, message)
    return errors.UnknownError(None, None, message)


class GeneratorDataset(Dataset):
    """`from_generator`: the elements a Python generator yields, checked against (and rebuilt
    by) the output signature; a fresh generator per iteration."""

    _repr_name = "_FlatMapDataset"

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None:
                raise TypeError(
                    "The `output_types` argument can not be used together with the "
                    "`output_signature` argument."
                )
            if output_shapes is not None:
                raise TypeError(
                    "The `output_shapes` argument can not be used together with the "
                    "`output_signature` argument."
                )
            for spec in _structure.flatten(output_signature):
                if not isinstance(spec, TypeSpec):
                    raise TypeError(
                        "`output_signature` must contain objects that are subclass of "
                        f"`tf.TypeSpec` but found {type(spec)} which is not."
                    )
            self._legacy = False
            self._spec = output_signature
        else:
            if output_types is None:
                raise TypeError(
                    "To specify the output signature you need to provide either the "
                    "`output_signature` argument or the `output_types` argument."
                )
            types = _structure.map_element(_dtypes.as_dtype, output_types)
            if output_shapes is None:
                shapes = _structure.map_element(lambda _: TensorShape(None), types)
            else:
                shapes = _structure.pack_as(
                    types, [TensorShape(s) for s in _up_to(types, output_shapes)]
                )
            self._legacy = True
            self._spec = _structure.map_element(lambda t, s: TensorSpec(s, t), types, shapes)
        self._generator = generator
        self._args = tuple(convert_to_tensor(a) for a in (args or ()))

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        from ferroflow.data.dataset import UNKNOWN_CARDINALITY

        return UNKNOWN_CARDINALITY

    def _elements(self):
        args = [a.numpy() for a in self._args]
        iterator = iter(self._generator(*args))
        while True:
            try:
                values = next(iterator)
            except StopIteration:
                return
            except Exception as error:  # noqa: BLE001 - py_func's mapping of the class
                raise _generator_error(error) from error
            try:
                element = self._legacy_element(values) if self._legacy else self._element(values)
            except (TypeError, ValueError) as error:
                raise _generator_error(error) from error
            yield element

    def _legacy_element(self, values):
        spec = self._spec
        try:
            flat = _up_to(spec, values)
        except (TypeError, ValueError) as e:
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. The "
                f"expected structure was {_structure.map_element(lambda s: s.dtype, spec)}, but "
                f"the yielded element was {values}."
            ) from e
        out = []
        for value, s in zip(flat, _structure.flatten(spec)):
            try:
                array = np.asarray(
                    value.numpy() if hasattr(value, "numpy") else value,
                    dtype=object if s.dtype == _dtypes.string else s.dtype.as_numpy_dtype,
                )
            except (TypeError, ValueError) as e:
                raise TypeError(
                    "`generator` yielded an element that could not be converted to the expected "
                    f"type. The expected type was {s.dtype.name}, but the yielded element was "
                    f"{value}."
                ) from e
            if not s.shape.is_compatible_with(TensorShape(array.shape)):
                raise TypeError(
                    f"`generator` yielded an element of shape {array.shape} where an element of "
                    f"shape {s.shape} was expected."
                )
            out.append(convert_to_tensor(array, dtype=s.dtype))
        return _structure.pack_as(spec, out)

    def _element(self, values):
        spec = self._spec
        try:
            flat = _up_to(spec, values)
            normalized = [
                _normalize_to(v, s, i)
                for i, (v, s) in enumerate(zip(flat, _structure.flatten(spec)))
            ]
        except (TypeError, ValueError) as e:
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. The "
                f"expected structure was {spec}, but the yielded element was {values}."
            ) from e
        got = [_structure.spec_of(v) for v in normalized]
        wanted = _structure.flatten(spec)
        if not all(
            w.is_compatible_with(g) and g.is_compatible_with(w) for w, g in zip(wanted, got)
        ):
            raise TypeError(
                f"`generator` yielded an element of {_structure.pack_as(spec, got)} where an "
                f"element of {spec} was expected."
            )
        return _structure.pack_as(spec, [_rebuilt(v, s) for v, s in zip(normalized, wanted)])


def _up_to(structure, value):
    """``value``'s parts at the leaves of ``structure`` (tf.nest's `flatten_up_to`)."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(structure):
            raise TypeError(f"expected a dict with keys {sorted(structure)}, got {value!r}")
        return [x for k in sorted(structure) for x in _up_to(structure[k], value[k])]
    if isinstance(structure, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError(f"expected a sequence of {len(structure)} items, got {value!r}")
        return [x for s, v in zip(structure, value) for x in _up_to(s, v)]
    return [value]


def _normalize_to(value, spec, index):
    """A generator's component as `tf.data` normalizes it for its spec."""
    from ferroflow.ragged.ragged_tensor import convert_to_tensor_or_ragged_tensor
    from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
    from ferroflow.sparse_tensor import SparseTensor, SparseTensorSpec
    from ferroflow.tensor_array_ops import TensorArraySpec
    from ferroflow.type_spec import CompositeTensor, NoneTensorSpec

    if isinstance(spec, SparseTensorSpec):
        return SparseTensor.from_value(value)
    if isinstance(spec, RaggedTensorSpec):
        return convert_to_tensor_or_ragged_tensor(value)
    if isinstance(spec, (TensorArraySpec, NoneTensorSpec)) or isinstance(value, CompositeTensor):
        return value
    return convert_to_tensor(value, dtype=getattr(spec, "dtype", None))


def _rebuilt(value, spec):
    """``value`` as its signature spec rebuilds it (composites get the spec's static shape)."""
    if isinstance(spec, TensorSpec):
        return value
    if isinstance(value, _core.Tensor) and not hasattr(spec, "_to_components"):
        return value
    try:
        return spec._from_components(spec._to_components(value))
    except (TypeError, ValueError):
        return value
