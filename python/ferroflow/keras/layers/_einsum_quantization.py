"""`EinsumDense`'s int8 form, as Keras 3 has it: an int8 ``kernel`` quantized by abs-max
over the kernel's contracted axes, with its ``kernel_scale`` laid out to broadcast against the
output (the contracted axes kept as size 1 where an output axis is missing, dropped where
none is). A call quantizes its inputs over their contracted axes, contracts in int32 and
divides by both scales; the inputs' gradient goes through the dequantized kernel. (Keras's
int4 EinsumDense is not here: `quantize("int4")` raises.)"""

import re
import string

import numpy as np

from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers._dense_quantization import set_quantized_policy
from ferroflow.keras.layers._quantization import UnsupportedQuantizationError
from ferroflow.keras.quantizers import QuantizationConfig

__all__ = ["build", "int8_einsum", "merged_kernel", "quantize"]


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
    if mode != "int8":
        raise UnsupportedQuantizationError(
            f"ferroflow's Keras quantizes EinsumDense to int8 only (mode='{mode}')."
        )
    _set_info(layer)
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, quantizers.AbsMaxQuantizer()
    )
    layer.quantization_axis = tuple(layer._input_reduced_axes)
    layer._kernel = layer.add_weight(
        name="kernel", shape=kernel_shape, initializer="zeros", dtype="int8", trainable=False
    )
    layer.kernel_scale = layer.add_weight(
        name="kernel_scale",
        shape=_scale_shape(kernel_shape, layer._kernel_layout),
        initializer="ones",
        trainable=False,
    )


def quantize(layer, mode, config):
    """Quantizes a built float layer's kernel in place (Keras's `EinsumDense.quantize`)."""
    if mode != "int8":
        raise UnsupportedQuantizationError(
            f"ferroflow's Keras quantizes EinsumDense to int8 only (mode='{mode}')."
        )
    layer.quantization_config = config
    kernel_shape = tuple(layer._kernel.shape.as_list())
    _set_info(layer)
    quantizer = QuantizationConfig.weight_quantizer_or_default(
        config, quantizers.AbsMaxQuantizer(axis=layer._kernel_reduced_axes)
    )
    values, scale = quantizer(layer._kernel, to_numpy=True)
    scale = _for_outputs(scale, layer._kernel_layout)
    layer._untrack_weight(layer._kernel)
    del layer._kernel
    layer.quantized_build(kernel_shape, mode, config)
    layer._kernel.assign(values)
    layer.kernel_scale.assign(scale)
    set_quantized_policy(layer, mode, config)


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
    if layer.lora_enabled:
        lora = ops.matmul(
            ops.einsum(layer.equation, inputs, layer.lora_kernel_a), layer.lora_kernel_b
        )
        outputs = ops.add(outputs, (layer.lora_alpha / layer.lora_rank) * lora)
        outputs = ops.cast(outputs, layer.compute_dtype)
    return outputs


def merged_kernel(layer):
    """``(kernel, scale, None)`` as an int8 layer saves them: with LoRA, the dequantized
    kernel plus the delta, quantized again."""
    if not layer.lora_enabled:
        return layer._kernel, layer.kernel_scale, None
    float_kernel = ops.divide(layer._kernel, _for_kernel(layer.kernel_scale, layer._kernel_layout))
    merged = ops.add(
        float_kernel,
        (layer.lora_alpha / layer.lora_rank) * ops.matmul(layer.lora_kernel_a, layer.lora_kernel_b),
    )
    values, scale = quantizers.abs_max_quantize(
        merged, axis=layer._kernel_reduced_axes, to_numpy=True
    )
    return values, _for_outputs(scale, layer._kernel_layout), None
