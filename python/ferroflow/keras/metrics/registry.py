"""`tf.keras.metrics.get`, `serialize` and `deserialize`: metrics by name or config."""

import inspect

from ferroflow.keras._naming import to_snake_case
from ferroflow.keras._serialization import serialize_object
from ferroflow.keras.metrics import (
    accuracy_metrics,
    auc_metric,
    confusion_metrics,
    correlation_metrics,
    f_score_metrics,
    hinge_metrics,
    iou_metrics,
    probabilistic_metrics,
    r2_score,
    regression_metrics,
)
from ferroflow.keras.metrics.metric import Metric
from ferroflow.keras.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum

__all__ = ["ALL_OBJECTS", "ALL_OBJECTS_DICT", "deserialize", "get", "serialize"]

ALL_OBJECTS = [Metric, Mean, Sum, MeanMetricWrapper]
for _module in (
    regression_metrics,
    hinge_metrics,
    probabilistic_metrics,
    accuracy_metrics,
    confusion_metrics,
    auc_metric,
    correlation_metrics,
    f_score_metrics,
    iou_metrics,
    r2_score,
):
    ALL_OBJECTS += [
        obj for obj in (getattr(_module, name) for name in _module.__all__) if inspect.isclass(obj)
    ]

ALL_OBJECTS_DICT = {cls.__name__: cls for cls in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in ALL_OBJECTS})
ALL_OBJECTS_DICT.update(
    {
        "bce": probabilistic_metrics.BinaryCrossentropy,
        "BCE": probabilistic_metrics.BinaryCrossentropy,
        "mse": regression_metrics.MeanSquaredError,
        "MSE": regression_metrics.MeanSquaredError,
        "mae": regression_metrics.MeanAbsoluteError,
        "MAE": regression_metrics.MeanAbsoluteError,
        "mape": regression_metrics.MeanAbsolutePercentageError,
        "MAPE": regression_metrics.MeanAbsolutePercentageError,
        "msle": regression_metrics.MeanSquaredLogarithmicError,
        "MSLE": regression_metrics.MeanSquaredLogarithmicError,
        # tf.keras 2's short name for accuracy (Keras 3's `get` itself does not know it).
        "acc": accuracy_metrics.Accuracy,
    }
)


def serialize(metric):
    """A `Metric` instance's (or metric function's) config dict."""
    return serialize_object(metric, Metric, "keras.metrics", "Metric")


def _function_named(name):
    from ferroflow.keras import metrics

    fn = getattr(metrics, name, None)
    return fn if inspect.isfunction(fn) else None


def _lookup(name, custom_objects):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    obj = ALL_OBJECTS_DICT.get(name) or _function_named(name)
    if obj is None:
        raise ValueError(f"Could not interpret metric identifier: {name}")
    return obj


def deserialize(config, custom_objects=None):
    """The metric (class instance or function) that ``config`` (a name or `serialize`'s dict)
    describes."""
    if isinstance(config, str):
        obj = _lookup(config, custom_objects)
        return obj() if inspect.isclass(obj) else obj
    if isinstance(config, dict):
        class_name = config.get("class_name")
        inner = config.get("config", {})
        if class_name == "function":
            if custom_objects and inner in custom_objects:
                return custom_objects[inner]
            fn = _function_named(inner)
            if fn is None:
                raise ValueError(f"Could not interpret metric identifier: {config}")
            return fn
        cls = _lookup(class_name, custom_objects)
        if not (inspect.isclass(cls) and issubclass(cls, Metric)):
            raise ValueError(f"Could not interpret metric identifier: {config}")
        return cls.from_config(inner or {})
    raise ValueError(f"Could not interpret metric identifier: {config}")


def get(identifier):
    """A metric from a name ("accuracy", "mse", "binary_accuracy", "SparseCategoricalAccuracy"
    ...), a config dict, a callable or a `Metric` instance; names give a fresh instance."""
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
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
