"""Eager dispatch cost of `a + b` on scalar tensors (target: at most 1 us per op)."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow


def tensorflow_half():
    import tensorflow as tf

    a, b = tf.constant(1.0), tf.constant(2.0)
    per_op = best_time(lambda: a + b)
    print(json.dumps({"add": per_op * 1e6}))


def main():
    import ferroflow as tf

    # CPU kernels are measured here; benches/bench_gpu.py measures the GPU.
    tf.config.set_visible_devices([], "GPU")

    a, b = tf.constant(1.0), tf.constant(2.0)
    na, nb = np.float32(1.0), np.float32(2.0)
    ff = best_time(lambda: a + b) * 1e6
    ff_py = best_time(lambda: a + 1.0) * 1e6
    ff_fn = best_time(lambda: tf.add(a, b)) * 1e6
    np_ = best_time(lambda: na + nb) * 1e6
    tf_res = run_tensorflow(__file__)
    tf_add = tf_res["add"] if tf_res else None
    report(
        "Eager dispatch, scalar float32",
        [
            ("a + b (tensors)", ff, np_, tf_add),
            ("a + 1.0 (Python scalar)", ff_py, np_, None),
            ("tf.add(a, b)", ff_fn, np_, None),
        ],
        "us per op",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
