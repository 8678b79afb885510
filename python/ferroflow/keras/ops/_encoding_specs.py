"""The functional outputs Keras 3's `MultiHot` and `Bincount` operations state for
`KerasTensor` inputs (their `compute_output_spec`), where running the op cannot tell: a
multi-hot output keeps its input's dtype, a bincount's last dimension is unknown, and either
is sparse when asked (or, for bincount, when its input is)."""

__all__ = ["OUTPUT_SPECS"]


def _keras_tensor(shape, dtype, sparse):
    from ferroflow.keras.layers.input_layer import KerasTensor

    return KerasTensor(tuple(shape), dtype=dtype, sparse=bool(sparse))


def _multi_hot_spec(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if num_classes is None:
        raise ValueError("Argument `num_classes` must be specified.")
    shape = list(inputs.shape)
    if axis == -1:
        shape.append(num_classes)
    elif 0 <= axis < len(shape):
        shape.insert(axis, num_classes)
    else:
        raise ValueError(
            f"axis must be -1 or between [0, {len(inputs.shape)}), but received {axis}."
        )
    # The reduced axis: the only one of a vector's one-hot matrix, else axis 1.
    shape = [shape[-1]] if len(shape) == 2 else [shape[0]] + shape[2:]
    return _keras_tensor(shape, inputs.dtype, sparse)


def _bincount_spec(x, weights=None, minlength=0, sparse=False):
    from ferroflow.keras.ops._dtypes import result_type

    dtype = "int32" if weights is None else result_type(x.dtype, _dtype_of(weights))
    sparse = getattr(x, "sparse", False) or sparse
    return _keras_tensor(list(x.shape[:-1]) + [None], dtype, sparse)


def _dtype_of(value):
    if hasattr(value, "dtype"):
        return value.dtype
    from ferroflow.keras.ops.core import convert_to_tensor

    return convert_to_tensor(value).dtype


# keras.ops name -> its `compute_output_spec(*call_args, **call_kwargs)`.
OUTPUT_SPECS = {"bincount": _bincount_spec, "multi_hot": _multi_hot_spec}
