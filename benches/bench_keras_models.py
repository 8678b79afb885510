"""`tf.keras` training and inference speed of two MNIST-sized models, ferroflow against
TensorFlow:

- mlp: Dense(256, relu) -> Dense(256, relu) -> Dense(10) on 60000 x 784 float32;
- cnn: Conv2D(32, 3, relu) -> MaxPooling2D(2) -> Conv2D(64, 3, relu) -> MaxPooling2D(2) ->
  Flatten -> Dense(10) on 60000 x 28 x 28 x 1 float32;

both with SparseCategoricalCrossentropy(from_logits=True), Adam, batch 128, on synthetic data
(uniform pixels, random labels: the speed does not depend on the values).

`fit` runs ``1 + EPOCHS`` epochs of ``steps_per_epoch`` steps over the whole data; the first
epoch (which traces the step) is excluded and the best timed epoch gives the steps/s. A callback
times the epochs, so `fit`'s set-up (data conversion, callbacks) is not counted. `predict` is
timed on the first samples, batch 128, after a warm-up call, best of REPEATS.

Runs ferroflow on the CPU (``tf.device('/CPU:0')``), ferroflow on GPU:0 when one is visible
(lavapipe, a software Vulkan device, counts only with FERROFLOW_ALLOW_SOFTWARE_GPU=1: its
figures show that the path works, not GPU speed), and TensorFlow on the CPU, each in its own
process. ``--quick`` uses fewer steps.
"""

import json
import os
import subprocess
import sys
import time

import numpy as np
from _harness import run_tensorflow

SAMPLES = 60000
CLASSES = 10
BATCH = 128
REPEATS = 2
# (steps per timed epoch, timed epochs, predict samples) per model; --quick shortens them.
FULL = {"mlp": (100, 3, 8192), "cnn": (20, 2, 2048)}
QUICK = {"mlp": (20, 1, 2048), "cnn": (6, 1, 512)}
# lavapipe runs the GPU kernels on the CPU, much slower than ferroflow's CPU kernels.
GPU_SCALE = 4


def data(kind):
    """Synthetic MNIST: float pixels in [0, 1) and integer labels, seeded."""
    rng = np.random.default_rng(0)
    x = rng.random((SAMPLES, 784), dtype=np.float32)
    y = rng.integers(0, CLASSES, SAMPLES).astype(np.int64)
    return (x if kind == "mlp" else x.reshape(SAMPLES, 28, 28, 1)), y


