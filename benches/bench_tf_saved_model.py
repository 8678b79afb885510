"""Loading a SavedModel that TensorFlow wrote (a Keras MLP of 2048 → 3072 → 2048 → 1000
units: 58 MB of float32 weights, which `model.export()` stores twice, 117 MB on disk),
ferroflow beside TensorFlow: the time to load the directory and the time of one
`serving_default` call on a batch of 32. The TensorFlow half (its own interpreter) writes the
directory and times itself; ferroflow then loads TensorFlow's
files and checks its outputs against TensorFlow's (printed as the largest difference).
numpy's column is `np.load` of the same weights from an `.npz` (no graph, no functions).

    python benches/bench_tf_saved_model.py
"""

import os
import shutil
import sys
import tempfile

import numpy as np
from _harness import best_time, report, run_tensorflow

UNITS = [2048, 3072, 2048, 1000]
BATCH = 32


def batch():
    return np.linspace(-1, 1, BATCH * UNITS[0], dtype=np.float32).reshape(BATCH, UNITS[0])


def timings(tf, directory):
    loaded = tf.saved_model.load(directory)
    signature = loaded.signatures["serving_default"]
    x = batch()
    outputs = signature(features=x)
    return {
        "load": best_time(lambda: tf.saved_model.load(directory), repeat=3),
        "call": best_time(lambda: signature(features=x), repeat=5),
        "output": np.asarray(next(iter(outputs.values()))).tolist(),
    }


def tensorflow_half(directory):
    import json

    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    inputs = tf.keras.Input((UNITS[0],), name="features")
    x = inputs
    for units in UNITS[1:-1]:
        x = tf.keras.layers.Dense(units, activation="relu")(x)
    outputs = tf.keras.layers.Dense(UNITS[-1], activation="softmax")(x)
    model = tf.keras.Model(inputs, outputs)
    model.export(directory, verbose=False)
    np.savez(os.path.join(os.path.dirname(directory), "weights.npz"), *model.get_weights())
    print(json.dumps(timings(tf, directory)))


def size_mb(directory):
    total = sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(directory)
        for name in names
    )
    return total / 1e6


def main():
    import ferroflow as tf

    workspace = tempfile.mkdtemp()
    directory = os.path.join(workspace, "model")
    try:
        t = run_tensorflow(__file__, directory)
        if t is None:
            print("TensorFlow's half did not run: there is no TensorFlow-written model to load")
            return
        ff = timings(tf, directory)

        def load_npz():
            with np.load(os.path.join(workspace, "weights.npz")) as data:
                [data[k] for k in data.files]

        base = best_time(load_npz, repeat=3)
        difference = np.max(np.abs(np.array(ff["output"]) - np.array(t["output"])))
        megabytes = size_mb(directory)
    finally:
        shutil.rmtree(workspace)
    ms = 1e3
    report(
        f"TensorFlow-written SavedModel ({megabytes:.0f} MB), CPU",
        [
            ("load", ff["load"] * ms, base * ms, t["load"] * ms),
            (f"serving_default, batch {BATCH}", ff["call"] * ms, None, t["call"] * ms),
        ],
        "ms",
    )
    print(f"  largest difference from TensorFlow's outputs: {difference:.3g}")


if __name__ == "__main__":
    tensorflow_half(sys.argv[2]) if "--tensorflow" in sys.argv else main()
