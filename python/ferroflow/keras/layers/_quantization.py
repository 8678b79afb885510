"""Keras 3's quantization protocol of layers: `quantize(mode, config=...)` checks its
arguments (`quantizers.validate_and_resolve_config`, the layer built and not yet quantized)
around each class's own `quantize`; a quantized layer's policy names the mode
(``"int8_from_float32"``) and its calls go to `quantized_call`, which picks ``_int8_call``,
``_int4_call`` or ``_float8_call``. Layers without a quantized form raise Keras's
`NotImplementedError`, which `Model.quantize` turns into a warning."""

import functools

__all__ = ["QuantizableLayer", "UnsupportedQuantizationError", "policy_set", "wrap_quantize"]


class UnsupportedQuantizationError(NotImplementedError):
    """A quantization Keras does and ferroflow does not: `Model.quantize` lets it through
    instead of warning, so a model is never left less quantized than Keras's."""


def wrap_quantize(quantize):
    """``quantize`` with Keras's argument checks first (every `Layer` subclass's)."""
    if getattr(quantize, "_checks_arguments", False):
        return quantize

    @functools.wraps(quantize)
    def checked_quantize(self, mode=None, config=None, **kwargs):
        from ferroflow.keras.quantizers import validate_and_resolve_config

        config = validate_and_resolve_config(mode, config)
        mode = config.mode
        self._check_quantize_args(mode, self.compute_dtype)
        return quantize(self, mode=mode, config=config, **kwargs)

    checked_quantize._checks_arguments = True
    return checked_quantize


def policy_set(layer, value, policy):
    """Keras's rule when a built layer gets a quantized policy: it is quantized then."""
    if policy.quantization_mode is None:
        return
    if not layer.__dict__.get("built") or layer.__dict__.get("_is_quantized"):
        return
    if policy.quantization_mode == "gptq":
        raise ValueError(
            f"Implicitly enabling GPTQ quantization by setting `dtype_policy` to '{value}' is "
            "not supported. GPTQ requires a calibration dataset and a `GPTQConfig` object.\n\n"
            "Please use the `.quantize('gptq', config=...)` method on the layer or model "
            "instead."
        )
    layer.quantize(policy.quantization_mode)


class QuantizableLayer:
    """The quantization methods every `Layer` has (Keras's defaults)."""

    def quantized_build(self, input_shape, mode):
        raise self._not_implemented_error(self.quantized_build)

    @wrap_quantize
    def quantize(self, mode=None, type_check=True, config=None):
        raise self._not_implemented_error(self.quantize)

    def _check_quantize_args(self, mode, compute_dtype):
        from ferroflow.keras.dtype_policies import QUANTIZATION_MODES

        if not self.built:
            raise ValueError(
                "Cannot quantize a layer that isn't yet built. "
                f"Layer '{self.name}' (of type '{type(self).__name__}') is not built yet."
            )
        if self.__dict__.get("_is_quantized", False):
            raise ValueError(
                f"Layer '{self.name}' is already quantized with "
                f"dtype_policy='{self.dtype_policy.name}'. Received: mode={mode}"
            )
        if mode not in QUANTIZATION_MODES:
            raise ValueError(
                f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                f"Received: mode={mode}"
            )
        if mode == "int8" and compute_dtype == "float16":
            raise ValueError(
                f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'. "
                "Consider loading model/layer with another dtype policy such as "
                "'mixed_bfloat16' or 'mixed_float16' before calling `quantize()`."
            )

    def quantized_call(self, *args, **kwargs):
        """The call of a quantized layer: the mode's ``_<mode>_call``."""
        calls = {"int8": "_int8_call", "float8": "_float8_call", "int4": "_int4_call"}
        mode = self.quantization_mode
        if mode in ("gptq", "awq"):
            raise NotImplementedError(
                f"ferroflow's Keras has no {mode.upper()} quantization (layer '{self.name}')."
            )
        if mode not in calls:
            raise self._quantization_mode_error(mode)
        return getattr(self, calls[mode])(*args, **kwargs)

    def _int4_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int4_call)

    def _int8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._int8_call)

    def _float8_call(self, *args, **kwargs):
        raise self._not_implemented_error(self._float8_call)

    def _not_implemented_error(self, attr, msg=None):
        if callable(attr):
            attr_name, attr_type = attr.__name__, "method"
        else:
            attr_name, attr_type = str(attr), "attribute"
        msg = f" {msg}" if msg is not None else ""
        return NotImplementedError(
            f"Layer {type(self).__name__} does not have a `{attr_name}` {attr_type} "
            f"implemented.{msg}"
        )

    def _quantization_mode_error(self, mode):
        from ferroflow.keras.dtype_policies import QUANTIZATION_MODES

        return NotImplementedError(
            f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
            f"Received: quantization_mode={mode}"
        )

    def _untrack_weight(self, variable):
        """Forgets one of this layer's own weights (Keras's ``del self.<weight>``)."""
        self._own_weights[:] = [v for v in self._own_weights if v is not variable]
        self._regularized[:] = [(r, v) for r, v in self._regularized if v is not variable]
