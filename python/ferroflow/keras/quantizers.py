"""`keras.quantizers`: Keras 3's quantizer classes and quantization helpers (abs-max int8,
float8 scaling, fake quantization, int4 packing), computed with ferroflow's ops as Keras's
TensorFlow backend computes them.

Float8 dtypes do not exist in ferroflow's tensors: `quantize_and_dequantize` to a float8 dtype
rounds through ``ml_dtypes`` on the host (eager values only). The quantization configs drive
``Model.quantize`` and ``layer.quantize``; the calibration-based ones (GPTQ, AWQ) raise
``NotImplementedError``."""

import inspect
import math

import numpy as np

from ferroflow.keras import backend, ops
from ferroflow.keras.saving import serialization_lib
from ferroflow.module import camel_to_snake

__all__ = [
    "AWQConfig",
    "AbsMaxQuantizer",
    "Float8QuantizationConfig",
    "GPTQConfig",
    "Int4QuantizationConfig",
    "Int8QuantizationConfig",
    "QuantizationConfig",
    "Quantizer",
    "abs_max_quantize",
    "abs_max_quantize_grouped_with_zero_point",
    "compute_float8_amax_history",
    "compute_float8_scale",
    "deserialize",
    "fake_quant_with_min_max_vars",
    "get",
    "pack_int4",
    "quantize_and_dequantize",
    "serialize",
    "unpack_int4",
]


class Quantizer:
    """Base class of quantizers: ``__call__`` maps a tensor to its quantized form."""

    def __init__(self, output_dtype="int8"):
        self.output_dtype = output_dtype

    def __call__(self, x):
        """Compute a quantized output from an input tensor."""
        return x

    @classmethod
    def from_config(cls, config):
        """Creates a quantizer from its config."""
        return cls(**config)

    def get_config(self):
        """Returns the config of the quantizer."""
        raise NotImplementedError(f"{self} does not implement get_config()")


def abs_max_quantize(
    inputs, axis, value_range=(-127, 127), dtype="int8", epsilon=1e-7, to_numpy=False
):
    """``(quantized, scale)``: ``scale = value_range[1] / (max|x| over axis + epsilon)`` and
    ``quantized = clip(round(x * scale))`` cast to ``dtype``."""
    if to_numpy:
        original_dtype = backend.standardize_dtype(inputs.dtype)
        x = np.asarray(ops.convert_to_numpy(inputs))
        np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        scale = np.divide(
            value_range[1], np.add(np.max(np.abs(x), axis=np_axis, keepdims=True), epsilon)
        )
        outputs = np.clip(np.round(np.multiply(x, scale)), value_range[0], value_range[1])
        return (
            ops.convert_to_tensor(outputs.astype(dtype)),
            ops.convert_to_tensor(scale, dtype=original_dtype),
        )
    inputs = ops.convert_to_tensor(inputs)
    scale = ops.divide(
        value_range[1], ops.add(ops.max(ops.abs(inputs), axis=axis, keepdims=True), epsilon)
    )
    scale = ops.cast(scale, backend.standardize_dtype(inputs.dtype))
    outputs = ops.clip(ops.round(ops.multiply(inputs, scale)), value_range[0], value_range[1])
    return ops.cast(outputs, dtype), scale


