"""The float32 GPU kernels of tf.math's special functions (shaders/special_funcs.wgsl and, for
zeta, polygamma, igamma and igammac, shaders/special_series.wgsl) against ferroflow's CPU
kernels, which compute in float64 and round once: dense grids over each function's domain and
its edges. The GPU must run the op itself (the placement log says so), not hand it back to the
CPU. IgammaGradA (igamma's gradient in a, tf.raw_ops only) is reached through a gradient
tape."""

import ferroflow as tf
import numpy as np
import pytest

RTOL = 1e-5


def _grid(*parts):
    values = np.concatenate([np.asarray(p, np.float64).ravel() for p in parts])
    return values.astype(np.float32)


def _logs(lo, hi, n=1500):
    """Positive and negative values spread over decades lo..hi."""
    pos = np.logspace(lo, hi, n)
    return np.concatenate([pos, -pos])


EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3.4e38, -3.4e38]

# (grid, absolute tolerance): the absolute term covers float32 cancellation next to a zero of
# the function, where no float32 evaluation holds a relative bound: 2 float32 ulp of the terms
# that cancel (lgamma at 1 and 2 and between the negative poles, where log(pi / sin) and
# lgamma(1 - x) of size (1 + |x|) log(1 + |x|) meet; digamma at its roots, log-sized terms).
ULP2 = 2.4e-7


def _lgamma_atol(x):
    a = np.where(x < 0, -x.astype(np.float64), 0.0)
    return ULP2 * np.maximum(1.0, (1 + a) * np.log1p(a))


def _digamma_atol(x):
    return ULP2 * np.maximum(1.0, 2 * np.log1p(np.abs(x.astype(np.float64))))


def _bessel_atol(x):
    return BESSEL_ATOL * np.minimum(1.0, 0.8 / np.sqrt(np.abs(x.astype(np.float64)) + 1e-30))


BESSEL_ATOL = 3e-7

_GAMMA_GRID = _grid(np.linspace(-20, 20, 10000), _logs(-40, 30), np.arange(-30, 31) + 0.5, EDGES)

UNARY = {
    "lgamma": (_GAMMA_GRID, _lgamma_atol),
    # The CPU's float64 digamma reduces x - floor(x) for -1e-8 < x < 0, which rounds to 1 there
    # (digamma(-1e-20) gives 2.6e16, not 1e20; reported): the GPU's reduction is exact.
    "digamma": (_GAMMA_GRID[~((_GAMMA_GRID < 0) & (_GAMMA_GRID > -1e-8))], _digamma_atol),
    "erfc": (_grid(np.linspace(-12, 12, 10000), _logs(-30, 1.05), EDGES), 0.0),
    "erfinv": (
        _grid(
            np.linspace(-1, 1, 10001), 1 - np.logspace(-7.2, -0.3, 1500), _logs(-40, -0.3), EDGES
        ),
        0.0,
    ),
    "ndtri": (
        _grid(
            np.linspace(0, 1, 10001),
            np.logspace(-45, -0.3, 2000),
            1 - np.logspace(-7.2, -0.3, 1500),
            EDGES,
        ),
        0.0,
    ),
    "dawsn": (_grid(np.linspace(-20, 20, 10000), _logs(-40, 38), EDGES), 0.0),
    # Ei has a root at 0.3725: the absolute term is float32 cancellation of gamma + ln x there.
    "expint": (_grid(np.linspace(0, 100, 10000), np.logspace(-40, 2, 1500), [-1.0], EDGES), 3e-7),
    "spence": (_grid(np.linspace(0, 20, 10000), np.logspace(-40, 38, 1500), [-1.0], EDGES), 0.0),
    # The CPU's float64 K is 1e-5 off for x in (600, 700] (its trapezoidal rule's step is too
    # coarse there, reported): the grids stop at 600 and resume past 700.
    **{
        f"bessel_{k}": (
            _grid(np.linspace(-1, 600, 10000), np.logspace(-40, 2.7, 1500), [750.0, 1e4], EDGES),
            0.0,
        )
        for k in ("k0", "k0e", "k1", "k1e")
    },
    # J and Y by Cephes' float32 modulus and phase above 2: absolute error of float32 ulps of the
    # modulus sqrt(2 / (pi x)) (zeros of J and Y lie everywhere there; Y0 has one at 0.89).
    # Up to float32's largest values: precise_math reduces cos/sin arguments exactly.
    **{
        f"bessel_{k}": (
            _grid(np.linspace(-50, 50, 10000), _logs(-40, 38.5), EDGES[:-2]),
            _bessel_atol,
        )
        for k in ("j0", "j1", "y0", "y1")
    },
    # Cephes' float32 fresnlf: 1.1e-6 relative at most.
    "fresnel_cos": (_grid(np.linspace(-20, 20, 10000), _logs(-40, 38), EDGES), 0.0),
    "fresnel_sin": (_grid(np.linspace(-20, 20, 10000), _logs(-40, 38), EDGES), 0.0),
    "bessel_i0": (_grid(np.linspace(-100, 100, 10000), _logs(-30, 2), EDGES), 0.0),
    "bessel_i1": (_grid(np.linspace(-100, 100, 10000), _logs(-30, 2), EDGES), 0.0),
    "bessel_i0e": (_grid(np.linspace(-100, 100, 10000), _logs(-30, 38), EDGES), 0.0),
    "bessel_i1e": (_grid(np.linspace(-100, 100, 10000), _logs(-30, 38), EDGES), 0.0),
}


