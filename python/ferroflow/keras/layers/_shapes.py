"""Shape arithmetic shared by the reshaping, convolution and pooling layers, with Keras 3's
argument checks and error messages."""

import math

import numpy as np

__all__ = [
    "conv_output_shape",
    "dims_of",
    "pooling_output_shape",
    "positive_int",
    "reshape_output_shape",
    "standardize_data_format",
    "standardize_padding",
    "standardize_tuple",
    "spatial_pairs",
    "validate_reshape_shape",
]


def standardize_tuple(value, n, name, allow_zero=False):
    """``value`` (an int or ``n`` ints) as a tuple of ``n`` positive ints (non-negative with
    ``allow_zero``)."""
    error_msg = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        value_tuple = (value,) * n
    else:
        try:
            value_tuple = tuple(value)
        except TypeError:
            raise ValueError(error_msg) from None
        if len(value_tuple) != n:
            raise ValueError(error_msg)
        for single_value in value_tuple:
            try:
                int(single_value)
            except (ValueError, TypeError):
                raise ValueError(
                    f"{error_msg}including element {single_value} of type {type(single_value)}"
                ) from None
    if allow_zero:
        unqualified = {v for v in value_tuple if v < 0}
        req_msg = ">= 0"
    else:
        unqualified = {v for v in value_tuple if v <= 0}
        req_msg = "> 0"
    if unqualified:
        raise ValueError(
            f"{error_msg}, including values {unqualified} that do not satisfy `value {req_msg}`"
        )
    return tuple(int(v) for v in value_tuple)


_ORDINALS = ("1st", "2nd", "3rd")


def positive_int(value, name):
    """``value`` if it is a positive int (not a bool): TypeError or ValueError otherwise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Expected an integer value for `{name}`, got {type(value)}.")
    if value <= 0:
        raise ValueError(
            f"Argument `{name}` should be a positive integer. Received: {name}={value}"
        )
    return value


def spatial_pairs(value, rank, name):
    """``value`` (ZeroPadding's ``padding``, Cropping's ``cropping``) as ``rank`` (before,
    after) pairs, checked as Keras 3 checks it: an int, one int per axis, or a pair per axis."""
    if rank == 1:
        return (standardize_tuple(value, 2, name, allow_zero=True),)
    if isinstance(value, int):
        if name == "cropping" and value < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={value}.")
        return ((value, value),) * rank
    if not hasattr(value, "__len__"):
        raise ValueError(
            f"`{name}` should be either an int, a tuple of {rank} ints, or a tuple of "
            f"{rank} tuples of 2 ints. Received: {name}={value}."
        )
    if len(value) != rank:
        if rank == 2:
            raise ValueError(f"`{name}` should have two elements. Received: {name}={value}.")
        raise ValueError(f"`{name}` should have {rank} elements. Received: {value}.")
    return tuple(
        standardize_tuple(v, 2, f"{_ORDINALS[i]} entry of {name}", allow_zero=True)
        for i, v in enumerate(value)
    )


def standardize_padding(value, allow_causal=False):
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    padding = str(value).lower()
    if padding not in allowed:
        raise ValueError(
            f"The `padding` argument must be a list/tuple or one of {allowed}. Received: {padding}"
        )
    return padding


def standardize_data_format(data_format):
    """None means Keras's default image data format (`keras.backend.image_data_format`)."""
    if data_format is None:
        from ferroflow.keras._backend_config import image_data_format

        return image_data_format()
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
            f"Received: data_format={data_format}"
        )
    return data_format


def validate_reshape_shape(new_shape, arg_name):
    if any(isinstance(d, int) and d < -1 for d in new_shape):
        raise ValueError(
            f"Each dimension in `{arg_name}` must be a non-negative integer, or `-1` for a "
            f"single unknown dimension. Received: {arg_name}={new_shape}."
        )
    if list(new_shape).count(-1) > 1:
        raise ValueError(
            f"There must be at most one unknown dimension (-1) in `{arg_name}`. Received: "
            f"{arg_name}={new_shape}."
        )


