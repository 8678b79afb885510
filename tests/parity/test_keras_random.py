"""Keras 3's random numbers against Keras under TensorFlow 2.21: `keras.random` with int seeds and
`SeedGenerator`s, and every Keras random consumer on its seed generator (Dropout, the image
preprocessing layers, RNN and attention dropout, seeded initializers) drawing Keras's exact
numbers eagerly, in traced functions (new numbers each run, Keras's sequence) and in `fit`."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _keras_random(tf, device):
    R = tf.keras.random
    out = []
    with tf.device(device):
        for seed in (1, 5):
            out += [
                R.uniform((2, 3), seed=seed),
                R.uniform((4,), minval=-2.0, maxval=3.0, dtype="float64", seed=seed),
                R.normal((3,), mean=1.0, stddev=2.0, seed=seed),
                R.truncated_normal((5,), seed=seed),
                R.randint((4,), 0, 10, seed=seed),
                R.randint((3,), -5, 5, dtype="int64", seed=seed),
                R.categorical([[1.0, 2.0, 3.0], [0.0, 0.0, 9.0]], 4, seed=seed),
                R.shuffle(tf.range(6), seed=seed),
                R.gamma((3,), 2.0, seed=seed),
                R.binomial((3,), 5.0, 0.5, seed=seed),
                R.beta((3,), 2.0, 3.0, seed=seed),
                R.dropout(tf.ones((2, 4)), 0.5, noise_shape=(None, 1), seed=seed),
            ]
        g = R.SeedGenerator(7)
        out += [R.uniform((2,), seed=g), R.normal((2,), seed=g), g.state.numpy()]
        out.append((g.state.path, g.name.startswith("seed_generator"), g.get_config()["seed"]))

        @tf.function
        def traced():
            return R.uniform((3,), seed=g)

        out += [traced(), traced(), g.state.numpy()]
    for bad in (lambda: R.uniform((2,), dtype="int32"), lambda: R.randint((2,), 0, 3, "float32")):
        try:
            bad()
        except Exception as e:  # noqa: BLE001 - the class is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_keras_random(tf_oracle, device):
    assert_parity(tf_oracle, _keras_random, (device,), rtol=1e-5, atol=1e-6)


def _dropout_layers(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    with tf.device(device):
        x = tf.ones((3, 5))
        a, b = L.Dropout(0.5, seed=3), L.Dropout(0.5, seed=3)
        out += [a(x, training=True), b(x, training=True), a(x, training=True), a(x)]
        out.append([(v.path.split("/")[-1], v.numpy()) for v in a.variables])
        out.append((len(a.weights), len(a.non_trainable_variables)))
        out.append(L.Dropout(0.4, noise_shape=(None, 1), seed=2)(x, training=True))

        c = L.Dropout(0.5, seed=4)

        @tf.function
        def traced(x):
            return c(x, training=True)

        out += [traced(x), traced(x)]

        d = L.Dropout(0.5, seed=6)

        @tf.function(input_signature=[tf.TensorSpec([None, 5])])
        def unknown_batch(x):
            return d(x, training=True)

        out += [unknown_batch(x), unknown_batch(x[:2])]

        cells = [
            L.LSTM(3, dropout=0.5, recurrent_dropout=0.3, seed=2),
            L.GRU(3, dropout=0.4, recurrent_dropout=0.2, seed=3),
            L.SimpleRNN(3, dropout=0.3, recurrent_dropout=0.3, seed=4),
        ]
        seq = tf.constant(np.linspace(-1, 1, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3))
        for layer in cells:
            layer.build((2, 4, 3))
            layer.set_weights([np.full(w.shape, 0.1, np.float32) for w in layer.get_weights()])
            out += [layer(seq, training=True), layer(seq, training=True)]
        att = L.Attention(dropout=0.5, seed=5)
        q = tf.constant(np.linspace(-1, 1, 2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4))
        out += [att([q, q], training=True), att([q, q], training=True)]
        mha = L.MultiHeadAttention(2, 2, dropout=0.5, seed=7)
        mha(q, q)
        mha.set_weights([np.full(w.shape, 0.05, np.float32) for w in mha.get_weights()])
        out.append(mha(q, q, training=True))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dropout_layers(tf_oracle, device):
    assert_parity(tf_oracle, _dropout_layers, (device,), rtol=1e-5, atol=1e-6)


def _fit_history(tf):
    import numpy as np

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,)),
            tf.keras.layers.Dense(8, activation="relu"),
            tf.keras.layers.Dropout(0.5, seed=11),
            tf.keras.layers.Dense(1),
        ]
    )
    model.set_weights(
        [np.linspace(-0.5, 0.5, w.size, dtype=np.float32).reshape(w.shape) for w in model.weights]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    x = np.linspace(-1, 1, 32 * 4, dtype=np.float32).reshape(32, 4)
    y = np.sum(x, axis=1, keepdims=True)
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return history.history["loss"], [v.path.split("/")[-1] for v in model.variables]


def test_fit_with_dropout(tf_oracle):
    assert_parity(tf_oracle, _fit_history, rtol=1e-5, atol=1e-6)


def _image_layers(tf):
    import numpy as np

    L = tf.keras.layers
    x = tf.constant(np.arange(2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3) / 10)
    layers = [
        L.RandomFlip(seed=1),
        L.RandomRotation(0.2, seed=1),
        L.RandomZoom(0.2, seed=1),
        L.RandomTranslation(0.2, 0.2, seed=1),
        L.RandomContrast(0.5, seed=1),
        L.RandomBrightness(0.3, seed=1),
        L.RandomCrop(4, 4, seed=1),
        L.RandomHue(0.3, seed=1),
        L.RandomSaturation(0.3, seed=1),
        L.RandomShear(0.2, seed=1),
        L.RandomPerspective(seed=1),
        L.RandomGrayscale(0.5, seed=1),
        L.RandomInvert(seed=1, value_range=(0, 255)),
        L.RandomPosterization(4, seed=1, value_range=(0, 255)),
        L.RandomSharpness(0.5, seed=1),
        L.MixUp(seed=1),
        L.CutMix(seed=1),
        L.RandomErasing(seed=1),
        L.RandomColorDegeneration(0.5, seed=1),
        L.RandomGaussianBlur(seed=1),
        L.RandomColorJitter(brightness_factor=0.2, contrast_factor=0.3, seed=1),
        L.RandomElasticTransform(seed=1),
    ]
    out = []
    for layer in layers:
        out += [layer(x, training=True), layer(x, training=True)]
        out.append([(v.path.split("/")[-1], v.shape) for v in layer.variables])
    flip = L.RandomFlip(seed=3)

    @tf.function
    def traced(x):
        return flip(x, training=True)

    out += [traced(x), traced(x)]
    return out


def test_image_preprocessing_layers(tf_oracle):
    assert_parity(tf_oracle, _image_layers, rtol=1e-4, atol=1e-4)


def _initializers(tf):
    I = tf.keras.initializers  # noqa: E741 - Keras's module
    out = []
    for name in (
        "GlorotUniform",
        "GlorotNormal",
        "HeNormal",
        "HeUniform",
        "LecunUniform",
        "LecunNormal",
        "Orthogonal",
        "RandomNormal",
        "RandomUniform",
        "TruncatedNormal",
        "VarianceScaling",
    ):
        out.append(getattr(I, name)(seed=1)((3, 4)))
    g = tf.keras.random.SeedGenerator(3)
    init = I.RandomUniform(seed=g)
    out += [init((2,)), init((2,))]
    return out


def test_seeded_initializers(tf_oracle):
    assert_parity(tf_oracle, _initializers, rtol=1e-5, atol=1e-6)
