"""Keras's JAX, Flax and PyTorch wrapper layers against Keras under TensorFlow 2.21, where
none of those libraries is installed: the same exception classes and messages."""

from .harness import assert_parity


def _foreign(tf):
    out = []
    L = tf.keras.layers
    for make in (
        lambda: L.JaxLayer(lambda params, inputs: inputs),
        lambda: L.FlaxLayer(None),
        lambda: L.TorchModuleWrapper(None),
    ):
        try:
            make()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            out.append((type(e).__name__, str(e)))
    return out


def test_wrappers_of_missing_libraries_fail_as_keras(tf_oracle):
    assert_parity(tf_oracle, _foreign, ())
