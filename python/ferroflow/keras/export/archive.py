"""`keras.export.ExportArchive`: collects endpoints (functions with input signatures) and the
variables of tracked layers into a SavedModel for inference, written by
`tf.saved_model.save` as Keras's TensorFlow backend writes it. Every endpoint is a signature
too, and the first one also serves as ``serving_default``.

>>> import tempfile, numpy as np, ferroflow as tf
>>> inputs = tf.keras.Input((3,), name="features")
>>> model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
>>> archive = tf.keras.export.ExportArchive()
>>> archive.track(model)
>>> serve = archive.add_endpoint(
...     "serve", model.call, input_signature=[tf.TensorSpec((None, 3), tf.float32)]
... )
>>> directory = tempfile.mkdtemp()
>>> archive.write_out(directory, verbose=False)
>>> tf.saved_model.load(directory).serve(np.ones((4, 3), np.float32)).shape
TensorShape([4, 2])
"""

from ferroflow.keras import tree
from ferroflow.keras.export import endpoint, resources
from ferroflow.keras.export.input_signature import make_tf_tensor_spec
from ferroflow.keras.export.signature_text import endpoint_text

__all__ = ["ExportArchive"]

_NOT_A_TF_FUNCTION = (
    "If the `fn` argument provided is not a `tf.function`, you must provide an "
    "`input_signature` argument to specify the shape and dtype of the function arguments. "
    "Example:\n\nexport_archive.add_endpoint(\n    name='call',\n    fn=model.call,\n"
    "    input_signature=[\n        keras.InputSpec(\n            shape=(None, 224, 224, 3),\n"
    "            dtype='float32',\n        )\n    ],\n)"
)


class ExportArchive:
    """Builds a SavedModel for inference: `track` the layers whose variables it should carry,
    `add_endpoint` the functions to serve, then `write_out`.

    The archive's ``variables``, ``trainable_variables`` and ``non_trainable_variables`` (those
    of the tracked layers) are attributes of the reloaded object too.
    """

    def __init__(self, format="saved_model", **kwargs):
        from ferroflow import __version__
        from ferroflow.train.trackable import AutoTrackable

        if format == "neptune_model":
            raise NotImplementedError(
                "ExportArchive(format='neptune_model') is not supported by ferroflow's Keras: "
                "it exports TensorFlow SavedModels only (format='saved_model')."
            )
        if format != "saved_model":
            raise ValueError(f"Unsupported format: {format}")
        self._endpoint_names = []
        self._endpoint_signatures = {}
        self._tracked = []
        self.tensorflow_version = __version__
        # The root object the SavedModel saves; these lists are saved with it.
        self._tf_trackable = AutoTrackable()
        self._tf_trackable.variables = []
        self._tf_trackable.trainable_variables = []
        self._tf_trackable.non_trainable_variables = []

    @property
    def variables(self):
        return self._tf_trackable.variables

    @property
    def trainable_variables(self):
        return self._tf_trackable.trainable_variables

    @property
    def non_trainable_variables(self):
        return self._tf_trackable.non_trainable_variables

    def track(self, resource):
        """Tracks a built layer or model (its variables go into the archive's lists) or another
        trackable object (the lookup tables it holds are saved)."""
        from ferroflow.keras.layers.layer import Layer
        from ferroflow.train.trackable import is_trackable

        if isinstance(resource, Layer) and not resource.built:
            raise ValueError(
                "The layer provided has not yet been built. It must be built before export."
            )
        if isinstance(resource, Layer) or is_trackable(resource):
            self._tracked.append(resource)
        if isinstance(resource, Layer):
            self._tf_trackable.variables += resource.variables
            self._tf_trackable.trainable_variables += resource.trainable_variables
            self._tf_trackable.non_trainable_variables += resource.non_trainable_variables
        elif not is_trackable(resource):
            raise ValueError(
                "Invalid resource type. Expected a Keras `Layer` or `Model` or a TensorFlow "
                f"`Trackable` object. Received object {resource} of type '{type(resource)}'. "
            )

    def add_endpoint(self, name, fn, input_signature=None, **kwargs):
        """Serves ``fn`` as ``name``: traced for ``input_signature`` (a structure of
        TensorSpecs, InputSpecs, KerasTensors or tensors, one entry per argument), or, without
        one, a `tf.function` already called at least once. Returns the `tf.function`."""
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
            raise ValueError(
                "'jax2tf_kwargs' and 'is_static' are only supported with the jax backend. "
                "Current backend: tensorflow"
            )
        if input_signature is None:
            if not endpoint.is_tf_function(fn):
                raise ValueError(_NOT_A_TF_FUNCTION)
            if not endpoint.traced_concrete_functions(fn):
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the "
                    "expected shape and dtype of the function's arguments, you must either "
                    "provide a function that has been called at least once, or alternatively "
                    "pass an `input_signature` argument in `add_endpoint()`."
                )
            decorated = fn
        else:
            input_signature = tree.map_structure(make_tf_tensor_spec, input_signature)
            decorated = endpoint.endpoint_function(fn, input_signature)
            self._endpoint_signatures[name] = input_signature
        setattr(self._tf_trackable, name, decorated)
        self._endpoint_names.append(name)
        return decorated

    def track_and_add_endpoint(self, name, resource, input_signature, **kwargs):
        """`track` ``resource`` (a layer or model), then serve ``resource.__call__`` as
        ``name``."""
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name, variables):
        """Saves ``variables`` (a list, tuple or set of variables) as the attribute ``name``
        of the reloaded object."""
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
        setattr(self._tf_trackable, name, list(variables))

    def write_out(self, filepath, options=None, verbose=True):
        """Writes the SavedModel to ``filepath``: every endpoint as a function and a
        signature, the first also as ``serving_default`` unless an endpoint has that name."""
        from ferroflow.keras.utils.progbar import print_msg
        from ferroflow.saved_model.save import save

        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        self._track_resources()
        signatures = {name: self._signature_function(name) for name in self._endpoint_names}
        if "serving_default" not in self._endpoint_names:
            signatures["serving_default"] = self._signature_function(self._endpoint_names[0])
        save(self._tf_trackable, filepath, signatures=signatures, options=options)
        if verbose:
            endpoints = "\n\n".join(
                endpoint_text(name, getattr(self._tf_trackable, name), self._concrete(name))
                for name in self._endpoint_names
            )
            print_msg(
                f"Saved artifact at '{filepath}'. The following endpoints are available:"
                f"\n\n{endpoints}"
            )

    def _signature_function(self, name):
        """The endpoint's `tf.function` where it has an input signature, else its first
        trace (as Keras's ``_get_concrete_fn``)."""
        if name in self._endpoint_signatures:
            return getattr(self._tf_trackable, name)
        return self._concrete(name)

    def _concrete(self, name):
        fn = getattr(self._tf_trackable, name)
        if name in self._endpoint_signatures:
            return fn.get_concrete_function()
        return endpoint.traced_concrete_functions(fn)[0]

    def _track_resources(self):
        """The variables the endpoints read and the tracked objects' lookup tables, saved
        with the root as Keras saves them."""
        concretes = [self._concrete(name) for name in self._endpoint_names]
        trainable, non_trainable = resources.variables_used_by(concretes)
        self._tf_trackable._all_variables = trainable + non_trainable
        self._tf_trackable._misc_assets = resources.tables_reachable_from(self._tracked)
