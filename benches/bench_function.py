"""tf.function: the seeds' training step as a traced graph on the CPU (target: at most 0.1 ms),
a chain of 10 elementwise ops on 1M float32 values fused against eager (CPU, and the GPU when
one is visible), and the call overhead of a function with one small op."""

import json
import subprocess
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow
from bench_training_step import data, make_step, numpy_step

N = 1 << 20


def chain(tf, x):
    """10 ops, two of them tanh (which dominate the CPU time)."""
    y = x
    for k in range(5):
        y = y * 1.0001 + 0.5 if k % 2 == 0 else tf.tanh(y) - 0.25
    return y


def arithmetic(tf, x):
    """10 multiply/add ops: the memory-bound case fusion is for."""
    y = x
    for _ in range(5):
        y = y * 1.0001 + 0.5
    return y


def cases(tf, device):
    """(label, function) pairs timed on `device`."""
    with tf.device(device):
        x = tf.constant(np.linspace(-1, 1, N, dtype=np.float32))
    step = tf.function(make_step(tf, *data()))
    fused = tf.function(lambda v: chain(tf, v))
    fused_arith = tf.function(lambda v: arithmetic(tf, v))
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
        "arith_fused": run(fused_arith, x),
        "arith_eager": run(lambda v: arithmetic(tf, v), x),
        "call": run(small, scalar),
    }


def tensorflow_half():
    import tensorflow as tf

    got = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "CPU:0").items()}
    print(json.dumps(got))


def main():
    import ferroflow as tf

    if "--gpu" in sys.argv:
        return gpu_half(tf)
    # CPU numbers with the GPUs hidden (variables would otherwise live on GPU:0).
    tf.config.set_visible_devices([], "GPU")
    cpu = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "CPU:0").items()}
    xs = np.linspace(-1, 1, N, dtype=np.float32)
    np_chain = best_time(lambda: _numpy_chain(xs), min_seconds=0.5) * 1e3
    np_arith = best_time(lambda: arithmetic(np, xs), min_seconds=0.5) * 1e3
    one = np.float32(1.0)
    np_call = best_time(lambda: one + np.float32(1.0), min_seconds=0.2) * 1e6
    np_step = best_time(numpy_step(*data()), min_seconds=0.5) * 1e3
    t = run_tensorflow(__file__) or {}
    report(
        "tf.function on the CPU",
        [
            ("training step (graph)", cpu["step"], np_step, t.get("step")),
            ("10-op chain, fused", cpu["chain_fused"], np_chain, t.get("chain_fused")),
            ("10-op chain, eager", cpu["chain_eager"], np_chain, t.get("chain_eager")),
            ("10 mul/add, fused", cpu["arith_fused"], np_arith, t.get("arith_fused")),
            ("10 mul/add, eager", cpu["arith_eager"], np_arith, t.get("arith_eager")),
            ("call, one small op (us)", cpu["call"] * 1e3, np_call, t.get("call", 0) * 1e3 or None),
        ],
        "ms on 1M float32 (call: us)",
    )
    subprocess.run([sys.executable, __file__, "--gpu"], check=True)


def gpu_half(tf):
    if not tf.config.list_physical_devices("GPU"):
        print("\n(no GPU visible: GPU half skipped)")
        return
    gpu = {k: best_time(fn, min_seconds=0.5) * 1e3 for k, fn in cases(tf, "GPU:0").items()}
    xs = np.linspace(-1, 1, N, dtype=np.float32)
    np_chain = best_time(lambda: _numpy_chain(xs), min_seconds=0.5) * 1e3
    np_arith = best_time(lambda: arithmetic(np, xs), min_seconds=0.5) * 1e3
    report(
        "tf.function on the GPU (" + tf.config.list_physical_devices("GPU")[0].name + ")",
        [
            ("10-op chain, fused", gpu["chain_fused"], np_chain, None),
            ("10-op chain, eager", gpu["chain_eager"], np_chain, None),
            ("10 mul/add, fused", gpu["arith_fused"], np_arith, None),
            ("10 mul/add, eager", gpu["arith_eager"], np_arith, None),
        ],
        "ms on 1M float32, including readback",
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
