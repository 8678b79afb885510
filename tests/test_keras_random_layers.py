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
def test_seeded_layer_draws_the_same_numbers_for_a_run_time_shape(make):
    # The stateless ops take shapes known only at run time, so a trace with an unknown batch
    # draws what a trace with the batch known draws.
    spec = [tf.TensorSpec([None, 3, 4])]
    layer = make()
    traced = tf.function(lambda v: layer(v, training=True), input_signature=spec)
    other = make()
    static = tf.function(lambda v: other(v, training=True))
    x = np.ones((2, 3, 4), np.float32)
    dynamic_out, static_out = traced(x), static(x)
    assert dynamic_out.shape == (2, 3, 4)
    np.testing.assert_array_equal(dynamic_out.numpy(), static_out.numpy())
