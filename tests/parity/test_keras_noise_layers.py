"""Keras 3's noise and spatial dropout layers (`GaussianNoise`, `GaussianDropout`,
`AlphaDropout`, `SpatialDropout1D/2D/3D`) against Keras under TensorFlow 2.21 on both devices.

Seeded layers draw Keras's very numbers (a seed generator over the stateless Philox ops), so
training outputs are compared exactly: eagerly, in successive runs of a traced function (each
run draws anew) and in a `fit`. Unseeded layers are compared by their statistics (mean,
variance, fraction dropped, masks shared along the spatial axes). Inference is the identity."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _seeded(tf, device):
    import numpy as np

    L = tf.keras.layers
    x3 = np.linspace(-2, 2, 48, dtype=np.float32).reshape(2, 6, 4)
    x4 = np.linspace(-2, 2, 96, dtype=np.float32).reshape(2, 3, 4, 4)
    x5 = np.linspace(-2, 2, 96, dtype=np.float32).reshape(2, 2, 3, 2, 4)
    cases = [
        (L.GaussianNoise(0.3, seed=1), x3),
        (L.GaussianDropout(0.4, seed=2), x3),
        (L.AlphaDropout(0.3, seed=3), x3),
        (L.AlphaDropout(0.5, noise_shape=(2, 1, 4), seed=4), x3),
        (L.SpatialDropout1D(0.5, seed=5), x3),
        (L.SpatialDropout2D(0.5, seed=6), x4),
        (L.SpatialDropout2D(0.5, data_format="channels_first", seed=7), x4),
        (L.SpatialDropout3D(0.4, seed=8), x5),
        (L.SpatialDropout3D(0.4, data_format="channels_first", seed=9), x5),
    ]
    out = []
    with tf.device(device):
        for layer, x in cases:
            t = tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch(t)
                y = layer(t, training=True)
                loss = tf.reduce_sum(y * y)
            traced = tf.function(lambda v, layer=layer: layer(v, training=True))
            out.append(
                (
                    y,
                    tape.gradient(loss, t),
                    layer(t, training=True),
                    traced(t),
                    traced(t),
                    layer(t),
                    layer(t, training=False),
                )
            )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_seeded_draws_match_keras(tf_oracle, device):
    assert_parity(tf_oracle, _seeded, (device,), rtol=1e-5, atol=1e-6)


def _statistics(tf, device):
    import numpy as np

    L = tf.keras.layers
    ones = np.ones((64, 40, 50), np.float32)
    out = []
    with tf.device(device):
        t = tf.constant(ones)
        noise = L.GaussianNoise(0.5)(t, training=True).numpy() - 1
        out.append((abs(noise.mean()) < 0.01, abs(noise.std() - 0.5) < 0.01))
        drop = L.GaussianDropout(0.2)(t, training=True).numpy()
        out.append((abs(drop.mean() - 1) < 0.01, abs(drop.std() - 0.5) < 0.01))
        alpha = L.AlphaDropout(0.3)(
            tf.constant(np.random.default_rng(0).normal(size=ones.shape).astype(np.float32)),
            training=True,
        ).numpy()
        out.append((abs(alpha.mean()) < 0.02, abs(alpha.std() - 1) < 0.02))
        spatial = L.SpatialDropout1D(0.25)(t, training=True).numpy()
        kept = spatial[:, 0, :] != 0
        out.append(
            (
                bool(np.all((spatial != 0) == kept[:, None, :])),
                abs(1 - kept.mean() - 0.25) < 0.03,
                bool(np.allclose(spatial[spatial != 0], 1 / 0.75)),
            )
        )
        images = tf.ones((16, 5, 6, 30))
        spatial2d = L.SpatialDropout2D(0.5)(images, training=True).numpy()
        out.append(bool(np.all(spatial2d == spatial2d[:, :1, :1, :])))
        first = L.SpatialDropout2D(0.5, data_format="channels_first")
        spatial_cf = first(tf.ones((16, 30, 5, 6)), training=True).numpy()
        out.append(bool(np.all(spatial_cf == spatial_cf[:, :, :1, :1])))
        cube = L.SpatialDropout3D(0.5)(tf.ones((8, 3, 4, 5, 20)), training=True).numpy()
        out.append(bool(np.all(cube == cube[:, :1, :1, :1, :])))
        # Unseeded layers also draw anew on each run of a traced function.
        layer = L.GaussianNoise(0.1)
        traced = tf.function(lambda v: layer(v, training=True))
        out.append(bool(np.any(traced(t).numpy() != traced(t).numpy())))
        # An unknown batch size in the trace: unseeded layers still draw, with the right law.
        spec = [tf.TensorSpec([None, 40, 50])]
        for layer in (L.GaussianNoise(0.5), L.GaussianDropout(0.2), L.SpatialDropout1D(0.25)):
            dynamic = tf.function(
                lambda v, layer=layer: layer(v, training=True), input_signature=spec
            )
            first, second = dynamic(t).numpy(), dynamic(t).numpy()
            out.append((first.shape, bool(np.any(first != second)), abs(first.mean() - 1) < 0.05))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_unseeded_statistics_and_mask_shapes(tf_oracle, device):
    assert_parity(tf_oracle, _statistics, (device,), rtol=0, atol=0)


def _fit(tf, device):
    import numpy as np

    rng = np.random.default_rng(1)
    x = rng.normal(size=(24, 6, 4)).astype(np.float32)
    y = rng.normal(size=(24, 2)).astype(np.float32)
    L = tf.keras.layers
    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((6, 4)),
                L.GaussianNoise(0.2, seed=11),
                L.SpatialDropout1D(0.3, seed=12),
                L.Flatten(),
                L.GaussianDropout(0.2, seed=13),
                L.Dense(2, kernel_initializer="ones"),
                L.AlphaDropout(0.1, seed=14),
            ]
        )
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        return history.history["loss"], model.get_weights(), model.predict(x[:2], verbose=0)


@pytest.mark.parametrize("device", DEVICES)
def test_fit_draws_new_noise_each_step(tf_oracle, device):
    assert_parity(tf_oracle, _fit, (device,), rtol=1e-5, atol=1e-6)


def _configs_errors(tf):
    L = tf.keras.layers
    out = []
    layers = [
        L.GaussianNoise(0.1, seed=3),
        L.GaussianDropout(0.2),
        L.AlphaDropout(0.3, noise_shape=(1, 2), seed=1),
        L.SpatialDropout1D(0.2, seed=2),
        L.SpatialDropout2D(0.2, data_format="channels_first"),
        L.SpatialDropout3D(0.3),
    ]
    for layer in layers:
        config = layer.get_config()
        back = type(layer).from_config(config)
        out.append((layer.name, config, back.get_config() == config))
    symbolic = [
        L.GaussianNoise(0.1)(tf.keras.Input((3, 4))),
        L.SpatialDropout2D(0.1)(tf.keras.Input((5, 6, 3))),
        L.SpatialDropout3D(0.1)(tf.keras.Input((2, 5, 6, 3))),
    ]
    out.append([tuple(s.shape) for s in symbolic])
    out += error_classes(
        [
            lambda: L.GaussianNoise(1.5),
            lambda: L.GaussianNoise(-0.1),
            lambda: L.GaussianDropout(2.0),
            lambda: L.GaussianNoise(0.1, seed="a"),
            lambda: L.SpatialDropout1D(1.5),
            lambda: L.SpatialDropout1D(0.5, trainable=False),
            lambda: L.SpatialDropout2D(0.5, data_format="nhwc"),
            lambda: L.SpatialDropout1D(0.5)(tf.ones((2, 3)), training=True),
            lambda: L.SpatialDropout2D(0.5)(tf.ones((2, 3, 4)), training=True),
            lambda: L.SpatialDropout3D(0.5)(tf.ones((2, 3, 4, 5))),
        ]
    )
    return out


def test_configs_names_shapes_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_errors, rtol=0, atol=0, helpers=[error_classes])
