"""Grouping by a key: `group_by_window` (and `bucket_by_sequence_length` over it) and
`experimental.group_by_reducer` with its `Reducer`."""

import numpy as np

from ferroflow import dtypes as _dtypes
from ferroflow import errors
from ferroflow.array_ops import convert_to_tensor
from ferroflow.data import _calls, _structure
from ferroflow.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec

__all__ = ["GroupByReducerDataset", "GroupByWindowDataset", "Reducer", "bucket_by_sequence_length"]

_INT64_SCALAR = TensorSpec([], _dtypes.int64)


def _int64_scalar(value):
    return convert_to_tensor(value, dtype=_dtypes.int64)


def _int64_scalar_function(fn, arg_spec, what, kind):
    """``fn`` traced once, as TensorFlow traces `key_func` and `window_size_func`, its result
    converted to int64 as TensorFlow's wrapper converts it; ValueError when that is not a
    scalar."""
    from ferroflow.data._functional import trace_dataset_function

    def as_int64(*args):
        return _int64_scalar(fn(*args))

    traced = trace_dataset_function(as_int64, arg_spec, kind)
    spec = traced.output_spec
    if spec is not None and not _INT64_SCALAR.is_compatible_with(spec):
        raise ValueError(
            f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar tensor but its "
            f"return type is {spec}."
        )
    return traced


def _key(fn, element, what):
    key = _int64_scalar(fn(element))
    if key.shape.rank != 0:
        raise errors.InvalidArgumentError(None, None, f"`{what}` must return a scalar int64.")
    return int(key.numpy())


class GroupByWindowDataset(Dataset):
    """Elements gathered by key; a key's window is given to ``reduce_func`` (with the key)
    when it holds ``window_size_func(key)`` elements, and the leftovers, by increasing key,
    at the end of the input."""

    _repr_name = "_GroupByWindowDataset"

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        from ferroflow.data._specs import DatasetSpec

        if (window_size is not None and window_size_func) or not (
            window_size is not None or window_size_func
        ):
            raise ValueError(
                "Either the `window_size` argument or the `window_size_func` argument must be "
                "specified."
            )
        if window_size is not None:
            size = window_size

            def window_size_func(_):
                return _int64_scalar(size)

        self._input = input_dataset
        self._reduce_func = reduce_func
        self._window_size_func = _int64_scalar_function(
            window_size_func, _INT64_SCALAR, "window_size_func", "Dataset.group_by_window()"
        )
        self._key_func = _int64_scalar_function(
            key_func, input_dataset.element_spec, "key_func", "Dataset.group_by_window()"
        )
        self._spec = _calls.output_spec(
            reduce_func,
            (_INT64_SCALAR, DatasetSpec(input_dataset.element_spec)),
            lambda d: _returned(d).element_spec,
        )

    @property
    def element_spec(self):
        if self._spec is None:
            for element in self._elements():
                self._spec = _structure.spec_of(element)
                break
        return self._spec

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY

    def _window_size(self, key):
        size = _int64_scalar(self._window_size_func(_int64_scalar(key)))
        size = int(size.numpy())
        if size <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Window size must be greater than zero, but got {size}."
            )
        return size

    def _flush(self, key, elements):
        from ferroflow.data._nested import ListDataset

        window = ListDataset(elements, self._input.element_spec)
        return iter(_returned(self._reduce_func(_int64_scalar(key), window))._elements())

    def _elements(self):
        groups = {}
        sizes = {}
        for element in self._input._elements():
            key = _key(self._key_func, element, "key_func")
            if key not in sizes:
                sizes[key] = self._window_size(key)
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._flush(key, group)
        for key in sorted(groups):
            yield from self._flush(key, groups[key])


def _returned(value):
    if not isinstance(value, Dataset):
        raise TypeError(
            "Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` "
            f"object but its return type is {type(value)!r}."
        )
    return value


