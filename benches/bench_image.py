"""tf.image.resize, bilinear, of 8x512x512x3 float32 to 1024x1024, ferroflow against TensorFlow
(run in its own interpreter, FERROFLOW_TF_PYTHON) in one run, eagerly and inside tf.function,
with the gradient; both frameworks on the CPU. Prints the times and ferroflow's speed ratio."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

SHAPE = (8, 512, 512, 3)
SIZE = (1024, 1024)


def _programs(tf):
    def forward(x):
        return tf.image.resize(x, SIZE, "bilinear")

    def gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.image.resize(x, SIZE, "bilinear"))
        return tape.gradient(y, x)

    return {"resize bilinear": forward, "resize bilinear gradient": gradient}


def _timings(tf):
    x = tf.constant(np.random.default_rng(0).random(SHAPE, dtype=np.float32))
    out = {}
    for name, program in _programs(tf).items():
        traced = tf.function(program)
        out[name] = {
            "eager": best_time(lambda p=program: p(x).numpy(), repeat=3, number=1),
            "function": best_time(lambda f=traced: f(x).numpy(), repeat=3, number=1),
        }
    return out


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    theirs = run_tensorflow(__file__) or {}
    mine = _timings(tf)
    rows = []
    for name in mine:
        for mode in ("eager", "function"):
            tf_time = theirs.get(name, {}).get(mode)
            rows.append(
                (f"{name} ({mode})", mine[name][mode] * 1e3, None, tf_time and tf_time * 1e3)
            )
    report(f"tf.image.resize {SHAPE} float32 -> {SIZE}", rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
