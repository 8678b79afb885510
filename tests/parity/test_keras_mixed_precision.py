"""Keras 3's dtype policies against Keras under TensorFlow 2.21 on both devices: under
"mixed_float16" layers keep float32 variables, compute and return float16 (variables are read
in float16 inside the call, gradients reach them in float32), a layer with dtype="float32"
computes in float32, `compile` wraps the optimizer in a LossScaleOptimizer and `fit` trains;
the policy objects, their configs and errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _mixed(tf, device):
    import numpy as np

    K = tf.keras
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4)
    y = np.array([0, 1, 2, 1, 0, 2], np.int32)
    out = []
    K.mixed_precision.set_global_policy("mixed_float16")
    try:
        with tf.device(device):
            dense = K.layers.Dense(3)
            dense.build((None, 4))
            dense.set_weights(
                [
                    np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3),
                    np.array([0.1, -0.2, 0.3], np.float32),
                ]
            )
            t = tf.constant(x)
            with tf.GradientTape() as tape:
                h = dense(t)
                loss = tf.reduce_sum(tf.cast(h, tf.float32) ** 2)
            grads = tape.gradient(loss, dense.trainable_variables)
            out += [
                h.dtype.name,
                tf.cast(h, tf.float32),
                str(dense.kernel.dtype),
                dense.dtype,
                dense.compute_dtype,
                dense.variable_dtype,
                repr(dense.dtype_policy),
                [g.dtype.name for g in grads],
                [tf.cast(g, tf.float32) for g in grads],
                dense.get_config()["dtype"]["config"],
            ]
            head = K.layers.Activation("softmax", dtype="float32")
            out += [head(h).dtype.name, head.compute_dtype]
            model = K.Sequential(
                [
                    K.Input((4,)),
                    K.layers.Dense(5, activation="relu"),
                    K.layers.Dense(3),
                    K.layers.Activation("softmax", dtype="float32"),
                ]
            )
            model.set_weights(
                [
                    np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5),
                    np.zeros(5, np.float32),
                    np.linspace(1, -1, 15, dtype=np.float32).reshape(5, 3),
                    np.zeros(3, np.float32),
                ]
            )
            model.compile(optimizer=K.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
            out.append(type(model.optimizer).__name__)
            history = model.fit(x, y, batch_size=3, epochs=2, shuffle=False, verbose=0)
            out.append(history.history["loss"])
            out.append(
                [w.dtype.name if hasattr(w.dtype, "name") else str(w.dtype) for w in model.weights]
            )
            out.append(model.predict(x, verbose=0).dtype.name)
    finally:
        K.mixed_precision.set_global_policy("float32")
    out.append(K.layers.Dense(2).dtype_policy.name)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_float16(tf_oracle, device):
    assert_parity(tf_oracle, _mixed, (device,), rtol=2e-3, atol=2e-3)


def _policies(tf):
    K = tf.keras
    P = K.mixed_precision.Policy
    policies = [P("mixed_float16"), P("mixed_bfloat16"), P("float64"), K.DTypePolicy("float16")]
    out = [(repr(p), p.name, p.compute_dtype, p.variable_dtype, p.get_config()) for p in policies]
    out.append(K.mixed_precision.global_policy().name)
    out.append(P("float32") == P("float32"))
    out.append(K.layers.Dense(2, dtype="mixed_bfloat16").compute_dtype)
    out.append(K.layers.Dense(2, dtype=P("float64")).dtype)
    out.append(
        error_classes(
            [
                lambda: P("mixed_float32"),
                lambda: P(3),
                lambda: K.layers.Dense(2, dtype="nonsense"),
                lambda: K.mixed_precision.set_global_policy(3),
            ]
        )
    )
    return out


def test_policies_and_errors(tf_oracle):
    assert_parity(tf_oracle, _policies, (), helpers=[error_classes])
