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


def test_fused_producers_are_placed_as_their_ops(capfd):
    """A chain that took in its producer (a Conv2D, a MaxPoolGrad) runs that op where the
    unfused graph runs it (where an eager call would place it): the placement log of the op
    is the same with fusion on and off, without a scope and under a CPU scope."""
    require_gpu()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 16)).astype(np.float32)

    def step(x, f):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.relu(tf.nn.conv2d(x, f, 1, "SAME") + 0.5)
            loss = tf.reduce_sum(tf.nn.max_pool2d(y, 2, 2, "VALID") ** 2)
        return tape.gradient(loss, x)

    def placed(scope, fused):
        tf.config.optimizer.set_experimental_options({"remapping": fused})
        try:
            traced = tf.function(step)
            with tf.device(scope):
                traced(x, f)  # traces
                tf.debugging.set_log_device_placement(True)
                try:
                    capfd.readouterr()
                    result = traced(x, f).numpy()
                    log = capfd.readouterr().err
                finally:
                    tf.debugging.set_log_device_placement(False)
        finally:
            tf.config.optimizer.set_experimental_options({"remapping": True})
        ops = ("Executing op MaxPoolGrad ", "Executing op Conv2D ")
        return [line for line in log.splitlines() if line.startswith(ops)], result

    for scope in [None, "CPU:0"]:
        (fused_log, fused), (plain_log, plain) = placed(scope, True), placed(scope, False)
        # Without a scope the Conv2D runs decomposed on the GPU (no Conv2D line of its own).
        assert fused_log == plain_log and plain_log, (fused_log, plain_log)
        np.testing.assert_allclose(fused, plain, rtol=1e-5, atol=1e-5)
