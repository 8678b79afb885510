"""`tf.IndexedSlices` and `tf.IndexedSlicesSpec` against TensorFlow: attributes, dense
conversion (repeated rows summed), negation, the spec and its components, `tf.nest` with
`expand_composites`, `tf.function` arguments and results, variables' sparse updates and a
Keras optimizer applying an IndexedSlices gradient, on the CPU and the GPU."""

import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]


def _basics(tf, device):
    with tf.device(device):
        s = tf.IndexedSlices(
            tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            tf.constant([2, 0, 2]),
            tf.constant([4, 2]),
        )
        no_shape = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0], tf.int64))
        out = [
            s.values,
            s.indices,
            s.dense_shape,
            s.shape,
            s.dtype,
            str(s),
            tf.convert_to_tensor(s),
            tf.convert_to_tensor(-s),
            s._type_spec,
            no_shape._type_spec,
            no_shape.shape,
            tf.nest.flatten(s, expand_composites=True),
            tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int32, [3]),
            tf.IndexedSlicesSpec([None, 2])._component_specs,
            tf.type_spec_from_value(s),
        ]
        for bad in (
            lambda: tf.convert_to_tensor(no_shape),
            lambda: tf.convert_to_tensor(s, dtype=tf.int32),
            lambda: tf.IndexedSlicesSpec([2], indices_shape=[1, 2]),
        ):
            try:
                out.append(bad())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_indexed_slices_basics(tf_oracle, device):
    assert_parity(tf_oracle, _basics, (device,))


@parity
def test_indexed_slices_through_function(tf):
    @tf.function
    def f(s):
        return tf.IndexedSlices(s.values * 2.0, s.indices, s.dense_shape), tf.convert_to_tensor(s)

    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    t = tf.IndexedSlices(
        tf.constant([[1.0, 2.0], [5.0, 5.0]]), tf.constant([0, 0]), tf.constant([3, 2])
    )
    first, dense = f(s)
    second, dense2 = f(t)
    return first, dense, second, dense2, f.experimental_get_tracing_count()


@parity
def test_indexed_slices_input_signature(tf):
    spec = tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int32)

    @tf.function(input_signature=[spec])
    def f(s):
        return tf.reduce_sum(s.values) + tf.cast(tf.reduce_sum(s.indices), tf.float32)

    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    return f(s), f.get_concrete_function().structured_input_signature


def _variable_updates(tf, device):
    with tf.device(device):
        v = tf.Variable(tf.reshape(tf.range(8.0), [4, 2]))
        delta = tf.IndexedSlices(tf.constant([[10.0, 10.0], [1.0, 1.0]]), tf.constant([3, 0]))
        v.scatter_add(delta)
        after_add = tf.identity(v)
        v.scatter_update(delta)
        opt = tf.keras.optimizers.SGD(learning_rate=0.5)
        grad = tf.IndexedSlices(tf.constant([[2.0, 4.0]]), tf.constant([1]), tf.constant([4, 2]))
        opt.apply_gradients([(grad, v)])
        return after_add, v


@pytest.mark.parametrize("device", DEVICES)
def test_indexed_slices_variable_updates_and_optimizer(tf_oracle, device):
    assert_parity(tf_oracle, _variable_updates, (device,))
