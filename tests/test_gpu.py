"""The GPU backend: device listing, placement as TensorFlow does it, and every GPU kernel's
results against the CPU kernels'. In CI the GPU is Mesa's lavapipe (see conftest.py)."""

import json
import os
import subprocess
import sys

import ferroflow as tf
import numpy as np
import pytest
from conftest import require_gpu

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture(autouse=True)
def gpu():
    require_gpu()
    yield
    tf.config.set_soft_device_placement(True)
    tf.debugging.set_log_device_placement(False)


def test_gpus_are_listed_with_details():
    gpus = tf.config.list_physical_devices("GPU")
    assert gpus[0] == tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")
    assert tf.config.list_logical_devices("GPU")[0].name == "/device:GPU:0"
    details = tf.config.experimental.get_device_details(gpus[0])
    assert details["device_name"] and details["backend"] in {"Vulkan", "Metal", "Dx12"}
    assert tf.config.list_physical_devices()[0].device_type == "CPU"


def test_ops_run_on_gpu_by_default_and_unsupported_dtypes_on_cpu():
    assert (tf.constant([1.0, 2.0]) * 2).device == GPU
    int64 = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])
    want = GPU if int64["shader_int64"] else CPU
    assert (tf.constant([1, 2], tf.int64) * 2).device == want
    assert (tf.constant([1, 2], tf.int16) * 2).device == CPU
    assert (tf.constant([1.0], tf.float64) + 1).device == CPU


@pytest.mark.parametrize(
    "spec",
    ["GPU:0", "gpu:0", "/gpu:0", "/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0"],
)
def test_gpu_spellings(spec):
    with tf.device(spec):
        x = tf.constant([1.0, 2.0])
        y = x * 3
    assert x.device == GPU and y.device == GPU
    np.testing.assert_array_equal(y.numpy(), [3.0, 6.0])


def test_scopes_nest_and_restore():
    with tf.device("CPU:0"):
        assert (tf.constant(1.0) + 1).device == CPU
        with tf.device("GPU:0"):
            assert (tf.constant(1.0) + 1).device == GPU
            with tf.device("/job:localhost"):
                assert (tf.constant(1.0) + 1).device == GPU
        assert (tf.constant(1.0) + 1).device == CPU
    with tf.device(None):
        assert (tf.constant(1.0) + 1).device == GPU


@pytest.mark.parametrize("spec", ["GPU:x", "XPU:0", "/foo:bar:baz:qux", "/replica:a", "GPU:0:1"])
def test_malformed_device_strings_raise_value_error(spec):
    with pytest.raises(ValueError, match="device"):
        with tf.device(spec):
            pass
    assert (tf.constant(1.0) + 1).device == GPU  # a failed scope leaves nothing behind


def test_soft_placement_falls_back_and_hard_placement_raises():
    with tf.device("GPU:7"):
        assert (tf.constant(1.0) + 1).device == CPU
    tf.config.set_soft_device_placement(False)
    assert not tf.config.get_soft_device_placement()
    with pytest.raises(tf.errors.InvalidArgumentError, match="GPU:7"):
        with tf.device("GPU:7"):
            tf.constant(1.0) + 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="AddV2"):
        with tf.device("GPU:0"):
            tf.constant([1], tf.float64) + 1
    with tf.device("CPU:0"):
        assert (tf.constant(1.0) + 1).device == CPU


def test_placement_is_logged_like_tensorflow(capfd):
    tf.debugging.set_log_device_placement(True)
    a = tf.constant([[1.0, 2.0]])
    tf.matmul(a, a, transpose_b=True)
    with tf.device("CPU:0"):
        a + a
    err = capfd.readouterr().err
    assert f"Executing op BatchMatMulV2 in device {GPU}" in err
    assert f"Executing op AddV2 in device {CPU}" in err


def test_the_seeds_cross_device_multiply():
    with tf.device("CPU:0"):
        a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = tf.constant([[1.0, 2.0, 3.0]])
    with tf.device("GPU:0"):
        k = a * b
    assert a.device == CPU and k.device == GPU
    np.testing.assert_array_equal(k.numpy(), [[1.0, 4.0, 9.0], [4.0, 10.0, 18.0]])


