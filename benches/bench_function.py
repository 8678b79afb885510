"""tf.function: the seeds' training step as a traced graph on the CPU (target: at most 0.1 ms),
a chain of 10 elementwise ops on 1M float32 values fused against eager (CPU, and the GPU when
one is visible), and the call overhead of a function with one small op."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow
from bench_training_step import data, make_step, numpy_step

N = 1 << 20


def chain(tf, x):
    y = x
    for k in range(5):
        y = y * 1.0001 + 0.5 if k % 2 == 0 else tf.tanh(y) - 0.25
    return y


def cases(tf, device):
    """(label, function) pairs timed on `device`."""
    with tf.device(device):
        x = tf.constant(np.linspace(-1, 1, N, dtype=np.float32))
    step = tf.function(make_step(tf, *data()))
    fused = tf.function(lambda v: chain(tf, v))
    small = tf.function(lambda v: v + 1.0)
    scalar = tf.constant(1.0)

    def run(fn, *args):
        def call():
            with tf.device(device):
                out = fn(*args)
            np.asarray(out) if out is not None and device.startswith("GPU") else None

        return call

    return {
        "step": run(step),
        "chain_fused": run(fused, x),
        "chain_eager": run(lambda v: chain(tf, v), x),
        "call": run(small, scalar),
    }


def tensorflow_half():
    import tensorflow as tf

    got = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "CPU:0").items()}
    print(json.dumps(got))


def main():
    import ferroflow as tf

    cpu = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "CPU:0").items()}
    xs = np.linspace(-1, 1, N, dtype=np.float32)
    np_chain = best_time(lambda: _numpy_chain(xs), min_seconds=0.5)
    one = np.float32(1.0)
    np_call = best_time(lambda: one + np.float32(1.0), min_seconds=0.2) * 1e6
    np_step = best_time(numpy_step(*data()), min_seconds=0.5) * 1e3
    tf_res = run_tensorflow(__file__) or {}
    report(
        "tf.function on the CPU",
        [
            ("training step (graph)", cpu["step"], np_step, tf_res.get("step")),
            (
                "10-op chain 1M, fused",
                cpu["chain_fused"],
                np_chain * 1e3,
                tf_res.get("chain_fused"),
            ),
            (
                "10-op chain 1M, eager",
                cpu["chain_eager"],
                np_chain * 1e3,
                tf_res.get("chain_eager"),
            ),
            (
                "call, one small op (us)",
                cpu["call"] * 1e3,
                np_call,
                tf_res.get("call", 0) * 1e3 or None,
            ),
        ],
        "ms (call: us)",
    )
    if tf.config.list_physical_devices("GPU"):
        gpu = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "GPU:0").items()}
        report(
            "tf.function on the GPU (" + tf.config.list_physical_devices("GPU")[0].name + ")",
            [
                ("10-op chain 1M, fused", gpu["chain_fused"], np_chain * 1e3, None),
                ("10-op chain 1M, eager", gpu["chain_eager"], np_chain * 1e3, None),
            ],
            "ms, including readback",
        )


def _numpy_chain(x):
    y = x
    for k in range(5):
        y = (
            y * np.float32(1.0001) + np.float32(0.5)
            if k % 2 == 0
            else np.tanh(y) - np.float32(0.25)
        )
    return y


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
