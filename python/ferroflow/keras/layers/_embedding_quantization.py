"""`Embedding`'s quantized forms, as Keras 3 has them: ``int8`` embeddings with one float
scale per row (abs-max along the output axis), or ``int4`` values packed two a byte along
the output axis with one scale per row (``block_size`` None or -1) or per group of
``block_size`` columns with a zero point (``embeddings_zero``, ``g_idx``). A lookup gathers
the rows and their scales and dequantizes them; LoRA adds ``a[ids] @ b`` scaled by
``alpha / rank``."""

import math

from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers._dense_quantization import add_int4_weights, set_quantized_policy
from ferroflow.keras.quantizers import QuantizationConfig, get_block_size_for_layer

__all__ = ["build", "lookup", "merged_embeddings", "quantize"]


def build(layer, shape, mode, config):
    """The variables of a quantized layer, before their values are known."""
    input_dim, output_dim = shape
    if mode == "int8":
        layer._embeddings = layer.add_weight(
            name="embeddings", shape=shape, initializer="zeros", dtype="int8", trainable=False
        )
        layer.embeddings_scale = layer.add_weight(
            name="embeddings_scale", shape=(input_dim,), initializer="ones", trainable=False
        )
        return
    if mode != "int4":
        raise layer._quantization_mode_error(mode)
    block_size = get_block_size_for_layer(layer, config)
    layer._int4_block_size = block_size
    grouped = block_size is not None and block_size > 0
    scale_shape = (input_dim, math.ceil(output_dim / block_size)) if grouped else (input_dim,)
    packed_shape = (input_dim, (output_dim + 1) // 2)
    add_int4_weights(layer, "embeddings", packed_shape, scale_shape, block_size, output_dim)
    layer._orig_output_dim = output_dim


def _grouped(layer):
    block_size = getattr(layer, "_int4_block_size", None)
    return block_size is not None and block_size != -1


def _quantized(matrix, mode, block_size):
    """``(values, scale, zero)`` of a float matrix, per row or per column group."""
    if mode == "int8" or block_size is None or block_size == -1:
        value_range = (-127, 127) if mode == "int8" else (-8, 7)
        values, scale = quantizers.abs_max_quantize(
            matrix, axis=-1, value_range=value_range, dtype="int8", to_numpy=True
        )
        return values, ops.squeeze(scale, axis=-1), None
    values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
        ops.transpose(matrix), block_size=block_size, value_range=(-8, 7), to_numpy=True
    )
    return ops.transpose(values), ops.transpose(scale), ops.transpose(zero)


def quantize(layer, mode, config):
    """Quantizes a built float layer's embeddings in place (Keras's `Embedding.quantize`)."""
    layer.quantization_config = config
    shape = (layer.input_dim, layer.output_dim)
    if mode == "int8":
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=-1)
        )
        values, scale = quantizer(layer._embeddings, to_numpy=True)
        scale, zero = ops.squeeze(scale, axis=-1), None
    elif mode == "int4":
        block_size = getattr(config, "block_size", None)
        if block_size is None or block_size == -1:
            quantizer = QuantizationConfig.weight_quantizer_or_default(
                config,
                quantizers.AbsMaxQuantizer(axis=-1, value_range=(-8, 7), output_dtype="int8"),
            )
            values, scale = quantizer(layer._embeddings, to_numpy=True)
            scale, zero = ops.squeeze(scale, axis=-1), None
        else:
            values, scale, zero = _quantized(layer._embeddings, mode, block_size)
        values, _, _ = quantizers.pack_int4(values, axis=-1)
    else:
        raise layer._quantization_mode_error(mode)
    layer._untrack_weight(layer._embeddings)
    del layer._embeddings
    layer.quantized_build(shape, mode, config)
    layer._embeddings.assign(values)
    layer.embeddings_scale.assign(scale)
    if zero is not None:
        layer.embeddings_zero.assign(zero)
    set_quantized_policy(layer, mode, config)


def _dequantized(layer, values, scale, zero):
    """Float rows from quantized ``values`` and their ``scale`` (and ``zero``) rows."""
    values = ops.cast(values, layer.compute_dtype)
    if layer.quantization_mode == "int4" and _grouped(layer):
        return quantizers.dequantize_with_sz_map(values, scale, zero, layer.g_idx, group_axis=-1)
    return ops.divide(values, ops.expand_dims(scale, axis=-1))


def lookup(layer, ids):
    """The quantized layer's call on int32/int64 ``ids``."""
    table = layer._embeddings
    if layer.quantization_mode == "int4":
        table = quantizers.unpack_int4(table, layer._orig_output_dim, axis=-1)
    zero = getattr(layer, "embeddings_zero", None)
    outputs = _dequantized(
        layer,
        ops.take(table, ids, axis=0),
        ops.take(layer.embeddings_scale, ids, axis=0),
        None if zero is None else ops.take(zero, ids, axis=0),
    )
    if layer.lora_enabled:
        lora = ops.matmul(ops.take(layer.lora_embeddings_a, ids, axis=0), layer.lora_embeddings_b)
        outputs = ops.add(outputs, (layer.lora_alpha / layer.lora_rank) * lora)
        outputs = ops.cast(outputs, layer.compute_dtype)
    return outputs


def merged_embeddings(layer):
    """``(embeddings, scale, zero)`` as the layer saves them: LoRA merged in (quantized
    again when the layer is quantized)."""
    mode = layer.quantization_mode
    if mode is None:
        return layer.embeddings, None, None
    values, scale = layer._embeddings, layer.embeddings_scale
    zero = getattr(layer, "embeddings_zero", None)
    if not layer.lora_enabled:
        return values, scale, zero
    if mode == "int4":
        values = quantizers.unpack_int4(values, layer._orig_output_dim, axis=-1)
    merged = ops.add(
        _dequantized(layer, values, scale, zero),
        (layer.lora_alpha / layer.lora_rank)
        * ops.matmul(layer.lora_embeddings_a, layer.lora_embeddings_b),
    )
    values, scale, zero = _quantized(merged, mode, getattr(layer, "_int4_block_size", None))
    if mode == "int4":
        values, _, _ = quantizers.pack_int4(values, axis=-1)
    return values, scale, zero
