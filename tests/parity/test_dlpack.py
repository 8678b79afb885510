"""DLPack against TensorFlow: `tf.experimental.dlpack.to_dlpack` / `from_dlpack`,
`Tensor.__dlpack__` and `__dlpack_device__` with numpy as the other side (values, dtypes,
shapes, errors; CPU and GPU), and ferroflow's memory sharing: an exported capsule points at the
tensor's own storage and keeps it alive; an imported capsule is copied once and consumed."""

import ctypes
import gc

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _outcome(thunk):
    try:
        return ("ok", thunk())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _export(tf, device):
    import numpy as np

    out = []
    with tf.device(device):
        for value, dtype in (
            ([[1.0, 2.0], [3.0, 4.0]], tf.float32),
            ([1.5, -2.0], tf.float64),
            ([1.5, -2.0], tf.float16),
            ([1, 0, 3], tf.int8),
            ([1, 0, 3], tf.int16),
            ([1, 0, 3], tf.int32),
            ([1, 0, 3], tf.int64),
            ([1, 0, 3], tf.uint8),
            ([1, 0, 3], tf.uint16),
            ([1, 0, 3], tf.uint32),
            ([1, 0, 3], tf.uint64),
            ([True, False], tf.bool),
            ([1 + 2j, -3j], tf.complex64),
            ([1 + 2j, -3j], tf.complex128),
            (7, tf.int32),
            (2.5, tf.float32),
            ([], tf.float32),
            ([[], []], tf.int64),
            ([1.5, 2.0], tf.bfloat16),
        ):
            t = tf.constant(value, dtype)
            out.append(_outcome(lambda t=t: np.from_dlpack(t)))
            out.append(t.__dlpack_device__())
        t = tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4])
        out.append(np.from_dlpack(tf.transpose(t, [2, 0, 1])))
        out.append(np.from_dlpack(t[:, 1]))
        capsule = tf.experimental.dlpack.to_dlpack(tf.constant([1.0, 2.0]))
        out.append((type(capsule).__name__, tf.experimental.dlpack.from_dlpack(capsule)))
        # TensorFlow refuses variables (not tensors) with InvalidArgumentError.
        out.append(_outcome(lambda: tf.experimental.dlpack.to_dlpack(tf.Variable([1.0]))))
    out.append(_outcome(lambda: tf.experimental.dlpack.to_dlpack(np.ones(2))))
    out.append(_outcome(lambda: tf.experimental.dlpack.to_dlpack([1.0])))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_export_to_numpy(tf_oracle, device):
    assert_parity(tf_oracle, _export, (device,), helpers=(_outcome,))


def _import(tf, device):
    import numpy as np

    dlpack = tf.experimental.dlpack
    out = []
    with tf.device(device):
        for array in (
            np.arange(6, dtype=np.float32).reshape(2, 3),
            np.arange(3, dtype=np.float64),
            np.arange(3, dtype=np.float16),
            np.arange(3, dtype=np.int8),
            np.arange(3, dtype=np.int16),
            np.arange(3, dtype=np.int32),
            np.arange(3, dtype=np.int64),
            np.arange(3, dtype=np.uint8),
            np.arange(3, dtype=np.uint16),
            np.arange(3, dtype=np.uint32),
            np.arange(3, dtype=np.uint64),
            np.array([True, False, True]),
            np.array([1 + 2j, 3j], dtype=np.complex64),
            np.array([1 + 2j, 3j], dtype=np.complex128),
            np.array(3.0),
            np.zeros((0, 3)),
            np.zeros((2, 1, 3), dtype=np.float32),
            np.arange(12.0).reshape(3, 4)[1:],
            np.arange(12.0).reshape(3, 4)[:, :1],
        ):
            out.append(_outcome(lambda a=array: dlpack.from_dlpack(a.__dlpack__())))
        # Strided arrays: TensorFlow refuses them (InvalidArgumentError).
        strided = np.arange(12.0).reshape(3, 4)[:, ::2]
        out.append(_outcome(lambda: dlpack.from_dlpack(strided.__dlpack__())))
        out.append(
            _outcome(lambda: dlpack.from_dlpack(np.arange(6.0).reshape(2, 3).T.__dlpack__()))
        )
        capsule = np.arange(4.0).__dlpack__()
        out.append(_outcome(lambda: dlpack.from_dlpack(capsule)))
        # A capsule is consumed once.
        out.append(_outcome(lambda: dlpack.from_dlpack(capsule)))
        capsule = dlpack.to_dlpack(tf.constant([1, 2]))
        out.append(_outcome(lambda: dlpack.from_dlpack(capsule)))
        out.append(_outcome(lambda: dlpack.from_dlpack(capsule)))
        readonly = np.arange(3.0)
        readonly.flags.writeable = False
        out.append(_outcome(lambda: dlpack.from_dlpack(readonly.__dlpack__())))
        out.append(_outcome(lambda: dlpack.from_dlpack(3)))
        out.append(_outcome(lambda: dlpack.from_dlpack(None)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_import_from_numpy(tf_oracle, device):
    assert_parity(tf_oracle, _import, (device,), helpers=(_outcome,))


def _pointer(array):
    return array.__array_interface__["data"][0]


def test_export_shares_the_tensors_memory():
    import ferroflow as tf

    t = tf.constant(np.arange(8, dtype=np.float32))
    first, second = np.from_dlpack(t), np.from_dlpack(t)
    # Both views are of the tensor's one storage (a copy would have two addresses).
    assert _pointer(first) == _pointer(second)
    # Writing through the pointer (the array is read-only) changes the tensor's values.
    ctypes.c_float.from_address(_pointer(first)).value = 42.0
    assert t.numpy()[0] == 42.0
    # The capsule keeps the storage alive after the tensor is gone.
    del t
    gc.collect()
    np.testing.assert_array_equal(second[1:], np.arange(1, 8, dtype=np.float32))
    assert second[0] == 42.0


def test_dlpack_copy_and_devices():
    import ferroflow as tf

    t = tf.constant([1.0, 2.0])
    copied = np.from_dlpack(t, copy=True)
    assert _pointer(copied) != _pointer(np.from_dlpack(t))
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        t.__dlpack__(stream=1)
    with tf.device("GPU:0"):
        g = tf.constant([3.0, 4.0]) * 1.0
    if "GPU" in g.device:
        # A GPU tensor is exported as a host copy; it cannot be shared.
        np.testing.assert_array_equal(np.from_dlpack(g), [3.0, 4.0])
        with pytest.raises(BufferError):
            g.__dlpack__(copy=False)


def test_import_copies_once_and_consumes():
    """Import copies (ferroflow's host buffers are owned, see the module's docs): a later change
    to the producer's array is not seen, and the producer's deleter has run."""
    import ferroflow as tf

    array = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = tf.experimental.dlpack.from_dlpack(array.__dlpack__())
    array[0, 0] = 99.0
    assert t.numpy()[0, 0] == 0.0
    unaligned = np.frombuffer(bytearray(b"\x00" + np.arange(3.0).tobytes()), np.float64, 3, 1)
    np.testing.assert_array_equal(tf.experimental.dlpack.from_dlpack(unaligned).numpy(), [0, 1, 2])
