"""float32 matmul throughput, 256..2048 (target: at least 0.9x numpy/OpenBLAS)."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

SIZES = (256, 1024, 2048)


def gflops(n, seconds):
    return 2 * n**3 / seconds / 1e9


def tensorflow_half():
    import tensorflow as tf

    out = {}
    for n in SIZES:
        a = tf.random.normal([n, n])
        b = tf.random.normal([n, n])
        out[n] = gflops(n, best_time(lambda a=a, b=b: (a @ b).numpy(), repeat=5))
    print(json.dumps(out))


def main():
    import ferroflow as tf

    # CPU kernels are measured here; benches/bench_gpu.py measures the GPU.
    tf.config.set_visible_devices([], "GPU")

    rng = np.random.default_rng(0)
    tf_res = run_tensorflow(__file__)
    rows = []
    for n in SIZES:
        x = rng.standard_normal((n, n), dtype=np.float32)
        y = rng.standard_normal((n, n), dtype=np.float32)
        a, b = tf.constant(x), tf.constant(y)
        ff = gflops(n, best_time(lambda a=a, b=b: a @ b, repeat=5))
        np_ = gflops(n, best_time(lambda x=x, y=y: x @ y, repeat=5))
        np.testing.assert_allclose((a @ b).numpy(), x @ y, rtol=2e-3, atol=2e-3 * n**0.5)
        rows.append((f"{n}x{n} @ {n}x{n}", ff, np_, tf_res[str(n)] if tf_res else None))
    report("float32 matmul", rows, "GFLOP/s")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
