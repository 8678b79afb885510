"""SavedModel on the CPU: saving and loading a 64 MiB model (16 float32 variables of 1M values
and one traced function), and calling the loaded function against calling the original.
numpy's column is `np.savez`/`np.load` of the same arrays (no functions, no fsync)."""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("FERROFLOW_VISIBLE_DEVICES", "")  # the CPU path: hide the GPUs

import numpy as np
from _harness import best_time, report, run_tensorflow

VARIABLES, SIZE = 16, 1 << 20


def build(tf):
    module = tf.Module()
    module.weights = [tf.Variable(tf.fill([SIZE], float(k))) for k in range(VARIABLES)]
    module.scale = tf.Variable(2.0)
    module.apply = tf.function(lambda x: x * module.scale + 1.0)
    module.apply(tf.constant([1.0, 2.0]))
    return module


def cases(tf, directory):
    module = build(tf)
    path = os.path.join(directory, "model")
    tf.saved_model.save(module, path)
    loaded = tf.saved_model.load(path)
    small = tf.constant([1.0, 2.0])
    return {
        "save": lambda: tf.saved_model.save(module, path),
        "load": lambda: tf.saved_model.load(path),
        "call_original": lambda: module.apply(small),
        "call_loaded": lambda: loaded.apply(small),
    }


def timings(tf, directory):
    return {
        name: best_time(fn, repeat=3 if name in ("save", "load") else 7)
        for name, fn in cases(tf, directory).items()
    }


def numpy_timings(directory):
    arrays = {f"w{k}": np.full([SIZE], float(k), np.float32) for k in range(VARIABLES)}
    path = os.path.join(directory, "arrays.npz")

    def load():
        with np.load(path) as data:
            [data[k] for k in data.files]

    np.savez(path, **arrays)
    return {
        "save": best_time(lambda: np.savez(path, **arrays), repeat=3),
        "load": best_time(load, 3),
    }


def tensorflow_half():
    import json

    import tensorflow as tf

    directory = tempfile.mkdtemp()
    try:
        print(json.dumps(timings(tf, directory)))
    finally:
        shutil.rmtree(directory)


def main():
    import ferroflow as tf

    directory = tempfile.mkdtemp()
    try:
        ff = timings(tf, directory)
        base = numpy_timings(directory)
    finally:
        shutil.rmtree(directory)
    t = run_tensorflow(__file__) or {}
    ms, us = 1e3, 1e6
    report(
        f"SavedModel, {VARIABLES} x {SIZE} float32 (64 MiB), CPU",
        [
            ("save", ff["save"] * ms, base["save"] * ms, t.get("save", 0) * ms or None),
            ("load", ff["load"] * ms, base["load"] * ms, t.get("load", 0) * ms or None),
        ],
        "ms",
    )
    report(
        "a small traced function, original and loaded",
        [
            (name, ff[name] * us, ff["call_original"] * us, t[name] * us if name in t else None)
            for name in ("call_original", "call_loaded")
        ],
        "us",
    )
    print("  (numpy column of the second table: ferroflow's own original function)")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
