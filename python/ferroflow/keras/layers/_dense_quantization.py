"""`Dense`'s quantized forms, as Keras 3 has them:

- ``int8``: an int8 ``kernel`` and a float ``kernel_scale`` per unit (abs-max along the input
  axis); a call quantizes its inputs per row with the activation quantizer (abs-max, axis -1),
  multiplies in int32 and divides by both scales.
- ``int4``: the kernel quantized to [-8, 7] and packed two values a byte along the units axis
  (``(input_dim, ceil(units / 2))``), with one scale per unit (``block_size`` None or -1) or
  per group of ``block_size`` input rows with a zero point (``kernel_zero``, ``g_idx``).

Gradients reach the inputs only, through the dequantized kernel (Keras's custom gradients);
LoRA adds ``inputs @ a @ b`` scaled by ``alpha / rank``.

- ``float8`` (training with delayed scaling): the float kernel stays; inputs and kernel go
  through float8_e4m3fn and back with their ``*_scale`` before the matmul, the outputs'
  gradient through float8_e5m2. In training the "gradients" of the scales and amax histories
  are their new values, which the optimizer assigns (``overwrite_with_gradient``)."""

import math

from ferroflow.keras import ops, quantizers
from ferroflow.keras.quantizers import QuantizationConfig, get_block_size_for_layer

__all__ = [
    "add_int4_weights",
    "build",
    "float8_build",
    "float8_qdq_inputs",
    "float8_qdq_output_gradients",
    "int4_matmul",
    "int8_matmul",
    "merged_quantized_kernel",
    "quantize",
]


def build(layer, kernel_shape, mode, config):
    """The variables of a quantized layer, before their values are known."""
    if mode == "int8":
        _int8_build(layer, kernel_shape, config)
    elif mode == "int4":
        _int4_build(layer, kernel_shape, config)
    elif mode == "float8":
        float8_build(layer)
    else:
        raise layer._quantization_mode_error(mode)


def _int8_build(layer, kernel_shape, config):
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(
        config, quantizers.AbsMaxQuantizer()
    )
    layer._kernel = layer.add_weight(
        name="kernel", shape=kernel_shape, initializer="zeros", dtype="int8", trainable=False
    )
    layer.kernel_scale = layer.add_weight(
        name="kernel_scale", shape=(layer.units,), initializer="ones", trainable=False
    )


def add_int4_weights(layer, main, packed_shape, scale_shape, block_size, groups_length):
    """An int4 layer's weights: the packed int8 ``_<main>``, its ``<main>_scale`` and, for
    groups (``block_size`` > 0), the ``<main>_zero`` points and the ``g_idx`` group of each of
    the ``groups_length`` positions."""
    setattr(
        layer,
        f"_{main}",
        layer.add_weight(
            name=main, shape=packed_shape, initializer="zeros", dtype="int8", trainable=False
        ),
    )
    scale = layer.add_weight(
        name=f"{main}_scale", shape=scale_shape, initializer="ones", trainable=False
    )
    setattr(layer, f"{main}_scale", scale)
    if block_size is None or block_size <= 0:
        return
    zero = layer.add_weight(
        name=f"{main}_zero", shape=scale_shape, initializer="zeros", dtype="int8", trainable=False
    )
    setattr(layer, f"{main}_zero", zero)
    layer.g_idx = layer.add_weight(
        name="g_idx", shape=(groups_length,), initializer="zeros", dtype="float32", trainable=False
    )
    layer.g_idx.assign(ops.floor_divide(ops.arange(groups_length, dtype="float32"), block_size))


