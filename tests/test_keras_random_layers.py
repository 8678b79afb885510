"""What ferroflow's Keras random layers do where TensorFlow's cannot be matched: a seeded
layer asked to draw a shape known only at run time inside a traced function refuses with
NotImplementedError (ferroflow's stateless random ops need the shape while tracing) rather
than give numbers other than Keras's; with fully known shapes it draws Keras's numbers."""

import ferroflow as tf
import numpy as np
import pytest

L = tf.keras.layers


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.GaussianNoise(0.2, seed=1),
        lambda: L.GaussianDropout(0.2, seed=1),
        lambda: L.AlphaDropout(0.2, seed=1),
        lambda: L.SpatialDropout1D(0.2, seed=1),
    ],
)
def test_seeded_layer_refuses_a_run_time_shape(make):
    layer = make()
    spec = [tf.TensorSpec([None, 3, 4])]
    traced = tf.function(lambda v: layer(v, training=True), input_signature=spec)
    with pytest.raises(NotImplementedError, match="known only at run time"):
        traced(np.ones((2, 3, 4), np.float32))
    static = tf.function(lambda v: layer(v, training=True))
    assert static(np.ones((2, 3, 4), np.float32)).shape == (2, 3, 4)
