"""`tf.keras.constraints` against Keras 3 under TensorFlow 2.21, on both devices: each
constraint's projection over axes and shapes, name/config resolution and errors, and a Dense
layer whose constrained kernel is projected after an optimizer step inside `fit`."""

import numpy as np
import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _projections(tf, device):
    import numpy as np

    rng = np.random.default_rng(3)
    weights = [
        rng.normal(size=(3, 4)).astype(np.float32) * 3,
        rng.normal(size=(2, 3, 5)).astype(np.float32),
        np.zeros((2, 2), np.float32),
    ]
    c = tf.keras.constraints
    constraints = [
        c.Constraint(),
        c.MaxNorm(),
        c.MaxNorm(max_value=0.5, axis=1),
        c.MaxNorm(max_value=1.0, axis=[0, 1]),
        c.NonNeg(),
        c.UnitNorm(),
        c.UnitNorm(axis=-1),
        c.MinMaxNorm(),
        c.MinMaxNorm(min_value=0.5, max_value=1.5, rate=0.7, axis=1),
        c.max_norm(3),
        c.unit_norm(axis=0),
    ]
    out = []
    with tf.device(device):
        for w in weights:
            for constraint in constraints:
                axis = constraint.get_config().get("axis")
                if isinstance(axis, int) and axis >= w.ndim:
                    continue
                out.append(constraint(tf.constant(w)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_projections(tf_oracle, device):
    assert_parity(tf_oracle, _projections, (device,), rtol=1e-6, atol=1e-7)


def _identifiers(tf):
    c = tf.keras.constraints
    out = []
    for name in (
        "max_norm",
        "MaxNorm",
        "non_neg",
        "NonNeg",
        "unit_norm",
        "min_max_norm",
        "Constraint",
        "constraint",
    ):
        got = c.get(name)
        out.append((type(got).__name__, got.get_config()))
    for obj in (c.MaxNorm(1.5, axis=[0, 1]), c.NonNeg(), c.MinMaxNorm(0.1, 2.0, 0.5, 1)):
        config = c.serialize(obj)
        back = c.get(config)
        out.append((config, type(back).__name__, back.get_config()))
    out.append(c.get(None))
    out.append(c.max_norm is c.MaxNorm)
    out += error_classes(
        [
            lambda bad=bad: c.get(bad)
            for bad in (
                "no_such_constraint",
                3,
                {"class_name": "Nope", "config": {}},
                {"class_name": "MaxNorm", "config": {"bogus": 1}},
            )
        ]
    )
    layer = tf.keras.layers.Dense(2, kernel_constraint="max_norm", bias_constraint="non_neg")
    config = layer.get_config()
    out.append((config["kernel_constraint"], config["bias_constraint"]))
    return out


def test_names_configs_and_errors(tf_oracle):
    assert_parity(tf_oracle, _identifiers, rtol=0, atol=0, helpers=[error_classes])


def _fit_projects_weights(tf, device):
    import numpy as np

    rng = np.random.default_rng(5)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x @ rng.normal(size=(4, 3)) * 4).astype(np.float32)
    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((4,)),
                tf.keras.layers.Dense(
                    3,
                    kernel_initializer=tf.keras.initializers.Constant(0.9),
                    kernel_constraint=tf.keras.constraints.MaxNorm(1.0),
                    bias_constraint="non_neg",
                ),
            ]
        )
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    kernel, bias = model.get_weights()
    return history.history["loss"], kernel, bias, np.linalg.norm(kernel, axis=0)


@pytest.mark.parametrize("device", DEVICES)
def test_fit_projects_weights(tf_oracle, device):
    expected = assert_parity(tf_oracle, _fit_projects_weights, (device,), rtol=1e-5, atol=1e-6)
    assert expected[0] != "raised"


def test_projection_without_tensorflow():
    import ferroflow as tf

    w = np.array([[3.0, 0.0], [4.0, -1.0]], np.float32)
    got = tf.keras.constraints.MaxNorm(1.0)(w).numpy()
    np.testing.assert_allclose(got[:, 0], [0.6, 0.8], rtol=1e-6)
    assert np.all(tf.keras.constraints.NonNeg()(w).numpy() >= 0)