def _pairs(seed):
    """x and y over zeros, signs, tiny and huge magnitudes, infinities and NaN."""
    rng = np.random.default_rng(seed)
    pool = np.concatenate(
        [
            np.linspace(-10, 10, 401),
            _logs(-44, 38, 300),
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0],
        ]
    ).astype(np.float32)
    x = rng.choice(pool, 10000)
    y = rng.choice(pool, 10000)
    return x, y


BINARY = ["xlogy", "xlog1py", "xdivy", "nextafter"]


def _run(name, device, *args):
    f = getattr(tf.math, name, None) or getattr(tf.math.special, name)
    with tf.device(device):
        return f(*[tf.constant(a) for a in args]).numpy()


def _igamma_grad_a(device, a, x):
    with tf.device(device):
        ta = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(ta)
            y = tf.math.igamma(ta, tf.constant(x))
        return tape.gradient(y, ta).numpy()


def _run_any(name, device, *args):
    return _igamma_grad_a(device, *args) if name == "igamma_grad_a" else _run(name, device, *args)


SMALLEST_NORMAL = np.float32(1.17549435e-38)


def _gpu_flushes_subnormals():
    """Whether the GPU flushes float32 subnormals to zero. Vulkan leaves it to the driver
    unless a shader asks (naga's SPIR-V cannot): lavapipe keeps them, NVIDIA's driver flushes
    them (seen on an H200), in operands, intermediates and results alike."""
    with tf.device("GPU:0"):
        return float((tf.constant([1e-40]) * tf.constant([3.0])).numpy()[0]) == 0.0


def _flushed(values):
    """`values` with float32 subnormals replaced by zeros of their sign."""
    values = np.array(values, copy=True)
    tiny = (np.abs(values) < SMALLEST_NORMAL) & (values != 0)
    values[tiny] = np.copysign(0.0, values[tiny])
    return values


def _cpu_reference(name, *args):
    """The CPU's result, for a GPU that flushes subnormals computed as that GPU sees the
    operands and stores the result (the CPU keeps subnormals, as TensorFlow's CPU kernels)."""
    if not _gpu_flushes_subnormals():
        return _run_any(name, "CPU:0", *args)
    return _flushed(_run_any(name, "CPU:0", *[_flushed(a) for a in args]))


def _placed_on_gpu(capfd, name, *args):
    tf.debugging.set_log_device_placement(True)
    try:
        capfd.readouterr()
        _run_any(name, "GPU:0", *args)
        log = capfd.readouterr().err
    finally:
        tf.debugging.set_log_device_placement(False)
    lines = [line for line in log.splitlines() if line.startswith("Executing op ")]
    return any("GPU:0" in line for line in lines) and not any("CPU" in line for line in lines), log


