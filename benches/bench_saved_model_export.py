"""Writing a SavedModel TensorFlow loads: a Keras MobileNetV2 (weights=None, 224×224, 3.5 M
parameters) exported with `model.export()` by ferroflow and by TensorFlow, then both
directories loaded by TensorFlow. Rows: the export's time in each framework; TensorFlow's
time to load the ferroflow-written and its own directory; and one `serve` call of each in
TensorFlow on a batch of 8. The ferroflow-written model's logits in TensorFlow are checked
against the ones ferroflow computed before saving (the largest difference, relative to the
largest logit: untrained and batch-calibrated, the deep network magnifies float rounding, so
expect about 1e-3 rather than 1e-6).

    python benches/bench_saved_model_export.py
"""

import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
from _harness import best_time, report, run_tensorflow

BATCH = 8


def model_and_input(tf):
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.applications.MobileNetV2(weights=None, classifier_activation=None)
    x = np.linspace(-1, 1, BATCH * 224 * 224 * 3, dtype=np.float32).reshape(BATCH, 224, 224, 3)
    # Untrained, MobileNetV2's activations shrink to nothing (in both frameworks), so any two
    # computations would agree: set the batch norms' statistics from the batch first.
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            layer.momentum = 0.0
    model(x, training=True)
    return model, x


def export_time(model, directory):
    start = time.perf_counter()
    model.export(directory, verbose=False)
    return time.perf_counter() - start


def tensorflow_half(ferroflow_dir, tensorflow_dir):
    import tensorflow as tf

    model, x = model_and_input(tf)
    exported = export_time(model, tensorflow_dir)
    result = {"export": exported}
    for name, directory in (("ferroflow", ferroflow_dir), ("tensorflow", tensorflow_dir)):
        loaded = tf.saved_model.load(directory)
        result[f"load_{name}"] = best_time(lambda d=directory: tf.saved_model.load(d), repeat=3)
        result[f"call_{name}"] = best_time(lambda m=loaded: m.serve(x), repeat=3)
        if name == "ferroflow":
            expected = np.load(os.path.join(os.path.dirname(directory), "expected.npy"))
            difference = np.max(np.abs(loaded.serve(x).numpy() - expected))
            result["difference"] = float(difference / np.max(np.abs(expected)))
    print(json.dumps(result))


def main():
    import ferroflow as tf

    workspace = tempfile.mkdtemp()
    ours, theirs = os.path.join(workspace, "ferroflow"), os.path.join(workspace, "tensorflow")
    try:
        model, x = model_and_input(tf)
        exported = export_time(model, ours)
        np.save(os.path.join(workspace, "expected.npy"), model(x, training=False).numpy())
        pb_mb = os.path.getsize(os.path.join(ours, "saved_model.pb")) / 1e6
        t = run_tensorflow(__file__, ours, theirs)
    finally:
        shutil.rmtree(workspace)
    if t is None:
        print("TensorFlow's half did not run: nothing loaded the exported model")
        return
    ms = 1e3
    report(
        f"MobileNetV2 SavedModel export (saved_model.pb {pb_mb:.1f} MB), CPU",
        [
            ("model.export()", exported * ms, None, t["export"] * ms),
            ("TensorFlow loads it (ours | its own)", t["load_ferroflow"] * ms, None,
             t["load_tensorflow"] * ms),
            (f"serve in TensorFlow, batch {BATCH} (ours | its own)", t["call_ferroflow"] * ms,
             None, t["call_tensorflow"] * ms),
        ],
        "ms",
    )  # fmt: skip
    print(
        "  largest difference from ferroflow's logits before saving, relative to the largest "
        f"logit: {t['difference']:.3g}"
    )


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_half(*sys.argv[2:4])
    else:
        main()
