"""`schedules.serialize` / `schedules.deserialize`: Keras's
``{"module", "class_name", "config", "registered_name"}`` dicts for the built-in schedules."""

from ferroflow.keras.optimizers.schedules.learning_rate_schedule import LearningRateSchedule

__all__ = ["deserialize", "serialize"]

_MODULE = "keras.optimizers.schedules"


def _builtins():
    from ferroflow.keras.optimizers import schedules

    return {
        cls.__name__: cls
        for cls in (
            schedules.CosineDecay,
            schedules.ExponentialDecay,
            schedules.InverseTimeDecay,
            schedules.PiecewiseConstantDecay,
            schedules.PolynomialDecay,
        )
    }


def serialize(learning_rate_schedule):
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise TypeError(
            f"Expected a LearningRateSchedule, received: {learning_rate_schedule!r} "
            f"of type {type(learning_rate_schedule).__name__}"
        )
    cls = type(learning_rate_schedule)
    builtin = _builtins().get(cls.__name__) is cls
    return {
        "module": _MODULE if builtin else cls.__module__,
        "class_name": cls.__name__,
        "config": learning_rate_schedule.get_config(),
        "registered_name": None if builtin else cls.__name__,
    }


def deserialize(config, custom_objects=None):
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret serialized learning rate schedule: {config!r}")
    name = config["class_name"]
    known = {**_builtins(), **(custom_objects or {})}
    cls = known.get(config.get("registered_name") or name) or known.get(name)
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule: '{name}'")
    return cls.from_config(dict(config.get("config", {})))