def bucket_by_sequence_length(
    dataset,
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes,
    padding_values,
    pad_to_bucket_boundary,
    no_padding,
    drop_remainder,
):
    """TensorFlow's `bucket_by_sequence_length`: `group_by_window` keyed by the bucket of
    each element's length, each window batched (padded unless ``no_padding``)."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(
            "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
            f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
            f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
        )
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(s) for s in bucket_batch_sizes]
    lower = [np.iinfo(np.int32).min, *boundaries]
    upper = [*boundaries, np.iinfo(np.int32).max]

    def bucket(*args):
        # Traced once, with ops: the first bucket whose bounds hold the length.
        import ferroflow as tf

        length = tf.convert_to_tensor(element_length_func(*args))
        inside = tf.logical_and(
            tf.less_equal(tf.constant(lower, length.dtype), length),
            tf.less(length, tf.constant(upper, length.dtype)),
        )
        return tf.reduce_min(tf.where(inside))

    def batches(bucket_id, window):
        bucket_id = int(bucket_id.numpy())
        size = sizes[bucket_id]
        if no_padding:
            return _unknown_batch(window.batch(size, drop_remainder=drop_remainder))
        filler = None
        if pad_to_bucket_boundary:
            if bucket_id >= len(sizes) - 1:
                # TensorFlow's assertion fails inside the reduce function: InternalError.
                raise errors.InternalError(
                    None,
                    None,
                    "When pad_to_bucket_boundary=True, elements must have length < "
                    "max(bucket_boundaries).",
                )
            filler = boundaries[bucket_id] - 1
        spec = window.element_spec
        shapes = padded_shapes
        if shapes is None:
            shapes = _structure.map_element(lambda s: s.shape, spec)
        fixed = [_filled_shape(TensorShape(s), filler) for s in _structure.flatten(shapes)]
        shapes = _structure.pack_as(spec, fixed)
        return _unknown_batch(
            window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)
        )

    return GroupByWindowDataset(
        dataset,
        bucket,
        batches,
        None,
        lambda bucket_id: _gather_size(sizes, bucket_id),
    )


def _gather_size(sizes, bucket_id):
    from ferroflow import array_ops

    return array_ops.gather(convert_to_tensor(sizes, dtype=_dtypes.int64), bucket_id)


def _unknown_batch(dataset):
    """``dataset`` with an unknown batch dimension in its spec: TensorFlow's bucket batch
    size is a tensor picked by the bucket id, unknown when its function is traced."""
    from ferroflow.data._sampling import PerElementDataset

    spec = _structure.batched_spec(_structure.unbatched_spec(dataset.element_spec))
    return PerElementDataset(dataset, lambda element: element, spec)


def _filled_shape(shape, filler):
    if shape.rank is None:
        return shape
    return TensorShape([filler if d is None else d for d in shape.as_list()])


class Reducer:
    """`tf.data.experimental.Reducer`: ``init_func(key)`` makes a key's first state,
    ``reduce_func(state, element)`` folds in an element, ``finalize_func(state)`` gives the
    output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


class GroupByReducerDataset(Dataset):
    """`experimental.group_by_reducer`: one output per key, in the order keys were first
    seen, made once the input is exhausted."""

    _repr_name = "_GroupByReducerDataset"

    def __init__(self, input_dataset, key_func, reducer):
        from ferroflow.data._functional import trace_dataset_function
        from ferroflow.data._scan import state_function

        kind = "tf.data.experimental.group_by_reducer()"
        self._input = input_dataset
        self._key_func = _int64_scalar_function(
            key_func, input_dataset.element_spec, "key_func", kind
        )
        # TensorFlow traces the three functions now, the reducer with the state relaxed.
        self._init_func = trace_dataset_function(reducer.init_func, _INT64_SCALAR, kind)
        self._spec = None
        self._reduce_func = self._finalize_func = None
        init_spec = self._init_func.output_spec
        if init_spec is not None:
            self._reduce_func, settled, _ = state_function(
                reducer.reduce_func,
                init_spec,
                input_dataset.element_spec,
                "reduce_func",
                False,
                kind,
            )
            if settled is not None:
                self._finalize_func = trace_dataset_function(reducer.finalize_func, settled, kind)
                self._spec = self._finalize_func.output_spec
        self._reducer = reducer

    @property
    def element_spec(self):
        if self._spec is None:
            for element in self._elements():
                self._spec = _structure.spec_of(element)
                break
        return self._spec

    def _cardinality(self):
        # As TensorFlow's, even for an empty input.
        return UNKNOWN_CARDINALITY

    def _elements(self):
        states = {}
        for element in self._input._elements():
            key = _key(self._key_func, element, "key_func")
            if key not in states:
                states[key] = _structure.normalize(self._init_func(_int64_scalar(key)))
            states[key] = _structure.normalize(self._reduce((states[key], element)))
        for state in states.values():
            yield _structure.normalize(self._finalize(state))

    # The traced reducer functions; called eagerly where the stand-in values did not suit
    # the initial state's function, so that the specs were not known to trace them.
    def _reduce(self, args):
        if self._reduce_func is not None:
            return self._reduce_func(args)
        return _calls.call(self._reducer.reduce_func, args)

    def _finalize(self, state):
        if self._finalize_func is not None:
            return self._finalize_func(state)
        return _calls.call(self._reducer.finalize_func, state)
