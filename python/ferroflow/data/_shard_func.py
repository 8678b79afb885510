"""`Dataset.save`'s ``shard_func``, as TensorFlow runs it: traced once for the element spec
when the save starts (its Python side effects run once, not per element), then run on each
element, whose shard is the one int64 the function returns. Anything else it returns (another
dtype, more than one value, several tensors, None) is InvalidArgumentError at the element, as
TensorFlow's save kernel checks; an empty dataset never runs it."""

from ferroflow import errors, nest

__all__ = ["shard_index_of", "trace_shard_func"]


def trace_shard_func(shard_func, element_spec, kind="save()", check_scalar=False):
    """``shard_func`` traced for elements of ``element_spec``: call the result with an element
    for its shard index (an int). ``kind`` names the transformation. With ``check_scalar``
    (`Dataset.snapshot()`'s), the trace must return a scalar int32 or int64, as TensorFlow's
    snapshot checks when the dataset is made (TypeError otherwise; an int32 then fails per
    element, as there)."""
    if not callable(shard_func):
        raise ValueError(
            f"Argument `func` must be a callable. Received func={shard_func} "
            f"(of type {type(shard_func)})"
        )
    from ferroflow.data._functional import trace_dataset_function

    def returning_nothing_for_none(*args):
        out = shard_func(*args)
        # TensorFlow's trace of a function returning None has no outputs.
        return () if out is None else out

    returning_nothing_for_none.__name__ = getattr(shard_func, "__name__", "shard_func")
    traced = trace_dataset_function(returning_nothing_for_none, element_spec, kind)
    if check_scalar:
        _check_snapshot_output(traced.output_spec)
    return lambda element: shard_index_of(traced(element))


def _check_snapshot_output(output_spec):
    from ferroflow import int32, int64
    from ferroflow.tensor_spec import TensorSpec

    if output_spec is None:
        # Traced eagerly per element (`EagerFunction`): the per-element check decides.
        return
    if isinstance(output_spec, (tuple, list, dict)):
        # TensorFlow's check calls the structure's `is_compatible_with`, which a tuple or
        # dict of specs lacks.
        raise AttributeError(
            f"'{type(output_spec).__name__}' object has no attribute 'is_compatible_with'"
        )
    if not any(
        isinstance(output_spec, TensorSpec) and output_spec.is_compatible_with(TensorSpec([], d))
        for d in (int32, int64)
    ):
        raise TypeError(
            "Invalid `shard_func`. `shard_func` must return `tf.int64` scalar tensor but its "
            f"return type is {output_spec}."
        )


def shard_index_of(result):
    """The shard index ``result`` (a shard function's output) names."""
    from ferroflow import int64

    leaves = nest.flatten(result, expand_composites=True)
    value = leaves[0] if len(leaves) == 1 else None
    if value is None or getattr(value, "dtype", None) != int64 or value.shape.num_elements() != 1:
        raise errors.InvalidArgumentError(None, None, "`shard_func` must return a scalar int64.")
    return int(value.numpy().reshape(-1)[0])
