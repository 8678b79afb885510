"""TensorFlow's stateless random ops: stateless_normal and stateless_uniform of 1M float32 (the
same numbers as TensorFlow's, CPU kernels), next to numpy's generator and TensorFlow itself.
Both frameworks run these ops synchronously on the CPU, so the draw is timed without reading
the result back."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

N = 1_000_000


def tensorflow_half():
    import tensorflow as tf

    seed = tf.constant([1, 2])
    normal = best_time(lambda: tf.random.stateless_normal([N], seed=seed))
    uniform = best_time(lambda: tf.random.stateless_uniform([N], seed=seed))
    print(json.dumps({"normal": normal * 1e3, "uniform": uniform * 1e3}))


def main():
    import ferroflow as tf

    # The kernels are CPU-only; hiding the GPUs keeps the scaling (mul, add) on the CPU too.
    tf.config.set_visible_devices([], "GPU")
    seed = tf.constant([1, 2])
    rng = np.random.default_rng(0)
    tf_res = run_tensorflow(__file__)
    rows = [
        (
            "stateless_normal (1M f32)",
            best_time(lambda: tf.random.stateless_normal([N], seed=seed)) * 1e3,
            best_time(lambda: rng.standard_normal(N, dtype=np.float32)) * 1e3,
            tf_res["normal"] if tf_res else None,
        ),
        (
            "stateless_uniform (1M f32)",
            best_time(lambda: tf.random.stateless_uniform([N], seed=seed)) * 1e3,
            best_time(lambda: rng.random(N, dtype=np.float32)) * 1e3,
            tf_res["uniform"] if tf_res else None,
        ),
    ]
    report("Stateless random draws, float32 (numpy: its own generator)", rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
