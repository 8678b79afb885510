"""`keras.dtype_policies`: a layer's dtype policy names the dtype it computes in and the dtype
of its variables. ``"mixed_float16"`` and ``"mixed_bfloat16"`` compute in 16 bits with float32
variables (read in 16 bits inside the layer's call: `keras/_autocast.py`); any float dtype name
is a policy computing and storing in that dtype. The global policy (``keras.config.
set_dtype_policy``, or ``keras.mixed_precision.set_global_policy``) is what layers built
without a ``dtype`` use."""

from ferroflow import dtypes as _dtypes

__all__ = [
    "AWQDTypePolicy",
    "GPTQDTypePolicy",
    "DTypePolicy",
    "FloatDTypePolicy",
    "Int4DTypePolicy",
    "QuantizedDTypePolicy",
    "QuantizedFloat8DTypePolicy",
    "deserialize",
    "dtype_policy",
    "get",
    "serialize",
    "set_dtype_policy",
]

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}

_global_policy = None


class DTypePolicy:
    """A layer's compute and variable dtypes, named as in Keras 3 (see the module docstring)."""

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    @staticmethod
    def _parse_name(name):
        if not isinstance(name, str):
            raise TypeError(
                "'name' must be a string, such as 'mixed_float16'. "
                f"Received: name={name} (of type {type(name)})"
            )
        if name in _MIXED:
            return _MIXED[name], "float32"
        try:
            dtype = _dtypes.as_dtype(name).name
        except (TypeError, ValueError):
            raise ValueError(
                f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies "
                "include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype "
                "such as 'float32'."
            ) from None
        return dtype, dtype

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        """The dtype of the layer's inputs, outputs and computations."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype the layer's variables are stored in."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        return self._quantization_mode

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        name = "DTypePolicy" if type(self) is FloatDTypePolicy else type(self).__name__
        return f'<{name} "{self._name}">'

    def __eq__(self, other):
        if type(self) in (DTypePolicy, FloatDTypePolicy):
            if type(other) not in (DTypePolicy, FloatDTypePolicy):
                return False
        elif type(other) is not type(self):
            return False
        return self._name == other._name

    def __hash__(self):
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's name for a plain (unquantized) policy."""


class QuantizedDTypePolicy(DTypePolicy):
    """The policy of a quantized layer: ``"<mode>_from_<source policy>"``; compute and
    variable dtypes are the source policy's."""

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = dtype_policy().name
        self._compute_dtype, self._variable_dtype = self._parse_name(source_name)
        _check_quantization_mode(mode, self._compute_dtype)
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    def __eq__(self, other):
        return (
            super().__eq__(other)
            and self._quantization_mode == other._quantization_mode
            and self._source_name == other._source_name
        )

    __hash__ = DTypePolicy.__hash__

    def get_config(self):
        return {"mode": self._quantization_mode, "source_name": self._source_name}


def _check_quantization_mode(mode, compute_dtype):
    if mode not in QUANTIZATION_MODES:
        raise ValueError(
            f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
            f"Received: mode={mode}"
        )
    if compute_dtype == "float16" and mode == "int8":
        raise ValueError(
            f"Quantization mode='{mode}' doesn't work well with compute_dtype='float16'."
        )


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """A float8-quantized layer's policy, with the length of its amax histories."""

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode=mode, source_name=source_name)
        if not isinstance(amax_history_length, int):
            raise TypeError(
                "`amax_history_length` must be an integer. "
                f"Received: amax_history_length={amax_history_length}"
            )
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self):
        """The length of the amax history window of float8 training."""
        return self._amax_history_length

    def __eq__(self, other):
        return super().__eq__(other) and self._amax_history_length == other._amax_history_length

    __hash__ = DTypePolicy.__hash__

    def get_config(self):
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


