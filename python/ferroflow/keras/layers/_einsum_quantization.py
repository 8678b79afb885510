"""`EinsumDense`'s int8 form, as Keras 3 has it: an int8 ``kernel`` quantized by abs-max
over the kernel's contracted axes, with its ``kernel_scale`` laid out to broadcast against the
output (the contracted axes kept as size 1 where an output axis is missing, dropped where
none is). A call quantizes its inputs over their contracted axes, contracts in int32 and
divides by both scales; the inputs' gradient goes through the dequantized kernel.

``int4``: the kernel reshaped as it is to (contracted sizes, other sizes), quantized per
column (abs-max to [-8, 7]) or per group of ``block_size`` rows with a zero point, and
packed two values a byte along the columns; calls contract with the dequantized kernel.

``float8``: Dense's float8 training (`_dense_quantization.float8_matmul`) with the einsum."""

import math
import re
import string

import numpy as np

from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers._dense_quantization import (
    add_int4_weights,
    float8_build,
    set_quantized_policy,
)
from ferroflow.keras.layers._quantization import UnsupportedQuantizationError
from ferroflow.keras.quantizers import QuantizationConfig, get_block_size_for_layer

__all__ = ["build", "int4_einsum", "int4_float_kernel", "int8_einsum", "merged_kernel", "quantize"]


def _specs(equation, rank):
    """The input, kernel and output labels, an ellipsis given letters of its own."""
    text = equation.replace("...", "0")
    free = sorted(set(string.ascii_letters) - set(text))
    for pattern, leading in (
        ("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None),
        ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
        ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False),
    ):
        match = re.match(pattern, text)
        if match is None:
            continue
        inputs, kernel, outputs = match.groups()
        if leading is not None:
            elided = "".join(free[: rank - len(inputs)])
            if leading:
                inputs, outputs = elided + inputs, elided + outputs
            else:
                inputs, outputs = inputs + elided, outputs + elided
        return inputs, kernel, outputs
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], "
        "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
    )


def _layout(spec, outputs, position):
    """How an abs-max scale of the operand ``spec`` (its contracted axes kept as size 1)
    becomes broadcastable against ``outputs``: ``(reduced, transpose, expand, squeeze,
    position)``. ``position`` is where a contracted axis goes when no output axis is left
    to stand in for it: Keras reuses the last place it chose (first: where the kernel's
    last label sits in the output), and so does this."""
    reduced = [i for i, label in enumerate(spec) if label not in outputs]
    expand = [i for i, label in enumerate(outputs) if label not in spec]
    transpose = [spec.index(label) for label in outputs if label in spec]
    squeeze = []
    for axis in reduced:
        if expand:
            position = expand.pop(0)
        else:
            squeeze.append(axis)
        transpose.insert(position, axis)
    return reduced, transpose, expand, squeeze, position


def _set_info(layer):
    if hasattr(layer, "_input_reduced_axes"):
        return
    if "..." in layer.equation:
        # Keras 3.15 passes the input's rank where its shape is read, and fails so.
        raise TypeError(
            "object of type 'int' has no len() (Keras cannot quantize an EinsumDense whose "
            f"equation has an ellipsis: '{layer.equation}')"
        )
    inputs, kernel, outputs = _specs(layer.equation, layer.input_spec.ndim)
    position = outputs.find(kernel[-1])
    layer._input_layout = _layout(inputs, outputs, position)
    layer._kernel_layout = _layout(kernel, outputs, layer._input_layout[4])
    layer._input_reduced_axes = layer._input_layout[0]
    layer._kernel_reduced_axes = layer._kernel_layout[0]
    layer._custom_gradient_equation = f"{outputs},{kernel}->{inputs}"


def _for_outputs(scale, layout):
    _, transpose, expand, squeeze, _ = layout
    if transpose:
        scale = ops.transpose(scale, transpose)
    if expand:
        scale = ops.expand_dims(scale, axis=expand)
    if squeeze:
        scale = ops.squeeze(scale, axis=squeeze)
    return scale


def _for_kernel(scale, layout):
    _, transpose, expand, squeeze, _ = layout
    if squeeze:
        scale = ops.expand_dims(scale, axis=squeeze)
    if expand:
        scale = ops.squeeze(scale, axis=expand)
    if transpose:
        scale = ops.transpose(scale, axes=[int(i) for i in np.argsort(transpose)])
    return scale


