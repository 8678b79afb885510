"""`tf.keras` training speed of a 2-layer Transformer encoder, ferroflow against TensorFlow.

Each block: MultiHeadAttention(4 heads, key_dim 32) self-attention, residual +
LayerNormalization, feed-forward Dense(256, relu) -> Dense(128), residual + LayerNormalization;
d_model 128, sequence length 64, batch 32; then GlobalAveragePooling1D -> Dense(1), MSE, Adam,
on synthetic normal inputs and targets (the speed does not depend on the values).

`fit` runs ``1 + EPOCHS`` epochs of STEPS steps; the first (which traces the step) is excluded
and the best timed epoch gives steps/s. ferroflow runs on the CPU and, when a GPU is visible
(lavapipe counts only with FERROFLOW_ALLOW_SOFTWARE_GPU=1, and shows that the path works, not
GPU speed), on GPU:0 with fewer steps; TensorFlow runs on the CPU in its own process.
``--quick`` uses fewer steps; ``--profile`` prints where ferroflow's CPU step spends its time.
"""

import json
import os
import subprocess
import sys

import numpy as np
from _harness import run_tensorflow
from bench_keras_models import epoch_timer

D_MODEL = 128
HEADS = 4
FFN = 256
SEQ = 64
BATCH = 32
BLOCKS = 2
# (steps per timed epoch, timed epochs); --quick and the GPU run shorten them.
FULL = (20, 3)
QUICK = (5, 1)
GPU_SCALE = 4


def make_model(tf):
    L = tf.keras.layers
    inputs = tf.keras.Input((SEQ, D_MODEL))
    h = inputs
    for _ in range(BLOCKS):
        a = L.MultiHeadAttention(HEADS, D_MODEL // HEADS)(h, h)
        h = L.LayerNormalization()(L.Add()([h, a]))
        f = L.Dense(D_MODEL)(L.Dense(FFN, activation="relu")(h))
        h = L.LayerNormalization()(L.Add()([h, f]))
    outputs = L.Dense(1)(L.GlobalAveragePooling1D()(h))
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="mse")
    return model


def data(steps):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps * BATCH, SEQ, D_MODEL)).astype(np.float32)
    y = rng.standard_normal((steps * BATCH, 1)).astype(np.float32)
    return x, y


def measure(tf, device, sizes):
    """{"train": steps/s, "loss": the last epoch's loss}."""
    steps, epochs = sizes
    x, y = data(steps)
    with tf.device(device):
        model = make_model(tf)
        timer = epoch_timer(tf)
        history = model.fit(x, y, batch_size=BATCH, epochs=1 + epochs, callbacks=[timer], verbose=0)
    return {"train": steps / min(timer.seconds[1:]), "loss": history.history["loss"][-1]}


def sizes_for(quick, scale=1):
    steps, epochs = QUICK if quick else FULL
    return max(2, steps // scale), epochs


def tensorflow_half(quick):
    import tensorflow as tf

    tf.config.set_visible_devices([], "GPU")
    print(json.dumps(measure(tf, "/CPU:0", sizes_for(quick))))


def gpu_half(quick):
    import ferroflow as tf

    if not tf.config.list_physical_devices("GPU"):
        print(json.dumps({}))
        return
    print(json.dumps(measure(tf, "/GPU:0", sizes_for(quick, GPU_SCALE))))


def profile():
    """The ferroflow CPU fit's hottest functions (cProfile, cumulative time)."""
    import cProfile
    import pstats

    import ferroflow as tf

    profiler = cProfile.Profile()
    profiler.enable()
    measure(tf, "/CPU:0", (5, 2))
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(quick):
    import ferroflow as tf

    sizes = sizes_for(quick)
    cpu = measure(tf, "/CPU:0", sizes)
    args = [sys.executable, __file__, "--gpu"] + (["--quick"] if quick else [])
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    gpu = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else {}
    tf_res = run_tensorflow(__file__, *(["--quick"] if quick else [])) or {}
    print(
        f"2-layer Transformer encoder fit: d={D_MODEL}, {HEADS} heads, seq {SEQ}, FFN {FFN}, "
        f"batch {BATCH}, Adam; best of {sizes[1]} epochs of {sizes[0]} steps after a warm-up "
        f"epoch; {os.cpu_count()} CPU cores"
    )
    rows = [("ferroflow CPU", cpu)]
    if gpu:
        rows.append((f"ferroflow GPU:0 ({sizes_for(quick, GPU_SCALE)[0]} steps)", gpu))
    if tf_res:
        rows.append(("tensorflow CPU", tf_res))
    print(f"  {'run':<34}{'steps/s':>10}{'vs tf':>8}{'loss':>10}")
    for label, res in rows:
        ratio = f"{res['train'] / tf_res['train']:.2f}x" if tf_res else "-"
        print(f"  {label:<34}{res['train']:>10.3g}{ratio:>8}{res['loss']:>10.4f}")
    print("  (vs tf: ferroflow's speed over TensorFlow CPU's; >1 is faster)")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--tensorflow" in sys.argv:
        tensorflow_half(quick)
    elif "--gpu" in sys.argv:
        gpu_half(quick)
    elif "--profile" in sys.argv:
        profile()
    else:
        main(quick)
