"""`Dataset.reduce` inside a tf.function over a dataset built there whose elements come from a
`tf.py_function`: the sums are TensorFlow's, on both devices, whether the element's shape is
given (`tf.ensure_shape`) or its rank stays unknown and the state's does not (that raised a
TypeError saying the dataset was read outside the function). A state of unknown rank is
ferroflow's limit: its staged loops need a rank, and it raises UnimplementedError naming the
remedy (it raised a bare TypeError)."""

import pytest

from .harness import assert_parity


def _sum_of_doubles(tf, device):
    def double(x):
        return x * 2

    with tf.device(device):

        @tf.function
        def total(n):
            ds = tf.data.Dataset.range(n)
            ds = ds.map(lambda x: tf.ensure_shape(tf.py_function(double, [x], tf.int64), []))
            return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

        # The elements keep their unknown rank; the state does not take it.
        @tf.function
        def summed(n):
            ds = tf.data.Dataset.range(n).map(lambda x: tf.py_function(double, [x], tf.int64))
            return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x))

        return [(total(n), summed(n)) for n in (tf.constant(v, tf.int64) for v in (0, 4, 7))]


def test_reduce_of_py_function_elements_with_a_shape(tf_oracle, device):
    expected = assert_parity(tf_oracle, _sum_of_doubles, (device,))
    assert expected[0] != "raised", expected


def _loop_over_py_function_elements(tf, device):
    """A `for` loop over such a dataset. The `lambda x:` given to `map` names its parameter as
    the loop's target: AutoGraph counted the lambda's `x` as a read of the function's `x`,
    made the target a loop variable, and a loop variable of unknown rank could not be staged
    (UnimplementedError)."""

    def double(x):
        return x * 2

    with tf.device(device):

        @tf.function
        def total(n):
            ds = tf.data.Dataset.range(n).map(lambda x: tf.py_function(double, [x], tf.int64))
            result = tf.constant(0, tf.int64)
            for x in ds:
                result += tf.reduce_sum(x)
            return result

        return [total(tf.constant(n, tf.int64)) for n in (0, 4)]


def test_loop_over_py_function_elements(tf_oracle, device):
    expected = assert_parity(tf_oracle, _loop_over_py_function_elements, (device,))
    assert expected[0] != "raised", expected


def test_reduce_state_of_unknown_rank_is_unimplemented():
    import ferroflow as tf

    @tf.function
    def total(n):
        ds = tf.data.Dataset.range(n).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64))
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

    with pytest.raises(tf.errors.UnimplementedError, match="ensure_shape"):
        total(tf.constant(4, tf.int64))