def _compare(cpu, gpu, atol, cpu_x=None):
    """Positions where the GPU result is not the CPU's (NaN for NaN, the same infinities, finite
    values within RTOL relative or atol absolute), and the largest relative error elsewhere."""
    same_nan = np.isnan(cpu) == np.isnan(gpu)
    inf = np.isinf(cpu) | np.isinf(gpu)
    finite = ~np.isnan(cpu) & ~inf
    bad = ~same_nan | (inf & (cpu != gpu))
    c, g = cpu[finite].astype(np.float64), gpu[finite].astype(np.float64)
    # Subnormal results are compared to one subnormal step.
    atol = atol(cpu_x[finite]) if callable(atol) else atol
    tol = np.maximum(RTOL * np.abs(c), np.maximum(atol, 2.9e-45))
    bad[np.flatnonzero(finite)[np.abs(g - c) > tol]] = True
    return np.flatnonzero(bad)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gpu_matches_cpu(capfd, name):
    x, atol = UNARY[name]
    on_gpu, log = _placed_on_gpu(capfd, name, x[:4])
    assert on_gpu, log
    cpu, gpu = _cpu_reference(name, x), _run(name, "GPU:0", x)
    bad = _compare(cpu, gpu, atol, x)
    assert bad.size == 0, [(x[i], cpu[i], gpu[i]) for i in bad[:10]]


@pytest.mark.parametrize("name", BINARY)
def test_binary_gpu_matches_cpu(capfd, name):
    x, y = _pairs(BINARY.index(name))
    on_gpu, log = _placed_on_gpu(capfd, name, x[:4], y[:4])
    assert on_gpu, log
    if name == "nextafter":
        cpu, gpu = _run(name, "CPU:0", x, y), _run(name, "GPU:0", x, y)
        # Bit-exact: the neighbour, subnormals and signed zeros included.
        nan = np.isnan(cpu)
        assert np.array_equal(nan, np.isnan(gpu))
        bad = np.flatnonzero(cpu.view(np.uint32)[~nan] != gpu.view(np.uint32)[~nan])
        assert bad.size == 0, [
            (x[~nan][i], y[~nan][i], cpu[~nan][i], gpu[~nan][i]) for i in bad[:10]
        ]
        return
    cpu, gpu = _cpu_reference(name, x, y), _run(name, "GPU:0", x, y)
    bad = _compare(cpu, gpu, 0.0)
    assert bad.size == 0, [(x[i], y[i], cpu[i], gpu[i]) for i in bad[:10]]


@pytest.mark.parametrize("name", ["lgamma", "erfc", "bessel_i1e", "xlogy"])
def test_float16_and_fused_chains(name):
    # float16 computes through the float32 expression; a chain of element-wise ops fuses the
    # special function into one kernel with the rest.
    x = np.linspace(0.1, 4.0, 64).astype(np.float32)
    f = getattr(tf.math, name)
    args = (x, x[::-1].copy()) if name == "xlogy" else (x,)

    def chain(*a):
        return tf.sin(f(*a) * 2.0) + 1.0

    results = {}
    for device in ("CPU:0", "GPU:0"):
        with tf.device(device):
            t = [tf.constant(a) for a in args]
            half = f(*[tf.cast(a, tf.float16) for a in t])
            results[device] = (half.numpy().astype(np.float32), tf.function(chain)(*t).numpy())
    np.testing.assert_allclose(results["GPU:0"][0], results["CPU:0"][0], rtol=1e-3)
    np.testing.assert_allclose(results["GPU:0"][1], results["CPU:0"][1], rtol=1e-5, atol=1e-6)


