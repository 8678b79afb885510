"""`tf.saturate_cast` over every pair of tensor dtypes (extremes, NaN, infinities, values just
past each target's range; on the CPU and the GPU; eagerly and traced; gradients), and the dtype
objects TensorFlow has beyond ferroflow's arithmetic types: quantized (`qint8` ... and
`QUANTIZED_DTYPES`, whose tensors test_quantized_dtypes.py covers),
`resource`, `variant` and `tf.dtypes.experimental`'s float8/float4/int4/int2 types: names, enums,
properties, ranges and `as_dtype`."""

import ml_dtypes
import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
NAMES = (
    "float16 bfloat16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool "
    "complex64 complex128"
).split()

# No NaN here: TensorFlow's cast of NaN to an integer depends on the SIMD lane the element lands
# in (Eigen's vectorised and scalar paths differ), which saturate_cast does not clamp away.
FLOATS = [
    np.inf, -np.inf, 3.4e38, -3.4e38, 1e300, -1e300, 1.9e19, -1.9e19, 9.3e18, -9.3e18,
    4.3e9, -4.3e9, 2.2e9, -2.2e9, 70000.0, -70000.0, 65504.0, 65535.6, -32768.7, 32767.9, 256.0,
    255.5, -129.0, 127.9, -128.9, 2.7, -2.7, 0.5, -0.0, 0.0, 1e-30,
]  # fmt: skip
# (No subnormals either: TensorFlow's CPU kernels flush them to zero, ferroflow's keep them.)
INTS = [
    -(2**63), 2**63 - 1, 2**64 - 1, 2**63, -(2**31) - 1, 2**31, 2**31 - 1, -(2**31), 2**32,
    2**32 - 1, 65536, 65535, 32768, 32767, -32769, -32768, 256, 255, 128, 127, -129, -128, -1, 0,
    1, 7,
]  # fmt: skip