def _int4_build(layer, kernel_shape, config):
    layer.inputs_quantizer = QuantizationConfig.activation_quantizer_or_default(config, None)
    input_dim, output_dim = kernel_shape
    block_size = get_block_size_for_layer(layer, config)
    layer._int4_block_size = block_size
    grouped = block_size is not None and block_size > 0
    scale_shape = (math.ceil(input_dim / block_size), layer.units) if grouped else (layer.units,)
    packed_shape = (input_dim, (output_dim + 1) // 2)
    add_int4_weights(layer, "kernel", packed_shape, scale_shape, block_size, input_dim)
    layer._orig_input_dim = input_dim
    layer._orig_output_dim = output_dim


def _grouped(layer):
    block_size = getattr(layer, "_int4_block_size", None)
    return block_size is not None and block_size != -1


def quantize(layer, mode, config):
    """Quantizes a built float layer's kernel in place (Keras's `Dense.quantize`)."""
    layer.quantization_config = config
    kernel_shape = tuple(layer._kernel.shape.as_list())
    zero = None
    if mode == "int8":
        quantizer = QuantizationConfig.weight_quantizer_or_default(
            config, quantizers.AbsMaxQuantizer(axis=0)
        )
        value, scale = quantizer(layer._kernel, to_numpy=True)
        scale = ops.squeeze(scale, axis=0)
    elif mode == "int4":
        block_size = getattr(config, "block_size", None)
        if block_size is None or block_size == -1:
            quantizer = QuantizationConfig.weight_quantizer_or_default(
                config, quantizers.AbsMaxQuantizer(axis=0, value_range=(-8, 7), output_dtype="int8")
            )
            value, scale = quantizer(layer._kernel, to_numpy=True)
            scale = ops.squeeze(scale, axis=0)
        else:
            value, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
                layer._kernel, block_size=block_size, to_numpy=True
            )
        value, _, _ = quantizers.pack_int4(value, axis=-1)
    elif mode == "float8":
        # The float kernel stays; the scales and amax histories come next to it.
        layer.quantized_build(kernel_shape, mode, config)
        set_quantized_policy(layer, mode, config)
        return
    else:
        raise layer._quantization_mode_error(mode)
    layer._untrack_weight(layer._kernel)
    del layer._kernel
    layer.quantized_build(kernel_shape, mode, config)
    layer._kernel.assign(value)
    layer.kernel_scale.assign(scale)
    if zero is not None:
        layer.kernel_zero.assign(zero)
    set_quantized_policy(layer, mode, config)


def set_quantized_policy(layer, mode, config):
    """The layer's policy becomes ``"<mode>_from_<policy>"`` (``int4/<block size>``)."""
    from ferroflow.keras import dtype_policies

    if layer.dtype_policy.quantization_mode is not None:
        return
    name = mode
    if mode == "int4":
        block_size = get_block_size_for_layer(layer, config)
        name = f"int4/{-1 if block_size is None else block_size}"
    layer.dtype_policy = dtype_policies.get(f"{name}_from_{layer.dtype_policy.name}")


def _lora_term(layer, inputs, outputs):
    if not layer.lora_enabled:
        return outputs
    lora = ops.matmul(ops.matmul(inputs, layer.lora_kernel_a), layer.lora_kernel_b)
    outputs = ops.add(outputs, (layer.lora_alpha / layer.lora_rank) * lora)
    return ops.cast(outputs, layer.compute_dtype)


def _input_gradient(float_kernel):
    """Keras's custom gradient: the inputs' through the dequantized kernel, none for the
    quantized variables."""

    def grad_fn(upstream):
        return ops.matmul(upstream, ops.transpose(float_kernel())), None, None

    return grad_fn


def int8_matmul(layer, inputs):
    """``inputs @ kernel`` of an int8 layer (plus its LoRA term)."""

    @ops.custom_gradient
    def matmul(x, kernel, kernel_scale):
        def float_kernel():
            return ops.divide(ops.cast(kernel, layer.compute_dtype), kernel_scale)

        output_scale = kernel_scale
        if layer.inputs_quantizer:
            x, inputs_scale = layer.inputs_quantizer(x, axis=-1)
            output_scale = ops.multiply(output_scale, inputs_scale)
        y = ops.cast(ops.matmul(x, kernel), layer.compute_dtype)
        return ops.divide(y, output_scale), _input_gradient(float_kernel)

    outputs = matmul(
        inputs, ops.convert_to_tensor(layer._kernel), ops.convert_to_tensor(layer.kernel_scale)
    )
    return _lora_term(layer, inputs, outputs)


