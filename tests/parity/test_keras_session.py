"""`tf.keras.backend.clear_session`: the global state Keras keeps between models."""

from .harness import parity


@parity
def test_clear_session_restarts_automatic_names(tf):
    def names():
        dense = [tf.keras.layers.Dense(1).name for _ in range(2)]
        inputs = tf.keras.Input((2,))
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizers = [tf.keras.optimizers.Adam().name for _ in range(2)]
        return dense, inputs.name, model.name, optimizers

    before = names()
    tf.keras.backend.clear_session()
    after = names()
    tf.keras.utils.clear_session(free_memory=False)
    return before, after, names()
