"""`tf.keras.losses.get`, `serialize` and `deserialize`: losses by name or config."""

import inspect

from ferroflow.keras._serialization import serialize_object
from ferroflow.keras.losses import circle_loss, overlap_losses, robust_losses, sequence_losses
from ferroflow.keras.losses import hinge_losses as hinge
from ferroflow.keras.losses import probabilistic_losses as probabilistic
from ferroflow.keras.losses import regression_losses as regression
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

__all__ = ["ALL_OBJECTS", "ALL_OBJECTS_DICT", "deserialize", "get", "serialize"]

ALL_OBJECTS = [Loss, LossFunctionWrapper]
for _module in (
    probabilistic,
    regression,
    hinge,
    sequence_losses,
    overlap_losses,
    circle_loss,
    robust_losses,
):
    ALL_OBJECTS += [getattr(_module, name) for name in _module.__all__]
ALL_OBJECTS.remove(regression.l2_normalize)
# Keras 3 leaves the generalized cross-entropy out of its lookup table: `get` refuses its names.
ALL_OBJECTS.remove(robust_losses.CategoricalGeneralizedCrossEntropy)
ALL_OBJECTS.remove(robust_losses.categorical_generalized_cross_entropy)
ALL_OBJECTS.remove(hinge.convert_binary_labels_to_hinge)

ALL_OBJECTS_DICT = {obj.__name__: obj for obj in ALL_OBJECTS}
ALL_OBJECTS_DICT.update(
    {
        "bce": probabilistic.binary_crossentropy,
        "BCE": probabilistic.binary_crossentropy,
        "kld": probabilistic.kl_divergence,
        "KLD": probabilistic.kl_divergence,
        "mae": regression.mean_absolute_error,
        "MAE": regression.mean_absolute_error,
        "mse": regression.mean_squared_error,
        "MSE": regression.mean_squared_error,
        "mape": regression.mean_absolute_percentage_error,
        "MAPE": regression.mean_absolute_percentage_error,
        "msle": regression.mean_squared_logarithmic_error,
        "MSLE": regression.mean_squared_logarithmic_error,
    }
)


def serialize(loss):
    """A `Loss` instance's (or loss function's) config dict."""
    return serialize_object(loss, Loss, "keras.losses", "Loss")


def _lookup(name, custom_objects):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name in ALL_OBJECTS_DICT:
        return ALL_OBJECTS_DICT[name]
    raise ValueError(f"Could not interpret loss identifier: {name}")


def deserialize(name, custom_objects=None):
    """The loss function or `Loss` instance that ``name`` (a name or `serialize`'s dict)
    describes."""
    if isinstance(name, str):
        return _lookup(name, custom_objects)
    if isinstance(name, dict):
        class_name = name.get("class_name")
        config = name.get("config", {})
        if class_name == "function":
            return _lookup(config, custom_objects)
        cls = _lookup(class_name, custom_objects)
        if not (inspect.isclass(cls) and issubclass(cls, Loss)):
            raise ValueError(f"Could not interpret loss identifier: {name}")
        return cls.from_config(config or {})
    raise ValueError(f"Could not interpret loss identifier: {name}")


def get(identifier):
    """A loss from a name ("mse", "categorical_crossentropy", "CategoricalCrossentropy"...), a
    config dict, a callable or a `Loss` instance; class names give a default instance."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        if inspect.isclass(obj):
            obj = obj()
        return obj
    raise ValueError(f"Could not interpret loss identifier: {identifier}")
