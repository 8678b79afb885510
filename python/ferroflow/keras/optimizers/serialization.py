"""`optimizers.get`, `serialize` and `deserialize`: optimizers by name ("adam", "SGD"...), by
Keras's ``{"class_name", "config"}`` dict, or as given."""

from ferroflow.keras.optimizers.adadelta import Adadelta
from ferroflow.keras.optimizers.adafactor import Adafactor
from ferroflow.keras.optimizers.adagrad import Adagrad
from ferroflow.keras.optimizers.adam import Adam
from ferroflow.keras.optimizers.adamax import Adamax
from ferroflow.keras.optimizers.adamw import AdamW
from ferroflow.keras.optimizers.ftrl import Ftrl
from ferroflow.keras.optimizers.lamb import Lamb
from ferroflow.keras.optimizers.lion import Lion
from ferroflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from ferroflow.keras.optimizers.multi_optimizer import MultiOptimizer
from ferroflow.keras.optimizers.muon import Muon
from ferroflow.keras.optimizers.nadam import Nadam
from ferroflow.keras.optimizers.optimizer import Optimizer
from ferroflow.keras.optimizers.rmsprop import RMSprop
from ferroflow.keras.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from ferroflow.keras.optimizers.sgd import SGD

__all__ = ["deserialize", "get", "serialize"]

_MODULE = "keras.optimizers"
# Built-in optimizers by lower-cased class name: names are matched case-insensitively.
_BUILTINS = {
    cls.__name__.lower(): cls
    for cls in (
        Adadelta,
        Adafactor,
        Adagrad,
        Adam,
        Adamax,
        AdamW,
        Ftrl,
        Lamb,
        Lion,
        LossScaleOptimizer,
        MultiOptimizer,
        Muon,
        Nadam,
        Optimizer,
        RMSprop,
        SGD,
        ScheduleFreeAdamW,
    )
}

# Keras's `get` does not know these by name (they are not in its ALL_OBJECTS), though
# `deserialize` builds them.
_NOT_BY_NAME = {"lamb"}


def serialize(optimizer):
    """``{"module", "class_name", "config", "registered_name"}`` for ``optimizer``."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"Expected an Optimizer, received: {optimizer!r} of type {type(optimizer).__name__}"
        )
    cls = type(optimizer)
    builtin = _BUILTINS.get(cls.__name__.lower()) is cls
    return {
        "module": _MODULE if builtin else cls.__module__,
        "class_name": cls.__name__,
        "config": optimizer.get_config(),
        "registered_name": None if builtin else cls.__name__,
    }


def deserialize(config, custom_objects=None):
    """The optimizer a `serialize` dict describes (``custom_objects`` maps further class
    names to classes)."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret serialized optimizer: {config!r}")
    name = config["class_name"]
    custom_objects = custom_objects or {}
    cls = custom_objects.get(config.get("registered_name") or name) or custom_objects.get(name)
    if cls is None:
        cls = _BUILTINS.get(name.lower())
    if cls is None:
        raise ValueError(f"Could not interpret optimizer identifier: {name}")
    return cls.from_config(dict(config.get("config") or {}), custom_objects=custom_objects)


def get(identifier):
    """An optimizer from a name, a config dict or an instance (returned as is); None gives
    None. Anything else is a ValueError."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        if identifier.lower() in _NOT_BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        obj = deserialize({"class_name": identifier, "config": {}})
    else:
        obj = identifier
    if isinstance(obj, Optimizer):
        return obj
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