def _scale_shape(kernel_shape, layout):
    reduced, transpose, expand, squeeze, _ = layout
    shape = np.array(kernel_shape)
    shape[reduced] = 1
    shape = shape[transpose].tolist()
    for axis in sorted(expand):
        shape.insert(axis, 1)
    for axis in sorted(squeeze, reverse=True):
        shape.pop(axis)
    return shape


def build(layer, kernel_shape, mode, config):
    """The variables of a quantized layer, before their values are known."""
    if mode == "float8":
        float8_build(layer)
        return
    if mode not in ("int8", "int4"):
        raise UnsupportedQuantizationError(
            f"ferroflow's Keras quantizes EinsumDense to int8, int4 and float8 only "
            f"(mode='{mode}')."
        )
    _set_info(layer)
    layer.quantization_axis = tuple(layer._input_reduced_axes)
    if mode == "int4":
        _int4_build(layer, tuple(kernel_shape), config)
        return
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, quantizers.AbsMaxQuantizer()
    )
    layer._kernel = layer.add_weight(
        name="kernel", shape=kernel_shape, initializer="zeros", dtype="int8", trainable=False
    )
    layer.kernel_scale = layer.add_weight(
        name="kernel_scale",
        shape=_scale_shape(kernel_shape, layer._kernel_layout),
        initializer="ones",
        trainable=False,
    )


def _flat_size(layer, kernel_shape):
    """Keras's int4 matrix: the kernel reshaped as it is to (contracted sizes, the rest)."""
    rows = int(np.prod([d for i, d in enumerate(kernel_shape) if i in layer._kernel_reduced_axes]))
    return rows, int(np.prod(kernel_shape)) // rows


def _int4_build(layer, kernel_shape, config):
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    layer.original_kernel_shape = kernel_shape
    rows, columns = _flat_size(layer, kernel_shape)
    block_size = get_block_size_for_layer(layer, config)
    grouped = block_size is not None and block_size != -1
    layer._int4_block_size = block_size if grouped else None
    layer._int4_unpacked_column_size = columns
    layer._int4_rows = rows
    scale_shape = (math.ceil(rows / block_size), columns) if grouped else (columns,)
    packed_shape = (rows, (columns + 1) // 2)
    add_int4_weights(
        layer, "kernel", packed_shape, scale_shape, block_size if grouped else None, rows
    )


def _int4_values(layer, float_kernel, block_size):
    """``(packed, scale, zero)`` of a float kernel, flattened as Keras flattens it."""
    flat = ops.reshape(float_kernel, (layer._int4_rows, layer._int4_unpacked_column_size))
    if block_size is None or block_size == -1:
        values, scale = quantizers.abs_max_quantize(
            flat, axis=0, value_range=(-8, 7), dtype="int8", to_numpy=True
        )
        scale, zero = ops.squeeze(scale, axis=0), None
    else:
        values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            flat, block_size=block_size, to_numpy=True
        )
    packed, _, _ = quantizers.pack_int4(values, axis=-1)
    return packed, scale, zero


def int4_float_kernel(layer, packed, scale, zero=None, g_idx=None):
    """The dequantized kernel of an int4 layer, in its original shape."""
    unpacked = quantizers.unpack_int4(packed, layer._int4_unpacked_column_size, axis=-1)
    if layer._int4_block_size is None:
        float_kernel = ops.divide(ops.cast(unpacked, layer.compute_dtype), scale)
    else:
        float_kernel = ops.cast(
            quantizers.dequantize_with_sz_map(unpacked, scale, zero, g_idx, group_axis=0),
            layer.compute_dtype,
        )
    return ops.reshape(float_kernel, layer.original_kernel_shape)


def quantize(layer, mode, config):
    """Quantizes a built float layer's kernel in place (Keras's `EinsumDense.quantize`)."""
    if mode == "float8":
        layer.quantization_config = config
        layer.quantized_build(tuple(layer._kernel.shape.as_list()), mode, config)
        set_quantized_policy(layer, mode, config)
        return
    if mode not in ("int8", "int4"):
        raise UnsupportedQuantizationError(
            f"ferroflow's Keras quantizes EinsumDense to int8, int4 and float8 only "
            f"(mode='{mode}')."
        )
    layer.quantization_config = config
    kernel_shape = tuple(layer._kernel.shape.as_list())
    _set_info(layer)
    zero = None
    if mode == "int8":
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=layer._kernel_reduced_axes)
        )
        values, scale = quantizer(layer._kernel, to_numpy=True)
        scale = _for_outputs(scale, layer._kernel_layout)
    else:
        layer._int4_rows, layer._int4_unpacked_column_size = _flat_size(layer, kernel_shape)
        block_size = getattr(config, "block_size", None)
        values, scale, zero = _int4_values(layer, layer._kernel, block_size)
    layer._untrack_weight(layer._kernel)
    del layer._kernel
    layer.quantized_build(kernel_shape, mode, config)
    layer._kernel.assign(values)
    layer.kernel_scale.assign(scale)
    if zero is not None:
        layer.kernel_zero.assign(zero)
    set_quantized_policy(layer, mode, config)


