"""What Keras 3's LoRA layers (Dense, EinsumDense, Embedding, the convolutions) share:
`enable_lora`'s checks and its two float32 weights, and the weights files of layers whose
saved variables follow a per-mode list of names (``variable_serialization_spec``).

As in Keras, a LoRA layer saves its kernel with the low-rank delta merged in (re-quantized
when the layer is quantized) and no LoRA weights; loading one zeroes its LoRA weights."""

from ferroflow.keras import ops

__all__ = [
    "KERNEL_SPEC",
    "add_lora_weights",
    "check_enable_lora",
    "config_entries",
    "load_by_spec",
    "revived_config",
    "save_by_spec",
]

# The variables a kernel layer (Dense, EinsumDense) saves per quantization mode, in order.
KERNEL_SPEC = {
    None: ["kernel", "bias"],
    "int8": ["kernel", "bias", "kernel_scale"],
    "int4": ["kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"],
    "float8": [
        "kernel",
        "bias",
        "inputs_scale",
        "inputs_amax_history",
        "kernel_scale",
        "kernel_amax_history",
        "outputs_grad_scale",
        "outputs_grad_amax_history",
    ],
}


def config_entries(layer):
    """The config entries of a LoRA/quantizable layer: its quantization config, and its
    LoRA rank and alpha when it was made with a rank."""
    from ferroflow.keras.saving import serialization_lib

    entries = {
        "quantization_config": serialization_lib.serialize_keras_object(layer.quantization_config)
    }
    if layer.lora_rank:
        entries.update(lora_rank=layer.lora_rank, lora_alpha=layer.lora_alpha)
    return entries


def revived_config(config):
    """``config`` with its quantization config deserialized (what `from_config` passes on)."""
    from ferroflow.keras.saving import serialization_lib

    config = dict(config)
    config["quantization_config"] = serialization_lib.deserialize_keras_object(
        config.get("quantization_config")
    )
    return config


def check_enable_lora(layer, constraint, what="kernel"):
    """Keras's refusals of `enable_lora`."""
    if constraint:
        raise ValueError(
            f"Lora is incompatible with {what} constraints. In order to enable lora on this "
            f"layer, remove the `{what}_constraint` argument."
        )
    if not layer.built:
        raise ValueError("Cannot enable lora on a layer that isn't yet built.")
    if layer.lora_enabled:
        raise ValueError("lora is already enabled. This can only be done once per layer.")


def add_lora_weights(layer, names, shapes, initializers_, regularizer, frozen, rank, alpha):
    """Adds the two LoRA weights (float32, as Keras: no under- or overflow while
    fine-tuning), freezes ``frozen`` and records rank and alpha."""
    from ferroflow.keras import initializers

    for name, shape, initializer in zip(names, shapes, initializers_):
        weight = layer.add_weight(
            name=name,
            shape=shape,
            initializer=initializers.get(initializer),
            dtype="float32",
            regularizer=regularizer,
        )
        setattr(layer, name, weight)
    frozen.trainable = False
    layer.lora_enabled = True
    layer.lora_rank = rank
    layer.lora_alpha = alpha if alpha is not None else rank


def lora_delta(layer, a, b):
    """``(alpha / rank) * a @ b``."""
    return (layer.lora_alpha / layer.lora_rank) * ops.matmul(a, b)


def save_by_spec(layer, store, main, merged):
    """Stores the variables the layer's spec lists for its mode, in order: ``main`` (the
    kernel's or embeddings' name) and its scale and zero point come from ``merged``
    (values with LoRA merged in); absent optional variables (no bias, no sub-channel
    zero point) take no slot."""
    if not layer.built:
        return
    mode = layer.quantization_mode
    spec = layer.variable_serialization_spec
    if mode not in spec:
        raise layer._quantization_mode_error(mode)
    value, scale, zero = merged
    index = 0
    for name in spec[mode]:
        if name == main:
            store[str(index)] = _numpy(value)
        elif name == f"{main}_zero":
            if zero is None:
                continue
            store[str(index)] = _numpy(zero)
        elif name == f"{main}_scale" and mode in ("int4", "int8"):
            store[str(index)] = _numpy(scale)
        else:
            variable = getattr(layer, name, None)
            if variable is None:
                continue
            store[str(index)] = _numpy(variable)
        index += 1


def load_by_spec(layer, store, main, lora_names):
    """Reads what `save_by_spec` wrote (Keras's layout), then zeroes the LoRA weights."""
    from ferroflow.keras.saving.saveable_state import check_own_count

    if not layer.lora_enabled:
        check_own_count(layer, store)
    if not layer.built:
        return
    mode = layer.quantization_mode
    spec = layer.variable_serialization_spec
    if mode not in spec:
        raise layer._quantization_mode_error(mode)
    index = 0
    for name in spec[mode]:
        variable = getattr(layer, f"_{main}" if name == main else name, None)
        if variable is None:
            continue
        variable.assign(store[str(index)])
        index += 1
    if layer.lora_enabled:
        for name in lora_names:
            weight = getattr(layer, name)
            weight.assign(ops.zeros(weight.shape, weight.dtype))


def _numpy(value):
    return value.numpy() if hasattr(value, "numpy") else value
