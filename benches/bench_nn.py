"""tf.nn.conv2d_transpose on a 32x64x64x32 float32 batch (3x3 filter, 32 -> 32 channels,
stride 2, SAME: a 32x128x128x32 output), forward and forward + gradient to input and filter,
eager and traced, ferroflow (CPU) against TensorFlow (CPU) in one run.

ferroflow computes the transposed convolution as the input gradient of conv2d taken by a
private tape; eager calls run a cached trace of it, whose graph leaves out the forward conv2d
the tape records (only its shape matters). The machine's load moves the absolute times a lot
(other builds share its two cores): compare the ratios of one run."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

SHAPE = [32, 64, 64, 32]
FILTER = [3, 3, 32, 32]
OUT = [32, 128, 128, 32]


def _cases(tf):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal(SHAPE).astype(np.float32))
    w = tf.constant(rng.standard_normal(FILTER).astype(np.float32) * 0.1)

    def forward():
        return tf.nn.conv2d_transpose(x, w, OUT, 2, "SAME")

    def with_gradient():
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.nn.conv2d_transpose(x, w, OUT, 2, "SAME")
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, [x, w])

    traced_forward = tf.function(forward)
    traced_gradient = tf.function(with_gradient)

    def run(fn):
        def timed():
            out = fn()
            for t in tf.nest.flatten(out):
                t.numpy()  # wait for the values

        return best_time(timed, repeat=3, min_seconds=0.5)

    return {
        "forward": run(forward) * 1e3,
        "forward+gradient": run(with_gradient) * 1e3,
        "traced forward": run(traced_forward) * 1e3,
        "traced forward+gradient": run(traced_gradient) * 1e3,
    }


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_cases(tf)))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    tf_res = run_tensorflow(__file__)
    ff = _cases(tf)
    rows = [(k, v, None, tf_res[k] if tf_res else None) for k, v in ff.items()]
    report("conv2d_transpose 32x64x64x32 -> 32x128x128x32, 3x3, stride 2 (CPU)", rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
