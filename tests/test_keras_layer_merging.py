"""Add and Concatenate (and their functional forms) as Keras 3 has them: values, broadcasting
of inputs of different ranks, output shapes, configs and Keras's errors."""

import ferroflow as tf
import numpy as np
import pytest

layers = tf.keras.layers


def wave(shape, phase=0.3, freq=0.7):
    """Fixed test data (the TF oracle used the same formula)."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * freq + phase).reshape(shape).astype("float32")


# keras.layers.Add()([wave((2, 3, 2)), wave((2, 2), 1.0, 0.3)]): the rank-2 input gains an
# axis after the batch axis and broadcasts.
ADD_RANKS = [
    [[1.1369911, 1.8050292], [1.8331358, 1.6390214], [0.8830516, 0.3517003]],
    [[0.0220435, 0.0628454], [0.6256969, 1.2578415], [1.8500102, 1.9356583]],
]


def test_add_sums_and_broadcasts_like_keras():
    a, b, c = wave((2, 3)), wave((2, 3), 1.0), wave((2, 3), 2.0)
    np.testing.assert_allclose(layers.Add()([a, b, c]).numpy(), a + b + c, rtol=1e-6)
    np.testing.assert_allclose(layers.add([a, b]).numpy(), a + b, rtol=1e-6)
    ranks = layers.Add()([wave((2, 3, 2)), wave((2, 2), 1.0, 0.3)])
    np.testing.assert_allclose(ranks.numpy(), ADD_RANKS, atol=1e-5)
    assert layers.Add().compute_output_shape([(None, 3, 2), (None, 2)]) == (None, 3, 2)
    assert layers.Add()([a]).shape == (2, 3)


def test_add_gradient_flows_to_every_input():
    a, b = tf.constant(wave((2, 3))), tf.constant(wave((2, 1), 1.0))
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        loss = tf.reduce_sum(layers.Add()([a, b]))
    ga, gb = tape.gradient(loss, [a, b])
    np.testing.assert_allclose(ga.numpy(), np.ones([2, 3]))
    np.testing.assert_allclose(gb.numpy(), [[3.0], [3.0]])


def test_add_errors():
    with pytest.raises(ValueError, match="should be called on a list of inputs"):
        layers.Add()(wave((2, 3)))
    with pytest.raises(ValueError, match="Inputs have incompatible shapes"):
        layers.Add()([wave((2, 3)), wave((2, 4))])
    with pytest.raises(ValueError, match="Cannot merge tensors with different batch sizes"):
        layers.Add()([wave((2, 3)), wave((3, 3))])


def test_concatenate_values_shapes_and_config():
    a, b = wave((2, 1, 2)), wave((2, 2, 2), 1.0, 0.3)
    out = layers.Concatenate(axis=1)([a, b])
    np.testing.assert_allclose(out.numpy(), np.concatenate([a, b], axis=1))
    last = layers.concatenate([wave((2, 3)), wave((2, 1))])
    np.testing.assert_allclose(last.numpy(), np.concatenate([wave((2, 3)), wave((2, 1))], -1))
    layer = layers.Concatenate(axis=1, name="joined")
    assert layer.compute_output_shape([(None, 3, 2), (None, 4, 2)]) == (None, 7, 2)
    assert layer.compute_output_shape([(None, None, 2), (None, 4, 2)]) == (None, None, 2)
    config = layer.get_config()
    assert config["axis"] == 1 and config["name"] == "joined"
    assert layers.Concatenate.from_config(config).axis == 1


def test_concatenate_errors():
    with pytest.raises(ValueError, match="requires inputs with matching shapes except for"):
        layers.Concatenate(axis=1)([wave((2, 1, 2)), wave((2, 2, 3))])
    with pytest.raises(ValueError, match=r"Received: input_shape=\[\(2, 1, 2\), \(2, 2\)\]"):
        layers.Concatenate(axis=1)([wave((2, 1, 2)), wave((2, 2))])
    with pytest.raises(ValueError, match="should be called on a list of at least 1 input"):
        layers.Concatenate()(wave((2, 3)))
