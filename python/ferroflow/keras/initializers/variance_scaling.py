"""`VarianceScaling` and its presets: Glorot (Xavier), He and LeCun, normal and uniform."""

import math

from ferroflow.keras.initializers import sampling
from ferroflow.keras.initializers.fans import compute_fans
from ferroflow.keras.initializers.initializer import standardize_dtype, standardize_shape
from ferroflow.keras.initializers.random import RandomInitializer

# The standard deviation of N(0, 1) truncated to [-2, 2].
_TRUNCATED_STDDEV = 0.87962566103423978


class VarianceScaling(RandomInitializer):
    """Samples with variance ``scale / n``, where ``n`` is the fan-in, the fan-out or their
    average (``mode``), from a truncated normal, an untruncated normal or a uniform
    distribution (``limit = sqrt(3 * scale / n)``)."""

    def __init__(
        self,
        scale=1.0,
        mode="fan_in",
        distribution="truncated_normal",
        seed=None,
        input_axes=None,
        output_axes=None,
    ):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        allowed_modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in allowed_modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. Please use one of {allowed_modes}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        allowed_distributions = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in allowed_distributions:
            raise ValueError(
                f"Invalid `distribution` argument: {distribution}."
                f"Please use one of {allowed_distributions}"
            )
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.input_axes = input_axes
        self.output_axes = output_axes
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        shape = standardize_shape(shape)
        dtype = standardize_dtype(dtype)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return sampling.truncated_normal(shape, 0.0, stddev, dtype, self.seed)
        if self.distribution == "untruncated_normal":
            return sampling.normal(shape, 0.0, math.sqrt(scale), dtype, self.seed)
        limit = math.sqrt(3.0 * scale)
        return sampling.uniform(shape, -limit, limit, dtype, self.seed)

    def get_config(self):
        return {
            **super().get_config(),
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }


class _Preset(VarianceScaling):
    """A `VarianceScaling` with fixed scale, mode and distribution (set by the subclass)."""

    _scale = 1.0
    _mode = "fan_in"
    _distribution = "truncated_normal"

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        super().__init__(
            scale=self._scale,
            mode=self._mode,
            distribution=self._distribution,
            seed=seed,
            input_axes=input_axes,
            output_axes=output_axes,
        )

    def get_config(self):
        return {
            "seed": self._init_seed,
            "input_axes": self.input_axes,
            "output_axes": self.output_axes,
        }


class GlorotUniform(_Preset):
    """Glorot (Xavier) uniform: U[-limit, limit], limit = sqrt(6 / (fan_in + fan_out))."""

    _mode, _distribution = "fan_avg", "uniform"


class GlorotNormal(_Preset):
    """Glorot (Xavier) normal: truncated normal, stddev = sqrt(2 / (fan_in + fan_out))."""

    _mode, _distribution = "fan_avg", "truncated_normal"


class HeNormal(_Preset):
    """He normal: truncated normal, stddev = sqrt(2 / fan_in)."""

    _scale, _mode, _distribution = 2.0, "fan_in", "truncated_normal"


class HeUniform(_Preset):
    """He uniform: U[-limit, limit], limit = sqrt(6 / fan_in)."""

    _scale, _mode, _distribution = 2.0, "fan_in", "uniform"


class LecunNormal(_Preset):
    """LeCun normal: truncated normal, stddev = sqrt(1 / fan_in)."""

    _mode, _distribution = "fan_in", "truncated_normal"


class LecunUniform(_Preset):
    """LeCun uniform: U[-limit, limit], limit = sqrt(3 / fan_in)."""

    _mode, _distribution = "fan_in", "uniform"
