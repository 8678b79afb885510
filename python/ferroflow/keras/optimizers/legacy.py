"""`tf.keras.optimizers.legacy`: Keras 3 keeps the names of Keras 2's optimizers there, each
raising Keras's ``ImportError`` when constructed."""

__all__ = ["SGD", "Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop"]


class LegacyOptimizerWarning:
    """A Keras 2 optimizer name: constructing it raises ``ImportError`` as in Keras 3."""

    def __init__(self, *args, **kwargs):
        raise ImportError(
            "`keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to "
            "continue using a `tf.keras.optimizers.legacy` optimizer, you can install the "
            "`tf_keras` package (Keras 2) and set the environment variable "
            "`TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when "
            "accessing `tf.keras`."
        )


Adagrad = Adam = Ftrl = Optimizer = RMSprop = SGD = LegacyOptimizerWarning
