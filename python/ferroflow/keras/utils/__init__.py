"""`tf.keras.utils`: the progress bar, seeding, one-hot targets, data packing helpers and
`clear_session`."""

from ferroflow.keras.backend import clear_session
from ferroflow.keras.saving import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from ferroflow.keras.utils.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from ferroflow.keras.utils.numerical_utils import to_categorical
from ferroflow.keras.utils.progbar import Progbar
from ferroflow.keras.utils.rng_utils import set_random_seed

__all__ = [
    "CustomObjectScope",
    "Progbar",
    "clear_session",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "register_keras_serializable",
    "serialize_keras_object",
    "pack_x_y_sample_weight",
    "set_random_seed",
    "to_categorical",
    "unpack_x_y_sample_weight",
]
