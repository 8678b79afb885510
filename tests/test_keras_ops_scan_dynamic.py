"""`keras.ops.associative_scan` over a length known only at run time (a `tf.function` traced
with an unknown dimension) gives bit for bit what the static-length path gives, which
tests/parity/test_keras_ops_core.py compares with Keras (Keras's own dynamic path takes over a
minute to trace under TensorFlow, too slow for a differential test)."""

import ferroflow as tf
import numpy as np

ops = tf.keras.ops


def _nonlinear(a, b):
    return a * 1.3 + b * b


# CPU only: on the software (lavapipe) GPU the 48 levels of conds take minutes per length.
def test_dynamic_length_matches_static():
    with tf.device("CPU:0"):

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def forward(v):
            return ops.associative_scan(_nonlinear, v)

        @tf.function(input_signature=[tf.TensorSpec([2, None], tf.float32)])
        def backward(v):
            return ops.associative_scan(_nonlinear, v, reverse=True, axis=-1)

        for n in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17):
            x = np.arange(n * 2, dtype=np.float32).reshape(n, 2) * 0.37 + 0.11
            assert forward.get_concrete_function().structured_outputs.shape.as_list() == [None, 2]
            static = ops.associative_scan(_nonlinear, x)
            np.testing.assert_array_equal(forward(x).numpy(), static.numpy())
            static_back = ops.associative_scan(_nonlinear, x.T, reverse=True, axis=-1)
            np.testing.assert_array_equal(backward(x.T).numpy(), static_back.numpy())
