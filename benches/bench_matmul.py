"""float32 matmul throughput, 256..2048: plain, with the right operand transposed, and a batch
of 64 products of 256^3 (target: at least 0.9x numpy/OpenBLAS and TensorFlow/oneDNN)."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

SIZES = (256, 1024, 2048)
BATCH = (64, 256)


def gflops(n, seconds, batch=1):
    return 2 * batch * n**3 / seconds / 1e9


def cases(tf, make):
    """(name, GFLOP/s function of a timing) for each case, on operands from `make(shape)`."""
    out = []
    for n in SIZES:
        a, b = make((n, n)), make((n, n))
        out.append((f"{n}x{n} @ {n}x{n}", n, 1, lambda a=a, b=b: tf.matmul(a, b)))
        out.append(
            (f"{n}x{n} @ ({n}x{n})^T", n, 1, lambda a=a, b=b: tf.matmul(a, b, transpose_b=True))
        )
    count, n = BATCH
    a, b = make((count, n, n)), make((count, n, n))
    out.append((f"{count} x ({n}^3) batched", n, count, lambda a=a, b=b: tf.matmul(a, b)))
    return out


def tensorflow_half():
    import tensorflow as tf

    out = {}
    for name, n, batch, run in cases(tf, lambda s: tf.random.normal(s)):
        out[name] = gflops(n, best_time(lambda run=run: run().numpy(), repeat=5), batch)
    print(json.dumps(out))


def main():
    import ferroflow as tf

    # CPU kernels are measured here; benches/bench_gpu.py measures the GPU.
    tf.config.set_visible_devices([], "GPU")

    rng = np.random.default_rng(0)
    tf_res = run_tensorflow(__file__)
    rows = []
    for name, n, batch, run in cases(
        tf, lambda s: tf.constant(rng.standard_normal(s, dtype=np.float32))
    ):
        ff = gflops(n, best_time(run, repeat=5), batch)
        rows.append((name, ff, None, tf_res[name] if tf_res else None))
    # numpy (OpenBLAS) on the plain products.
    for n in SIZES:
        x = rng.standard_normal((n, n), dtype=np.float32)
        y = rng.standard_normal((n, n), dtype=np.float32)
        a, b = tf.constant(x), tf.constant(y)
        np.testing.assert_allclose((a @ b).numpy(), x @ y, rtol=2e-3, atol=2e-3 * n**0.5)
        np.testing.assert_allclose(
            tf.matmul(a, b, transpose_b=True).numpy(), x @ y.T, rtol=2e-3, atol=2e-3 * n**0.5
        )
        row = next(i for i, r in enumerate(rows) if r[0] == f"{n}x{n} @ {n}x{n}")
        name, ff, _, tf_ = rows[row]
        rows[row] = (name, ff, gflops(n, best_time(lambda x=x, y=y: x @ y, repeat=5)), tf_)
    report("float32 matmul", rows, "GFLOP/s")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
