"""Fused chains that the typed float loops do not run (integers, float16, chains with Relu or
bias rows) run step by step on the calling thread, where the node's device scope is: their
ops are placed as the node is, never on a GPU the scope excludes."""

import ferroflow as tf
import numpy as np
from conftest import require_gpu


def test_integer_relu_chain_under_a_cpu_scope_stays_on_the_cpu(capfd):
    require_gpu()

    @tf.function
    def chain(x):
        return tf.nn.relu(x * 2 - 3)

    values = np.arange(-60_000, 60_000, dtype=np.int32)  # past a parallel task's grain
    with tf.device("CPU:0"):
        x = tf.constant(values)
        chain.get_concrete_function(x)
        tf.debugging.set_log_device_placement(True)
        try:
            capfd.readouterr()
            y = chain(x)
            log = capfd.readouterr().err
        finally:
            tf.debugging.set_log_device_placement(False)
    assert "GPU" not in log, log[-2000:]
    np.testing.assert_array_equal(y.numpy(), np.maximum(values * 2 - 3, 0))
