"""One eager training step of the seeds' model (Dense 64 relu -> Dense 1 on 201 points) written
with variables, matmul and a tape, on the CPU (target: at most 0.5 ms). numpy runs the same
step with hand-written derivatives, as a floor for the arithmetic."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

LR = 0.01


def data():
    x = np.linspace(-2, 2, 201, dtype=np.float32)
    y = (x**2 + 2 * x - 5 + np.random.default_rng(0).normal(size=201)).astype(np.float32)
    rng = np.random.default_rng(1)
    weights = [
        rng.normal(size=(1, 64)).astype(np.float32),
        rng.normal(size=(64,)).astype(np.float32),
        rng.normal(size=(64, 1)).astype(np.float32) * 0.1,
        rng.normal(size=(1,)).astype(np.float32),
    ]
    return x, y, weights


def make_step(tf, x, y, weights):
    x, y = tf.constant(x[:, None]), tf.constant(y)
    w1, b1, w2, b2 = variables = [tf.Variable(w) for w in weights]

    def step():
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(x @ w1 + b1)
            prediction = tf.squeeze(hidden @ w2 + b2, axis=1)
            loss = tf.reduce_mean((y - prediction) ** 2)
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(LR * g)

    return step


def numpy_step(x, y, weights):
    xs = x[:, None]
    w1, b1, w2, b2 = [w.copy() for w in weights]

    def step():
        pre = xs @ w1 + b1
        hidden = np.maximum(pre, 0)
        err = (hidden @ w2 + b2)[:, 0] - y
        d_out = (2 / len(y)) * err[:, None]
        d_pre = (d_out @ w2.T) * (pre > 0)
        for w, g in zip(
            (w1, b1, w2, b2), (xs.T @ d_pre, d_pre.sum(0), hidden.T @ d_out, d_out.sum(0))
        ):
            w -= LR * g

    return step


def tensorflow_half():
    import tensorflow as tf

    step = make_step(tf, *data())
    print(json.dumps({"step": best_time(step, min_seconds=1.0) * 1e3}))


def main():
    import ferroflow as tf

    # The target is the CPU; benches/bench_gpu.py measures the GPU.
    tf.config.set_visible_devices([], "GPU")
    x, y, weights = data()
    ff = best_time(make_step(tf, x, y, weights), min_seconds=1.0) * 1e3
    np_ = best_time(numpy_step(x, y, weights), min_seconds=1.0) * 1e3
    tf_res = run_tensorflow(__file__)
    report(
        "Eager training step, seeds' model (201 x Dense64 relu -> Dense1), CPU",
        [("step (tape + SGD)", ff, np_, tf_res["step"] if tf_res else None)],
        "ms per step",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
