"""`tf.keras.utils.legacy` (Keras 2's object serialization) and
`tf.keras.callbacks.OrbaxCheckpoint` (an ImportError without orbax-checkpoint) against Keras
under TensorFlow 2.21."""

from ._outcomes import error_classes
from .harness import assert_parity


def _legacy(tf):
    L = tf.keras.utils.legacy
    layers = tf.keras.layers
    dense = layers.Dense(
        3, activation="relu", kernel_initializer=tf.keras.initializers.Constant(2.0)
    )
    config = L.serialize_keras_object(dense)
    out = [
        sorted(config),
        config["class_name"],
        {k: config["config"][k] for k in ("name", "units", "activation", "kernel_initializer")},
        L.serialize_keras_object(tf.keras.activations.relu),
        L.serialize_keras_object(None),
        L.serialize_keras_object(tf.keras.optimizers.SGD(0.5))["config"]["learning_rate"],
    ]
    rebuilt = L.deserialize_keras_object(config, module_objects=vars(layers))
    out.append((type(rebuilt).__name__, rebuilt.units, rebuilt.get_config()["activation"]))
    out.append(
        type(
            L.deserialize_keras_object(
                {"class_name": "Zeros", "config": {}}, module_objects=vars(tf.keras.initializers)
            )
        ).__name__
    )

    def custom(x):
        return x

    out.append(L.deserialize_keras_object("f", custom_objects={"f": custom}) is custom)
    out.append(L.deserialize_keras_object(custom) is custom)
    out.append(
        type(
            L.deserialize_keras_object("Z", custom_objects={"Z": tf.keras.initializers.Zeros})
        ).__name__
    )
    out.append(
        error_classes(
            [
                lambda: L.deserialize_keras_object(config),
                lambda: L.deserialize_keras_object({"config": {}}),
                lambda: L.deserialize_keras_object(5),
                lambda: L.deserialize_keras_object("relu"),
                lambda: L.serialize_keras_object(5),
                lambda: tf.keras.callbacks.OrbaxCheckpoint("/tmp/never_written"),
            ]
        )
    )
    return out


def test_legacy_serialization_and_orbax(tf_oracle):
    assert_parity(tf_oracle, _legacy, (), helpers=[error_classes])