class Int4DTypePolicy(QuantizedDTypePolicy):
    """An int4-quantized layer's policy, ``"int4/<block_size>"`` (-1: one scale per output
    channel; a positive size: sub-channel groups along the input axis)."""

    def __init__(self, mode, source_name=None):
        parts = mode.split("/")
        expected = "'int4/<block_size>'"
        if len(parts) != 2 or parts[0] != "int4":
            raise ValueError(
                f"Invalid mode for Int4DTypePolicy. Expected format {expected}, but got '{mode}'."
            )
        try:
            block_size = int(parts[1])
        except ValueError:
            raise ValueError(
                "Invalid mode for Int4DTypePolicy. <block_size> must be an integer. Expected "
                f"format {expected}, but got '{mode}'."
            ) from None
        if block_size < -1 or block_size == 0:
            raise ValueError(
                "Invalid block_size in mode. Supported values are -1 (per-channel) or a "
                f"positive integer (sub-channel), but got {block_size} from '{mode}'."
            )
        super().__init__(mode="int4", source_name=source_name)
        self._name = f"{mode}_from_{source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def __eq__(self, other):
        return super().__eq__(other) and self.block_size == other.block_size

    __hash__ = DTypePolicy.__hash__

    def get_config(self):
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class _CalibratedDTypePolicy(QuantizedDTypePolicy):
    """Policies of GPTQ/AWQ-quantized layers: not in ferroflow (no calibration-based
    quantization)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"keras.dtype_policies.{type(self).__name__}: ferroflow's Keras has no GPTQ/AWQ "
            "quantization."
        )


class GPTQDTypePolicy(_CalibratedDTypePolicy):
    """The policy of a GPTQ-quantized layer: not in ferroflow."""


class AWQDTypePolicy(_CalibratedDTypePolicy):
    """The policy of an AWQ-quantized layer: not in ferroflow."""


def _quantized_policy_from_name(name):
    """The policy a ``"<mode>_from_<source>"`` name stands for."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError(
            "Cannot convert `policy` into a valid pair (`mode`, `source_name`) to instantiate "
            f"`QuantizedDTypePolicy`. Received: policy={name}"
        )
    mode, source_name = parts
    if mode.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source_name)
    if mode.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source_name)
    if mode.startswith(("gptq", "awq")):
        raise NotImplementedError(
            f"ferroflow's Keras has no GPTQ or AWQ quantization. Received: policy={name}"
        )
    return QuantizedDTypePolicy(mode, source_name)


def _floatx():
    try:
        from ferroflow.keras import backend

        return backend.floatx()
    except AttributeError:
        return "float32"


def dtype_policy():
    """The global policy: what layers made without a ``dtype`` use."""
    global _global_policy
    if _global_policy is None:
        _global_policy = DTypePolicy(_floatx())
    return _global_policy


def reset_global_policy():
    """Forgets the global policy, as Keras's `clear_session` does."""
    global _global_policy
    _global_policy = None


def set_dtype_policy(policy):
    """Sets the global policy (a `DTypePolicy` or a name such as ``"mixed_float16"``)."""
    global _global_policy
    if not isinstance(policy, DTypePolicy):
        if isinstance(policy, str):
            policy = get(policy)
        else:
            raise ValueError(
                "Invalid `policy` argument. Expected the string name of a policy "
                f"(such as 'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy}"
            )
    _global_policy = policy


def get(identifier):
    """A policy from a policy, its name, a dtype, a serialised policy, or None (the global
    policy)."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, _dtypes.DType):
        return DTypePolicy(identifier.name)
    if isinstance(identifier, str):
        if identifier.startswith(QUANTIZATION_MODES):
            return _quantized_policy_from_name(identifier)
        return DTypePolicy(identifier)
    name = getattr(identifier, "name", None)  # numpy dtypes and the like
    if isinstance(name, str):
        return DTypePolicy(_dtypes.as_dtype(identifier).name)
    raise ValueError(f"Cannot interpret `dtype` argument. Received: {identifier}")


def serialize(policy):
    """Keras 3's serialised form of a policy."""
    quantized = isinstance(policy, QuantizedDTypePolicy)
    return {
        "module": "keras.dtype_policies" if quantized else "keras",
        "class_name": type(policy).__name__ if quantized else "DTypePolicy",
        "config": policy.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """The policy a `serialize` dict (or Keras's) describes."""
    class_name = config.get("class_name")
    quantized = _QUANTIZED_CLASSES.get(class_name)
    if quantized is not None:
        return quantized(**(config.get("config") or {}))
    if class_name in ("GPTQDTypePolicy", "AWQDTypePolicy"):
        raise NotImplementedError(
            f"ferroflow's Keras has no GPTQ or AWQ quantization (dtype policy {class_name})."
        )
    if class_name not in ("DTypePolicy", "FloatDTypePolicy", "Policy"):
        raise ValueError(f"Unknown dtype policy class: {class_name}")
    return DTypePolicy(**(config.get("config") or {}))


_QUANTIZED_CLASSES = {
    cls.__name__: cls for cls in (QuantizedDTypePolicy, QuantizedFloat8DTypePolicy, Int4DTypePolicy)
}
