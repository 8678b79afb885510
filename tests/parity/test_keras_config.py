"""`keras.config` against Keras 3 under TensorFlow 2.21: the settings and their defaults,
the debugging caps on `fit` (epochs, steps per epoch), the switches, and the errors."""

from ._outcomes import error_classes
from .harness import assert_parity


def _config(tf):
    import warnings

    import numpy as np

    C = tf.keras.config
    out = [C.backend(), C.floatx(), C.epsilon(), C.image_data_format(), C.is_nnx_enabled()]
    out += [C.max_epochs(), C.max_steps_per_epoch(), C.is_flash_attention_enabled()]
    out += [C.is_traceback_filtering_enabled(), C.dtype_policy().name]
    C.disable_flash_attention()
    out.append(C.is_flash_attention_enabled())
    C.enable_flash_attention()
    out.append(C.is_flash_attention_enabled())
    C.disable_traceback_filtering()
    out.append(C.is_traceback_filtering_enabled())
    C.enable_traceback_filtering()
    x = np.ones((12, 2), np.float32)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    try:
        C.set_max_epochs(2)
        C.set_max_steps_per_epoch(3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            history = model.fit(x, x[:, :1], batch_size=2, epochs=5, verbose=0)
        out.append(sorted(str(w.message) for w in caught if "Limiting" in str(w.message)))
        out.append(len(history.history["loss"]))
        out.append([C.max_epochs(), C.max_steps_per_epoch()])
    finally:
        C.set_max_epochs(None)
        C.set_max_steps_per_epoch(None)
    out.append(error_classes([lambda: C.set_backend("theano"), lambda: C.set_floatx("int8")]))
    return out


def test_config(tf_oracle):
    assert_parity(tf_oracle, _config, (), helpers=[error_classes])