def make_model(tf, kind):
    layers = tf.keras.layers
    if kind == "mlp":
        stack = [
            tf.keras.Input((784,)),
            layers.Dense(256, activation="relu"),
            layers.Dense(256, activation="relu"),
            layers.Dense(CLASSES),
        ]
    else:
        stack = [
            tf.keras.Input((28, 28, 1)),
            layers.Conv2D(32, 3, activation="relu"),
            layers.MaxPooling2D(2),
            layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(CLASSES),
        ]
    model = tf.keras.Sequential(stack)
    model.compile(
        optimizer=tf.keras.optimizers.Adam(),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


def epoch_timer(tf):
    """A callback recording each epoch's wall time (reading the loss first, so that work
    queued on a GPU is finished)."""

    class EpochTimer(tf.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.seconds = []

        def on_epoch_begin(self, epoch, logs=None):
            self._start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            float(logs["loss"])
            self.seconds.append(time.perf_counter() - self._start)

    return EpochTimer()


def measure(tf, kind, sizes):
    """{"train": steps/s, "predict": samples/s, "loss": last epoch's loss}."""
    steps, epochs, predict_samples = sizes
    # All epochs draw from one pass over the data (steps_per_epoch continues the iterator).
    if steps * (1 + epochs) > SAMPLES // BATCH:
        raise ValueError(f"{steps} steps x {1 + epochs} epochs exceed one pass over the data")
    x, y = data(kind)
    model = make_model(tf, kind)
    timer = epoch_timer(tf)
    history = model.fit(
        x,
        y,
        batch_size=BATCH,
        epochs=1 + epochs,
        steps_per_epoch=steps,
        callbacks=[timer],
        verbose=0,
    )
    train = steps / min(timer.seconds[1:])
    sample = x[:predict_samples]
    model.predict(sample[:BATCH], batch_size=BATCH, verbose=0)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        model.predict(sample, batch_size=BATCH, verbose=0)
        best = min(best, time.perf_counter() - start)
    return {"train": train, "predict": predict_samples / best, "loss": history.history["loss"][-1]}


def run_all(tf, device, sizes):
    with tf.device(device):
        return {kind: measure(tf, kind, sizes[kind]) for kind in sizes}


def sizes_for(quick, scale=1):
    table = QUICK if quick else FULL
    return {
        kind: (max(2, steps // scale), epochs, max(BATCH, samples // scale))
        for kind, (steps, epochs, samples) in table.items()
    }


def tensorflow_half(quick):
    import tensorflow as tf

    tf.config.set_visible_devices([], "GPU")
    print(json.dumps(run_all(tf, "/CPU:0", sizes_for(quick))))


def gpu_half(quick):
    """Prints {"adapter": ..., "results": ...} or {} when no GPU is visible."""
    import ferroflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        print(json.dumps({}))
        return
    details = tf.config.experimental.get_device_details(gpus[0])
    adapter = f"{details['device_name']}, {details['backend']}"
    if details.get("software"):
        adapter += ", software rasteriser"
    results = run_all(tf, "/GPU:0", sizes_for(quick, GPU_SCALE))
    print(json.dumps({"adapter": adapter, "results": results}))


def ferroflow_gpu(quick):
    args = [sys.executable, __file__, "--gpu"] + (["--quick"] if quick else [])
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"  (ferroflow GPU run failed: {out.stderr.strip().splitlines()[-1:]})")
        return {}
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(kind, sizes, gpu_sizes, cpu, gpu, tf_res):
    rows = [(f"ferroflow CPU ({sizes[0]} steps x {sizes[1]})", cpu)]
    if gpu:
        rows.append((f"ferroflow GPU ({gpu_sizes[0]} steps x {gpu_sizes[1]})", gpu))
    if tf_res:
        rows.append((f"tensorflow CPU ({sizes[0]} steps x {sizes[1]})", tf_res))
    print(f"\n{kind}, batch {BATCH}, Adam  [fit: steps/s; predict: samples/s]")
    print(f"  {'run':<34}{'fit':>10}{'vs tf':>8}{'predict':>11}{'vs tf':>8}{'loss':>9}")
    for label, res in rows:

        def ratio(key, res=res):
            return f"{res[key] / tf_res[key]:.2f}x" if tf_res else "-"

        print(
            f"  {label:<34}{res['train']:>10.3g}{ratio('train'):>8}"
            f"{res['predict']:>11.4g}{ratio('predict'):>8}{res['loss']:>9.4f}"
        )


def main(quick):
    import ferroflow as tf

    sizes = sizes_for(quick)
    gpu_sizes = sizes_for(quick, GPU_SCALE)
    print(
        f"Keras models, {SAMPLES} synthetic samples, batch {BATCH}; fit timed over the best of "
        f"N epochs of S steps after one warm-up epoch (S x N shown){' [--quick]' if quick else ''}"
        f"; predict over {', '.join(f'{k}: {v[2]}' for k, v in sizes.items())} samples "
        f"(GPU: {', '.join(f'{k}: {v[2]}' for k, v in gpu_sizes.items())}); "
        f"{os.cpu_count()} CPU cores"
    )
    cpu = run_all(tf, "/CPU:0", sizes)
    gpu = ferroflow_gpu(quick)
    tf_res = run_tensorflow(__file__, *(["--quick"] if quick else [])) or {}
    if gpu:
        print(f"ferroflow GPU:0 is {gpu['adapter']}")
    else:
        print("no ferroflow GPU visible (FERROFLOW_ALLOW_SOFTWARE_GPU=1 counts lavapipe)")
    if not tf_res:
        print("TensorFlow not available: comparison skipped")
    for kind in sizes:
        print_table(
            kind,
            sizes[kind],
            gpu_sizes[kind],
            cpu[kind],
            gpu.get("results", {}).get(kind),
            tf_res.get(kind),
        )
    print("  (vs tf: ferroflow's speed over TensorFlow CPU's; >1 is faster)")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--tensorflow" in sys.argv:
        tensorflow_half(quick)
    elif "--gpu" in sys.argv:
        gpu_half(quick)
    else:
        main(quick)
