"""TensorArrays crossing a `tf.function`'s boundary, against TensorFlow.

Returned: TensorFlow hands back the array's flow, a variant tensor holding its TensorList;
ferroflow, which has no variant dtype, hands back the TensorArray itself (its buffer and length
are the function's outputs). The programs compare what both give: the stacked elements (read
with `tf.raw_ops.TensorListStack` under TensorFlow, `stack()` under ferroflow), the length,
and `structured_outputs` (a TensorArray of the element shape and dtype in both).

Arguments: an eager TensorArray is traced once per array object (as TensorFlow does), a graph
one (passed between nested functions) by its TensorArraySpec; the body gets a graph array of
the argument's elements. (TensorFlow's body reads the eager array itself, so a read there
clears the slot of an array made with clear_after_read; ferroflow's leaves the argument as it
was. The programs do not look at an argument after a call.)"""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _elements(tf, value, dtype, element_shape):
    """A returned TensorArray's stacked elements and length (TensorFlow: its flow tensor)."""
    if isinstance(value, tf.TensorArray):
        return value.stack(), value.size()
    stacked = tf.raw_ops.TensorListStack(
        input_handle=value, element_dtype=dtype, element_shape=element_shape
    )
    return stacked, tf.raw_ops.TensorListLength(input_handle=value)


def _returned(tf, device):
    with tf.device(device):

        @tf.function
        def written(n):
            ta = tf.TensorArray(tf.float32, size=n)
            for i in tf.range(n):
                ta = ta.write(i, tf.cast(i, tf.float32) * 2.0)
            return ta, ta.stack()

        @tf.function
        def partly_written():
            ta = tf.TensorArray(tf.int32, size=3, element_shape=[2])
            return ta.write(1, [4, 5])

        @tf.function
        def grown(n):
            ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
            i = tf.constant(0)
            while i < n:
                ta = ta.write(i, i * i)
                i += 1
            return {"squares": ta, "n": n}

        ta, stacked = written(tf.constant(3))
        squares = grown(tf.constant(4))
        description = grown.get_concrete_function(tf.TensorSpec([], tf.int32)).structured_outputs
        shown = description["squares"]
        return {
            "written": (_elements(tf, ta, tf.float32, []), stacked),
            "partly_written": _elements(tf, partly_written(), tf.int32, [2]),
            "grown": (_elements(tf, squares["squares"], tf.int32, []), squares["n"]),
            "described": (type(shown).__name__, shown.dtype, shown.element_shape),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_array_returned_from_function(tf_oracle, device):
    assert_parity(tf_oracle, _returned, (device,), helpers=[_elements])


def _arguments(tf, device):
    with tf.device(device):

        @tf.function
        def doubled(ta):
            return ta.stack() * 2.0

        @tf.function
        def size_and_row(ta):
            return ta.size(), ta.read(1)

        a = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
        b = tf.TensorArray(tf.float32, size=2).write(0, [5.0, 6.0]).write(1, [7.0, 8.0])
        c = tf.TensorArray(tf.float32, size=3).write(0, [5.0, 6.0]).write(1, [7.0, 8.0])
        c = c.write(2, [0.0, 1.0])
        values = [doubled(a), doubled(b), doubled(c), doubled(a)]
        counts = doubled.experimental_get_tracing_count()

        @tf.function
        def outer(n):
            @tf.function
            def inner(ta):
                return ta.stack() + 1.0

            ta = tf.TensorArray(tf.float32, size=n, element_shape=[2])
            for i in tf.range(n):
                ta = ta.write(i, tf.fill([2], tf.cast(i, tf.float32)))
            return inner(ta)

        spec_output = doubled.get_concrete_function(tf.TensorArraySpec([2], tf.float32))
        return (
            values,
            counts,
            size_and_row(a),
            size_and_row(c),
            outer(tf.constant(3)),
            spec_output.structured_outputs.shape,
        )


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_array_arguments(tf_oracle, device):
    assert_parity(tf_oracle, _arguments, (device,))


def test_tensor_array_spec_input_signature():
    """Beyond TensorFlow (whose call fails binding the signature): a TensorArraySpec in an
    input_signature takes the arrays it is compatible with, and refuses others as TensorFlow's
    binding does, with TypeError."""
    import ferroflow as tf

    @tf.function(input_signature=[tf.TensorArraySpec(None, tf.float32, dynamic_size=True)])
    def doubled(ta):
        return ta.stack() * 2.0

    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, 1.0).write(1, 2.0)
    rows = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, [1.0, 2.0])
    assert doubled(grown).numpy().tolist() == [2.0, 4.0]
    assert doubled(rows).numpy().tolist() == [[2.0, 4.0]]
    assert grown.stack().numpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="Can not cast"):
        doubled(tf.TensorArray(tf.float32, size=1).write(0, 1.0))
    with pytest.raises(TypeError, match="Can not cast"):
        doubled(tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(0, 1))


def _sized_by_signature(tf, device):
    """A TensorArray sized by an input_signature argument takes each call's size (listed as a
    difference in an earlier note; checked here so it stays fixed)."""
    with tf.device(device):

        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def looped(n):
            ta = tf.TensorArray(tf.float32, size=n)
            for i in tf.range(n):
                ta = ta.write(i, tf.cast(i, tf.float32))
            return ta.stack(), ta.size()

        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def partly_written(n):
            ta = tf.TensorArray(tf.float32, size=n, element_shape=[2]).write(0, tf.ones([2]))
            return ta.stack(), ta.size(), ta.read(n - 1)

        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def unstacked(n):
            ta = tf.TensorArray(tf.float32, size=n).unstack(tf.range(tf.cast(n, tf.float32)))
            return ta.stack(), ta.gather([0]), ta.size()

        out = []
        for n in (3, 5, 1):
            out += [looped(n), partly_written(n), unstacked(n)]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_array_sized_by_signature(tf_oracle, device):
    assert_parity(tf_oracle, _sized_by_signature, (device,))
