"""The pieces of Keras 3 layer configs: serialised activations, initializers, regularizers,
constraints and dtype policies, and the resolution of constraint identifiers."""

__all__ = [
    "dtype_policy_from",
    "dtype_policy_config",
    "get_constraint",
    "serialize_activation",
    "serialize_constraint",
    "serialize_initializer",
    "serialize_regularizer",
]


def dtype_policy_config(policy):
    """A layer's ``dtype`` as Keras 3 writes it: a serialised ``DTypePolicy``."""
    from ferroflow.keras import dtype_policies

    return dtype_policies.serialize(dtype_policies.get(policy))


def dtype_policy_from(dtype):
    """The `DTypePolicy` a layer's ``dtype`` argument names: None (the global policy), a
    policy, a dtype or its name (``"mixed_float16"`` too), or a serialised policy."""
    from ferroflow.keras import dtype_policies

    return dtype_policies.get(dtype)


def _named_function_config(fn, kind):
    """Keras's config of a plain function: its name, found again through custom_objects."""
    name = getattr(fn, "__name__", None)
    if name in (None, "<lambda>"):
        raise ValueError(
            f"Cannot serialize the {kind} {fn!r}: it has no name to serialize (use a named "
            "function, or an object with `get_config`)."
        )
    return {
        "module": "builtins",
        "class_name": "function",
        "config": name,
        "registered_name": "function",
    }


def serialize_activation(activation):
    """A built-in activation's name (also for functions named like one, such as
    ``tf.nn.relu``), an activation object's config, or a named function's config."""
    from ferroflow.keras import activations

    try:
        return activations.serialize(activation)
    except ValueError:
        pass
    name = getattr(activation, "__name__", None)
    if activations.ALL_OBJECTS_DICT.get(name) is not None:
        return name
    return _named_function_config(activation, "activation")


def serialize_initializer(initializer):
    from ferroflow.keras import initializers

    if initializer is None or isinstance(initializer, initializers.Initializer):
        return initializers.serialize(initializer)
    return _named_function_config(initializer, "initializer")


def serialize_regularizer(regularizer):
    from ferroflow.keras import regularizers

    if regularizer is None or isinstance(regularizer, regularizers.Regularizer):
        return regularizers.serialize(regularizer)
    return _named_function_config(regularizer, "regularizer")


def get_constraint(identifier):
    """A weight constraint (applied after each optimizer step): None, a name or config of
    `tf.keras.constraints`, or any callable ``constraint(weight) -> weight``."""
    from ferroflow.keras import constraints

    return constraints.get(identifier)


def serialize_constraint(constraint):
    if constraint is None:
        return None
    if hasattr(constraint, "get_config"):
        return {
            "module": "keras.constraints",
            "class_name": type(constraint).__name__,
            "config": constraint.get_config(),
            "registered_name": None,
        }
    return _named_function_config(constraint, "constraint")
