"""Float division on the GPU rounds correctly, bit for bit as the CPU (and TensorFlow).

WGSL lets drivers approximate `a / b`; NVIDIA's Vulkan driver was an ulp off (seen on an H200),
which moved percentile indices, fake-quant steps and resize_with_pad's output sizes. The kernel
divides the significands as integers (shaders/precise_math.wgsl, div_f)."""

import ferroflow as tf
import numpy as np
import pytest
from conftest import require_gpu


def _operands(dtype, n=50_000):
    rng = np.random.default_rng(11)
    exponents = (-35, 35) if dtype == np.float32 else (-4, 4)
    a = rng.standard_normal(n) * 10.0 ** rng.integers(*exponents, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(*exponents, n)
    specials = [40, 1, 0, np.inf, np.nan, 7, -0.0, 3, 1e-40, 9]
    divisors = [100, 0, 0, 2, 1, 7, 5, -np.inf, 3, 9]
    with np.errstate(over="ignore"):
        a, b = a.astype(dtype), b.astype(dtype)
    a[: len(specials)], b[: len(divisors)] = specials, divisors
    return a, b


def _same_bits(x, y):
    bits = x.view(np.uint32 if x.dtype == np.float32 else np.uint16)
    other = y.view(bits.dtype)
    return (bits == other) | (np.isnan(x) & np.isnan(y))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_division_is_correctly_rounded_on_gpu(dtype):
    require_gpu()
    device = "GPU:0"
    a, b = _operands(dtype)
    results = {}
    for where in ("CPU:0", device):
        with tf.device(where):
            x, y = tf.constant(a), tf.constant(b)
            results[where] = ((x / y).numpy(), tf.math.floordiv(x, y).numpy())
    # Subnormal quotients may flush to zero on GPUs (NVIDIA's do); the rest is exact.
    tiny = np.finfo(dtype).tiny
    cpu_div, cpu_floor = results["CPU:0"]
    gpu_div, gpu_floor = results[device]
    normal = ~((np.abs(cpu_div) < tiny) & (cpu_div != 0)) & ~((np.abs(a) < tiny) & (a != 0))
    assert _same_bits(gpu_div[normal], cpu_div[normal]).all()
    assert _same_bits(gpu_floor[normal], cpu_floor[normal]).all()
    assert float(gpu_div[0]) == float(np.asarray(dtype(40)) / dtype(100))