def _with_lora(layer, inputs, outputs):
    if not layer.lora_enabled:
        return outputs
    lora = ops.matmul(ops.einsum(layer.equation, inputs, layer.lora_kernel_a), layer.lora_kernel_b)
    outputs = ops.add(outputs, (layer.lora_alpha / layer.lora_rank) * lora)
    return ops.cast(outputs, layer.compute_dtype)


def int4_einsum(layer, inputs):
    """``einsum(equation, inputs, kernel)`` of an int4 layer (plus its LoRA term)."""
    grouped = layer._int4_block_size is not None
    extra = (layer.kernel_zero, layer.g_idx) if grouped else ()

    @ops.custom_gradient
    def contract(x, packed, scale, *zero_and_groups):
        float_kernel = int4_float_kernel(layer, packed, scale, *zero_and_groups)

        def grad_fn(upstream):
            grad = ops.einsum(layer._custom_gradient_equation, upstream, float_kernel)
            return (grad, None, None, *(None for _ in zero_and_groups))

        if not grouped and layer.inputs_quantizer:
            x, inputs_scale = layer.inputs_quantizer(x, axis=layer.quantization_axis)
            inputs_scale = _for_outputs(inputs_scale, layer._input_layout)
            y = ops.cast(ops.einsum(layer.equation, x, float_kernel), layer.compute_dtype)
            return ops.divide(y, inputs_scale), grad_fn
        return ops.einsum(layer.equation, x, float_kernel), grad_fn

    outputs = contract(
        inputs,
        ops.convert_to_tensor(layer._kernel),
        ops.convert_to_tensor(layer.kernel_scale),
        *(ops.convert_to_tensor(v) for v in extra),
    )
    return _with_lora(layer, inputs, outputs)


def int8_einsum(layer, inputs):
    """``einsum(equation, inputs, kernel)`` of an int8 layer (plus its LoRA term)."""

    @ops.custom_gradient
    def contract(x, kernel, kernel_scale):
        def grad_fn(upstream):
            float_kernel = ops.divide(
                ops.cast(kernel, layer.compute_dtype),
                _for_kernel(kernel_scale, layer._kernel_layout),
            )
            grad = ops.einsum(layer._custom_gradient_equation, upstream, float_kernel)
            return grad, None, None

        if layer.inputs_quantizer:
            x, inputs_scale = layer.inputs_quantizer(x, axis=layer.quantization_axis)
            inputs_scale = _for_outputs(inputs_scale, layer._input_layout)
            y = ops.cast(ops.einsum(layer.equation, x, kernel), layer.compute_dtype)
            return ops.divide(y, ops.multiply(inputs_scale, kernel_scale)), grad_fn
        y = ops.cast(ops.einsum(layer.equation, x, kernel), layer.compute_dtype)
        return ops.divide(y, kernel_scale), grad_fn

    outputs = contract(
        inputs, ops.convert_to_tensor(layer._kernel), ops.convert_to_tensor(layer.kernel_scale)
    )
    return _with_lora(layer, inputs, outputs)


def merged_kernel(layer):
    """``(kernel, scale, zero)`` as a quantized layer saves them: with LoRA, the dequantized
    kernel plus the delta, quantized again."""
    zero = getattr(layer, "kernel_zero", None)
    if not layer.lora_enabled:
        return layer._kernel, layer.kernel_scale, zero
    delta = (layer.lora_alpha / layer.lora_rank) * ops.matmul(
        layer.lora_kernel_a, layer.lora_kernel_b
    )
    if layer.quantization_mode == "int4":
        float_kernel = int4_float_kernel(
            layer, layer._kernel, layer.kernel_scale, zero, getattr(layer, "g_idx", None)
        )
        return _int4_values(layer, ops.add(float_kernel, delta), layer._int4_block_size)
    float_kernel = ops.divide(layer._kernel, _for_kernel(layer.kernel_scale, layer._kernel_layout))
    values, scale = quantizers.abs_max_quantize(
        ops.add(float_kernel, delta), axis=layer._kernel_reduced_axes, to_numpy=True
    )
    return values, _for_outputs(scale, layer._kernel_layout), None
