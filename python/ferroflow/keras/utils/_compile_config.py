"""`Model.get_compile_config` and `compile_from_config`: `compile`'s arguments as Keras's
JSON-ready config (objects as their ``{"class_name", "config"}`` dicts) and back."""

from ferroflow.keras import losses, metrics, optimizers

__all__ = ["deserialize_compile_config", "serialize_compile_config"]

# Which registry (de)serialises the objects of each argument.
_REGISTRIES = {
    "loss": losses,
    "metrics": metrics,
    "weighted_metrics": metrics,
}


def _serialize(value, registry):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_serialize(v, registry) for v in value]
    if isinstance(value, dict):
        return {k: _serialize(v, registry) for k, v in value.items()}
    return registry.serialize(value)


def _deserialize(value, registry):
    if isinstance(value, list):
        return [_deserialize(v, registry) for v in value]
    if isinstance(value, dict):
        if "class_name" in value:
            return registry.deserialize(value)
        return {k: _deserialize(v, registry) for k, v in value.items()}
    return value


def serialize_compile_config(arguments):
    """The config of `compile`'s ``arguments`` (a dict of them)."""
    config = dict(arguments)
    optimizer = config.get("optimizer")
    if optimizer is not None and not isinstance(optimizer, str):
        config["optimizer"] = optimizers.serialize(optimizer)
    for name, registry in _REGISTRIES.items():
        config[name] = _serialize(config.get(name), registry)
    return config


def deserialize_compile_config(config):
    """`compile`'s keyword arguments from `serialize_compile_config`'s output."""
    arguments = dict(config)
    optimizer = arguments.get("optimizer")
    if isinstance(optimizer, dict):
        arguments["optimizer"] = optimizers.deserialize(optimizer)
    for name, registry in _REGISTRIES.items():
        arguments[name] = _deserialize(arguments.get(name), registry)
    return arguments