def abs_max_quantize_grouped_with_zero_point(
    inputs, block_size, value_range=(-8, 7), dtype="int8", epsilon=1e-7, to_numpy=False
):
    """``(quantized, scale, zero_point)`` of a 2-D ``inputs`` quantized asymmetrically in
    groups of ``block_size`` rows: per group and column, ``scale = (max - min + epsilon) /
    (qmax - qmin)``, ``zero_point = clip(round(-min / scale) + qmin)`` and ``quantized =
    clip(round(x / scale) + zero_point)``; scale and zero point are ``(n_groups, columns)``."""
    if not to_numpy:
        return _grouped_with_zero_point_tensor(inputs, block_size, value_range, dtype, epsilon)
    original_dtype = backend.standardize_dtype(inputs.dtype)
    x = np.asarray(ops.convert_to_numpy(inputs))
    input_dim, output_dim = x.shape
    n_groups = -(-input_dim // block_size)
    qmin, qmax = value_range
    padded = n_groups * block_size
    if padded > input_dim:
        x = np.concatenate([x, np.zeros((padded - input_dim, output_dim), x.dtype)], axis=0)
    groups = x.reshape(n_groups, block_size, output_dim)
    low = np.min(groups, axis=1, keepdims=True)
    high = np.max(groups, axis=1, keepdims=True)
    scale = np.divide(np.subtract(high, low) + epsilon, qmax - qmin)
    zero_point = np.clip(np.round(np.divide(-low, scale)) + qmin, qmin, qmax)
    outputs = np.clip(np.round(np.divide(groups, scale)) + zero_point, qmin, qmax).astype(dtype)
    outputs = outputs.reshape(padded, output_dim)[:input_dim, :]
    return (
        ops.convert_to_tensor(outputs),
        ops.convert_to_tensor(np.squeeze(scale, axis=1), dtype=original_dtype),
        ops.convert_to_tensor(np.squeeze(zero_point, axis=1).astype("int8")),
    )


def _grouped_with_zero_point_tensor(inputs, block_size, value_range, dtype, epsilon):
    """The tensor form of grouped asymmetric quantization, as Keras computes it (not the
    NumPy form's numbers: a single group's range ignores the padding, an empty range is
    widened by one either side, and a non-positive scale becomes 1e-8)."""
    original_dtype = backend.standardize_dtype(inputs.dtype)
    x = ops.convert_to_tensor(inputs)
    input_dim, output_dim = (int(d) for d in x.shape)
    qmin, qmax = value_range
    bits = int(math.log2(qmax - qmin + 1))
    n_groups = -(-input_dim // block_size)
    padded = n_groups * block_size
    rows = ops.transpose(x)
    if n_groups > 1:
        if padded > input_dim:
            rows = ops.pad(rows, [[0, 0], [0, padded - input_dim]], constant_values=0.0)
        rows = ops.reshape(rows, [output_dim, n_groups, block_size])
        low, high = ops.min(rows, axis=2), ops.max(rows, axis=2)
    else:
        low, high = ops.min(rows, axis=1), ops.max(rows, axis=1)
    empty = ops.equal(low, high)
    low = ops.where(empty, ops.subtract(low, 1), low)
    high = ops.where(empty, ops.add(high, 1), high)
    levels = ops.cast(2**bits - 1, original_dtype)
    spread = ops.subtract(high, low)
    if epsilon > 0:
        spread = ops.add(spread, epsilon)
    scale = ops.divide(spread, levels)
    scale = ops.where(ops.less_equal(scale, 0), 1e-8, scale)
    low_code, high_code = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    zero = ops.clip(
        ops.add(ops.round(ops.divide(ops.negative(low), scale)), low_code), low_code, high_code
    )
    if n_groups == 1:
        scale, zero = ops.reshape(scale, [-1, 1]), ops.reshape(zero, [-1, 1])
    scale = ops.transpose(scale)
    zero = ops.transpose(ops.cast(zero, "int8"))
    values = x
    if padded > input_dim:
        values = ops.concatenate(
            [values, ops.zeros((padded - input_dim, output_dim), dtype=values.dtype)], axis=0
        )
    values = ops.reshape(values, (n_groups, block_size, output_dim))
    outputs = ops.add(
        ops.round(ops.divide(values, ops.expand_dims(scale, 1))), ops.expand_dims(zero, 1)
    )
    outputs = ops.cast(ops.clip(outputs, qmin, qmax), dtype)
    outputs = ops.reshape(outputs, (padded, output_dim))[:input_dim, :]
    return outputs, scale, zero


def dequantize_with_sz_map(weights_matrix, scale, zero, g_idx, group_axis=-1):
    """``(weights - zero[g]) * scale[g]``, each position along ``group_axis`` reading the
    scale and zero point of its group ``g = g_idx[i]``."""
    groups = ops.cast(g_idx, "int32")
    scales = ops.take(scale, groups, axis=group_axis)
    zeros = ops.cast(ops.take(zero, groups, axis=group_axis), scales.dtype)
    return ops.multiply(ops.subtract(weights_matrix, zeros), scales)


class AbsMaxQuantizer(Quantizer):
    """Symmetric abs-max quantization to ``output_dtype`` within ``value_range``."""

    def __init__(self, axis=None, value_range=(-127, 127), epsilon=1e-7, output_dtype="int8"):
        Quantizer.__init__(self, output_dtype=output_dtype)
        if axis is not None:
            self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        else:
            self.axis = None
        self.value_range = value_range
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(
                "Quantizer with output_dtype='int8' requires value_range to be within the "
                f"interval [-128, 127]. Received: value_range={value_range}"
            )

    def __call__(self, x, axis=None, to_numpy=False):
        """``(quantized, scale)`` of ``x`` along ``axis`` (the constructor's, else -1)."""
        if axis is None:
            axis = self.axis if self.axis is not None else -1
        return abs_max_quantize(
            x, axis, self.value_range, self.output_dtype, self.epsilon, to_numpy
        )

    def get_config(self):
        config = {
            "value_range": self.value_range,
            "epsilon": self.epsilon,
            "output_dtype": self.output_dtype,
        }
        if self.axis is not None:
            config["axis"] = self.axis
        return config


def _nudge(min_range, max_range, num_bits, narrow_range):
    """TensorFlow's fake-quant nudging: the range moved so that zero is representable
    (the zero point rounded half away from zero, as the kernel's ``std::round``)."""
    min_range = ops.cast(min_range, "float32")
    max_range = ops.cast(max_range, "float32")
    quant_max = float((1 << num_bits) - 1)
    quant_min = 1.0 if narrow_range else 0.0
    scale = ops.divide(ops.subtract(max_range, min_range), quant_max - quant_min)
    zero_point = ops.clip(quant_min - ops.divide(min_range, scale), quant_min, quant_max)
    nudged_zero_point = ops.floor(ops.add(zero_point, 0.5))
    nudged_min = ops.multiply(ops.subtract(quant_min, nudged_zero_point), scale)
    nudged_max = ops.multiply(ops.subtract(quant_max, nudged_zero_point), scale)
    return nudged_min, nudged_max, scale, ops.divide(1.0, scale)


def fake_quant_with_min_max_vars(
    inputs, min_vals, max_vals, num_bits=8, narrow_range=False, axis=None
):
    """Quantizes ``inputs`` to ``num_bits`` within [min, max] (per channel along ``axis``)
    and back, with the straight-through gradient of TensorFlow's fake-quant ops."""
    from ferroflow.gradient_utils import custom_gradient

    inputs = ops.convert_to_tensor(inputs)
    min_vals = ops.convert_to_tensor(min_vals)
    max_vals = ops.convert_to_tensor(max_vals)
    num_bits = int(num_bits)
    rank = len(inputs.shape)
    if axis is not None:
        axis = axis + rank if axis < 0 else axis
        if axis != rank - 1:
            moved = ops.swapaxes(inputs, axis, rank - 1)
            result = fake_quant_with_min_max_vars(
                moved, min_vals, max_vals, num_bits, narrow_range, rank - 1
            )
            return ops.swapaxes(result, rank - 1, axis)
    dtype = backend.standardize_dtype(inputs.dtype)

    @custom_gradient
    def quantize(x, min_val, max_val):
        if axis is None:
            min_b, max_b = ops.reshape(min_val, ()), ops.reshape(max_val, ())
        else:
            min_b, max_b = min_val, max_val
        nudged_min, nudged_max, scale, inv_scale = _nudge(min_b, max_b, num_bits, narrow_range)
        xf = ops.cast(x, "float32")
        clamped = ops.clip(xf, nudged_min, nudged_max)
        shifted = ops.subtract(clamped, nudged_min)
        result = ops.add(
            ops.multiply(ops.floor(ops.add(ops.multiply(shifted, inv_scale), 0.5)), scale),
            nudged_min,
        )
        inside = ops.logical_and(ops.greater_equal(xf, nudged_min), ops.less_equal(xf, nudged_max))

        def grad(upstream):
            upstream = ops.cast(upstream, "float32")
            zero = ops.zeros_like(upstream)
            reduce_axes = None if axis is None else list(range(rank - 1))
            below = ops.where(ops.less(xf, nudged_min), upstream, zero)
            above = ops.where(ops.greater(xf, nudged_max), upstream, zero)
            return (
                ops.cast(ops.where(inside, upstream, zero), dtype),
                ops.reshape(ops.sum(below, axis=reduce_axes), ops.shape(min_val)),
                ops.reshape(ops.sum(above, axis=reduce_axes), ops.shape(max_val)),
            )

        return ops.cast(result, dtype), grad

    return quantize(inputs, min_vals, max_vals)


def compute_float8_scale(amax, scale, dtype_max, margin=0):
    """The new float8 scale from the running ``amax`` (the old ``scale`` where ``amax`` is
    zero or not finite)."""
    scale = ops.reciprocal(scale)
    sf = ops.divide(ops.divide(dtype_max, amax), 2**margin)
    sf = ops.where(amax > 0.0, sf, scale)
    sf = ops.where(ops.isfinite(amax), sf, scale)
    return ops.reciprocal(sf)


def compute_float8_amax_history(x, amax_history):
    """``amax_history`` rolled by one with ``max|x|`` in front."""
    amax_update = ops.cast(ops.max(ops.abs(x)), amax_history.dtype)
    return ops.scatter_update(
        ops.roll(amax_history, shift=-1), [[0]], ops.reshape(amax_update, [1])
    )


# Float8 formats as (mantissa bits, smallest normal exponent).
_FLOAT8_GRIDS = {"float8_e4m3fn": (3, -6), "float8_e5m2": (2, -14)}


def _round_to_float8(x, dtype):
    """``x`` (within the format's range) rounded to the nearest float8 value, ties to even,
    as a cast to ``dtype`` and back does: ferroflow has no float8 tensors, so each value is
    divided by the spacing of its binade (a power of two read from its float32 exponent
    bits, exact), rounded and multiplied back; every step is exact in float32."""
    from ferroflow import bitcast, dtypes

    mantissa_bits, min_exponent = _FLOAT8_GRIDS[dtype]
    original = backend.standardize_dtype(x.dtype)
    x32 = ops.cast(x, "float32")
    bits = bitcast(x32, dtypes.int32)
    exponent = ops.subtract(ops.bitwise_and(ops.right_shift(bits, 23), 0xFF), 127)
    exponent = ops.maximum(exponent, min_exponent)
    spacing = bitcast(ops.left_shift(ops.add(exponent, 127 - mantissa_bits), 23), dtypes.float32)
    rounded = ops.multiply(ops.round(ops.divide(x32, spacing)), spacing)
    return ops.cast(rounded, original)


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """``inputs / scale`` clipped to ``quantized_dtype``'s range, cast to it and back, times
    ``scale``."""
    import ml_dtypes

    quantized_max = float(ml_dtypes.finfo(quantized_dtype).max)
    x = ops.divide(inputs, ops.cast(scale, compute_dtype))
    x = ops.clip(x, -quantized_max, quantized_max)
    if backend.standardize_dtype(quantized_dtype) in _FLOAT8_GRIDS:
        x = _round_to_float8(x, backend.standardize_dtype(quantized_dtype))
    else:
        x = ops.cast(x, quantized_dtype)
    return ops.multiply(ops.cast(x, compute_dtype), ops.cast(scale, compute_dtype))


def pack_int4(arr, axis=0, dtype="int8"):
    """``(packed, packed_shape, original_length)``: pairs of int4 values along ``axis`` in
    one byte each (the first in the low nibble)."""
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    if backend.standardize_dtype(arr.dtype) != dtype:
        raise TypeError(
            f"Expected {dtype} tensor for packing, got {backend.standardize_dtype(arr.dtype)}."
        )
    values = np.moveaxis(np.asarray(ops.convert_to_numpy(arr)), axis, 0)
    n = values.shape[0]
    if n % 2 == 1:
        values = np.concatenate([values, np.zeros((1, *values.shape[1:]), values.dtype)], 0)
    np_dtype = np.dtype(dtype)
    mask = np.array(0x0F, dtype=np_dtype)
    low = np.bitwise_and(values[::2].astype(np_dtype), mask)
    high = np.bitwise_and(values[1::2].astype(np_dtype), mask)
    packed = np.bitwise_or(low, np.left_shift(high, np.array(4, dtype=np_dtype)))
    packed = np.moveaxis(packed.astype(np_dtype), 0, axis)
    return ops.convert_to_tensor(packed), tuple(packed.shape), n


def unpack_int4(packed, orig_len, axis=0, dtype="int8"):
    """The int4 values of `pack_int4`'s bytes along ``axis``, ``orig_len`` of them, as
    ``dtype`` (sign-extended for int8)."""
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    if backend.standardize_dtype(packed.dtype) not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {packed.dtype}")
    rank = len(packed.shape)
    axis = axis + rank if axis < 0 else axis
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = [perm.index(i) for i in range(rank)]
    moved = ops.transpose(packed, perm)
    mask = ops.array(0x0F, dtype=packed.dtype)
    low = ops.bitwise_and(moved, mask)
    high = ops.bitwise_and(ops.right_shift(moved, 4), mask)
    if dtype == "int8":
        eight = ops.cast(8, backend.standardize_dtype(packed.dtype))
        low = ops.subtract(ops.bitwise_xor(low, eight), eight)
        high = ops.subtract(ops.bitwise_xor(high, eight), eight)
    stacked = ops.stack([ops.cast(low, dtype), ops.cast(high, dtype)], axis=1)
    unpacked = ops.reshape(stacked, (-1, *tuple(ops.shape(moved)[1:])))[:orig_len, ...]
    return ops.transpose(unpacked, inverse)


class QuantizationConfig:
    """What ``Model.quantize`` uses: the weight and activation quantizers of a mode."""

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self):
        raise NotImplementedError(
            "Subclasses must implement this property. Do not instantiate QuantizationConfig "
            "directly."
        )

    def get_config(self):
        return {
            "weight_quantizer": serialization_lib.serialize_keras_object(self.weight_quantizer),
            "activation_quantizer": serialization_lib.serialize_keras_object(
                self.activation_quantizer
            ),
        }

    @classmethod
    def from_config(cls, config):
        return cls(**_revived_quantizers(config))

    @staticmethod
    def weight_quantizer_or_default(config, default):
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        return config.activation_quantizer if config is not None else default


def _revived_quantizers(config):
    return {
        key: serialization_lib.deserialize_keras_object(config.get(key))
        for key in ("weight_quantizer", "activation_quantizer")
    }


class Int8QuantizationConfig(QuantizationConfig):
    """Int8 quantization: an `AbsMaxQuantizer` for activations by default."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if self.weight_quantizer is not None and self.weight_quantizer.output_dtype != "int8":
            raise ValueError(
                "Int8QuantizationConfig requires a weight_quantizer with output_dtype='int8'. "
                f"Received: output_dtype={self.weight_quantizer.output_dtype}"
            )

    @property
    def mode(self):
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """Int4 quantization, per channel or in blocks of ``block_size`` (no activation
    quantizer by default)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError(
                "block_size must be None, -1, or a positive integer. "
                f"Received: block_size={block_size}"
            )
        self.block_size = block_size
        sub_channel = block_size is not None and block_size > 0
        if sub_channel and (weight_quantizer is not None or self.activation_quantizer is not None):
            raise ValueError(
                "Int4 sub-channel quantization (block_size > 0) does not support custom "
                "quantizers. Either set block_size to None or -1 for per-channel quantization, "
                f"or remove the custom quantizer arguments. Received: block_size={block_size}"
            )
        if self.weight_quantizer is not None:
            if self.weight_quantizer.value_range != (-8, 7):
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with value_range=(-8, "
                    f"7). Received: value_range={self.weight_quantizer.value_range}"
                )
            if self.weight_quantizer.output_dtype != "int8":
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with "
                    f"output_dtype='int8'. Received: output_dtype="
                    f"{self.weight_quantizer.output_dtype}"
                )

    @property
    def mode(self):
        return "int4"

    def get_config(self):
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config):
        return cls(**_revived_quantizers(config), block_size=config.get("block_size", None))


