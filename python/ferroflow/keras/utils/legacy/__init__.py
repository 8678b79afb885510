"""`tf.keras.utils.legacy`: Keras 2's object serialization, as TensorFlow 2.21 exposes it."""

from ferroflow.keras.legacy.saving import (
    deserialize_keras_object,
    serialize_keras_object,
)

__all__ = ["deserialize_keras_object", "serialize_keras_object"]
