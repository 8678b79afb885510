"""`tf.keras.layers.LSTM(64)` speed on 64 x 32 x 16 batches (batch 64, 32 steps, 16 features),
ferroflow against TensorFlow (CPU, its own process): the forward pass eagerly and inside
`tf.function`, and one `tf.function` train step (LSTM(64) -> Dense(1), MSE, Adam, gradients
through the graph loop). Best of repeats after a warm-up call (the trace is not timed).
``--quick`` times fewer rounds."""

import json
import sys

import numpy as np
from _harness import best_time, run_tensorflow

BATCH, STEPS, FEATURES, UNITS = 64, 32, 16, 64


def measure(tf, repeat):
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32))
    y = tf.constant(rng.standard_normal((BATCH, 1)).astype(np.float32))
    model = tf.keras.Sequential(
        [tf.keras.Input((STEPS, FEATURES)), tf.keras.layers.LSTM(UNITS), tf.keras.layers.Dense(1)]
    )
    lstm = model.layers[0]
    optimizer = tf.keras.optimizers.Adam(1e-3)
    forward = tf.function(lambda t: lstm(t))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return {
        "forward eager (ms)": 1e3 * best_time(lambda: lstm(x).numpy(), repeat=repeat),
        "forward tf.function (ms)": 1e3 * best_time(lambda: forward(x).numpy(), repeat=repeat),
        "train step tf.function (ms)": 1e3
        * best_time(lambda: train_step(x, y).numpy(), repeat=repeat),
    }


def main(quick):
    import ferroflow as tf

    repeat = 3 if quick else 7
    with tf.device("/CPU:0"):
        ff = measure(tf, repeat)
    theirs = run_tensorflow(__file__, *(["--quick"] if quick else [])) or {}
    print(
        f"LSTM({UNITS}) on {BATCH}x{STEPS}x{FEATURES} batches, CPU, best of {repeat} "
        "(ratio: TensorFlow's time over ferroflow's, >1 means ferroflow is faster)"
    )
    print(f"  {'case':<30}{'ferroflow':>12}{'tensorflow':>12}{'ratio':>8}")
    for case, value in ff.items():
        other = theirs.get(case)
        ratio = f"{other / value:.2f}x" if other else "-"
        shown = f"{other:.3f}" if other else "-"
        print(f"  {case:<30}{value:>12.3f}{shown:>12}{ratio:>8}")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--tensorflow" in sys.argv:
        import tensorflow as tf

        tf.config.set_visible_devices([], "GPU")
        print(json.dumps(measure(tf, 3 if quick else 7)))
    else:
        main(quick)
