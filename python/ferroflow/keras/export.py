"""`keras.export`: `ExportArchive`, which collects layers' variables and endpoints (functions
with input signatures) into a TensorFlow SavedModel written by `tf.saved_model.save`, as
Keras's TensorFlow backend does. The first endpoint also serves as ``serving_default``."""

from ferroflow.keras import tree

__all__ = ["ExportArchive"]


def _tensor_spec(x):
    """A `tf.TensorSpec` from a TensorSpec, an InputSpec (with shape and dtype), a KerasTensor
    or a tensor (the latter two with any batch size), as Keras's ``make_tf_tensor_spec``."""
    from ferroflow.array_ops import is_tensor
    from ferroflow.keras.layers.input_layer import KerasTensor
    from ferroflow.keras.layers.input_spec import InputSpec
    from ferroflow.tensor_spec import TensorSpec

    if isinstance(x, TensorSpec):
        return x
    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(f"The `shape` and `dtype` must be provided. Received: x={x}")
        shape, dtype, name = tuple(x.shape), x.dtype, getattr(x, "name", None)
    elif isinstance(x, KerasTensor) or is_tensor(x):
        shape = (None, *tuple(x.shape)[1:])
        dtype = getattr(x.dtype, "name", x.dtype)
        name = getattr(x, "name", None) if isinstance(x, KerasTensor) else None
    else:
        raise TypeError(
            f"Unsupported x={x} of the type ({type(x)}). Supported types are: "
            "`keras.InputSpec`, `keras.KerasTensor` and backend tensor."
        )
    return TensorSpec(shape, dtype=dtype, name=name)


def _positional_only(fn, count):
    """``fn`` seen as taking only its first ``count`` parameters (those the input signature
    fills), so that its defaulted Python arguments (``training=None``...) stay out of the
    saved function's signature."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return fn
    if len(params) <= count or any(p.kind == p.VAR_POSITIONAL for p in params[:count]):
        return fn

    def endpoint(*args):
        return fn(*args)

    endpoint.__name__ = getattr(fn, "__name__", "endpoint")
    endpoint.__signature__ = inspect.Signature(
        [p.replace(default=inspect.Parameter.empty) for p in params[:count]]
    )
    return endpoint


class ExportArchive:
    """Builds a SavedModel for inference: `track` the layers whose variables it needs,
    `add_endpoint` the functions to serve, then `write_out`."""

    def __init__(self, format="saved_model"):
        from ferroflow.train.trackable import AutoTrackable

        if format != "saved_model":
            raise ValueError(f"Unsupported format: {format}")
        self._endpoint_names = []
        self._endpoint_signatures = {}
        self._tracked = []
        self._root = AutoTrackable()
        for name in ("variables", "trainable_variables", "non_trainable_variables"):
            object.__setattr__(self._root, name, [])

    @property
    def variables(self):
        return self._root.variables

    @property
    def trainable_variables(self):
        return self._root.trainable_variables

    @property
    def non_trainable_variables(self):
        return self._root.non_trainable_variables

    def track(self, resource):
        """Tracks a built layer or model (its variables go into the archive) or another
        trackable object."""
        from ferroflow.keras.layers.layer import Layer
        from ferroflow.train.trackable import is_trackable

        if isinstance(resource, Layer) and not resource.built:
            raise ValueError(
                "The layer provided has not yet been built. It must be built before export."
            )
        if is_trackable(resource):
            self._tracked.append(resource)
        if isinstance(resource, Layer):
            self._root.variables.extend(resource.variables)
            self._root.trainable_variables.extend(resource.trainable_variables)
            self._root.non_trainable_variables.extend(resource.non_trainable_variables)
        elif not is_trackable(resource):
            raise ValueError(
                "Invalid resource type. Expected a Keras `Layer` or `Model` or a TensorFlow "
                f"`Trackable` object. Received object {resource} of type '{type(resource)}'. "
            )

    def add_endpoint(self, name, fn, input_signature=None, **kwargs):
        """Serves ``fn`` as ``name``: traced with ``input_signature`` (TensorSpecs,
        InputSpecs or KerasTensors), or a `tf.function` already called once."""
        from ferroflow.function import Function, function

        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
            raise ValueError(
                "'jax2tf_kwargs' and 'is_static' are only supported with the jax backend. "
                "Current backend: tensorflow"
            )
        if input_signature is None:
            if not isinstance(fn, Function):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide an "
                    "`input_signature` argument to specify the shape and dtype of the function "
                    "arguments. Example:\n\nexport_archive.add_endpoint(\n    name='call',\n"
                    "    fn=model.call,\n    input_signature=[\n        keras.InputSpec(\n"
                    "            shape=(None, 224, 224, 3),\n            dtype='float32',\n"
                    "        )\n    ],\n)"
                )
            if not fn._list_all_concrete_functions():
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the "
                    "expected shape and dtype of the function's arguments, you must either "
                    "provide a function that has been called at least once, or alternatively "
                    "pass an `input_signature` argument in `add_endpoint()`."
                )
            decorated = fn
        else:
            signature = tree.map_structure(_tensor_spec, input_signature)
            decorated = function(
                _positional_only(fn, len(signature)), input_signature=signature, autograph=False
            )
            self._endpoint_signatures[name] = signature
        object.__setattr__(self._root, name, decorated)
        self._endpoint_names.append(name)
        return decorated

    def track_and_add_endpoint(self, name, resource, input_signature, **kwargs):
        """`track` then `add_endpoint` of ``resource.__call__``."""
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name, variables):
        """Saves a list of variables as the attribute ``name`` of the archive."""
        from ferroflow.variables import Variable

        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(
                "Expected `variables` to be a list/tuple/set. Received instead object of type "
                f"'{type(variables)}'."
            )
        if not all(isinstance(v, Variable) for v in variables):
            raise ValueError(
                "Expected all elements in `variables` to be `tf.Variable` instances. Found "
                f"instead the following types: {list(set(type(v) for v in variables))}"
            )
        object.__setattr__(self._root, name, list(variables))

    def _concrete(self, name):
        fn = getattr(self._root, name)
        if name in self._endpoint_signatures:
            return fn.get_concrete_function(*self._endpoint_signatures[name])
        return fn._list_all_concrete_functions()[0]

    def write_out(self, filepath, options=None, verbose=True):
        """Writes the SavedModel to ``filepath``."""
        from ferroflow.saved_model.save import save

        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        for root in self._tracked:
            # Tracked objects travel with the archive (their assets and resources).
            object.__setattr__(self._root, f"_tracked_{id(root)}", root)
        signatures = {name: self._concrete(name) for name in self._endpoint_names}
        if "serving_default" not in signatures:
            signatures["serving_default"] = self._concrete(self._endpoint_names[0])
        save(self._root, filepath, signatures=signatures, options=options)
        if verbose:
            endpoints = "\n\n".join(f"* Endpoint '{name}'" for name in self._endpoint_names)
            print(
                f"Saved artifact at '{filepath}'. The following endpoints are available:"
                f"\n\n{endpoints}"
            )
