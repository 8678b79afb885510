"""`keras.dtype_policies`: a layer's dtype policy names the dtype it computes in and the dtype
of its variables. ``"mixed_float16"`` and ``"mixed_bfloat16"`` compute in 16 bits with float32
variables (read in 16 bits inside the layer's call: `keras/_autocast.py`); any float dtype name
is a policy computing and storing in that dtype. The global policy (``keras.config.
set_dtype_policy``, or ``keras.mixed_precision.set_global_policy``) is what layers built
without a ``dtype`` use."""

from ferroflow import dtypes as _dtypes

__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "deserialize",
    "dtype_policy",
    "get",
    "serialize",
    "set_dtype_policy",
]

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
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other):
        if type(other) not in (DTypePolicy, FloatDTypePolicy):
            return False
        return self._name == other._name

    def __hash__(self):
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's name for a plain (unquantized) policy."""


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
            policy = DTypePolicy(policy)
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
        return DTypePolicy(identifier)
    name = getattr(identifier, "name", None)  # numpy dtypes and the like
    if isinstance(name, str):
        return DTypePolicy(_dtypes.as_dtype(identifier).name)
    raise ValueError(f"Cannot interpret `dtype` argument. Received: {identifier}")


def serialize(policy):
    """Keras 3's serialised form of a policy."""
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": policy.get_config(),
        "registered_name": None,
    }


def deserialize(config, custom_objects=None):
    """The policy a `serialize` dict (or Keras's) describes."""
    class_name = config.get("class_name")
    if class_name not in ("DTypePolicy", "FloatDTypePolicy", "Policy"):
        raise ValueError(f"Unknown dtype policy class: {class_name}")
    return DTypePolicy(**(config.get("config") or {}))
