"""`tf.keras.saving`: whole models (`.keras` archives, legacy `.h5` files, TensorFlow
SavedModels), weights (`.weights.h5` files, TensorFlow checkpoints) and the Keras object
(de)serialization they use. `saving_api` says which format a path means; the `.keras`,
`.weights.h5` and `.h5` files are laid out exactly as Keras 3 lays them out, so each side
reads the other's."""

from ferroflow.keras.saving.object_registration import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from ferroflow.keras.saving.saving_api import load_model, load_weights, save_model, save_weights
from ferroflow.keras.saving.serialization_lib import (
    deserialize_keras_object,
    serialize_keras_object,
)

__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "register_keras_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
]