def test_reshape_on_cpu_of_a_gpu_tensor_lands_on_cpu():
    x = tf.constant([1.0, 2.0, 3.0, 4.0]) * 1
    with tf.device("CPU:0"):
        y = tf.reshape(x, [2, 2])
        z = tf.identity(x)
    assert x.device == GPU and y.device == CPU and z.device == CPU


def test_visible_devices_are_fixed_after_first_use():
    tf.constant(1.0) + 1
    with pytest.raises(RuntimeError, match="initialized"):
        tf.config.set_visible_devices([], "GPU")


def _list_gpus_in_subprocess(**env):
    code = (
        "import json, ferroflow as tf; "
        "print(json.dumps([tf.config.experimental.get_device_details(d) "
        "for d in tf.config.list_physical_devices('GPU')]))"
    )
    full_env = {**os.environ, **env}
    full_env = {k: v for k, v in full_env.items() if v is not None}
    out = subprocess.run(
        [sys.executable, "-c", code], env=full_env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_environment_hides_devices_and_software_needs_opt_in():
    assert _list_gpus_in_subprocess(FERROFLOW_VISIBLE_DEVICES="") == []
    assert _list_gpus_in_subprocess(FERROFLOW_VISIBLE_DEVICES="-1") == []
    env = dict(os.environ)
    env.pop("FERROFLOW_ALLOW_SOFTWARE_GPU", None)
    code = (
        "import json, ferroflow as tf; print(json.dumps([tf.config.experimental.get_device_details"
        "(d)['software'] for d in tf.config.list_physical_devices('GPU')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert True not in json.loads(out.stdout.strip().splitlines()[-1])


def test_a_gpu_without_int64_leaves_int64_ops_to_the_cpu():
    code = (
        "import ferroflow as tf; a = tf.constant([2**40, 3], tf.int64); "
        "print((a * 2).device, (a * 2).numpy().tolist(), tf.argmax([1.0, 3.0]).device, "
        "tf.argmax([1.0, 3.0], output_type=tf.int32).device)"
    )
    env = {**os.environ, "FERROFLOW_GPU_FEATURES_OFF": "shader_int64"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == [CPU, "[2199023255552,", "6]", CPU, GPU], out.stderr


def test_a_gpu_without_float16_leaves_float16_ops_to_the_cpu():
    code = (
        "import ferroflow as tf; a = tf.constant([1.5, 2.0], tf.float16); "
        "print((a * 2).device, (a * 2).numpy().tolist(), (tf.cast(a, tf.float32) * 2).device)"
    )
    env = {**os.environ, "FERROFLOW_GPU_FEATURES_OFF": "shader_f16"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == [CPU, "[3.0,", "4.0]", GPU], out.stderr


def test_a_lost_gpu_raises_unavailable_and_the_cpu_goes_on():
    code = (
        "import ferroflow as tf\n"
        "from ferroflow import _core\n"
        "a = tf.constant([1.0, 2.0]) * 2\n"
        "_core.simulate_gpu_loss(0)\n"
        "for attempt in (lambda: (a * 3).numpy(), lambda: a.numpy()):\n"
        "    try:\n"
        "        attempt()\n"
        "    except tf.errors.UnavailableError as e:\n"
        "        print('unavailable', 'lost' in str(e))\n"
        "with tf.device('CPU:0'):\n"
        "    print((tf.constant([1.0]) + 1).numpy().tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["unavailable True", "unavailable True", "[2.0]"]


def test_tensors_beyond_the_binding_limit_raise_resource_exhausted():
    with tf.device("GPU:0"):
        with pytest.raises(tf.errors.ResourceExhaustedError, match="can bind"):
            tf.fill([2**31], 1.0)
        assert (tf.ones([3]) + 1).device == GPU  # the device is still usable


def test_a_thousand_queued_ops_give_the_right_value():
    x = tf.constant(np.zeros(1000, np.float32))
    for _ in range(1000):
        x = x + 1.0
    np.testing.assert_array_equal(x.numpy(), np.full(1000, 1000.0, np.float32))


def test_gather_with_gpu_indices_gives_zero_for_bad_ones_like_tensorflow_gpu():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    on_gpu = tf.constant([1, 5, -1, 0]) * 1
    assert on_gpu.device == GPU
    np.testing.assert_array_equal(tf.gather(x, on_gpu).numpy(), [[3, 4], [0, 0], [0, 0], [1, 2]])
    wide = tf.cast(on_gpu, tf.int64)
    np.testing.assert_array_equal(tf.gather(x, wide).numpy(), [[3, 4], [0, 0], [0, 0], [1, 2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
        tf.gather(x, [1, 5])  # host indices are checked, as on the CPU


def test_nd_indices_on_the_gpu_follow_tensorflow_gpu():
    on_gpu = tf.constant([[0], [9], [2], [-1]]) * 1
    assert on_gpu.device == GPU
    # gather_nd stores zeros for bad rows; scatter_nd skips them.
    np.testing.assert_array_equal(tf.gather_nd([1.0, 2.0, 3.0], on_gpu).numpy(), [1, 0, 3, 0])
    updates = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(tf.scatter_nd(on_gpu, updates, [4]).numpy(), [1, 0, 3, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        tf.scatter_nd([[9]], [1.0], [4])  # host indices are checked, as on the CPU
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates has shape"):
        tf.scatter_nd(on_gpu, [1.0], [4])


def test_integer_division_checks_divisors_on_either_device():
    numerator = tf.constant([7, -7]) * 1
    for divisor in (tf.constant([2, 0]), tf.constant([2, 0]) * 1):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            numerator // divisor
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        tf.math.pow(numerator, tf.constant([1, -1]) * 1)
    assert (numerator // tf.constant([2, 3])).device == GPU
    np.testing.assert_array_equal((numerator // (tf.constant([2, 3]) * 1)).numpy(), [3, -3])


def test_scatter_nd_on_the_gpu_adds_every_duplicate():
    n = 100_000
    counts = tf.scatter_nd(tf.zeros([n, 1], tf.int32) + 0, tf.ones([n]), [1])
    assert counts.device == GPU and counts.numpy()[0] == n


# --- every GPU kernel against the CPU kernel -------------------------------------------------

R = np.random.default_rng(7)
F = R.standard_normal((6, 7, 5)).astype(np.float32)
P = np.abs(F) + 0.1
INTS = R.integers(-50, 50, (6, 7, 5)).astype(np.int32)
U = R.integers(0, 1000, (6, 7, 5)).astype(np.uint32)
B = R.random((6, 7, 5)) > 0.5
ROW = R.standard_normal((5,)).astype(np.float32)

M1 = R.standard_normal((70, 130)).astype(np.float32)
M2 = R.standard_normal((130, 90)).astype(np.float32)
NAN_TIES = np.array(
    [[1.0, np.nan, 1.0, -np.inf, np.nan, 0.0, 1.0], [2, 2, 2, 2, np.nan, 2, 1]], np.float32
)
LONGS = R.integers(-(2**40), 2**40, (6, 7, 5))  # int64 beyond 32 bits
DIVISORS = R.choice([-7, -3, -1, 1, 2, 5, 13], (6, 7, 5)).astype(np.int32)
EXPONENTS = R.integers(0, 12, (6, 7, 5)).astype(np.int32)
WIDE = R.integers(0, 20, (3, 1000)).astype(np.float32)

UNARY_F = (
    "negative abs sign square sqrt rsqrt exp expm1 log log1p sin cos tan tanh sigmoid erf "
    "floor ceil round reciprocal is_nan is_inf is_finite"
).split()


def _unary(name):
    return lambda t: getattr(tf.math, name)(t.p if name in {"log", "sqrt", "rsqrt"} else t.f)


# Each case builds its results from tensors made inside the device scope (`t.f` = F, ...).
# fmt: off
CASES = {
    **{f"unary_{n}": _unary(n) for n in UNARY_F},
    "unary_int": lambda t: [tf.abs(t.i), tf.negative(t.i), tf.sign(t.i), tf.square(t.i), ~t.i],
    "unary_uint_bool": lambda t: [tf.square(t.u), tf.logical_not(t.b)],
    "binary_broadcast": lambda t: [
        t.f + t.row, t.f - t.row, t.f * t.row, t.f / (t.row + 3), tf.maximum(t.f, t.row),
        tf.minimum(t.f, t.row), tf.pow(t.p, t.row), tf.math.floormod(t.f, t.row),
        tf.math.floordiv(t.f, t.row), tf.math.atan2(t.f, t.row)],
    "binary_int": lambda t: [t.i + t.i, t.i - 3, t.i * t.i, tf.maximum(t.i, 0), t.i & 7,
                             t.u + t.u, t.u * 3],
    "binary_int_division": lambda t: [
        t.i // DIVISORS, t.i % DIVISORS, tf.math.floordiv(t.i, -3), tf.math.floormod(t.i, 7),
        tf.math.pow(t.i, EXPONENTS), t.u // 7, t.u % 9, tf.math.pow(t.u, 3),
        tf.math.floordiv(tf.constant([-2**31, 7]), -1)],
    "int64_elementwise": lambda t: [
        t.l + t.l, t.l - 3, t.l * 5, -t.l, tf.abs(t.l), tf.sign(t.l), tf.square(t.l // 2**20),
        tf.maximum(t.l, 0), tf.minimum(t.l, t.l[0]), t.l & 0xFFFF, ~t.l, t.l // DIVISORS,
        t.l % DIVISORS, tf.math.pow(t.l % 7, EXPONENTS), t.l < 0, tf.equal(t.l, t.l[:, :1]),
        tf.where(t.b, t.l, 7), tf.cast(t.l, tf.uint64) // 3, tf.cast(t.l, tf.uint64) > 2**39],
    "int64_casts": lambda t: [
        tf.cast(t.l, tf.float32), tf.cast(t.l, tf.int32), tf.cast(t.l, tf.uint32),
        tf.cast(t.l, tf.bool), tf.cast(t.i, tf.int64), tf.cast(t.u, tf.int64),
        tf.cast(t.b, tf.int64),
        tf.cast(t.f * 1e12, tf.int64), tf.cast(tf.constant([1e19, -1e19, np.nan]), tf.int64),
        tf.cast(t.i, tf.uint64), tf.cast(t.u, tf.uint64)],
    "int64_reduce_scan_sort": lambda t: [
        tf.reduce_sum(t.l), tf.reduce_sum(t.l, 1), tf.reduce_max(t.l, [0, 2]), tf.reduce_min(t.l),
        tf.reduce_prod(t.l % 5 + 1, 2), tf.argmax(t.f, 1), tf.argmin(t.l, 0),
        tf.math.cumsum(t.l, 1),
        tf.math.cumprod(t.l % 3 + 1, 2, reverse=True), tf.sort(t.l), tf.math.top_k(t.l, 3)[1],
        tf.gather(t.l, [3, 0], axis=1), tf.gather_nd(t.l, [[1, 2], [0, 0]]), tf.transpose(t.l),
        tf.concat([t.l, t.l], 2), t.l[::-2, 1:], tf.tile(t.l[:1], [2, 1, 1]),
        tf.pad(t.l, [[1, 0], [0, 2], [0, 0]], constant_values=-(2**35)),
        tf.reduce_sum(tf.cast(t.u, tf.uint64) * 2**33)],
    "float16": lambda t: [
        t.h + t.h, t.h * 3, t.h / (t.h + 5), tf.exp(t.h), tf.sqrt(tf.abs(t.h)), tf.tanh(t.h),
        tf.math.floordiv(t.h, 0.3), tf.math.floormod(t.h, 0.7), tf.maximum(t.h, 0), t.h > 0,
        tf.cast(t.h, tf.float32), tf.cast(t.f * 1e4, tf.float16), tf.cast(t.h * 100, tf.int32),
        tf.cast(t.i, tf.float16), tf.cast(tf.constant([7e4, -7e4, np.nan, 65519.0]), tf.float16),
        tf.reduce_sum(t.h, 1), tf.reduce_max(t.h), tf.reduce_mean(t.h, [0, 2]), tf.argmax(t.h, 2),
        tf.math.cumsum(t.h, 1), tf.matmul(t.h[0], tf.transpose(t.h[1])), tf.nn.softmax(t.h),
        tf.sort(t.h), tf.math.top_k(t.h, 2)[0], tf.transpose(t.h), t.h[::2, 1:],
        tf.gather(t.h, [1, 0]), tf.gather(t.f, np.array([4, 0, 2]), axis=2),
        tf.concat([t.h, t.h], 0), tf.where(t.b, t.h, -t.h)],
    "unique": lambda t: [
        *tf.unique(tf.reshape(t.i, [-1])), *tf.unique(tf.reshape(t.l % 9, [-1]), tf.int64),
        *tf.unique(tf.constant([3.0, np.nan, -0.0, 0.0, 3.0, np.nan, 1.0])),
        *tf.unique(tf.reshape(t.u % 5, [-1])), *tf.unique(tf.range(70_000) % 1234)],
    "range": lambda t: [
        tf.range(10), tf.range(0.5, 3.0, 0.25), tf.range(10, 0, -3), tf.range(0.0, 1e6, 0.37),
        tf.range(2**40, 2**40 + 3, dtype=tf.int64), tf.range(3, 3), tf.range(7, dtype=tf.uint32)],
    "where_indices": lambda t: [
        tf.where(t.b), tf.where(t.f > 0.5), tf.where(t.i), tf.where(t.l % 3 == 0),
        tf.where(tf.constant([0.0, np.nan, -0.0, 2.0])), tf.where(tf.constant(True)),
        tf.where(tf.zeros([0, 3]) > 0), tf.where(tf.range(200_000) % 7 == 0)],
    "compare": lambda t: [t.f < t.row, t.f >= 0, tf.equal(t.i, 3), tf.not_equal(t.f, t.f),
                          t.b & (t.f > 0)],
    "select": lambda t: tf.where(t.b, t.f, -t.f),
    "gather_nd": lambda t: [
        tf.gather_nd(t.f, [[0, 1], [5, 6], [2, 0]]), tf.gather_nd(t.i, [[[1, 2, 3]], [[0, 0, 4]]]),
        tf.gather_nd(t.b, [[3]]), tf.gather_nd(t.u, tf.zeros([0, 2], tf.int32))],
    "scatter_nd": lambda t: [
        tf.scatter_nd([[1], [3], [1], [1]], t.f[:4], [6, 7, 5]),
        tf.scatter_nd(tf.constant(INTS[:, :, :2] % 3), t.i, [3, 3, 5]),
        tf.scatter_nd([[0, 1], [0, 1], [2, 2]], t.u[0, :3], [3, 4, 5]),
        tf.scatter_nd([[4], [0], [4]], t.b[:3, 0], [6, 5])],
    "cast": lambda t: [tf.cast(t.f * 100, tf.int32), tf.cast(t.f * 100, tf.uint32),
                       tf.cast(t.f, tf.bool), tf.cast(t.i, tf.float32), tf.cast(t.b, tf.float32),
                       tf.cast(t.i, tf.uint32)],
    "reduce": lambda t: [
        tf.reduce_sum(t.f), tf.reduce_sum(t.f, 1), tf.reduce_max(t.f, [0, 2]),
        tf.reduce_min(t.i, 0, keepdims=True), tf.reduce_prod(t.p[:2], 1), tf.reduce_all(t.b, 2),
        tf.reduce_any(t.b, [0, 1]), tf.reduce_mean(t.f, -1), tf.reduce_sum(t.u, 1),
        tf.reduce_sum(tf.ones([100_000])), tf.reduce_max(tf.ones([3, 9000, 2]), 1)],
    "argmax": lambda t: [tf.argmax(t.f, 1, output_type=tf.int32),
                         tf.argmin(t.i, 2, output_type=tf.int32)],
    "matmul": lambda t: [
        tf.matmul(t.f, t.f, transpose_b=True), tf.matmul(t.f, t.f, transpose_a=True),
        tf.matmul(t.f[0], tf.transpose(t.f[1])), tf.matmul(t.i[:, :, :3], t.i[0, :3]),
        tf.matmul(t.m1, t.m2), tf.matmul(t.m2, t.m1, transpose_a=True, transpose_b=True),
        # Dims that are multiples of 4 take the vec4 loads, in every transpose combination.
        tf.matmul(t.m1[:68, :128], t.m2[:128, :88]), tf.matmul(t.m2[:128, :68], t.m2[:128, :88],
        transpose_a=True), tf.matmul(t.m1[:68, :128], t.m1[:36, :128], transpose_b=True),
        tf.matmul(t.m2[:128, :68], t.m1[:36, :128], transpose_a=True, transpose_b=True),
        tf.matmul(tf.reshape(t.i[:4, :4, :4] * 1, [4, 4, 4]), t.i[:4, :4, :4])],
    "layout": lambda t: [
        tf.transpose(t.f, [2, 0, 1]), t.f[::-2, 1:5, ::3], tf.concat([t.f, t.f * 2], 1),
        tf.pad(t.f, [[1, 0], [0, 2], [3, 1]], constant_values=7.0), tf.tile(t.i, [2, 1, 3]),
        tf.broadcast_to(t.row, [4, 5]), tf.fill([3, 2], 4.5), tf.reshape(t.f, [-1]),
        tf.reverse(t.f, [1]), tf.stack([t.i, t.i]), tf.split(t.f, [2, 5], 1)[1]],
    "gather_scan": lambda t: [
        tf.gather(t.f, [2, 0, 1], axis=1), tf.gather(t.i, [[1, 1], [0, 5]]),
        tf.cumsum(t.f, 1), tf.cumsum(t.i, 0, exclusive=True, reverse=True),
        tf.math.cumprod(t.p[:, :3], 2), tf.cumsum(t.u, 2, reverse=True)],
    "sort_top_k": lambda t: [
        tf.sort(t.f), tf.sort(t.f, direction="DESCENDING"), tf.argsort(t.i), tf.argsort(t.i, 1),
        *tf.math.top_k(t.f, 3), *tf.math.top_k(t.i, 5), *tf.math.top_k(t.u[0], 0),
        *tf.math.top_k(t.nan_ties, 4), tf.argsort(t.nan_ties, direction="DESCENDING"),
        *tf.math.top_k(t.wide, 7), tf.sort(t.wide[:1, :1])],
    "composites": lambda t: [
        tf.nn.softmax(t.f), tf.nn.relu(t.f), tf.nn.log_softmax(t.f, axis=0),
        tf.nn.log_softmax(t.f), tf.nn.softmax(t.nan_ties * 30), tf.nn.softmax(t.wide * 50),
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(t.f), logits=t.f),
        tf.one_hot([0, 2, 1], 3), tf.reduce_logsumexp(t.f, 1),
        tf.nn.sigmoid_cross_entropy_with_logits(labels=t.p / 4, logits=t.f)],
}
# fmt: on


class _Inputs:
    def __init__(self):
        values = dict(f=F, h=F.astype(np.float16), p=P, i=INTS, l=LONGS, u=U, b=B, row=ROW)
        values.update(m1=M1, m2=M2, nan_ties=NAN_TIES, wide=WIDE)
        for name, value in values.items():
            setattr(self, name, tf.constant(value))


def _flatten(result):
    return result if isinstance(result, (list, tuple)) else [result]


@pytest.mark.parametrize("case", sorted(CASES))
def test_gpu_matches_cpu(case):
    with tf.device("CPU:0"):
        expected = [t.numpy() for t in _flatten(CASES[case](_Inputs()))]
    with tf.device("GPU:0"):
        got = _flatten(CASES[case](_Inputs()))
    for g, e in zip(got, expected):
        assert g.dtype.as_numpy_dtype == e.dtype
        assert g.shape == e.shape
        if e.dtype.kind == "f":
            # Sums run in another order on the GPU: allow for cancellation at the data's scale.
            # float16 results: the GPU accumulates in float32, the CPU rounds every step.
            eps = 4e-3 if e.dtype == np.float16 else 2e-6
            scale = float(np.nanmax(np.abs(e), initial=0.0, where=np.isfinite(e)))
            np.testing.assert_allclose(
                g.numpy(), e, rtol=10 * eps, atol=eps + eps * scale, equal_nan=True
            )
        else:
            np.testing.assert_array_equal(g.numpy(), e)


# fmt: off
RANDOM = {
    "uniform": lambda: tf.random.uniform([300, 70], -3.0, 7.5),
    "uniform_unit": lambda: tf.random.uniform([5000]),
    "uniform_narrow": lambda: tf.random.uniform([5000], 1.0, 1.00001),
    "normal": lambda: tf.random.normal([300, 70], 1.0, 2.0),
    "truncated_normal": lambda: tf.random.truncated_normal([300, 70], 0.5, 3.0),
    "int": lambda: tf.random.uniform([300, 70], -5, 1000003, dtype=tf.int32),
    "int_full_range": lambda: tf.random.uniform([5000], -2**31, 2**31 - 1, dtype=tf.int32),
    "dropout": lambda: tf.nn.dropout(tf.ones([300, 70]), 0.4, seed=9),
}
# fmt: on


@pytest.mark.parametrize("seed", [0, 12345])
@pytest.mark.parametrize("case", sorted(RANDOM))
def test_gpu_random_draws_the_cpu_stream(case, seed):
    draws = {}
    for device in ("CPU:0", "GPU:0"):
        tf.random.set_seed(seed)
        with tf.device(device):
            draws[device] = [RANDOM[case]() for _ in range(2)]  # two calls: two streams
    assert draws["GPU:0"][0].device == GPU
    for cpu, gpu in zip(draws["CPU:0"], draws["GPU:0"]):
        # The CPU shapes the words in float64, the GPU in float32: equal to float32 rounding.
        np.testing.assert_allclose(gpu.numpy(), cpu.numpy(), rtol=2e-6, atol=5e-5)
    assert not np.array_equal(draws["GPU:0"][0].numpy(), draws["GPU:0"][1].numpy())


def test_gpu_random_stays_in_range():
    with tf.device("GPU:0"):
        narrow = tf.random.uniform([20000], 1.0, 1.00001).numpy()
        ints = tf.random.uniform([20000], -3, 4, dtype=tf.int32).numpy()
        truncated = tf.random.truncated_normal([20000], 0.0, 1.0).numpy()
    assert (narrow >= 1.0).all() and (narrow < np.float32(1.00001)).all()
    assert set(np.unique(ints)) == set(range(-3, 4))
    assert np.abs(truncated).max() <= 2.0 and abs(truncated.std() - 0.88) < 0.02


def test_gpu_random_of_other_dtypes_runs_on_the_cpu():
    assert tf.random.uniform([3], dtype=tf.float64).device == CPU
    assert tf.random.uniform([3], 0, 2**40, dtype=tf.int64).device == CPU
    assert tf.random.normal([3]).device == GPU


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape,axis", [((300_000,), 0), ((3, 5000, 2), 1), ((1025, 3), 0)])
def test_long_scans_run_in_chunks_on_the_gpu(shape, axis, exclusive, reverse):
    rng = np.random.default_rng(11)
    ints = rng.integers(-3, 4, shape).astype(np.int32)
    floats = rng.uniform(0.999, 1.001, shape).astype(np.float32)
    kw = dict(axis=axis, exclusive=exclusive, reverse=reverse)
    with tf.device("GPU:0"):
        sums, prods = tf.math.cumsum(ints, **kw), tf.math.cumprod(floats, **kw)
    assert sums.device == GPU
    with tf.device("CPU:0"):
        np.testing.assert_array_equal(sums.numpy(), tf.math.cumsum(ints, **kw).numpy())
    flipped = np.flip(floats.astype(np.float64), axis) if reverse else floats.astype(np.float64)
    truth = np.cumprod(flipped, axis)
    if exclusive:
        truth = np.concatenate([np.ones_like(np.take(truth, [0], axis)), truth], axis)
        truth = np.take(truth, range(shape[axis]), axis)
    truth = np.flip(truth, axis) if reverse else truth
    # float32 products drift like a random walk in any order (the CPU's by 1e-5 at 100k); one
    # factor lost or doubled at a chunk boundary would be off by 1e-3.
    np.testing.assert_allclose(prods.numpy(), truth, rtol=1e-5 * (shape[axis] / 1000) ** 0.5 + 1e-5)


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("shape", [(1025,), (3, 5000), (70_000,)])
def test_long_rows_sort_in_storage_memory_on_the_gpu(shape, dtype, direction):
    x = R.integers(0, 60, shape).astype(dtype)  # many ties: positions must break them
    if dtype == np.float32:
        x.flat[::97] = np.nan
    with tf.device("GPU:0"):
        got = [tf.sort(x, direction=direction), tf.argsort(x, direction=direction, stable=True),
               *tf.math.top_k(x, 37)]  # fmt: skip
    assert got[0].device == GPU and got[1].device == GPU
    with tf.device("CPU:0"):
        want = [tf.sort(x, direction=direction), tf.argsort(x, direction=direction, stable=True),
                *tf.math.top_k(x, 37)]  # fmt: skip
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
