"""The rest of `tf.experimental` against TensorFlow 2.21: `Optional` and `tf.OptionalSpec`
(eagerly, as tf.function arguments and results, empty values failing when a traced graph runs),
`dlpack` round trips and errors, and the runtime switches (`async_scope`, `async_clear_error`,
`function_executor_type`, `enable_strict_mode`, `register_filesystem_plugin`)."""

import numpy as np
import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]


def _outcome(thunk):
    try:
        return ("ok", thunk())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _optional(tf, device):
    with tf.device(device):
        o = tf.experimental.Optional.from_value(42)
        e = tf.experimental.Optional.empty(tf.TensorSpec([None, 2], tf.float32))
        nested = tf.experimental.Optional.from_value(
            {"a": tf.constant([1.0, 2.0]), "b": (tf.constant(1), tf.constant([True]))}
        )
        return (
            o.has_value(),
            o.get_value(),
            o.element_spec,
            o._type_spec,
            isinstance(o, tf.experimental.Optional),
            isinstance(o._type_spec, tf.TypeSpec),
            e.has_value(),
            e.element_spec,
            e._type_spec,
            _outcome(e.get_value),
            nested.element_spec,
            nested.get_value(),
            nested.has_value(),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_optional_eager(tf_oracle, device):
    assert_parity(tf_oracle, _optional, (device,), helpers=(_outcome,))


def _optional_functions(tf, device):
    with tf.device(device):

        @tf.function
        def f(opt):
            return opt.has_value(), opt.get_value() * 2

        @tf.function
        def get(opt):
            return opt.get_value()

        @tf.function
        def make(x):
            return tf.experimental.Optional.from_value(x)

        @tf.function
        def make_empty():
            return tf.experimental.Optional.empty(tf.TensorSpec([3], tf.int32))

        spec = tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
        sig = tf.function(lambda opt: opt.has_value(), input_signature=[spec])
        made = make(tf.constant(5))
        empty = make_empty()
        return (
            f(tf.experimental.Optional.from_value(tf.constant([1.0, 3.0]))),
            f(tf.experimental.Optional.from_value(tf.constant([2.0, 4.0]))),
            f.experimental_get_tracing_count(),
            _outcome(lambda: get(tf.experimental.Optional.empty(tf.TensorSpec([2], tf.float32)))),
            made.has_value(),
            made.get_value(),
            made._type_spec,
            empty.has_value(),
            empty._type_spec,
            _outcome(empty.get_value),
            sig(tf.experimental.Optional.from_value([1.0, 2.0, 3.0])),
            sig(tf.experimental.Optional.empty(tf.TensorSpec([None], tf.float32))),
            sig.experimental_get_tracing_count(),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_optional_through_functions(tf_oracle, device):
    assert_parity(tf_oracle, _optional_functions, (device,), helpers=(_outcome,))


@parity
def test_optional_spec(tf):
    a = tf.OptionalSpec(tf.TensorSpec([], tf.int32))
    b = tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
    c = tf.OptionalSpec(tf.TensorSpec([2], tf.float32))
    o = tf.experimental.Optional.from_value(3)
    return (
        repr(a),
        a == o._type_spec,
        a.is_compatible_with(o),
        b.is_compatible_with(c),
        c.is_subtype_of(b),
        b.is_subtype_of(c),
        c.most_specific_common_supertype([tf.OptionalSpec(tf.TensorSpec([3], tf.float32))]),
        tf.OptionalSpec.from_value(o),
        a.value_type.__name__,
        hash(a) == hash(tf.OptionalSpec(tf.TensorSpec([], tf.int32))),
    )


def _dlpack(tf, device):
    with tf.device(device):
        out = []
        for value, dtype in (
            ([[1.0, 2.0], [3.0, 4.0]], tf.float32),
            ([1, 0, 3], tf.int32),
            ([1, 0, 3], tf.int64),
            ([1, 0, 3], tf.uint8),
            ([1, 0, 3], tf.int16),
            ([1.5, -2.0], tf.float64),
            ([1.5, -2.0], tf.float16),
            ([True, False], tf.bool),
            (7, tf.int32),
            ([], tf.float32),
        ):
            t = tf.constant(value, dtype)
            capsule = tf.experimental.dlpack.to_dlpack(t)
            back = tf.experimental.dlpack.from_dlpack(capsule)
            out.append((type(capsule).__name__, back))
        capsule = tf.experimental.dlpack.to_dlpack(tf.constant([1.0]))
        tf.experimental.dlpack.from_dlpack(capsule)
        out.append(_outcome(lambda: tf.experimental.dlpack.from_dlpack(capsule)))
        out.append(_outcome(lambda: tf.experimental.dlpack.to_dlpack([1.0, 2.0])))
        out.append(_outcome(lambda: tf.experimental.dlpack.to_dlpack(3)))
        out.append(_outcome(lambda: tf.experimental.dlpack.from_dlpack("abc")))
        import numpy as np

        out.append(tf.experimental.dlpack.from_dlpack(np.arange(6, dtype=np.int64).__dlpack__()))
        out.append(np.from_dlpack(np.asarray(tf.constant([1, 2]))))
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_dlpack_round_trips(tf_oracle, device):
    assert_parity(tf_oracle, _dlpack, (device,), helpers=(_outcome,))


def test_dlpack_takes_dlpack_producers():
    """An extension over TensorFlow (whose from_dlpack takes only capsules): any object with
    `__dlpack__`, such as a numpy array, converts."""
    import ferroflow as tf

    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    result = tf.experimental.dlpack.from_dlpack(array)
    assert result.dtype == tf.float32
    assert result.shape == (2, 3)
    np.testing.assert_array_equal(result.numpy(), array)
    array[0, 0] = 99.0  # shared, as a capsule's import: the tensor reads the array's memory
    assert result.numpy()[0, 0] == 99.0


@parity
def test_runtime_switches(tf):
    import errno

    out = []
    with tf.experimental.async_scope():
        out.append(tf.constant(1) + 1)
    out.append(tf.experimental.async_clear_error())
    with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        out.append(tf.function(lambda: tf.constant(2) * 3)())
    with tf.experimental.function_executor_type(None):
        out.append(tf.constant(4))
    try:
        tf.experimental.register_filesystem_plugin("/nonexistent/plugin.so")
    except OSError as e:
        out.append((type(e).__name__, e.errno == errno.ENOENT, e.filename))
    out.append(tf.experimental.enable_strict_mode())
    try:
        with tf.experimental.async_scope():
            raise KeyError("inside")
    except KeyError as e:
        out.append(str(e))
    return out
