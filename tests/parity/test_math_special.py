"""tf.math's special functions against TensorFlow, on the CPU and the GPU: values over each
function's domain and its edges (0, negatives, poles, large, NaN, inf), float16/32/64, traced
calls, gradients (with TensorFlow's fixed values where a formula divides by zero) and
TensorFlow's errors for dtypes it refuses."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

UNARY = {
    "math.lgamma": [-2.5, -1.5, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0, 3.7, 10.0, 50.0, 800.0],
    "math.digamma": [-2.5, -1.5, -1.0, -0.5, 0.0, 0.3, 1.0, 2.0, 3.7, 10.0, 50.0, 800.0],
    "math.erfc": [-3.0, -1.0, -0.5, 0.0, 0.3, 1.0, 2.5, 5.0, 10.0, 27.0],
    "math.erfinv": [-1.0, -0.999, -0.9, -0.3, -1e-6, 0.0, 1e-6, 0.3, 0.7, 0.999, 1.0, 1.5],
    "math.ndtri": [-0.1, 0.0, 1e-30, 1e-6, 0.02, 0.3, 0.5, 0.8, 0.999, 1.0, 1.5],
    "math.bessel_i0": [-30.0, -2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 10.0, 29.9, 30.1, 80.0, 700.0],
    "math.bessel_i0e": [-800.0, -30.0, -2.0, 0.0, 0.5, 1.0, 2.0, 10.0, 31.0, 80.0, 1e4],
    "math.bessel_i1": [-30.0, -2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 10.0, 29.9, 30.1, 80.0, 700.0],
    "math.bessel_i1e": [-800.0, -30.0, -2.0, 0.0, 0.5, 1.0, 2.0, 10.0, 31.0, 80.0, 1e4],
    "math.special.bessel_k0": [-1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 800.0],
    "math.special.bessel_k0e": [-1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 800.0],
    "math.special.bessel_k1": [-1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 800.0],
    "math.special.bessel_k1e": [-1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 800.0],
    "math.special.bessel_j0": [-10.0, -2.0, 0.0, 0.5, 1.0, 2.0, 3.0, 8.0, 20.0, 100.0],
    "math.special.bessel_j1": [-10.0, -2.0, 0.0, 0.5, 1.0, 2.0, 3.0, 8.0, 20.0, 100.0],
    "math.special.bessel_y0": [-1.0, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 8.0, 20.0, 100.0],
    "math.special.bessel_y1": [-1.0, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 8.0, 20.0, 100.0],
    "math.special.dawsn": [-10.0, -1.0, -0.1, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 1e3],
    "math.special.expint": [-1.0, 0.0, 1e-3, 0.1, 0.5, 1.0, 5.0, 30.0, 39.0, 41.0, 100.0],
    "math.special.fresnel_cos": [-3.0, -1.0, 0.0, 0.1, 0.5, 1.0, 1.4, 1.6, 2.0, 5.0, 40.0],
    "math.special.fresnel_sin": [-3.0, -1.0, 0.0, 0.1, 0.5, 1.0, 1.4, 1.6, 2.0, 5.0, 40.0],
    "math.special.spence": [-1.0, 0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 10.0, 1e3],
}
EDGES = [float("nan"), float("inf"), float("-inf")]
FLOAT32_RTOL = {f"math.special.bessel_{n}": 1e-4 for n in ("j0", "j1", "y0", "y1")}

# TensorFlow's kernels for float16 (bfloat16 has fewer: see the report in the commit).
HALF_OK = ["math.lgamma", "math.digamma", "math.erfc", "math.bessel_i0", "math.bessel_i0e",
           "math.bessel_i1", "math.bessel_i1e", "math.special.bessel_k0",
           "math.special.bessel_j0", "math.special.bessel_y1"]  # fmt: skip


def _fn(tf, path):
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _unary(tf, path, values, dtype, device):
    f = _fn(tf, path)
    with tf.device(device):
        x = tf.constant(values, getattr(tf, dtype))
        return f(x), tf.function(f)(x[:3]), f(tf.zeros([2, 0], x.dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("path", sorted(UNARY))
def test_unary_values(tf_oracle, path, dtype, device):
    # float32 results may differ by TensorFlow's own float32 rounding: 1e-5 relative (1e-4 where
    # TensorFlow's float32 kernels are less exact: J and Y at large x).
    rtol = 1e-10 if dtype == "float64" else FLOAT32_RTOL.get(path, 1e-5)
    values = UNARY[path]
    if dtype == "float32" and path == "math.erfinv":
        # TensorFlow's float32 erfinv is 1% off near 0 (erfinv(1e-6) = 8.98e-7, exactly
        # 8.86e-7); ferroflow computes it in float64.
        values = [v for v in values if abs(v) != 1e-6]
    assert_parity(
        tf_oracle,
        _unary,
        (path, values + EDGES, dtype, device),
        rtol=rtol,
        atol=1e-30,
        helpers=(_fn,),
    )


@pytest.mark.parametrize("path", HALF_OK)
def test_unary_float16(tf_oracle, path):
    values = [v for v in UNARY[path] if abs(v) < 60]
    args = (path, values, "float16", "CPU:0")
    assert_parity(tf_oracle, _unary, args, rtol=2e-3, atol=1e-4, helpers=(_fn,))


def _unary_grad(tf, path, values, device):
    f = _fn(tf, path)
    with tf.device(device):
        x = tf.constant(values, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)


GRAD_POINTS = {
    "math.lgamma": [-1.5, 0.3, 1.0, 2.5, 10.0],
    "math.digamma": [-1.5, 0.3, 1.0, 2.5, 10.0],
    "math.erfc": [-1.0, 0.0, 0.5, 2.0],
    "math.erfinv": [-0.9, 0.0, 0.3, 0.99],
    "math.ndtri": [0.01, 0.3, 0.5, 0.9],
    "math.bessel_i0": [-2.0, 0.0, 0.5, 3.0],
    "math.bessel_i0e": [-2.0, 0.0, 0.5, 3.0],
    "math.bessel_i1": [-2.0, 0.0, 0.5, 3.0],
    "math.bessel_i1e": [-2.0, 0.0, 0.5, 3.0],
    "math.special.bessel_k0": [0.1, 0.5, 3.0],
    "math.special.bessel_k0e": [0.1, 0.5, 3.0],
    "math.special.bessel_k1": [0.1, 0.5, 3.0],
    "math.special.bessel_k1e": [0.1, 0.5, 3.0],
    "math.special.bessel_j0": [-2.0, 0.0, 0.5, 3.0],
    "math.special.bessel_j1": [-2.0, 0.0, 0.5, 3.0],
    "math.special.bessel_y0": [0.1, 0.5, 3.0],
    "math.special.bessel_y1": [0.1, 0.5, 3.0],
    "math.special.dawsn": [-2.0, 0.0, 0.5, 3.0],
    "math.special.expint": [0.1, 0.5, 3.0],
    "math.special.fresnel_cos": [-2.0, 0.0, 0.5, 3.0],
    "math.special.fresnel_sin": [-2.0, 0.0, 0.5, 3.0],
    "math.special.spence": [0.1, 0.5, 1.0, 3.0],
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("path", sorted(GRAD_POINTS))
def test_unary_gradients(tf_oracle, path, device):
    args = (path, GRAD_POINTS[path], device)
    assert_parity(tf_oracle, _unary_grad, args, rtol=1e-9, helpers=(_fn,))


BINARY_POINTS = {
    # (first, second): domain interiors, edges and TensorFlow's NaN/inf rules.
    "igamma": (
        [-1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 100.0, 1000.0, 0.1, 5.0, 3.0],
        [1.0, 0.0, 1.0, 0.0, -1.0, 42.0, 3.0, 90.0, 1100.0, 30.0, 0.01, 2.5],
    ),
    "igammac": (
        [-1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 100.0, 1000.0, 0.1, 5.0, 3.0],
        [1.0, 0.0, 1.0, 0.0, -1.0, 42.0, 3.0, 90.0, 1100.0, 30.0, 0.01, 2.5],
    ),
    "zeta": (
        [0.5, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 2.5, -1.0, 1.5, 4.0, 20.0],
        [1.0, 1.0, 0.0, -1.0, -1.5, 1e-3, -2.5, -2.5, 1.0, 3.0, 0.5, 2.0],
    ),
    "polygamma": (
        [0.0, 1.0, 1.5, -1.0, 2.0, 1.0, 3.0, 1.0, 4.0, 0.0, 2.0, 1.0],
        [0.5, 0.0, 1.0, 1.0, -1.5, -2.0, 2.5, 10.0, 0.3, -0.5, 100.0, 1e-3],
    ),
    "xlogy": (
        [0.0, 0.0, 0.0, 1.0, -2.0, 3.0, 0.5, 2.0, 1.0, 1.0, 0.0, 4.0],
        [0.0, 1.0, -1.0, 0.0, 3.0, 0.5, -1.0, 1e-30, 1e30, 2.0, 2.0, 7.0],
    ),
    "xlog1py": (
        [0.0, 0.0, 0.0, 1.0, -2.0, 3.0, 0.5, 2.0, 1.0, 1.0, 0.0, 4.0],
        [0.0, -1.0, -2.0, -1.0, 3.0, 0.5, -2.0, 1e-30, 1e30, 2.0, 2.0, 7.0],
    ),
    "xdivy": (
        [0.0, 0.0, 0.0, 1.0, -2.0, 3.0, 0.5, 2.0, 1.0, 1.0, 0.0, 4.0],
        [0.0, 1.0, -1.0, 0.0, 3.0, 0.5, -1.0, 1e-30, 1e30, 2.0, 2.0, 7.0],
    ),
    "nextafter": (
        [0.0, 0.0, 1.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e30, -0.0, 5.0, 1.0],
        [1.0, -1.0, 2.0, 0.0, 1.0, 0.5, 3.0, -3.0, 1e31, 1.0, 5.0, 0.0],
    ),
}


def _binary(tf, name, xs, ys, dtype, device):
    f = getattr(tf.math, name)
    nan, inf = float("nan"), float("inf")
    xs = xs + [nan, 1.0, inf, 1.0, 2.0]
    ys = ys + [1.0, nan, 1.0, inf, -inf]
    # TensorFlow's zeta(1, NaN) is +inf (its pole test comes before the NaN test) and
    # polygamma(2, -inf) is NaN: both points are among these edges.
    with tf.device(device):
        x, y = tf.constant(xs, getattr(tf, dtype)), tf.constant(ys, getattr(tf, dtype))
        grid = f(tf.reshape(x[:4], [4, 1]), y[4:7])
        return f(x, y), tf.function(f)(x[:3], y[:3]), grid


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY_POINTS))
def test_binary_values(tf_oracle, name, dtype, device):
    # TensorFlow's float32 igamma/igammac lose 2e-4 relative at a = 1000 (float64 agrees).
    rtol = 1e-10 if dtype == "float64" else 5e-4 if name.startswith("igamma") else 2e-5
    xs, ys = BINARY_POINTS[name]
    assert_parity(tf_oracle, _binary, (name, xs, ys, dtype, device), rtol=rtol, atol=1e-30)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "xdivy"])
def test_binary_half_types(tf_oracle, name):
    xs, ys = BINARY_POINTS[name]
    for dtype in ("float16", "bfloat16"):
        assert_parity(tf_oracle, _binary, (name, xs, ys, dtype, "CPU:0"), rtol=1e-2, atol=1e-3)


def _binary_grad(tf, name, xs, ys, device):
    f = getattr(tf.math, name)
    with tf.device(device):
        x, y = tf.constant(xs, tf.float64), tf.constant(ys, tf.float64)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = f(x, y)
            w = f(tf.reshape(x, [-1, 1]), y[:2])
        return tape.gradient(z, [x, y]), tape.gradient(w, [x, y])


GRAD_BINARY = {
    "igamma": ([0.5, 1.0, 2.0, 3.5, 10.0], [0.3, 1.0, 3.0, 2.0, 12.0]),
    "igammac": ([0.5, 1.0, 2.0, 3.5, 10.0], [0.3, 1.0, 3.0, 2.0, 12.0]),
    "zeta": ([1.5, 2.0, 3.0, 4.0, 2.5], [0.5, 1.0, 2.0, 3.0, 7.0]),
    "polygamma": ([0.0, 1.0, 2.0, 3.0, 1.0], [0.5, 1.0, 2.0, 3.0, 7.0]),
    "xlogy": ([0.0, 0.0, 2.0, -1.0, 3.0], [0.0, 1.0, 3.0, 0.5, 2.0]),
    "xlog1py": ([0.0, 0.0, 2.0, -1.0, 3.0], [0.0, 1.0, 3.0, 0.5, 2.0]),
    "xdivy": ([0.0, 0.0, 2.0, -1.0, 3.0], [0.0, 1.0, 3.0, 0.5, 2.0]),
    "nextafter": ([0.0, 1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 2.0, 4.0, 3.0]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(GRAD_BINARY))
def test_binary_gradients(tf_oracle, name, device):
    xs, ys = GRAD_BINARY[name]
    # IgammaGradA sums a series term by term: 1e-7 relative.
    assert_parity(tf_oracle, _binary_grad, (name, xs, ys, device), rtol=1e-7, atol=1e-12)


def _igamma_grad_a_tail(tf, dtype, device):
    # x >> a, where P's series differentiated term by term cancels (it gave -7.5e-16 for
    # -1.8e-17 at a = 1, x = 40): Eigen differentiates Q's continued fraction there.
    with tf.device(device):
        a = tf.constant([1.0, 0.5, 5.0, 2.0, 3.0], getattr(tf, dtype))
        x = tf.constant([40.0, 30.0, 50.0, 1000.0, 3.5], getattr(tf, dtype))
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.math.igamma(a, x)
        return tape.gradient(y, a)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma_grad_a_tail(tf_oracle, dtype, device):
    rtol = 2e-5 if dtype == "float32" else 1e-9
    assert_parity(tf_oracle, _igamma_grad_a_tail, (dtype, device), rtol=rtol, atol=1e-35)


def _betainc(tf, device):
    nan = float("nan")
    with tf.device(device):
        a = tf.constant([1.0, 0.0, -1.0, 2.0, 2.0, 2.0, nan, 0.5, 3.0, 40.0, 0.1, 5.0], tf.float64)
        b = tf.constant([1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 1.0, 0.5, 0.2, 50.0, 0.1, 5.0], tf.float64)
        x = tf.constant([0.5, 0.5, 0.5, 0.0, 1.0, 1.5, 0.5, 0.3, 0.9, 0.45, 0.01, 0.5], tf.float64)
        scalar_ab = tf.math.betainc(2.0, 3.0, tf.constant([0.1, 0.4, 0.8]))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([a, b, x])
            y = tf.math.betainc(a[3:], b[3:], x[3:])
        grads = tape.gradient(y, [a, b, x])
        traced = tf.function(tf.math.betainc)(a[:3], b[:3], x[:3])
        return (
            tf.math.betainc(a, b, x),
            tf.cast(tf.math.betainc(a, b, x), tf.float32),
            (
                scalar_ab,
                grads,
                traced,
            ),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_betainc(tf_oracle, device):
    assert_parity(tf_oracle, _betainc, (device,), rtol=1e-9)


def _errors(tf):
    out = []
    for fn in (
        lambda: tf.math.lgamma(tf.constant([1, 2])),
        lambda: tf.math.special.bessel_k0(tf.constant([1, 2])),
        lambda: tf.math.igamma(tf.constant([1, 2]), tf.constant([1, 2])),
        lambda: tf.math.zeta(tf.constant([1.0], tf.float16), tf.constant([1.0], tf.float16)),
        lambda: tf.math.polygamma(tf.constant([1.0]), tf.constant([1.0], tf.float64)),
        lambda: tf.math.xlogy(tf.constant([1, 2]), tf.constant([1, 2])),
        lambda: tf.math.nextafter(tf.constant([1.0], tf.bfloat16), tf.constant([1.0], tf.bfloat16)),
        lambda: tf.math.betainc(tf.constant([1.0, 2.0]), 1.0, tf.constant([0.1, 0.2, 0.3])),
        lambda: tf.math.betainc(tf.constant([1, 2]), 1, tf.constant([1, 0])),
        lambda: tf.math.igamma(tf.ones([2]), tf.ones([3])),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)


def _erfcinv(tf, device):
    with tf.device(device):
        x = tf.constant([-0.5, 0.0, 1e-20, 0.1, 0.5, 1.0, 1.5, 1.9, 2.0, 2.5], tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.erfcinv(x)
        return y, tape.gradient(y, x), tf.math.erfcinv(tf.cast(x, tf.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_erfcinv(tf_oracle, device):
    assert_parity(tf_oracle, _erfcinv, (device,), rtol=1e-9)
