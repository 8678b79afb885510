"""`Dataset.save`'s ``shard_func``, as TensorFlow runs it: traced once for the element spec
when the save starts (its Python side effects run once, not per element), then run on each
element, whose shard is the one int64 the function returns. Anything else it returns (another
dtype, more than one value, several tensors, None) is InvalidArgumentError at the element, as
TensorFlow's save kernel checks; an empty dataset never runs it."""

from ferroflow import errors, nest

__all__ = ["shard_index_of", "trace_shard_func"]


def trace_shard_func(shard_func, element_spec):
    """``shard_func`` traced for elements of ``element_spec``: call the result with an element
    for its shard index (an int)."""
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
    traced = trace_dataset_function(returning_nothing_for_none, element_spec, "save()")
    return lambda element: shard_index_of(traced(element))


def shard_index_of(result):
    """The shard index ``result`` (a shard function's output) names."""
    from ferroflow import int64

    leaves = nest.flatten(result, expand_composites=True)
    value = leaves[0] if len(leaves) == 1 else None
    if value is None or getattr(value, "dtype", None) != int64 or value.shape.num_elements() != 1:
        raise errors.InvalidArgumentError(None, None, "`shard_func` must return a scalar int64.")
    return int(value.numpy().reshape(-1)[0])
