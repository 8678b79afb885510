"""tf.TensorArray in a 1000-step loop inside tf.function (the loop's length a tensor, so it is
a staged while loop): write one element per step, then stack; scalar elements into a fixed-size
array, 16- and 256-float rows into a dynamic_size array, and tf.map_fn over 1000 rows of a size
unknown while tracing (a loop writing a TensorArray). Side by side with TensorFlow (its own
interpreter, FERROFLOW_TF_PYTHON) and a numpy loop filling a preallocated array."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

STEPS = 1000
WIDTHS = (16, 256)


def _programs(tf):
    @tf.function
    def scalars(n):
        ta = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, tf.float32) * 2.0)
        return ta.stack()

    def rows(width):
        @tf.function
        def fill(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(n):
                ta = ta.write(i, tf.fill([width], tf.cast(i, tf.float32)))
            return ta.stack()

        return fill

    mapped = tf.function(
        lambda x: tf.map_fn(lambda row: tf.reduce_sum(row * row), x),
        input_signature=[tf.TensorSpec([None, 16], tf.float32)],
    )
    return scalars, {w: rows(w) for w in WIDTHS}, mapped


def _timings(tf):
    scalars, rows, mapped = _programs(tf)
    n = tf.constant(STEPS)
    x = tf.constant(np.arange(STEPS * 16, dtype=np.float32).reshape(STEPS, 16) / STEPS)
    out = {"scalars": best_time(lambda: scalars(n).numpy(), repeat=5)}
    for width, fill in rows.items():
        out[f"rows{width}"] = best_time(lambda fill=fill: fill(n).numpy(), repeat=5)
    out["map_fn"] = best_time(lambda: mapped(x).numpy(), repeat=5)
    checks = {
        "scalars": scalars(n).numpy(),
        "rows16": rows[16](n).numpy(),
        "map_fn": mapped(x).numpy(),
    }
    return out, checks


def tensorflow_half():
    import tensorflow as tf

    out, _ = _timings(tf)
    print(json.dumps(out))


def _numpy_loops():
    def scalars():
        out = np.empty(STEPS, np.float32)
        for i in range(STEPS):
            out[i] = np.float32(i) * 2.0
        return out

    def rows(width):
        out = np.empty((STEPS, width), np.float32)
        for i in range(STEPS):
            out[i] = np.float32(i)
        return out

    x = np.arange(STEPS * 16, dtype=np.float32).reshape(STEPS, 16) / STEPS

    def mapped():
        out = np.empty(STEPS, np.float32)
        for i in range(STEPS):
            out[i] = np.sum(x[i] * x[i])
        return out

    timings = {"scalars": best_time(scalars)}
    for width in WIDTHS:
        timings[f"rows{width}"] = best_time(lambda width=width: rows(width))
    timings["map_fn"] = best_time(mapped)
    return timings, {"scalars": scalars(), "rows16": rows(16), "map_fn": mapped()}


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    ff, checks = _timings(tf)
    np_times, expected = _numpy_loops()
    for key, want in expected.items():
        np.testing.assert_allclose(checks[key], want, rtol=1e-5)
    theirs = run_tensorflow(__file__)
    labels = {
        "scalars": "write scalar, size=n",
        "rows16": "write [16] row, dynamic",
        "rows256": "write [256] row, dynamic",
        "map_fn": "map_fn, 1000 x [16] rows",
    }
    report(
        f"TensorArray, a {STEPS}-step loop in tf.function, then stack",
        [
            (label, ff[key] * 1e3, np_times[key] * 1e3, theirs and theirs[key] * 1e3)
            for key, label in labels.items()
        ],
        "ms per call",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
