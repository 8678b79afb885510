"""What `load_model` returns for a SavedModel whose Keras class cannot be rebuilt (a subclassed
model that is not registered, say), as tf.keras 2 revived such models: a `Model` whose call
runs the saved function and whose weights are the loaded variables."""

from ferroflow.keras.models.model import Model
from ferroflow.train.trackable import children_of

__all__ = ["RevivedModel"]

_ROOT_LISTS = frozenset(("variables", "trainable_variables", "non_trainable_variables"))


class RevivedModel(Model):
    """A model loaded from a SavedModel without its Python class. Calls accept the input
    shapes the model was saved with; its attributes are the saved objects (so checkpoints of
    it have the original model's keys)."""

    _no_dependency_attributes = Model._no_dependency_attributes | {"_saved_call", "signatures"}

    @classmethod
    def from_saved_model(cls, loaded, name=None):
        """Wraps ``loaded``, what `tf.saved_model.load` returned for a model's directory."""
        saved_call = vars(loaded).get("__call__")
        if saved_call is None:
            raise ValueError(
                "The SavedModel has no `__call__` function, so it was not written by a Keras "
                "model's `save()`. Load it with `tf.saved_model.load` instead."
            )
        model = cls(name=name)
        model._saved_call = saved_call
        model.signatures = vars(loaded).get("signatures")
        for attribute, child in children_of(loaded):
            if attribute not in _ROOT_LISTS:
                setattr(model, attribute, child)
        model._own_weights.extend(getattr(loaded, "variables", []))
        args, _ = saved_call.concrete_functions[0].structured_input_signature
        model._first_call_specs = args[0]
        model.built = True
        return model

    def call(self, inputs, training=None, mask=None):
        return self._saved_call(inputs)

    def get_config(self):
        raise NotImplementedError(
            f"Model {self.name} was revived from a SavedModel without its Python class, so it "
            "has no config to rebuild it from. Save it as a SavedModel again (a path without "
            "a suffix), or load the original with `custom_objects={'ClassName': ClassName}`."
        )
