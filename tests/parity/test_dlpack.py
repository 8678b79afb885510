"""DLPack against TensorFlow: `tf.experimental.dlpack.to_dlpack` / `from_dlpack`,
`Tensor.__dlpack__` and `__dlpack_device__` with numpy as the other side (values, dtypes,
shapes, errors; CPU and GPU), and memory sharing both ways, as TensorFlow: an exported capsule
points at the tensor's own storage and keeps it alive; an imported capsule's memory is read in
place (a later write to the producer's array shows in the tensor) and its deleter runs once, when
the last tensor sharing it is gone."""

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


def _aligned(values, dtype):
    """A numpy array of `values` at a 64-byte aligned address: TensorFlow's CPU kernels check
    that alignment (EIGEN_MAX_ALIGN_BYTES) and abort on shared memory without it."""
    import numpy as np

    values = np.asarray(values, dtype)
    raw = np.zeros(values.nbytes + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    out = raw[skip : skip + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


def _shared(tf, device):
    import gc

    import numpy as np

    dlpack = tf.experimental.dlpack
    out = []
    with tf.device(device):
        for dtype in (
            np.float32,
            np.float64,
            np.float16,
            np.int8,
            np.int16,
            np.int32,
            np.int64,
            np.uint8,
            np.uint16,
            np.uint32,
            np.uint64,
            np.complex64,
            np.complex128,
        ):
            a = _aligned(np.arange(6).reshape(2, 3), dtype)
            t = dlpack.from_dlpack(a.__dlpack__())
            # The tensor reads the array's memory: a later write shows.
            a[0, 1] = 9
            # Reshaping on the CPU shares the memory (under a GPU scope it would copy it to the
            # GPU, in TensorFlow too); the op runs under the scope.
            with tf.device("CPU:0"):
                r = tf.reshape(t, [6])
            u = t + t
            a[1, 2] = 7
            # The op's result was computed before the write and is its own; the op wrote nothing
            # into the source; the reshape shares it.
            out.append((t, u, r, a.copy(), t.device.endswith("CPU:0")))
        # Bools are left out: ferroflow copies them (see the test below), TensorFlow shares.
        a = _aligned(3.0, np.float32)
        t = dlpack.from_dlpack(a.__dlpack__())
        a[()] = 4.0
        out.append(t)
        # A compact slice of rows is shared too.
        b = _aligned(np.arange(12.0).reshape(3, 4), np.float64)
        t = dlpack.from_dlpack(b[1:].__dlpack__())
        b[1, 0] = -5.0
        out.append(t)
        # A variable shares its initial value's memory until its first write, which copies:
        # writes to the source show until then, and the variable never writes into it.
        # (On the CPU: a GPU variable holds a copy.)
        a = _aligned([1.0, 2.0, 3.0], np.float32)
        t = dlpack.from_dlpack(a.__dlpack__())
        with tf.device("CPU:0"):
            v = tf.Variable(t)
            v.assign([7.0, 8.0, 9.0])
            out.append((a.copy(), t))
            a[0] = 5.0
            v2 = tf.Variable(t)
            a[1] = 6.0
            v2.assign_add([1.0, 1.0, 1.0])
            out.append((v.read_value(), v2.read_value(), a.copy(), t))
        # Exporting the imported tensor again shares the same memory.
        out.append(bool(np.shares_memory(np.from_dlpack(t), a)))
        # The tensor keeps the memory alive after the array and the capsule are gone.
        a = _aligned(np.arange(300), np.float64)
        t = dlpack.from_dlpack(a.__dlpack__())
        del a
        gc.collect()
        junk = np.full(300, -1.0)
        out.append((t[:3], tf.reduce_sum(t), junk[0]))
        # A tensor's own capsule, round trip: shared, alive after the source tensor is gone.
        src = tf.constant([1.0, 2.0])
        capsule = dlpack.to_dlpack(src)
        t = dlpack.from_dlpack(capsule)
        del capsule, src
        gc.collect()
        out.append(t * 2.0)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_import_shares_memory(tf_oracle, device):
    assert_parity(tf_oracle, _shared, (device,), helpers=(_aligned,))


def _counting_capsule(values, calls, strides=None, code=2):
    """A DLPack capsule over a 64-byte aligned ctypes float32 array; its deleter appends to
    `calls`. Returns (capsule, the ctypes array, index of the first element, what to keep)."""
    import ctypes

    class Device(ctypes.Structure):
        _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

    class DType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

    class DLTensor(ctypes.Structure):
        _fields_ = [
            ("data", ctypes.c_void_p),
            ("device", Device),
            ("ndim", ctypes.c_int32),
            ("dtype", DType),
            ("shape", ctypes.POINTER(ctypes.c_int64)),
            ("strides", ctypes.POINTER(ctypes.c_int64)),
            ("byte_offset", ctypes.c_uint64),
        ]

    class Managed(ctypes.Structure):
        pass

    deleter_type = ctypes.CFUNCTYPE(None, ctypes.POINTER(Managed))
    Managed._fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", deleter_type),
    ]
    data = (ctypes.c_float * (2 * len(values) + 16))()
    base = ctypes.addressof(data)
    skip = (-base % 64) // 4
    for i, v in enumerate(values):
        data[skip + i] = v
    shape = (ctypes.c_int64 * 1)(len(values))
    stride_array = None if strides is None else (ctypes.c_int64 * 1)(strides)
    deleter = deleter_type(lambda _: calls.append("deleted"))
    dl = DLTensor(base + 4 * skip, Device(1, 0), 1, DType(code, 32, 1), shape, stride_array, 0)
    managed = Managed(dl, None, deleter)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new(ctypes.addressof(managed), b"dltensor", None)
    return capsule, data, skip, [data, shape, stride_array, deleter, managed]


def _lifetime(tf):
    with tf.device("CPU:0"):  # a reshape on a GPU would copy the memory
        return _lifetime_steps(tf)


def _lifetime_steps(tf):
    import gc

    dlpack = tf.experimental.dlpack
    out = []
    calls = []
    capsule, data, skip, keep = _counting_capsule([1.0, 2.0, 3.0], calls)
    t = dlpack.from_dlpack(capsule)
    data[skip] = 42.0
    out.append((t.numpy(), list(calls)))
    u = t * 2.0
    r = tf.reshape(t, [3, 1])
    del capsule
    gc.collect()
    out.append(list(calls))
    del t
    gc.collect()
    # The reshape still shares the memory: the deleter has not run.
    data[skip + 1] = -2.0
    out.append((r.numpy(), u.numpy(), list(calls)))
    del r
    gc.collect()
    # The last tensor gone: the deleter ran once; the op's result is its own.
    out.append((u.numpy(), list(calls)))
    del u
    gc.collect()
    out.append(list(calls))
    # A refused capsule (bad strides, an unknown type code) is not consumed: a second import
    # is refused the same way, and deleting it stays its producer's (this one has no
    # destructor, so nothing runs).
    for kwargs in ({"strides": 2}, {"code": 7}):
        calls = []
        capsule, data, skip, keep = _counting_capsule([1.0, 2.0, 3.0], calls, **kwargs)
        for _ in range(2):
            try:
                dlpack.from_dlpack(capsule)
                out.append("no error")
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        del capsule
        gc.collect()
        out.append(list(calls))
    del keep
    return out


def test_import_deleter_runs_once_when_the_last_tensor_goes(tf_oracle):
    assert_parity(tf_oracle, _lifetime, helpers=(_lifetime_steps, _counting_capsule))


def test_import_copies_what_rust_cannot_read_in_place():
    """A pointer not aligned for the element type (TensorFlow shares it anyway; Rust cannot read
    it as typed elements) and bools (a producer could later write a byte a Rust bool must never
    hold; TensorFlow shares them) are copied once: the values are right (any non-zero byte is
    true), a later write to the producer's memory is not seen."""
    import ferroflow as tf

    dlpack = tf.experimental.dlpack
    raw = bytearray(b"\x00" + np.arange(3.0).tobytes())
    unaligned = np.frombuffer(raw, np.float64, 3, 1)
    t = dlpack.from_dlpack(unaligned.__dlpack__())
    raw[1:9] = np.float64(9.0).tobytes()
    np.testing.assert_array_equal(t.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(dlpack.from_dlpack(unaligned).numpy(), [9.0, 1.0, 2.0])
    odd = np.array([0, 2, 1], np.uint8)
    t = dlpack.from_dlpack(odd.view(np.bool_).__dlpack__())
    odd[0] = 1
    np.testing.assert_array_equal(t.numpy(), [False, True, True])
    flags = np.array([True, False, True])
    t = dlpack.from_dlpack(flags.__dlpack__())
    flags.view(np.uint8)[1] = 7
    np.testing.assert_array_equal(t.numpy(), [True, False, True])
    # Aligned memory is shared (the same array, as a contrast).
    aligned = np.arange(3.0)
    t = dlpack.from_dlpack(aligned.__dlpack__())
    aligned[0] = 9.0
    np.testing.assert_array_equal(t.numpy(), [9.0, 1.0, 2.0])