def int4_matmul(layer, inputs):
    """``inputs @ kernel`` of an int4 layer (plus its LoRA term)."""
    if not _grouped(layer):

        @ops.custom_gradient
        def per_channel(x, kernel, kernel_scale):
            unpacked = quantizers.unpack_int4(kernel, layer._orig_output_dim, axis=-1)

            def float_kernel():
                return ops.divide(ops.cast(unpacked, layer.compute_dtype), kernel_scale)

            output_scale = kernel_scale
            if layer.inputs_quantizer:
                x, inputs_scale = layer.inputs_quantizer(x, axis=-1)
                output_scale = ops.multiply(output_scale, inputs_scale)
            y = ops.cast(ops.matmul(x, unpacked), layer.compute_dtype)
            return ops.divide(y, output_scale), _input_gradient(float_kernel)

        outputs = per_channel(
            inputs, ops.convert_to_tensor(layer._kernel), ops.convert_to_tensor(layer.kernel_scale)
        )
    else:

        @ops.custom_gradient
        def sub_channel(x, kernel, kernel_scale, kernel_zero, g_idx):
            unpacked = quantizers.unpack_int4(kernel, layer._orig_output_dim, axis=-1)
            float_kernel = ops.cast(
                quantizers.dequantize_with_sz_map(
                    unpacked, kernel_scale, kernel_zero, g_idx, group_axis=0
                ),
                layer.compute_dtype,
            )

            def grad_fn(upstream):
                return ops.matmul(upstream, ops.transpose(float_kernel)), None, None, None, None

            return ops.matmul(x, float_kernel), grad_fn

        outputs = sub_channel(
            inputs,
            ops.convert_to_tensor(layer._kernel),
            ops.convert_to_tensor(layer.kernel_scale),
            ops.convert_to_tensor(layer.kernel_zero),
            ops.convert_to_tensor(layer.g_idx),
        )
    return _lora_term(layer, inputs, outputs)


def merged_quantized_kernel(layer):
    """``(kernel, scale, zero)`` as an int8/int4 layer saves them: the stored values, or,
    with LoRA, the dequantized kernel plus the LoRA delta quantized again."""
    kernel, scale = layer._kernel, layer.kernel_scale
    zero = getattr(layer, "kernel_zero", None)
    if not layer.lora_enabled:
        return kernel, scale, zero
    mode = layer.quantization_mode
    if mode == "int4":
        unpacked = quantizers.unpack_int4(kernel, layer._orig_output_dim, axis=-1)
        if _grouped(layer):
            float_kernel = ops.cast(
                quantizers.dequantize_with_sz_map(
                    unpacked, scale, layer.kernel_zero, layer.g_idx, group_axis=0
                ),
                layer.compute_dtype,
            )
        else:
            float_kernel = ops.divide(ops.cast(unpacked, layer.compute_dtype), scale)
        value_range = (-8, 7)
    else:
        float_kernel = ops.divide(ops.cast(kernel, layer.compute_dtype), scale)
        value_range = (-127, 127)
    merged = ops.add(
        float_kernel,
        (layer.lora_alpha / layer.lora_rank) * ops.matmul(layer.lora_kernel_a, layer.lora_kernel_b),
    )
    if mode == "int4" and _grouped(layer):
        value, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
            merged, block_size=layer._int4_block_size, to_numpy=True
        )
    else:
        value, scale = quantizers.abs_max_quantize(
            merged, axis=0, value_range=value_range, dtype="int8", to_numpy=True
        )
        scale = ops.squeeze(scale, axis=0)
        zero = None
    if mode == "int4":
        value, _, _ = quantizers.pack_int4(value, axis=-1)
    return value, scale, zero


