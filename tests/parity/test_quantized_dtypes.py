"""TensorFlow's quantized dtypes (`qint8`, `quint8`, `qint16`, `quint16`, `qint32`) as storage
types: creation and conversion, the ops TensorFlow's CPU kernels register for them (values,
dtypes, shapes and numpy dtypes), the error classes of the ops that refuse them, eagerly and in
`tf.function`, on the CPU and the GPU, variables and the dtype objects' properties."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
QUANTIZED = ["qint8", "quint8", "qint16", "quint16", "qint32"]


def _describe(t):
    return (t.dtype.name, tuple(t.shape), t.numpy().dtype.name, t.numpy())


def _creation(tf, device):
    import numpy as np

    out = {}
    with tf.device(device):
        for name in ["qint8", "quint8", "qint16", "quint16", "qint32"]:
            d = tf.as_dtype(name)
            made = {
                "constant": tf.constant([1, 2, 3], d),
                "scalar": tf.constant(7, d),
                "zeros": tf.zeros([2, 2], d),
                "ones": tf.ones([3], d),
                "cast_in": tf.cast(tf.constant([1.7, -0.2, 3.0]), d),
                "cast_q": tf.cast(tf.constant([1, 2], tf.qint32), d),
                "fill": tf.fill([2], tf.constant(3, d)),
                "numpy_in": tf.constant(np.array([4, 5], np.int8), d),
                "numpy_record": tf.constant(np.array([4, 5]).astype(d.as_numpy_dtype)),
            }
            for key, t in made.items():
                out[f"{name}_{key}"] = _describe(t)
            q = made["constant"]
            out[f"{name}_cast_out"] = tf.cast(q, tf.float32).numpy()
            out[f"{name}_cast_int64"] = tf.cast(q, tf.int64).numpy()
            out[f"{name}_repr"] = repr(q)
            out[f"{name}_str"] = str(q)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_creation_and_casts(tf_oracle, device):
    assert_parity(tf_oracle, _creation, (device,), helpers=(_describe,))


def _storage_ops(tf, device, traced):
    out = {}
    with tf.device(device):
        for name in ["qint8", "quint8", "qint32"]:
            d = tf.as_dtype(name)
            q = tf.constant([[1, 2, 3], [4, 5, 6]], d)
            k = tf.constant(7, d)

            def run(q, k, d=d, name=name):
                return {
                    "reshape": tf.reshape(q, [3, 2]),
                    "identity": tf.identity(q),
                    "stop_gradient": tf.stop_gradient(q),
                    "ensure_shape": tf.ensure_shape(q, [2, 3]),
                    "gather": tf.gather(q, [1, 0, 1]),
                    "gather_axis1": tf.gather(q, [2], axis=1),
                    "gather_nd": tf.gather_nd(q, [[1, 0], [0, 2]]),
                    "concat": tf.concat([q, q], 1),
                    # (Distinct parts: TensorFlow's graph optimiser turns a stack of one tensor
                    # into a Tile, which has no quantized kernel.)
                    "stack": tf.stack([q, tf.gather(q, [1, 0])]),
                    "slice": tf.slice(q, [0, 1], [2, 2]),
                    "index": q[1],
                    "strided": q[:, ::2],
                    "expand_dims": tf.expand_dims(q, 0),
                    "squeeze": tf.squeeze(tf.expand_dims(q, 0)),
                    "fill": tf.fill([2], k),
                    "shape": tf.shape(q),
                    "size": tf.size(q),
                    "rank": tf.rank(q),
                    "equal": tf.equal(q, tf.gather(q, [1, 0])),
                    "not_equal": tf.not_equal(q, k),
                    "boolean_mask": tf.boolean_mask(q, [True, False]),
                    "bitcast_base": tf.bitcast(q, d.as_numpy_dtype.fields[name][0].name),
                    "cast_float": tf.cast(q, tf.float32),
                    "pad": tf.pad(q, [[1, 0], [0, 2]]),
                    "pad_reflect": tf.pad(q, [[1, 1], [0, 0]], mode="REFLECT"),
                    "pad_symmetric": tf.pad(q, [[0, 0], [1, 1]], mode="SYMMETRIC"),
                }

            if traced:
                run = tf.function(run)
            out[name] = {key: _describe(t) for key, t in run(q, k).items()}
    return out


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_storage_ops(tf_oracle, device, traced):
    assert_parity(tf_oracle, _storage_ops, (device, traced), helpers=(_describe,))


def _bitcasts(tf, device):
    with tf.device(device):
        wide = tf.constant([1, 256, -1], tf.qint32)
        ints = tf.constant([1, 2, 3, 4], tf.int8)
        results = {
            "q32_to_q8": tf.bitcast(wide, tf.qint8),
            "q32_to_u16": tf.bitcast(wide, tf.uint16),
            "int8_to_q8": tf.bitcast(ints, tf.qint8),
            "int8_to_qu8": tf.bitcast(ints, tf.quint8),
            "q8x4_to_q32": tf.bitcast(tf.bitcast(wide, tf.qint8), tf.qint32),
            "f32_to_q16": tf.bitcast(tf.constant([1.0]), tf.qint16),
        }
        return {k: _describe(v) for k, v in results.items()}


@pytest.mark.parametrize("device", DEVICES)
def test_bitcasts(tf_oracle, device):
    assert_parity(tf_oracle, _bitcasts, (device,), helpers=(_describe,))


def _quint8_split(tf, device, traced):
    with tf.device(device):
        q = tf.constant([1, 2, 3, 4], tf.quint8)

        def run(q):
            return tf.split(q, 2), tf.split(q, [1, 3])

        if traced:
            run = tf.function(run)
        even, sizes = run(q)
        return [_describe(t) for t in even + sizes]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_quint8_split(tf_oracle, device, traced):
    assert_parity(tf_oracle, _quint8_split, (device, traced), helpers=(_describe,))


def _refusals(tf, device, traced):
    """Each op TensorFlow has no quantized kernel for: the error class, eagerly and traced."""
    out = {}
    with tf.device(device):
        q = tf.constant([[1, 2, 3], [4, 5, 6]], tf.qint8)
        w = tf.constant([1, 2], tf.qint32)
        ops = {
            "add": lambda: w + w,
            "add_number": lambda: q + 1,
            # Pads eagerly; traced, PadV2's graph builder cannot convert 3 to qint8.
            "pad_value": lambda: tf.pad(q, [[0, 1], [1, 0]], constant_values=3),
            "mul_number": lambda: 2 * w,
            "mul": lambda: q * q,
            "neg": lambda: -q,
            "abs": lambda: tf.abs(q),
            "maximum": lambda: tf.maximum(q, q),
            "less": lambda: q < q,
            "matmul": lambda: tf.matmul(q, q, transpose_b=True),
            "transpose": lambda: tf.transpose(q),
            "tile": lambda: tf.tile(w, [2]),
            "where": lambda: tf.where(tf.constant([[True, False, True]] * 2), q, q),
            "reduce_sum": lambda: tf.reduce_sum(w),
            "reduce_max": lambda: tf.reduce_max(q),
            "argmax": lambda: tf.argmax(q),
            "cumsum": lambda: tf.cumsum(w),
            "broadcast_to": lambda: tf.broadcast_to(w, [2, 2]),
            "split_qint8": lambda: tf.split(q, 3, axis=1),
            "sort": lambda: tf.sort(w),
            "as_string": lambda: tf.strings.as_string(w),
            "reverse": lambda: tf.reverse(q, [0]),
        }
        for key, op in ops.items():
            run = tf.function(op) if traced else op
            try:
                run()
                out[key] = "no error"
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out[key] = type(e).__name__
    return out


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_refusals(tf_oracle, device, traced):
    assert_parity(tf_oracle, _refusals, (device, traced))


def _functions(tf, device):
    out = {}
    with tf.device(device):

        @tf.function
        def make():
            return tf.zeros([2], tf.qint8), tf.ones([2], tf.quint16), tf.cast([1.5, 2.5], tf.qint32)

        out["made"] = [_describe(t) for t in make()]

        @tf.function(input_signature=[tf.TensorSpec([None], tf.qint8)])
        def signed(x):
            return tf.concat([x, x], 0), tf.shape(x)

        out["signature"] = [_describe(t) for t in signed(tf.constant([1, 2, 3], tf.qint8))]
        out["concrete"] = [
            (s.dtype.name, s.shape.as_list())
            for s in tf.nest.flatten(signed.get_concrete_function().structured_outputs)
        ]
        out["spec"] = repr(tf.TensorSpec([2], tf.qint16))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_functions(tf_oracle, device):
    assert_parity(tf_oracle, _functions, (device,), helpers=(_describe,))


def _variables(tf, device):
    with tf.device(device):
        v = tf.Variable(tf.constant([1, 2, 3], tf.qint8))
        first = _describe(v.read_value())
        v.assign(tf.constant([4, 5, 6], tf.qint8))
        return {
            "dtype": v.dtype.name,
            "first": first,
            "assigned": _describe(v.read_value()),
            "identity": _describe(tf.identity(v)),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_variables(tf_oracle, device):
    assert_parity(tf_oracle, _variables, (device,), helpers=(_describe,))


def _dtype_objects(tf):
    out = {}
    for name in ["qint8", "quint8", "qint16", "quint16", "qint32"]:
        d = tf.as_dtype(name)
        row = {
            "enum": d.as_datatype_enum,
            "by_enum": tf.as_dtype(d.as_datatype_enum).name,
            "by_numpy": tf.as_dtype(d.as_numpy_dtype).name,
            "numpy": str(d.as_numpy_dtype),
            "size": d.size,
            "flags": (d.is_quantized, d.is_integer, d.is_floating, d.is_numpy_compatible),
            "base": d.base_dtype.name,
            "real": d.real_dtype.name,
        }
        for p in ("min", "max"):
            try:
                row[p] = getattr(d, p)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                row[p] = type(e).__name__
        out[name] = row
    return out


def test_dtype_objects(tf_oracle):
    assert_parity(tf_oracle, _dtype_objects)


def test_checkpoint_round_trip(tmp_path):
    """A quantized variable saves and restores its dtype and values (ferroflow's own files)."""
    import ferroflow as tf

    for name in QUANTIZED:
        d = tf.as_dtype(name)
        v = tf.Variable(tf.constant([[1, 2], [3, 4]], d))
        path = tf.train.Checkpoint(v=v).save(str(tmp_path / name))
        w = tf.Variable(tf.zeros([2, 2], d))
        tf.train.Checkpoint(v=w).restore(path)
        assert w.dtype == d
        assert w.numpy().tolist() == [[1, 2], [3, 4]]
        assert w.numpy().dtype == np.dtype(d.as_numpy_dtype.fields[name][0])