def reshape_output_shape(input_shape, new_shape, arg_name):
    """``new_shape`` with its -1 resolved against ``input_shape`` (None when unknowable)."""
    validate_reshape_shape(new_shape, arg_name)
    if None in input_shape or None in new_shape:
        return tuple(None if d == -1 else d for d in new_shape)
    input_size = math.prod(input_shape)
    if -1 not in new_shape:
        if input_size != math.prod(new_shape):
            raise ValueError(
                "The total size of the tensor must be unchanged. Received: "
                f"input_shape={tuple(input_shape)}, {arg_name}={new_shape}"
            )
        return tuple(new_shape)
    known = math.prod(d for d in new_shape if d != -1)
    if known == 0 or input_size % known != 0:
        raise ValueError(
            "The total size of the tensor must be unchanged, however, the input size cannot "
            f"by divided by the specified dimensions in {arg_name}. Received: "
            f"input_shape={tuple(input_shape)}, {arg_name}={new_shape}"
        )
    return tuple(input_size // known if d == -1 else d for d in new_shape)


def _assemble(input_shape, spatial, channels, data_format):
    if data_format == "channels_last":
        return (input_shape[0], *spatial, channels)
    return (input_shape[0], channels, *spatial)


def _spatial(input_shape, data_format):
    return tuple(input_shape[1:-1] if data_format == "channels_last" else input_shape[2:])


def conv_output_shape(
    input_shape, filters, kernel_size, strides, padding, data_format, dilation_rate
):
    """The output shape of a convolution; ValueError when it would be empty."""
    spatial = _spatial(input_shape, data_format)
    channels = input_shape[-1] if data_format == "channels_last" else input_shape[1]
    kernel_shape = (*kernel_size, channels, filters)
    if len(kernel_shape) != len(input_shape):
        raise ValueError(
            "Kernel shape must have the same length as input, but received kernel of shape "
            f"{kernel_shape} and input of shape {tuple(input_shape)}."
        )
    out = []
    for size, k, s, d in zip(spatial, kernel_size, strides, dilation_rate):
        if size is None:
            out.append(None)
        elif padding == "valid":
            n = (size - d * (k - 1) - 1) // s + 1
            if n <= 0:
                raise ValueError(
                    "Computed output size would be zero or negative. Received "
                    f"`inputs shape={tuple(input_shape)}`, `kernel shape={kernel_shape}`, "
                    f"`dilation_rate={np.array(dilation_rate)}`, `strides={strides}`, "
                    f"`padding={padding}`."
                )
            out.append(n)
        else:
            out.append((size - 1) // s + 1)
    return _assemble(input_shape, out, filters, data_format)


def pooling_output_shape(input_shape, pool_size, strides, padding, data_format):
    """The output shape of a pooling; ValueError when it would be empty."""
    spatial = _spatial(input_shape, data_format)
    channels = input_shape[-1] if data_format == "channels_last" else input_shape[1]
    out = []
    for size, p, s in zip(spatial, pool_size, strides):
        if size is None:
            out.append(None)
        elif padding == "valid":
            n = (size - p) // s + 1
            if n <= 0:
                raise ValueError(
                    "Computed output size would be zero or negative. Received: "
                    f"`inputs.shape={np.array(input_shape)}`, `pool_size={np.array(pool_size)}`, "
                    f"`strides={strides}`, `padding={padding}`."
                )
            out.append(n)
        elif padding == "same":
            out.append((size - 1) // s + 1)
        else:
            raise ValueError(
                f"Argument `padding` must be either 'valid' or 'same'. Received: padding={padding}"
            )
    return _assemble(input_shape, out, channels, data_format)


def dims_of(x):
    """A tensor's dimensions: ints where known while tracing, scalar tensors elsewhere."""
    from ferroflow.array_ops import shape

    static = x.shape.as_list()
    if None not in static:
        return static
    dynamic = shape(x)
    return [d if d is not None else dynamic[i] for i, d in enumerate(static)]
