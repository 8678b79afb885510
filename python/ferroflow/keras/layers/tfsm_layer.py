"""`tf.keras.layers.TFSMLayer`: a SavedModel directory, loaded with `tf.saved_model.load`, as a
layer whose call runs one of its endpoints (a saved function attribute or a signature).

As in Keras, the variables the endpoints use become the layer's weights as copies (named after
the originals, ``/`` replaced by ``_``); the endpoints keep computing with the loaded ones."""

from ferroflow.keras.export.resources import variables_used_by
from ferroflow.keras.layers.layer import Layer
from ferroflow.variables import Variable

__all__ = ["TFSMLayer"]


def _endpoint(loaded, name, with_hint):
    if hasattr(loaded, name):
        return getattr(loaded, name)
    signatures = getattr(loaded, "signatures", {})
    if name in signatures:
        return signatures[name]
    hint = "Select another endpoint via the `call_endpoint` argument. " if with_hint else ""
    raise ValueError(
        f"The endpoint '{name}' is neither an attribute of the reloaded SavedModel, nor an "
        f"entry in the `signatures` field of the reloaded SavedModel. {hint}Available "
        f"endpoints for this SavedModel: {list(signatures.keys())}"
    )


class TFSMLayer(Layer):
    """Calls ``call_endpoint`` of the SavedModel at ``filepath`` (``call_training_endpoint``,
    when given, in training)."""

    def __init__(
        self,
        filepath,
        call_endpoint="serve",
        call_training_endpoint=None,
        trainable=True,
        name=None,
        dtype=None,
    ):
        from ferroflow.saved_model import load

        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self._reloaded_obj = load(filepath)
        self.filepath = filepath
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        self.call_endpoint_fn = _endpoint(self._reloaded_obj, call_endpoint, True)
        fns = [self.call_endpoint_fn]
        if call_training_endpoint:
            self.call_training_endpoint_fn = _endpoint(
                self._reloaded_obj, call_training_endpoint, False
            )
            fns.append(self.call_training_endpoint_fn)
        trainable_vars, other_vars = variables_used_by(fns)
        for v in trainable_vars + other_vars:
            self._track_copy(v)
        self.built = True

    def _track_copy(self, weight):
        name = weight.name.replace("/", "_")
        if name.endswith(":0"):
            name = name[:-2]
        copy = Variable(weight.value(), trainable=weight.trainable, name=name, dtype=weight.dtype)
        copy.path = f"{self.name}/{name}"
        self._own_weights.append(copy)

    def call(self, inputs, training=False, **kwargs):
        if training and self.call_training_endpoint:
            return self.call_training_endpoint_fn(inputs, **kwargs)
        return self.call_endpoint_fn(inputs, **kwargs)

    def get_config(self):
        return {
            **super().get_config(),
            "filepath": self.filepath,
            "call_endpoint": self.call_endpoint,
            "call_training_endpoint": self.call_training_endpoint,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """The layer ``config`` describes; refused unless ``safe_mode=False`` is passed or in
        effect (the SavedModel's graphs would run code from the file)."""
        from ferroflow.keras.saving.serialization_lib import _in_safe_mode

        effective = safe_mode if safe_mode is not None else _in_safe_mode()
        if effective is not False:
            raise ValueError(
                "Requested the deserialization of a `TFSMLayer`, which loads an external "
                "SavedModel. This carries a potential risk of arbitrary code execution and thus "
                "it is disallowed by default. If you trust the source of the artifact, you can "
                "override this error by passing `safe_mode=False` to the loading function, or "
                "calling `keras.config.enable_unsafe_deserialization()."
            )
        config = dict(config)
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = config["dtype"].get("config", {}).get("name")
        return cls(**config)
