"""tf.keras Layer, Dense and Model subclassing: lazy build, names, weight order, get/set
weights, regularisation losses, and the seeds' Model trained by a custom loop."""

import ferroflow as tf
import numpy as np
import pytest


class SeedsModel(tf.keras.Model):
    def __init__(self, units):
        super().__init__()
        self.dense1 = tf.keras.layers.Dense(
            units=units,
            activation=tf.nn.relu,
            kernel_initializer=tf.random.normal,
            bias_initializer=tf.random.normal,
        )
        self.dense2 = tf.keras.layers.Dense(1)

    def call(self, x, training=True):
        x = x[:, tf.newaxis]
        x = self.dense1(x)
        x = self.dense2(x)
        return tf.squeeze(x, axis=1)


def test_dense_builds_on_first_call_and_computes_affine_maps():
    layer = tf.keras.layers.Dense(2, activation="relu", kernel_initializer="ones")
    assert not layer.built and layer.weights == []
    out = layer(tf.constant([[1.0, -2.0, 0.5]]))
    assert layer.built and [v.shape for v in layer.weights] == [(3, 2), (2,)]
    assert [v.path for v in layer.weights] == [f"{layer.name}/kernel", f"{layer.name}/bias"]
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.0]])
    layer.set_weights([np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]), np.array([0.5, -5.0])])
    np.testing.assert_allclose(layer(tf.constant([[1.0, 2.0, 1.0]])).numpy(), [[3.5, 0.0]])
    rank3 = layer(tf.ones([2, 4, 3]))
    assert rank3.shape == (2, 4, 2)


def test_names_are_unique_per_class():
    a, b = tf.keras.layers.Dense(1), tf.keras.layers.Dense(1)
    base = a.name.rsplit("_", 1)[0] if a.name != "dense" else "dense"
    assert a.name.startswith("dense") and b.name != a.name and b.name.startswith(base)
    assert tf.keras.layers.Dense(1, name="head").name == "head"


def test_bad_arguments_raise_like_keras():
    with pytest.raises(ValueError, match="positive integer"):
        tf.keras.layers.Dense(0)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        tf.keras.layers.Dense(1, bogus=True)
    layer = tf.keras.layers.Dense(2)
    layer(tf.ones([1, 3]))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.ones([3, 2])])
    with pytest.raises(ValueError, match="not compatible"):
        layer.set_weights([np.ones([2, 2]), np.ones([2])])


def test_model_collects_sublayer_weights_in_assignment_order():
    model = SeedsModel(64)
    y = model(tf.linspace(-2.0, 2.0, 5))
    assert y.shape == (5,)
    assert [tuple(v.shape) for v in model.variables] == [(1, 64), (64,), (64, 1), (1,)]
    assert model.trainable_variables == model.variables and model.non_trainable_variables == []
    model.dense2.trainable = False
    assert len(model.trainable_variables) == 2 and len(model.non_trainable_variables) == 2


def test_regularizers_add_losses():
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", kernel_regularizer="l2")
    layer(tf.ones([1, 3]))
    np.testing.assert_allclose([float(loss) for loss in layer.losses], [0.01 * 6.0], rtol=1e-6)


def test_the_seeds_custom_training_loop_learns_the_quadratic():
    tf.random.set_seed(42)
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = x**2 + 2 * x - 5 + tf.random.normal(shape=[201])
    model = SeedsModel(64)
    model(x)  # the seeds plot untrained predictions first, which builds the layers
    variables = model.variables
    assert len(variables) == 4
    first = None
    for step in range(300):
        with tf.GradientTape() as tape:
            mean_error = tf.reduce_mean((y - model(x)) ** 2)
        gradient = tape.gradient(mean_error, variables)
        for v, g in zip(variables, gradient):
            v.assign_sub(0.01 * g)
        first = float(mean_error) if step == 0 else first
    assert float(mean_error) < 2.0 < first


def test_a_model_checkpoints_its_layers(tmp_path):
    model = SeedsModel(4)
    model(tf.ones([3]))
    path = tf.train.Checkpoint(model=model).write(tmp_path / "ckpt")
    keys = [name for name, _ in tf.train.list_variables(path)]
    assert "model/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys  # Keras 3's name
    fresh = SeedsModel(4)
    fresh(tf.ones([3]))
    tf.train.Checkpoint(model=fresh).read(path).assert_consumed()
    np.testing.assert_allclose(fresh(tf.ones([3])).numpy(), model(tf.ones([3])).numpy())