def float8_build(layer):
    """The float8 layer's scales and amax histories (float32, trainable so that their
    "gradients", the new values, reach the optimizer)."""
    from ferroflow.keras.dtype_policies import QuantizedFloat8DTypePolicy

    length = getattr(
        layer.dtype_policy,
        "amax_history_length",
        QuantizedFloat8DTypePolicy.default_amax_history_length,
    )
    common = {
        "dtype": "float32",
        "trainable": True,
        "autocast": False,
        "overwrite_with_gradient": True,
    }
    for prefix in ("inputs", "kernel", "outputs_grad"):
        setattr(
            layer,
            f"{prefix}_scale",
            layer.add_weight(name=f"{prefix}_scale", shape=(), initializer="ones", **common),
        )
        setattr(
            layer,
            f"{prefix}_amax_history",
            layer.add_weight(
                name=f"{prefix}_amax_history", shape=(length,), initializer="zeros", **common
            ),
        )


def _float8_max(dtype):
    import ml_dtypes

    return ops.cast(float(ml_dtypes.finfo(dtype).max), "float32")


def float8_qdq_inputs(layer, x, scale, amax_history, training):
    """``x`` through float8_e4m3fn and back; in training the gradients of ``scale`` and
    ``amax_history`` are their next values."""

    @ops.custom_gradient
    def qdq(x, scale, amax_history):
        if training:
            new_scale = quantizers.compute_float8_scale(
                ops.max(amax_history, axis=0), scale, _float8_max("float8_e4m3fn")
            )
            new_history = quantizers.compute_float8_amax_history(x, amax_history)
        else:
            new_scale = new_history = None
        y = quantizers.quantize_and_dequantize(x, scale, "float8_e4m3fn", layer.compute_dtype)

        def grad(upstream):
            return upstream, new_scale, new_history

        return y, grad

    return qdq(x, scale, amax_history)


def float8_qdq_output_gradients(layer, y, scale, amax_history):
    """``y`` unchanged; its gradient goes through float8_e5m2 and back, and the gradients of
    ``scale`` and ``amax_history`` are their next values."""

    @ops.custom_gradient
    def qdq(y, scale, amax_history):
        def grad(upstream):
            new_scale = quantizers.compute_float8_scale(
                ops.max(amax_history, axis=0), scale, _float8_max("float8_e5m2")
            )
            qdq_upstream = quantizers.quantize_and_dequantize(
                upstream, scale, "float8_e5m2", layer.compute_dtype
            )
            new_history = quantizers.compute_float8_amax_history(upstream, amax_history)
            return qdq_upstream, new_scale, new_history

        return y, grad

    return qdq(y, scale, amax_history)


def float8_matmul(layer, inputs, training, contract=ops.matmul):
    """``contract(inputs, kernel)`` (a matmul, or EinsumDense's einsum) of a float8 layer,
    with the bias added as Keras adds it (a float32 bias rounded through bfloat16)."""
    if layer.lora_enabled:
        raise NotImplementedError("Currently, `_float8_call` doesn't support LoRA")
    x = contract(
        float8_qdq_inputs(
            layer,
            inputs,
            ops.convert_to_tensor(layer.inputs_scale),
            ops.convert_to_tensor(layer.inputs_amax_history),
            training,
        ),
        float8_qdq_inputs(
            layer,
            ops.convert_to_tensor(layer._kernel),
            ops.convert_to_tensor(layer.kernel_scale),
            ops.convert_to_tensor(layer.kernel_amax_history),
            training,
        ),
    )
    x = float8_qdq_output_gradients(
        layer,
        x,
        ops.convert_to_tensor(layer.outputs_grad_scale),
        ops.convert_to_tensor(layer.outputs_grad_amax_history),
    )
    if layer.bias is not None:
        bias = layer.bias
        if layer.dtype_policy.compute_dtype == "float32":
            bias = ops.cast(ops.cast(bias, "bfloat16"), bias.dtype)
        x = ops.add(x, bias)
    return x
