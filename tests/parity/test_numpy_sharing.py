"""Tensors to numpy and back, against TensorFlow: `np.asarray(t)` and `t.__array__()` are
read-only views of the tensor's memory (two views share it; writing raises); `.numpy()`,
`np.array(t)` and a requested dtype are writeable copies of their own, so writing into them
never changes the tensor; `tf.constant` of a view holds the same values; a view taken before a
variable's assignment keeps the values it was taken with. Not compared: `np.asarray` of a
bfloat16 scalar, which TensorFlow 2.21 cannot convert (its `__array__` returns a scalar), and
whether a bfloat16 view is writeable (TensorFlow's is, and writing it changes the tensor).
Shapes and dtypes vary (rank 0, empty and rank 4; every numpy-representable dtype), on both
devices."""

import numpy as np
import pytest

from .harness import assert_parity

DTYPES = [
    "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "bool", "complex64", "complex128",
]  # fmt: skip
SHAPES = [(), (0, 3), (5,), (2, 3, 1, 4)]


def _describe(np, array, reference):
    """What a conversion gave: writeability, ownership, sharing with `reference`, contents."""
    return [
        bool(array.flags.writeable),
        bool(np.shares_memory(array, reference)),
        array.dtype.name,
        list(array.shape),
        array.astype("float64").tolist() if array.dtype.kind != "c" else array.tolist(),
    ]


def _write_error(array):
    try:
        array[...] = array
        return "wrote"
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _conversions(tf, dtype_names, shapes, device):
    import numpy as np

    out = []
    with tf.device(device):
        for name in dtype_names:
            for shape in shapes:
                if name == "bfloat16" and shape == ():
                    # TensorFlow 2.21's __array__ gives a bfloat16 scalar, not an array, which
                    # numpy refuses (ValueError); ferroflow gives a 0-d array.
                    continue
                size = int(np.prod(shape))
                values = (np.arange(size) % 5).reshape(shape)
                t = tf.identity(tf.constant(values.astype("float64"), dtype=getattr(tf, name)))
                view = np.asarray(t)
                view_flags = [_describe(np, view, np.asarray(t)), _write_error(view)]
                if name == "bfloat16":
                    # TensorFlow's bfloat16 view is writeable (a write changes the tensor);
                    # ferroflow's is read-only like every other dtype's.
                    view_flags[0][0], view_flags[1] = None, None
                copy = t.numpy()
                copy = np.asarray(copy) if np.ndim(copy) == 0 else copy
                out.append(
                    [
                        name,
                        list(shape),
                        *view_flags,
                        _describe(np, np.asarray(copy), view),
                        _describe(np, np.array(t), view),
                        _describe(np, np.asarray(t, dtype="float64"), view),
                    ]
                )
                if size:
                    copy.reshape(-1)[0] = 3
                    out.append(np.asarray(t).astype("float64").tolist())
                back = tf.constant(view)
                out.append([back.dtype.name, back.shape.as_list(), tf.reduce_all(back == t)])
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_views_and_copies_of_tensors(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _conversions,
        (DTYPES, SHAPES, device),
        helpers=[_describe, _write_error],
    )


def _after_assignment(tf, device):
    import numpy as np

    out = []
    with tf.device(device):
        v = tf.Variable([1.0, 2.0, 3.0])
        read = v.read_value()
        view = np.asarray(read)
        of_variable = np.asarray(v)
        v.assign([7.0, 8.0, 9.0])
        out.append([view.tolist(), of_variable.tolist(), read, v])
        v.assign_add([1.0, 1.0, 1.0])
        out.append([view.tolist(), of_variable.tolist(), read, v])
        # A view of a result that later ops read and drop.
        total = tf.reduce_sum(read) + 1
        held = np.asarray(read * 2)
        del read
        out.append([total, held.tolist(), bool(held.flags.writeable)])
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_views_keep_their_values_across_assignments(tf_oracle, device):
    assert_parity(tf_oracle, _after_assignment, (device,))


def _strings(tf):
    import numpy as np

    t = tf.constant([b"a", b"bc"])
    view = np.asarray(t)
    return [view.dtype.name, view.tolist(), t.numpy().tolist(), tf.constant(view)]


def test_string_tensors_convert_to_object_arrays(tf_oracle):
    assert_parity(tf_oracle, _strings)


def test_a_view_outlives_its_tensor_and_shares_memory_with_it():
    import ferroflow as tf

    with tf.device("CPU:0"):
        _view_of_a_host_tensor(tf)


def _view_of_a_host_tensor(tf):
    t = tf.constant(np.arange(1_000_000, dtype=np.float32)) * 2.0
    view = np.asarray(t)
    again = np.asarray(t)
    assert np.shares_memory(view, again)
    del t
    assert view[999_999] == 1_999_998.0
    # The round trip shares the storage too: no copy of the million elements.
    back = tf.constant(view)
    assert np.shares_memory(np.asarray(back), view)
    # A reshaped view is still the tensor's memory, under the view's shape.
    square = tf.constant(view.reshape(1000, 1000))
    assert square.shape == (1000, 1000) and np.shares_memory(np.asarray(square), view)
    # A strided or retyped view is copied.
    assert not np.shares_memory(np.asarray(tf.constant(view[::2])), view)
    assert tf.constant(view.view(np.int32)).dtype == tf.int32


def test_no_array_in_a_views_base_chain_can_be_made_writeable():
    """A bfloat16 view is a view of an integer view of the tensor: neither may become writeable
    (numpy allows it when any array up the chain is), or a write would change the tensor."""
    import ferroflow as tf

    with tf.device("CPU:0"):
        for dtype in (tf.bfloat16, tf.float32, tf.int8):
            t = tf.identity(tf.constant([1, 2, 3], dtype))
            view = np.asarray(t)
            chain = [view]
            while isinstance(chain[-1].base, np.ndarray):
                chain.append(chain[-1].base)
            for array in chain:
                assert not array.flags.writeable
                with pytest.raises(ValueError):
                    array.flags.writeable = True
            assert tf.reduce_all(tf.constant(view) == t)


def test_a_constant_of_a_quantized_tensors_view_is_what_a_copy_gives():
    import ferroflow as tf

    with tf.device("CPU:0"):
        q = tf.constant([1, 2, 3], tf.qint8)
        view = np.asarray(q)
        assert tf.constant(view).dtype == tf.constant(view.copy()).dtype