def _series_pairs(name):
    """(first, second) operands over each series function's domain, its edges and, for the
    incomplete gamma functions, the transition region x ~ a."""
    rng = np.random.default_rng(7)
    if name in ("igamma", "igammac", "igamma_grad_a"):
        a_pool = np.concatenate(
            [
                np.logspace(-3, 4, 400),
                np.linspace(0.01, 50, 200),
                [1e-40, 1e-20, 1e30, np.inf, np.nan, 0.0, -1.0, 1.0, 2.0, 0.5],
            ]
        )
        x_pool = np.concatenate(
            [
                np.logspace(-30, 4, 400),
                np.linspace(0, 100, 200),
                [0.0, -0.0, 1e-40, 1e30, np.inf, -np.inf, -1.0, np.nan, 1.0, 1.5],
            ]
        )
        a_near = np.logspace(-3, 4, 4000)
        spread = np.minimum(0.5, 3 / np.sqrt(a_near))
        x_near = np.abs(a_near * (1 + rng.normal(0, 1, a_near.size) * spread))
        first = np.concatenate([rng.choice(a_pool, 6000), a_near])
        second = np.concatenate([rng.choice(x_pool, 6000), x_near])
    elif name == "zeta":
        x_pool = np.concatenate(
            [
                np.linspace(1, 60, 300),
                1 + np.logspace(-7, 0, 50),
                [1e30, 3e38, np.inf, -np.inf, np.nan, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 100.0],
            ]
        )
        q_pool = np.concatenate(
            [
                np.logspace(-3, 4, 200),
                -np.logspace(-3, 3, 100),
                np.arange(-10, 11),
                np.arange(-10, 10) + 0.5,
                [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e30, -99999.5, -123456.7],
            ]
        )
        first, second = rng.choice(x_pool, 10000), rng.choice(q_pool, 10000)
    else:
        n_pool = np.concatenate([np.arange(0, 41), [0.5, -1.0, 2.5, np.nan, np.inf, 171.0, 200.0]])
        x_pool = np.concatenate(
            [
                np.logspace(-3, 4, 300),
                -np.logspace(-3, 4, 300),
                np.arange(-10, 11),
                np.arange(-10, 10) + 0.5,
                [0.0, -0.0, np.inf, -np.inf, np.nan, 33.0, 1e-40, -99999.3, -999999.3],
            ]
        )
        first, second = rng.choice(n_pool, 10000), rng.choice(x_pool, 10000)
    return first.astype(np.float32), second.astype(np.float32)


def _igammac_atol(a):
    # Not float32's doing: for a < 1e-6 the CPU (as TensorFlow, in float64 too) takes Q = 1 - P,
    # which holds Q only to float64's 1e-16 absolute (it even gives -4.4e-16 at a = 1e-20,
    # x = 2.5e-12, where Q = 2.6e-19; the GPU computes Q directly there).
    return np.where(a < 1e-6, 5e-15, 0.0)


SERIES = {
    "igamma": 0.0,
    "igammac": _igammac_atol,
    "igamma_grad_a": 0.0,
    "zeta": 0.0,
    "polygamma": 0.0,
}


@pytest.mark.parametrize("name", sorted(SERIES))
def test_series_gpu_matches_cpu(capfd, name):
    x, y = _series_pairs(name)
    on_gpu, log = _placed_on_gpu(capfd, name, x[:4], y[:4])
    assert on_gpu, log
    cpu, gpu = _cpu_reference(name, x, y), _run_any(name, "GPU:0", x, y)
    bad = _compare(cpu, gpu, SERIES[name], x)
    assert bad.size == 0, [(x[i], y[i], cpu[i], gpu[i]) for i in bad[:10]]


def test_igamma_gradient_on_gpu():
    # Both gradients run on the GPU (the one in a through IgammaGradA).
    a = np.array([0.5, 1.0, 2.0, 3.5, 10.0, 150.0], np.float32)
    x = np.array([0.3, 1.0, 3.0, 2.0, 12.0, 140.0], np.float32)
    results = {}
    for device in ("CPU:0", "GPU:0"):
        with tf.device(device):
            ta, tx = tf.constant(a), tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch([ta, tx])
                y = tf.math.igamma(ta, tx) + tf.math.igammac(ta, tx) * 2.0
            results[device] = [g.numpy() for g in tape.gradient(y, [ta, tx])]
    for cpu, gpu in zip(results["CPU:0"], results["GPU:0"]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5)