def _values(name):
    if name == "bool":
        return np.array([True, False, True])
    if name.startswith("complex"):
        real = np.array(FLOATS, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            return (real + 1j * real[::-1]).astype(name)
    if name in ("float16", "bfloat16", "float32", "float64"):
        with np.errstate(over="ignore"):
            dtype = ml_dtypes.bfloat16 if name == "bfloat16" else name
            return np.array(FLOATS, dtype=np.float64).astype(dtype)
    # Wrap each value into the type's range (two's complement), so extremes are present.
    info = np.iinfo(name)
    span = int(info.max) - int(info.min) + 1
    wrapped = [(v - int(info.min)) % span + int(info.min) for v in INTS]
    return np.array(wrapped, dtype=name)


def _saturate_all(tf, values, names, device, traced):
    out = {}
    with tf.device(device):
        x = tf.constant(values)
        for name in names:
            target = tf.as_dtype(name)

            def run(v, target=target):
                return tf.saturate_cast(v, target)

            try:
                out[name] = (tf.function(run) if traced else run)(x)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out[name] = type(e).__name__
    return out


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("source", NAMES)
def test_saturate_cast_every_pair(tf_oracle, source, device, traced):
    assert_parity(
        tf_oracle, _saturate_all, (_values(source), NAMES, device, traced), rtol=0, atol=0
    )


def _float_to_wide_ints(tf, device):
    """Float sources clamp to uint64 at 2**64 (the nearest float to 2**64 - 1), which is out of
    range for the cast after it: TensorFlow's x86 kernels give 2**63 there, as for NaN, +-inf
    and everything below -2**63, while negatives in int64's range wrap. ferroflow gave 0 (a
    silent wrong result). int32 and int64 give their minimum for every out-of-range value.
    (Narrower targets' out-of-range results differ in TensorFlow between its vectorised and
    scalar loops, so they are undefined and not compared.)"""
    values = [float("inf"), float("-inf"), float("nan"), 3e38, 1.9e19, 1.8e19, 9.3e18, 9.2e18]
    values += [-1.0, -5.5, -1e19, -3e9, 4.3e9, 5.0, 0.5]
    out = {}
    with tf.device(device):
        for source in ("float16", "bfloat16", "float32", "float64"):
            x = tf.cast(tf.constant(values, tf.float64), source)
            for target in ("uint64", "int64", "int32"):
                out[f"{source}->{target}"] = tf.cast(x, target)
            out[f"saturate {source}"] = tf.saturate_cast(x[:4], tf.uint64)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_float_to_wide_ints_out_of_range(tf_oracle, device):
    assert_parity(tf_oracle, _float_to_wide_ints, (device,), rtol=0, atol=0)


def _float_overflow_on_conversion(tf):
    """A Python float past float32's range is an error where the dtype is inferred, and +-inf
    where one is asked for (ferroflow raised ValueError for both)."""

    def outcome(thunk):
        try:
            return ("ok", thunk())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    return [
        outcome(lambda: tf.constant([-1e6], tf.float16)),
        outcome(lambda: tf.constant(1e6, tf.float16)),
        outcome(lambda: tf.constant([1e39, -1e39], tf.float32)),
        outcome(lambda: tf.convert_to_tensor(-1e6, tf.float16)),
        outcome(lambda: tf.Variable(1e6, dtype=tf.float16).read_value()),
        outcome(lambda: tf.ones([2], tf.float16) * 1e6),
        outcome(lambda: tf.ones([2]) + 1e39),
        outcome(lambda: tf.constant(1e39)),
        outcome(lambda: tf.constant([[1e39, 1.0]])),
        outcome(lambda: tf.constant([1e39]) + 1),
        outcome(lambda: tf.constant([1e39, 1.0], tf.float64)),
    ]


def test_float_overflow_on_conversion(tf_oracle):
    assert_parity(tf_oracle, _float_overflow_on_conversion)


def _saturate_nan(tf, device):
    out = {}
    with tf.device(device):
        for source in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"):
            x = tf.cast(tf.constant([float("nan"), 1.0, float("inf")]), source)
            for target in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"):
                out[f"{source}->{target}"] = tf.saturate_cast(x, target)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_saturate_cast_nan_to_floats(tf_oracle, device):
    assert_parity(tf_oracle, _saturate_nan, (device,), rtol=0, atol=0)


def _saturate_gradient(tf, source, target, device):
    with tf.device(device):
        x = tf.constant([-6e4, -300.0, -2.5, 0.5, 100.0, 300.0, 6e4], tf.as_dtype(source))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.saturate_cast(x * 1.5, tf.as_dtype(target))
            loss = tf.reduce_sum(tf.cast(y, tf.float32) * tf.range(7.0))
        return y, tape.gradient(loss, x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "pair",
    [
        ("float32", "float16"),
        ("float64", "float32"),
        ("float32", "float64"),
        ("float32", "int8"),
        ("float64", "complex64"),
        ("float16", "bfloat16"),
    ],
)
def test_saturate_cast_gradient(tf_oracle, pair, device):
    assert_parity(tf_oracle, _saturate_gradient, (*pair, device), rtol=1e-6, atol=0)


def _from_python(tf):
    return [
        tf.saturate_cast([1.5, -300.0, 1e10], tf.int16),
        tf.saturate_cast(3, "uint8"),
        tf.saturate_cast([[-1, 2], [300, 4]], tf.dtypes.uint8),
        tf.dtypes.saturate_cast(tf.constant([2.0**40]), tf.int32),
    ]


def test_saturate_cast_python_values(tf_oracle):
    assert_parity(tf_oracle, _from_python)


EXTRA = "qint8 quint8 qint16 quint16 qint32 resource variant".split()
EXPERIMENTAL = (
    "float4_e2m1fn float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz "
    "int2 int4 uint2 uint4"
).split()
PROPERTIES = (
    "name as_datatype_enum is_quantized is_floating is_integer is_unsigned is_complex is_bool "
    "is_numpy_compatible size min max limits"
).split()


def _describe(tf, names, experimental, properties):
    import numpy as np

    def attempt(fn):
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__
        return value if isinstance(value, (bool, int, float, str)) else repr(value)

    out = {}
    for name in names:
        d = getattr(tf.dtypes.experimental, name) if experimental else getattr(tf.dtypes, name)
        row = {p: attempt(lambda p=p, d=d: getattr(d, p)) for p in properties}
        row["repr"] = [repr(d), str(d)]
        row["as_dtype"] = [
            tf.as_dtype(d.name) is d,
            tf.as_dtype(d.as_datatype_enum) is d,
            tf.dtypes.as_dtype(d) is d,
            d.real_dtype is d,
            d.base_dtype is d,
        ]
        row["numpy"] = attempt(lambda d=d: str(np.dtype(d.as_numpy_dtype)))
        row["top_level"] = getattr(tf, name, None) is d
        row["experimental_top_level"] = getattr(tf.experimental, name, None) is d
        row["equal"] = [d == d.name, d != tf.float32, hash(d) == hash(tf.as_dtype(d.name))]
        out[name] = row
    quantized = tf.dtypes.QUANTIZED_DTYPES
    out["quantized_set"] = sorted(d.name for d in quantized if not d.name.endswith("_ref"))
    out["quantized_members"] = [tf.qint8 in quantized, tf.int8 in quantized]
    return out


def test_dtype_objects(tf_oracle):
    expected = assert_parity(tf_oracle, _describe, (EXTRA, False, PROPERTIES))
    assert expected[0] == "dict"


def test_experimental_dtype_objects(tf_oracle):
    expected = assert_parity(tf_oracle, _describe, (EXPERIMENTAL, True, PROPERTIES))
    assert expected[0] == "dict"


def _standard_properties(tf, names):
    out = {}
    for name in names:
        d = tf.as_dtype(name)
        row = {}
        for p in ("min", "max", "limits", "is_quantized", "is_numpy_compatible", "size"):
            try:
                row[p] = getattr(d, p)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                row[p] = type(e).__name__
        out[name] = row
    return out


def test_standard_dtype_ranges(tf_oracle):
    assert_parity(tf_oracle, _standard_properties, (NAMES,))


def test_tensors_of_dtypes_without_storage_raise_type_error():
    import ferroflow as tf

    for d in (tf.resource, tf.variant, tf.dtypes.experimental.int4):
        with pytest.raises(TypeError):
            tf.zeros([2], d)
    # The quantized types have storage (their integer type's; test_quantized_dtypes.py).
    assert tf.zeros([2], tf.qint8).dtype == tf.qint8