class Float8QuantizationConfig(QuantizationConfig):
    """Float8 quantization (no quantizers to choose)."""

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls()


class _CalibratedConfig:
    """Base of the calibration-based configs (GPTQ, AWQ): not in ferroflow (they need a
    calibration pass over a dataset, Hessian-based or activation-aware weight search, and
    the layers' ``gptq``/``awq`` variables and calls)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"keras.quantizers.{type(self).__name__}: ferroflow's Keras has no GPTQ/AWQ "
            "quantization (calibration and the layers' gptq/awq modes are not implemented)."
        )


class GPTQConfig(_CalibratedConfig, QuantizationConfig):
    """GPTQ quantization config: not in ferroflow."""


class AWQConfig(_CalibratedConfig, QuantizationConfig):
    """AWQ quantization config: not in ferroflow."""


def validate_and_resolve_config(mode, config):
    """The config a ``quantize(mode, config)`` call means (Keras's checks): a mode's default
    config, or the given one, whose mode must agree."""
    if isinstance(config, str):
        mode, config = config, None
    _validate_mode(mode)
    if config is None:
        defaults = {
            "int8": Int8QuantizationConfig,
            "int4": Int4QuantizationConfig,
            "float8": Float8QuantizationConfig,
        }
        if mode in ("gptq", "awq"):
            kind = "GPTQConfig" if mode == "gptq" else "AWQConfig"
            raise ValueError(
                f"For {mode.upper()}, you must pass a{'n' if mode == 'awq' else ''} `{kind}` "
                "object in the `config` argument."
            )
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        config = defaults[mode]()
    elif not isinstance(config, QuantizationConfig):
        raise ValueError(
            "Argument `config` must be an instance of `QuantizationConfig`. "
            f"Received: config={config} (of type {type(config)})"
        )
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but config.mode='{config.mode}'")
    _validate_mode(config.mode)
    return config


def _validate_mode(mode):
    from ferroflow.keras.dtype_policies import QUANTIZATION_MODES

    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(
            f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
            f"Received: mode={mode}"
        )


def get_block_size_for_layer(layer, config):
    """The int4 block size: the config's, else the layer's `Int4DTypePolicy`'s (None for
    one scale per channel)."""
    from ferroflow.keras.dtype_policies import Int4DTypePolicy

    if config and isinstance(config, Int4QuantizationConfig):
        return config.block_size
    if isinstance(layer.dtype_policy, Int4DTypePolicy):
        return None if layer.dtype_policy.block_size == -1 else layer.dtype_policy.block_size
    return None


_OBJECTS = [
    Quantizer,
    AbsMaxQuantizer,
    QuantizationConfig,
    Int8QuantizationConfig,
    Int4QuantizationConfig,
    Float8QuantizationConfig,
    AWQConfig,
]
_OBJECTS_BY_NAME = {cls.__name__: cls for cls in _OBJECTS}
_OBJECTS_BY_NAME.update({camel_to_snake(cls.__name__): cls for cls in _OBJECTS})


def serialize(initializer):
    """The Keras config of a quantizer."""
    return serialization_lib.serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    """A quantizer from its Keras config."""
    objects = dict(_OBJECTS_BY_NAME)
    objects.update(custom_objects or {})
    return serialization_lib.deserialize_keras_object(config, custom_objects=objects)


def get(identifier, **kwargs):
    """A quantizer from a name, a config or a quantizer."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = _OBJECTS_BY_NAME.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        if inspect.isclass(obj):
            obj = obj(kwargs)
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
