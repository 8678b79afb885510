"""Element-wise add and reduce_sum over 10 million float32 (target: at least numpy's speed)."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

N = 10_000_000


def tensorflow_half():
    import tensorflow as tf

    a = tf.random.normal([N])
    b = tf.random.normal([N])
    add = best_time(lambda: (a + b).numpy(), repeat=5)
    total = best_time(lambda: tf.reduce_sum(a).numpy(), repeat=5)
    print(json.dumps({"add": N / add / 1e9, "sum": N / total / 1e9}))


def main():
    import ferroflow as tf

    # CPU kernels are measured here; benches/bench_gpu.py measures the GPU.
    tf.config.set_visible_devices([], "GPU")

    rng = np.random.default_rng(0)
    x = rng.standard_normal(N, dtype=np.float32)
    y = rng.standard_normal(N, dtype=np.float32)
    a, b = tf.constant(x), tf.constant(y)
    tf_res = run_tensorflow(__file__)
    rows = [
        (
            "a + b (10M)",
            N / best_time(lambda: a + b, repeat=5) / 1e9,
            N / best_time(lambda: x + y, repeat=5) / 1e9,
            tf_res["add"] if tf_res else None,
        ),
        (
            "reduce_sum (10M)",
            N / best_time(lambda: tf.reduce_sum(a), repeat=5) / 1e9,
            N / best_time(lambda: x.sum(), repeat=5) / 1e9,
            tf_res["sum"] if tf_res else None,
        ),
    ]
    np.testing.assert_allclose(
        float(tf.reduce_sum(a)), float(x.astype(np.float64).sum()), rtol=1e-4
    )
    report("Element-wise throughput, float32", rows, "Gelem/s")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
