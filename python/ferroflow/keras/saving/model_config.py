"""The ``build_config`` and ``compile_config`` parts of a saved model's config: how to recreate
its variables (call it on inputs shaped like its first call's) and how to compile it again."""

import inspect
import warnings

import numpy as np

from ferroflow import nest

__all__ = ["build_from_config", "compile_from_config", "get_build_config", "get_compile_config"]


def _layer_type():
    from ferroflow.keras.layers.layer import Layer

    return Layer


def _model_type():
    from ferroflow.keras.models.model import Model

    return Model


def _own_method(obj, name):
    """``obj.name`` when a class below ferroflow's Layer and Model defines it, else None."""
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("ferroflow.keras.layers.layer") or cls.__module__.startswith(
            "ferroflow.keras.models.model"
        ):
            return None
        if name in vars(cls):
            return getattr(obj, name)
    return None


# --- build config -----------------------------------------------------------------------------


def get_build_config(obj):
    """``{"input_shape": ..., "input_dtype": ...}`` of a layer that has been called (shapes as
    lists, nested like its inputs), or what its own `get_build_config` says; else None.
    ``input_dtype`` is ferroflow's addition (Keras builds from shapes alone and assumes float
    inputs); Keras ignores it."""
    if not isinstance(obj, _layer_type()):
        return None
    own = _own_method(obj, "get_build_config")
    if own is not None:
        return own()
    specs = getattr(obj, "_first_call_specs", None)
    if specs is None:
        return None
    if not all(hasattr(s, "shape") for s in nest.flatten(specs)):
        return None
    return {
        "input_shape": nest.map_structure(lambda s: list(s.shape.as_list()), specs),
        "input_dtype": nest.map_structure(lambda s: s.dtype.name, specs),
    }


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in value
    )


def _map_shapes(fn, shapes, dtypes):
    """``fn(shape, dtype)`` over a nest whose leaves are shapes (lists of dims)."""
    if _is_shape(shapes):
        return fn(list(shapes), dtypes if isinstance(dtypes, str) else "float32")
    if isinstance(shapes, dict):
        dtypes = dtypes if isinstance(dtypes, dict) else {}
        return {k: _map_shapes(fn, v, dtypes.get(k)) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        dtypes = dtypes if isinstance(dtypes, (list, tuple)) else [None] * len(shapes)
        return [_map_shapes(fn, s, d) for s, d in zip(shapes, dtypes)]
    raise ValueError(f"The saved build config holds an input shape ferroflow cannot read: {shapes}")


def build_from_config(instance, build_config):
    """Creates the variables of ``instance``, a layer or model that was built when saved: with
    its class's own `build_from_config` if it has one, else by calling it on zeros shaped like
    the recorded inputs (unknown dimensions taken as 1)."""
    from ferroflow.array_ops import convert_to_tensor
    from ferroflow.tensor_spec import TensorSpec

    if not isinstance(instance, _layer_type()):
        return
    shapes = build_config.get("input_shape")
    dtypes = build_config.get("input_dtype")
    if getattr(instance, "built", False):  # a functional model, built by `from_config`
        if shapes is not None and getattr(instance, "_first_call_specs", None) is None:
            instance._first_call_specs = _map_shapes(TensorSpec, shapes, dtypes)
        return
    own = _own_method(instance, "build_from_config")
    if own is not None:
        own(build_config)
        return
    if shapes is None:
        return
    zeros = _map_shapes(
        lambda shape, dtype: convert_to_tensor(
            np.zeros([1 if d is None else d for d in shape], dtype=dtype)
        ),
        shapes,
        dtypes,
    )
    instance(zeros)
    # The saved model was first called with these specs; a save of the loaded one traces them.
    instance._first_call_specs = _map_shapes(TensorSpec, shapes, dtypes)


# --- compile config ---------------------------------------------------------------------------


def get_compile_config(obj):
    """The arguments a compiled model was compiled with, serialized (its `get_compile_config`);
    None for anything else."""
    if not isinstance(obj, _model_type()):
        return None
    own = getattr(obj, "get_compile_config", None)
    return own() if own is not None else None


def compile_from_config(model, config):
    """Compiles ``model`` with the saved compile arguments and builds its optimizer, so that a
    saved optimizer state has variables to load into (Keras's `compile_from_config`)."""
    from ferroflow.keras.saving.serialization_lib import deserialize_keras_object

    own = getattr(model, "compile_from_config", None)
    if own is not None:
        own(config)
        return
    if not hasattr(model, "compile"):
        return
    if _own_method(model, "compile") is not None:
        warnings.warn(
            "`compile()` was not called as part of model loading because the model's "
            "`compile()` method is custom. All subclassed Models that have `compile()` "
            "overridden should also override `get_compile_config()` and "
            "`compile_from_config(config)`. Alternatively, you can call `compile()` manually "
            "after loading.",
            stacklevel=2,
        )
        return
    arguments = deserialize_keras_object(config)
    parameters = inspect.signature(model.compile).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        arguments = {k: v for k, v in arguments.items() if k in parameters}
    model.compile(**arguments)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and model.built and not getattr(optimizer, "built", True):
        optimizer.build(model.trainable_variables)
