"""Keras 3's mask propagation against Keras under TensorFlow 2.21 on both devices: masks made
by `Embedding(mask_zero=True)` and `Masking` reach the layers after them in eager calls,
functional and Sequential models and traced functions; merge layers combine masks; masked
timesteps drop out of losses and metrics in `fit` and `evaluate`; a layer that cannot use a
mask warns that it drops it."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _propagation(tf, device):
    import numpy as np

    L = tf.keras.layers
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
    table = np.arange(15, dtype=np.float32).reshape(5, 3) / 10

    def mask_of(t):
        m = getattr(t, "_keras_mask", None)
        return None if m is None else m.numpy().tolist()

    out = []
    with tf.device(device):
        emb = L.Embedding(5, 3, mask_zero=True)
        emb(x)
        emb.set_weights([table])
        e = emb(x)
        out.append(mask_of(e))
        d = L.Dense(4, kernel_initializer="ones")(e)
        out += [mask_of(d), mask_of(L.Dropout(0.5)(d)), mask_of(L.Activation("relu")(d))]
        out.append(L.Softmax(axis=1)(d[:, :, 0]))  # slicing drops the mask: plain softmax
        out.append(mask_of(L.LayerNormalization()(e)))
        g = L.GlobalAveragePooling1D()(e)
        out += [g, mask_of(g)]
        out.append(L.GlobalAveragePooling1D()(e, mask=None))
        steps = np.array([[[1.0, 0], [0, 0], [2, 2]]], np.float32)
        m = L.Masking(0.0)(steps)
        out += [m, mask_of(m), mask_of(L.Masking(2.0)(steps))]
        out.append(mask_of(L.Add()([e, e])))
        out.append(mask_of(L.Add()([e, L.Dense(3)(e)])))
        out.append(mask_of(L.Concatenate()([e, L.Dense(2)(e)])))
        out.append(mask_of(L.Concatenate(axis=1)([e, e])))
        out.append(mask_of(L.Lambda(lambda t: t * 2, mask=lambda t, m: m)(e)))
        out.append(mask_of(L.Lambda(lambda t: t * 2)(e)))

        inp = tf.keras.Input((4,), dtype="int32")
        h = L.Embedding(5, 3, mask_zero=True)(inp)
        model = tf.keras.Model(inp, L.GlobalAveragePooling1D()(h))
        model.layers[1].set_weights([table])
        out.append(model(x))
        seq = tf.keras.Sequential([L.Embedding(5, 3, mask_zero=True), L.GlobalAveragePooling1D()])
        seq(x)
        seq.layers[0].set_weights([table])
        out.append(seq(x))

        gap = L.GlobalAveragePooling1D()

        @tf.function
        def traced(ids):
            return gap(emb(ids))

        out.append(traced(x))
        inner = tf.keras.Model(inp, L.GlobalAveragePooling1D()(L.Dense(3)(inp[:, :, None])))
        explicit = np.array([[True, False, True, True], [True, True, False, False]])
        out.append(mask_of(inner(x.astype(np.float32))))
        out.append(inner(x.astype(np.float32), mask=explicit).shape)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_masks_propagate(tf_oracle, device):
    assert_parity(tf_oracle, _propagation, (device,), rtol=1e-5, atol=1e-6)


def _masked_fit(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, size=(16, 5)).astype(np.int32)
    for i, n in enumerate([5, 3, 1, 4] * 4):
        x[i, n:] = 0
    y = rng.integers(0, 3, size=(16, 5)).astype(np.int32)
    with tf.device(device):
        model = tf.keras.Sequential(
            [tf.keras.Input((5,), dtype="int32"), L.Embedding(6, 4, mask_zero=True), L.Dense(3)]
        )
        model.set_weights(
            [
                np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4),
                np.linspace(-0.5, 0.7, 12, dtype=np.float32).reshape(4, 3),
                np.zeros(3, np.float32),
            ]
        )
        model.compile(
            optimizer=tf.keras.optimizers.SGD(0.1),
            loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["sparse_categorical_accuracy"],
        )
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        evaluated = model.evaluate(x, y, batch_size=16, verbose=0)
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        logits = model(x)
        direct = loss(y, logits)
        summed = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")(
            y, logits
        )
    return history.history, evaluated, direct, summed, model.get_weights()


@pytest.mark.parametrize("device", DEVICES)
def test_masked_timesteps_leave_losses_and_metrics(tf_oracle, device):
    assert_parity(tf_oracle, _masked_fit, (device,), rtol=1e-5, atol=1e-6)


def _dropped_mask_warns(tf):
    import warnings

    import numpy as np

    L = tf.keras.layers
    e = L.Embedding(5, 3, mask_zero=True)(np.array([[1, 0]], np.int32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = L.Flatten()(e)
    messages = [str(w.message) for w in caught if "destroy the mask" in str(w.message)]
    masking = L.Masking(mask_value=-1.0)
    config = masking.get_config()
    return (
        len(messages),
        getattr(f, "_keras_mask", None) is None,
        config["mask_value"],
        L.Masking.from_config(config).mask_value,
        L.Masking().supports_masking,
        L.Flatten().supports_masking,
        L.Dense(2).supports_masking,
        L.Embedding(3, 2).supports_masking,
        L.Embedding(3, 2, mask_zero=True).supports_masking,
    )


def test_unsupported_layers_warn_and_flags(tf_oracle):
    assert_parity(tf_oracle, _dropped_mask_warns, ())
