"""`tf.keras.saving`: whole models (`.keras` archives, TensorFlow SavedModels), weights
(`.weights.h5` files, TensorFlow checkpoints) and the Keras object (de)serialization they use.
`saving_api` says which format a path means; `keras_archive` documents ferroflow's one
departure from Keras's `.keras` layout (weights stored as `.npz`, as h5py is optional)."""

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
