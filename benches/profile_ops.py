"""Where a Keras training step spends its time in ferroflow: host time per graph node type
(and output shape), per step, for the models of `bench_keras_models.py`, beside the step's
wall time and TensorFlow's. A profiling aid, not a benchmark: a node's time is wall time on
the calling thread around it (its parallel CPU work included), and the time outside nodes
(Python, the fit loop, argument binding) shows as the difference to the step time.

    python benches/profile_ops.py [mlp|cnn] [--steps N] [--top K]
"""

import argparse
import json
import sys
import time

from _harness import run_tensorflow
from bench_keras_models import BATCH, data, make_model


def fit_steps_per_second(tf, kind, steps, between=None):
    """Fits one warm-up epoch, then one timed epoch of `steps` steps; `between` runs before
    the timed epoch (to start counting)."""
    x, y = data(kind)
    model = make_model(tf, kind)
    model.fit(x, y, batch_size=BATCH, epochs=1, steps_per_epoch=steps, verbose=0)
    if between:
        between()
    start = time.perf_counter()
    history = model.fit(x, y, batch_size=BATCH, epochs=1, steps_per_epoch=steps, verbose=0)
    float(history.history["loss"][-1])
    return steps / (time.perf_counter() - start)


def tensorflow_half(kind, steps):
    import tensorflow as tf

    tf.config.set_visible_devices([], "GPU")
    print(json.dumps({"rate": fit_steps_per_second(tf, kind, steps)}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?", default="cnn", choices=["mlp", "cnn"])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--tensorflow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tensorflow:
        tensorflow_half(args.model, args.steps)
        return
    import ferroflow as tf
    from ferroflow import _core

    with tf.device("/CPU:0"):
        rate = fit_steps_per_second(tf, args.model, args.steps, between=_core.op_times_start)
    rows = _core.op_times_take()
    tf_out = run_tensorflow(__file__, args.model, "--steps", args.steps)
    tf_rate = tf_out["rate"] if tf_out else None
    step_ms = 1000 / rate
    nodes_ms = sum(seconds for _, _, seconds in rows) * 1000 / args.steps
    print(f"{args.model}, batch {BATCH}, {args.steps} steps, CPU")
    print(f"  ferroflow step {step_ms:.2f} ms ({rate:.1f} steps/s)", end="")
    if tf_rate:
        print(f"; TensorFlow {1000 / tf_rate:.2f} ms ({tf_rate:.1f} steps/s)", end="")
    print(f"\n  graph nodes {nodes_ms:.2f} ms per step (loops count their bodies twice)")
    print(f"  {'ms/step':>8} {'nodes/step':>10}  node")
    for key, count, seconds in rows[: args.top]:
        print(f"  {seconds * 1000 / args.steps:8.3f} {count / args.steps:10.1f}  {key}")


if __name__ == "__main__":
    sys.exit(main())
