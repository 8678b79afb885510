"""`tf.debugging.enable_check_numerics` against TensorFlow: the first op whose floating-point
output holds NaN or infinity raises InvalidArgumentError naming it (eagerly and when a
tf.function's graph runs), on CPU and GPU; finite programs, integer and complex ops, the ops
TensorFlow skips and other threads are unaffected; `disable_check_numerics` turns it off."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _key_lines(error):
    """The parts of the message both frameworks write alike: the header, dtype, shape, the
    counts, the graph name and CheckNumerics' ' : Tensor had ... values'."""
    text = str(error)
    lines = [
        line.strip()
        for line in text.splitlines()
        if "!!!" in line
        or line.strip().startswith(("dtype:", "shape:", "# of", "Graph name:"))
        or "Tensor had" in line
    ]
    kinds = [
        line[line.index("Tensor had") :].split(" values")[0] for line in lines if "had" in line
    ]
    return type(error).__name__, [x for x in lines if "Tensor had" not in x], kinds


def _run(tf, thunk):
    tf.debugging.enable_check_numerics()
    try:
        return ("ok", thunk())
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return _key_lines(e)
    finally:
        tf.debugging.disable_check_numerics()


def _eager(tf, device):
    import numpy as np

    with tf.device(device):
        x = tf.constant([1.0, 0.0, -1.0, 0.0])
        return [
            _run(tf, lambda: x / tf.constant([0.0, 0.0, 0.0, 1.0])),
            _run(tf, lambda: tf.math.log(tf.zeros([2, 3]))),
            _run(tf, lambda: tf.math.log(tf.constant([0.0], tf.float64))),
            _run(tf, lambda: tf.constant([1.0], tf.float16) / tf.constant([0.0], tf.float16)),
            _run(tf, lambda: tf.constant([1.0], tf.bfloat16) / tf.constant([0.0], tf.bfloat16)),
            _run(tf, lambda: tf.constant(1.0) / 0.0),
            _run(tf, lambda: tf.reduce_sum(tf.constant([3e38, 3e38]))),
            _run(tf, lambda: tf.matmul(tf.constant([[np.inf]]), tf.constant([[1.0]]))),
            _run(tf, lambda: tf.cast(tf.constant([np.inf]), tf.float64)),
            _run(tf, lambda: tf.split(tf.constant([np.inf, 1.0]), 2)),
            _run(tf, lambda: tf.sqrt(tf.constant([-1.0, 4.0])) + 1.0),
            # Finite programs, integers, complex values and TensorFlow's safe ops pass.
            _run(tf, lambda: tf.sqrt(tf.constant([4.0, 9.0])) * 2.0),
            _run(tf, lambda: tf.constant([7, 1]) // tf.constant([2, 1])),
            _run(tf, lambda: tf.complex(tf.constant([np.inf]), 1.0) * tf.complex(2.0, 0.0)),
            _run(tf, lambda: tf.reshape(tf.constant([np.nan, 1.0]), [2, 1])),
            _run(tf, lambda: tf.identity(tf.constant([np.inf]))),
            _run(tf, lambda: tf.maximum(tf.constant([np.nan]), 1.0)),
            _run(tf, lambda: tf.transpose(tf.constant([[np.nan, 1.0]]))),
            _run(tf, lambda: tf.concat([tf.constant([np.inf]), tf.constant([1.0])], 0)),
            _run(tf, lambda: tf.unstack(tf.constant([np.inf, 1.0]))),
            # Off again: the same division returns infinities.
            tf.constant(1.0) / 0.0,
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_check_numerics_eager(tf_oracle, device):
    assert_parity(tf_oracle, _eager, (device,), helpers=(_key_lines, _run))


def _graph(tf, device):
    with tf.device(device):

        @tf.function
        def log_twice(a):
            return tf.math.log(a) * 2.0

        @tf.function
        def scaled(a):
            return a * 3.0 + 1.0

        good = tf.constant([1.0, 2.0])
        return [
            _run(tf, lambda: log_twice(tf.constant([-1.0, 2.0]))),
            _run(tf, lambda: log_twice(good)),
            _run(tf, lambda: scaled(tf.constant([1e38, 2.0]))),
            _run(tf, lambda: scaled(good)),
            # Traced while the check was off, checked when it runs with it on.
            log_twice(tf.constant([0.0])),
            _run(tf, lambda: log_twice(tf.constant([0.0, 1.0]))),
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_check_numerics_in_tf_function(tf_oracle, device):
    assert_parity(tf_oracle, _graph, (device,), helpers=(_key_lines, _run))


def _threads_and_switches(tf):
    import threading

    seen = []
    tf.debugging.enable_check_numerics(stack_height_limit=5, path_length_limit=10)
    tf.debugging.enable_check_numerics()
    try:
        # The switch is per thread, as in TensorFlow.
        worker = threading.Thread(target=lambda: seen.append(tf.constant(1.0) / 0.0))
        worker.start()
        worker.join()
        try:
            tf.constant(1.0) / 0.0
            seen.append("no error")
        except tf.errors.InvalidArgumentError:
            seen.append("InvalidArgumentError")
    finally:
        tf.debugging.disable_check_numerics()
        tf.debugging.disable_check_numerics()
    seen.append(tf.constant(-1.0) / 0.0)
    return seen


def test_check_numerics_threads_and_switches(tf_oracle):
    assert_parity(tf_oracle, _threads_and_switches)


def test_check_numerics_gradient_tape():
    """Ops recorded on a tape and their gradients are checked too (the message names the op)."""
    import ferroflow as tf

    x = tf.constant([0.0, 1.0])
    tf.debugging.enable_check_numerics()
    try:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sqrt(x)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r'op "(RealDiv|Mul|Reciprocal)'):
            tape.gradient(y, x)
    finally:
        tf.debugging.disable_check_numerics()
