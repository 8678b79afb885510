"""`GroupNormalization`, `RMSNormalization` and `SpectralNormalization` against Keras 3 under
TensorFlow 2.21 on both devices: outputs and gradients with fixed weights (eager and inside
`tf.function`), the spectral kernel update in training, configs and their round trips, default
names, functional output shapes, argument errors, a small fit and a `.keras` round trip."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _normalizations(tf, device):
    import numpy as np

    rng = np.random.default_rng(0)
    x4 = rng.normal(size=(2, 3, 5, 6)).astype(np.float32) * 3 + 1
    x3 = rng.normal(size=(3, 4, 8)).astype(np.float32)
    L = tf.keras.layers
    cases = [
        (L.GroupNormalization(groups=3), x4),
        (L.GroupNormalization(groups=2, axis=1, epsilon=1e-5), x4),
        (L.GroupNormalization(groups=-1, center=False), x3),
        (L.GroupNormalization(groups=1, scale=False), x3),
        (L.GroupNormalization(groups=4, axis=-1), x3),
        (L.RMSNormalization(), x3),
        (L.RMSNormalization(axis=[1, 2], epsilon=1e-3), x3),
        (L.RMSNormalization(axis=1), x3[:, :, :4].transpose(0, 2, 1).copy()),
    ]
    out = []
    with tf.device(device):
        for layer, x in cases:
            t = tf.constant(x)
            layer.build(x.shape)
            layer.set_weights(
                [
                    np.linspace(0.5, 1.5, w.size, dtype=np.float32).reshape(w.shape)
                    for w in layer.get_weights()
                ]
            )
            eager = output_and_gradient(tf, layer, t)
            traced = tf.function(lambda v, layer=layer: layer(v))(t)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(layer(t) ** 2)
            out.append((eager, traced, tape.gradient(loss, layer.trainable_weights)))
        g64 = L.GroupNormalization(groups=2, dtype="float64")
        out.append(g64(tf.constant(x3.astype(np.float64))))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_group_and_rms_outputs_and_gradients(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _normalizations,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[output_and_gradient],
    )


def _spectral(tf, device):
    import numpy as np

    L = tf.keras.layers
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    out = []
    with tf.device(device):
        t = tf.constant(x)
        for iterations in (1, 3):
            layer = L.SpectralNormalization(L.Dense(3), power_iterations=iterations)
            layer.build(x.shape)
            kernel = np.arange(18, dtype=np.float32).reshape(6, 3) / 10 - 0.7
            u = np.array([[0.3, -0.2, 0.5]], np.float32)
            layer.set_weights([kernel, u, np.array([0.1, 0.0, -0.1], np.float32)])
            inference = layer(t)
            with tf.GradientTape() as tape:
                y = layer(t, training=True)
                loss = tf.reduce_sum(y * y)
            grads = tape.gradient(loss, layer.trainable_weights)
            traced = tf.function(lambda v, layer=layer: layer(v, training=True))(t)
            out.append((inference, y, grads, layer.get_weights(), traced))
        zero = L.SpectralNormalization(L.Dense(2, kernel_initializer="zeros"))
        zero.build((2, 3))
        zero.set_weights(
            [np.zeros((3, 2), np.float32), np.ones((1, 2), np.float32), np.zeros(2, np.float32)]
        )
        out.append((zero(tf.ones((2, 3)), training=True), zero.get_weights()))
        emb = L.SpectralNormalization(L.Embedding(5, 3))
        emb.build((2, 4))
        emb.set_weights(
            [
                np.arange(15, dtype=np.float32).reshape(5, 3) / 7,
                np.array([[1.0, 0.0, 0.5]], np.float32),
            ]
        )
        out.append(
            (emb(tf.constant([[1, 2, 3, 4], [0, 0, 1, 4]]), training=True), emb.get_weights())
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_spectral_normalization(tf_oracle, device):
    assert_parity(tf_oracle, _spectral, (device,), rtol=1e-5, atol=1e-5)


def _configs_shapes_errors(tf):
    L = tf.keras.layers
    out = []
    layers = [
        L.GroupNormalization(groups=4, axis=1, epsilon=1e-4, gamma_regularizer="l2"),
        L.RMSNormalization(axis=[1, 2]),
        L.SpectralNormalization(L.Dense(2, name="inner"), power_iterations=2),
    ]
    for layer in layers:
        symbolic = layer(tf.keras.Input((8, 6)))
        config = layer.get_config()
        back = type(layer).from_config(config)
        out.append((layer.name, tuple(symbolic.shape), config, back.get_config() == config))
    sn = L.SpectralNormalization(L.Dense(3))
    sn(tf.ones((2, 4)))
    # Names without ":0" (ferroflow's variables still carry it; Keras's do not).
    out.append([w.name.split(":")[0] for w in sn.weights])
    out.append([w.name.split(":")[0] for w in sn.trainable_weights])
    out += error_classes(
        [
            lambda: L.GroupNormalization(groups=0),
            lambda: L.GroupNormalization(groups=2.0),
            lambda: L.GroupNormalization(groups=4)(tf.ones((2, 6))),
            lambda: L.GroupNormalization(groups=8)(tf.ones((2, 6))),
            lambda: L.GroupNormalization(groups=2)(tf.keras.Input((3, None))),
            lambda: L.RMSNormalization(axis=3).compute_output_shape((2, 3)),
            lambda: L.SpectralNormalization(L.Dense(2), power_iterations=0),
            lambda: L.SpectralNormalization("dense"),
            lambda: L.SpectralNormalization(L.ReLU())(tf.ones((2, 3))),
        ]
    )
    return out


def test_configs_names_shapes_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_shapes_errors, rtol=0, atol=0, helpers=[error_classes])


def _fit_and_save(tf, path):
    import numpy as np

    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 4, 6)).astype(np.float32)
    y = rng.normal(size=(16, 4, 2)).astype(np.float32)
    L = tf.keras.layers
    inputs = tf.keras.Input((4, 6))
    h = L.GroupNormalization(groups=3)(inputs)
    h = L.RMSNormalization()(h)
    outputs = L.SpectralNormalization(L.Dense(2, kernel_initializer="ones"))(h)
    model = tf.keras.Model(inputs, outputs)
    model.layers[-1].vector_u.assign(np.full((1, 2), 0.5, np.float32))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    return (
        history.history["loss"],
        model.get_weights(),
        [layer.name for layer in loaded.layers],
        loaded.predict(x[:3], verbose=0),
        model.predict(x[:3], verbose=0),
    )


def test_fit_and_keras_file_round_trip(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _fit_and_save, (str(tmp_path / "model.keras"),), rtol=1e-5, atol=1e-5)
