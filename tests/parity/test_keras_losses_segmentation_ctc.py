"""The losses Keras 3 added (`CTC`/`ctc`, `Dice`/`dice`, `Tversky`/`tversky`,
`Circle`/`circle`, `CategoricalGeneralizedCrossEntropy`/`categorical_generalized_cross_entropy`)
against Keras under TensorFlow 2.21 on both devices: values for every reduction, with sample
weights, gradients, traced calls, configs and serialization, argument errors, and a fit."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _losses(tf, device):
    import numpy as np

    rng = np.random.default_rng(0)
    K = tf.keras.losses
    seg_true = (rng.uniform(size=(3, 4, 4, 1)) > 0.5).astype(np.float32)
    seg_pred = rng.uniform(size=(3, 4, 4, 1)).astype(np.float32)
    ctc_true = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [2, 0, 0, 0]], np.int32)
    ctc_pred = rng.normal(size=(3, 6, 4)).astype(np.float32)
    emb = rng.normal(size=(6, 3)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    labels = np.array([0, 1, 0, 2, 1, 2])
    probs = rng.uniform(0.05, 1, size=(4, 3)).astype(np.float32)
    probs /= probs.sum(axis=1, keepdims=True)
    classes = np.array([0, 2, 1, 2])
    weights = np.array([0.5, 1.0, 2.0], np.float32)
    cases = [
        (K.Dice, {}, seg_true, seg_pred, None),
        (K.Dice, {"axis": (1, 2, 3)}, seg_true, seg_pred, weights),
        (K.Tversky, {}, seg_true, seg_pred, None),
        (K.Tversky, {"alpha": 0.3, "beta": 0.7, "axis": (1, 2)}, seg_true, seg_pred, weights),
        (K.CTC, {}, ctc_true, ctc_pred, weights),
        (K.Circle, {}, labels, emb, None),
        (K.Circle, {"gamma": 10.0, "margin": 0.25, "remove_diagonal": False}, labels, emb, None),
        (K.Circle, {"gamma": 5.0}, labels, emb, np.linspace(0.5, 1.5, 6).astype(np.float32)),
        (K.CategoricalGeneralizedCrossEntropy, {}, classes, probs, None),
        (K.CategoricalGeneralizedCrossEntropy, {"q": 0.2}, classes, probs, weights[[0, 1, 2, 0]]),
    ]
    out = []
    with tf.device(device):
        seen = set()
        for cls, kwargs, y_true, y_pred, sample_weight in cases:
            # Every reduction once per class; the other cases with the default one.
            reductions = ("sum_over_batch_size", "sum", "mean", "none")
            if cls in seen:
                reductions = ("none",) if sample_weight is None else reductions[:1]
            seen.add(cls)
            for reduction in reductions:
                loss = cls(reduction=reduction, **kwargs)
                pred = tf.constant(y_pred)
                with tf.GradientTape() as tape:
                    tape.watch(pred)
                    value = loss(y_true, pred, sample_weight=sample_weight)
                    total = tf.reduce_sum(value)
                out.append((value, tape.gradient(total, pred)))
            default = cls(**kwargs)
            traced = tf.function(lambda t, p, loss=default: loss(t, p))
            out.append(traced(tf.constant(y_true), tf.constant(y_pred)))
        out.append(
            (
                K.dice(seg_true, seg_pred),
                K.dice(seg_true, seg_pred, axis=(1, 2, 3)),
                K.tversky(seg_true, seg_pred, alpha=0.2, beta=0.8),
                K.ctc(ctc_true, ctc_pred),
                K.circle(labels, emb),
                K.circle(labels[:3], emb[:3], ref_labels=labels, ref_embeddings=emb),
                K.categorical_generalized_cross_entropy(classes, probs, q=0.7),
                K.CTC()(ctc_true, tf.constant(ctc_pred.astype(np.float64))),
            )
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_values_reductions_weights_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _losses, (device,), rtol=1e-5, atol=1e-5)


def _configs_errors(tf):
    K = tf.keras.losses
    out = []
    for loss in (
        K.CTC(),
        K.Dice(axis=(1, 2), reduction="sum"),
        K.Tversky(alpha=0.2, beta=0.8, name="tv"),
        K.Circle(gamma=32.0, remove_diagonal=False),
    ):
        config = loss.get_config()
        serialized = K.serialize(loss)
        back = K.deserialize(serialized)
        out.append(
            (loss.name, config, serialized, type(back).__name__, back.get_config() == config)
        )
        out.append(type(K.get(type(loss).__name__)).__name__)
    out.append([K.get(name).__name__ for name in ("ctc", "dice", "tversky", "circle")])
    # Keras's lookup table leaves the generalized cross-entropy out.
    gce = K.CategoricalGeneralizedCrossEntropy(q=0.3)
    out.append((gce.name, gce.get_config(), K.serialize(gce)))
    out += error_classes(
        [
            lambda: K.CategoricalGeneralizedCrossEntropy(q=0.0),
            lambda: K.CategoricalGeneralizedCrossEntropy(q=1.0),
            lambda: K.ctc(tf.ones((2, 3, 1)), tf.ones((2, 3, 4))),
            lambda: K.ctc(tf.ones((2, 3)), tf.ones((2, 3))),
            lambda: K.Dice(reduction="avg"),
            lambda: K.get("CategoricalGeneralizedCrossEntropy"),
            lambda: K.get("categorical_generalized_cross_entropy"),
        ]
    )
    return out


def test_configs_serialization_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_errors, rtol=0, atol=0, helpers=[error_classes])


def _fit(tf, device):
    import numpy as np

    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 4, 4, 2)).astype(np.float32)
    y = (rng.uniform(size=(16, 4, 4, 1)) > 0.5).astype(np.float32)
    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((4, 4, 2)),
                tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones"),
            ]
        )
        model.compile(
            optimizer=tf.keras.optimizers.SGD(0.1), loss=tf.keras.losses.Dice(axis=(1, 2, 3))
        )
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        return history.history["loss"], model.get_weights()


@pytest.mark.parametrize("device", DEVICES)
def test_fit_with_dice(tf_oracle, device):
    assert_parity(tf_oracle, _fit, (device,), rtol=1e-5, atol=1e-6)
