"""MobileNetV2 inference (``keras.applications.MobileNetV2(weights=None)``, 224x224, alpha 1)
on an 8 x 224 x 224 x 3 float32 batch, ferroflow against TensorFlow, each in its own process.

Both models get the same seeded weights (set layer by layer in Keras's weight order, which
the two share), so they compute the same function: the maximum output difference is printed
with the timings. A call is ``model(x, training=False)`` in eager mode; the best of REPEATS
timed calls after a warm-up is reported (``--quick``: fewer repeats). ferroflow runs on the
CPU (``tf.device('/CPU:0')``); TensorFlow on the CPU.
"""

import json
import sys
import time

import numpy as np
from _harness import run_tensorflow

BATCH = 8
REPEATS = 5


def seeded_model(tf):
    """MobileNetV2 with weights drawn from one seeded generator, in layer order."""
    model = tf.keras.applications.MobileNetV2(weights=None)
    rng = np.random.default_rng(0)
    values = []
    for w in model.weights:
        shape = tuple(w.shape)
        if "variance" in w.path:
            values.append(rng.uniform(0.5, 1.5, shape).astype(np.float32))
        else:
            values.append((rng.standard_normal(shape) * 0.1).astype(np.float32))
    model.set_weights(values)
    return model


def run(tf, repeats):
    """(best seconds per forward call, output) of the seeded model."""
    x = np.random.default_rng(1).uniform(-1, 1, (BATCH, 224, 224, 3)).astype(np.float32)
    with tf.device("/CPU:0"):
        model = seeded_model(tf)
        xt = tf.constant(x)
        out = model(xt, training=False)
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            out = model(xt, training=False)
            np.asarray(out)
            best = min(best, time.perf_counter() - start)
    return best, np.asarray(out)


def main(quick):
    repeats = 2 if quick else REPEATS
    if "--tensorflow" in sys.argv:
        import tensorflow as tf

        best, out = run(tf, repeats)
        print(json.dumps({"seconds": best, "out": out.tolist()}))
        return
    import ferroflow as tf

    ff_best, ff_out = run(tf, repeats)
    tf_res = run_tensorflow(__file__, *(["--quick"] if quick else []))
    print(f"MobileNetV2 forward, {BATCH}x224x224x3 float32, eager, best of {repeats}")
    print(f"  {'run':<24}{'s/call':>10}{'images/s':>10}{'vs tf':>8}")
    print(f"  {'ferroflow CPU':<24}{ff_best:>10.4f}{BATCH / ff_best:>10.1f}", end="")
    if tf_res is None:
        print("  (TensorFlow not available)")
        return
    tf_best = tf_res["seconds"]
    print(f"{tf_best / ff_best:>8.2f}")
    print(f"  {'tensorflow CPU':<24}{tf_best:>10.4f}{BATCH / tf_best:>10.1f}{1.0:>8.2f}")
    diff = np.max(np.abs(np.asarray(tf_res["out"], np.float32) - ff_out))
    print(f"  max |ferroflow - tensorflow| of the outputs: {diff:.2e}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
