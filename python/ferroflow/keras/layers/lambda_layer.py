"""`tf.keras.layers.Lambda`: an arbitrary function of tensors as a layer, the way to use
TensorFlow ops on the `KerasTensor`s of a functional model. Python lambdas are saved as
bytecode, which only loads with ``safe_mode=False`` (as in Keras)."""

import base64
import inspect
import marshal
import sys
import types

from ferroflow.keras.layers.layer import Layer

__all__ = ["Lambda"]


def _dump_lambda(fn):
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return {
        "class_name": "__lambda__",
        "config": {"code": code, "defaults": fn.__defaults__, "closure": closure},
    }


def _cell(value):
    return (lambda: value).__closure__[0]


def _load_lambda(config):
    code = marshal.loads(base64.b64decode(config["code"].encode("ascii")))
    defaults = config.get("defaults")
    closure = config.get("closure")
    # The lambda's own globals are gone; those of the main script (where lambdas are usually
    # written), with `tf` bound to ferroflow, resolve the names it most likely uses.
    import ferroflow

    namespace = dict(vars(sys.modules["__main__"]))
    namespace.setdefault("tf", ferroflow)
    return types.FunctionType(
        code,
        namespace,
        name=code.co_name,
        argdefs=tuple(defaults) if defaults is not None else None,
        closure=tuple(_cell(v) for v in closure) if closure is not None else None,
    )


def _is_lambda(fn):
    return isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>"


def _serialize_function(fn):
    if _is_lambda(fn):
        return _dump_lambda(fn)
    if callable(fn) and hasattr(fn, "__name__"):
        module = getattr(fn, "__module__", None)
        return {
            "module": None if module == "__main__" else module,
            "class_name": "function",
            "config": fn.__name__,
            "registered_name": fn.__name__,
        }
    raise ValueError(f"Invalid input type for serialization. Received: {fn} of type {type(fn)}.")


def _deserialize_function(config, custom_objects, safe_mode):
    if callable(config):
        return config
    if isinstance(config, dict) and config.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a Python "
                "lambda. This carries a potential risk of arbitrary code execution and thus it "
                "is disallowed by default. If you trust the source of the artifact, you can "
                "override this error by passing `safe_mode=False` to the loading function."
            )
        return _load_lambda(config["config"])
    name = config.get("config") if isinstance(config, dict) else config
    module = config.get("module") if isinstance(config, dict) else None
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    from ferroflow.keras import activations

    if module is None or module.startswith(("keras", "ferroflow.keras")):
        fn = getattr(activations, str(name), None)
        if callable(fn):
            return fn
    # Only modules already imported are searched: a config must not trigger imports.
    fn = getattr(sys.modules.get(module or "__main__"), str(name), None)
    if callable(fn):
        return fn
    raise ValueError(
        f"Could not find function '{name}' (module {module}) for a Lambda layer: pass it in "
        "`custom_objects`."
    )


def _scoped_safe_mode():
    """The ``safe_mode`` of the model loading in progress (True outside of one)."""
    from ferroflow.keras.saving import serialization_lib

    probe = getattr(serialization_lib, "in_safe_mode", None) or getattr(
        serialization_lib, "_in_safe_mode", None
    )
    scoped = probe() if probe is not None else None
    return True if scoped is None else bool(scoped)


class Lambda(Layer):
    """Wraps a function of the inputs (``function(inputs, **arguments)``) as a layer.

    >>> import ferroflow as tf
    >>> x = tf.keras.Input(shape=(3,))
    >>> y = tf.keras.layers.Lambda(lambda t: tf.nn.relu(t) * 2.0)(x)
    >>> y.shape
    (None, 3)
    """

    _no_dependency_attributes = Layer._no_dependency_attributes | frozenset(
        {"function", "arguments", "mask", "_output_shape"}
    )

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(
                f"Argument `function` of a Lambda layer must be callable. Received: {function}"
            )
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None
        self._output_shape = output_shape
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            parameters = {}
        self._fn_expects_training_arg = "training" in parameters
        self._fn_expects_mask_arg = "mask" in parameters
        self.built = True

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        """``mask`` called on the inputs and their mask when callable, else ``mask`` itself."""
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self):
        config = super().get_config()
        config["function"] = _serialize_function(self.function)
        if self._output_shape is not None:
            output_shape = self._output_shape
            if callable(output_shape):
                output_shape = _serialize_function(output_shape)
            config["output_shape"] = output_shape
        if self.mask is not None:
            config["mask"] = _serialize_function(self.mask) if callable(self.mask) else self.mask
        config["arguments"] = dict(self.arguments)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        if safe_mode is None:
            safe_mode = _scoped_safe_mode()
        config = dict(config)
        config["function"] = _deserialize_function(config["function"], custom_objects, safe_mode)
        output_shape = config.get("output_shape")
        if isinstance(output_shape, dict):
            config["output_shape"] = _deserialize_function(output_shape, custom_objects, safe_mode)
        elif isinstance(output_shape, list):
            config["output_shape"] = tuple(output_shape)
        if isinstance(config.get("mask"), dict):
            config["mask"] = _deserialize_function(config["mask"], custom_objects, safe_mode)
        return cls(**config)
