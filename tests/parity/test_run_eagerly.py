"""`tf.config.run_functions_eagerly`: a `tf.function` runs its Python body on every call
(Python side effects each time, no tracing) until it is switched off, against TensorFlow."""

from .harness import assert_parity


def _program(tf):
    calls = []

    @tf.function
    def f(x):
        calls.append(int(tf.executing_eagerly()))
        return x * 2.0

    before = f(tf.constant(1.0))
    tf.config.run_functions_eagerly(True)
    try:
        flag = tf.config.functions_run_eagerly()
        eager = [f(tf.constant(2.0)), f(tf.constant(3.0))]
    finally:
        tf.config.run_functions_eagerly(False)
    after = f(tf.constant(4.0))
    return before, flag, eager, after, calls, tf.config.functions_run_eagerly()


def test_run_functions_eagerly(tf_oracle):
    assert_parity(tf_oracle, _program)


def _dtypes_aliases(tf):
    return tf.dtypes.cast(tf.constant([1.7, -2.2]), tf.int32), tf.dtypes.complex(1.0, 2.0)


def test_dtypes_aliases(tf_oracle):
    assert_parity(tf_oracle, _dtypes_aliases)
