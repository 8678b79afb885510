"""Keras step times on GPU:0 beside ferroflow's CPU kernels in the same process: the MLP
(784-256-256-10, batch 128) and small CNN train steps, an LSTM(64) forward on 64x32x16 and a
MobileNetV2 forward on 8x224x224x3, each compiled as `fit` compiles them (a traced step).

Runs where a GPU adapter exists (FERROFLOW_ALLOW_SOFTWARE_GPU=1 counts lavapipe, whose figures
only show that the path works). TensorFlow is not needed: the TensorFlow side of these models is
in bench_keras_models.py, bench_keras_rnn.py and bench_keras_mobilenet.py.
"""

import numpy as np
from _harness import best_time


def models(keras):
    mlp = keras.Sequential(
        [
            keras.Input((784,)),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    cnn = keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(64, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(10),
        ]
    )
    return mlp, cnn


def train_step_ms(tf, device, build, x, y):
    with tf.device(device):
        model = build()
        model.compile(
            optimizer="adam",
            loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        )
        xs, ys = tf.constant(x), tf.constant(y)

        def step():
            model.train_on_batch(xs, ys)

        return best_time(step, repeat=5) * 1e3


def forward_ms(tf, device, build, x):
    with tf.device(device):
        model = build()
        xs = tf.constant(x)
        call = tf.function(lambda t: model(t, training=False))

        def run():
            call(xs).numpy()

        return best_time(run, repeat=3) * 1e3


def main():
    import ferroflow as tf

    if not tf.config.list_logical_devices("GPU"):
        print("\nKeras GPU benchmarks: no GPU adapter")
        return
    keras = tf.keras
    rng = np.random.default_rng(0)
    cases = [
        (
            "MLP train step, batch 128",
            lambda d: train_step_ms(
                tf,
                d,
                lambda: models(keras)[0],
                rng.standard_normal((128, 784), dtype=np.float32),
                rng.integers(0, 10, 128),
            ),
        ),
        (
            "CNN train step, batch 128",
            lambda d: train_step_ms(
                tf,
                d,
                lambda: models(keras)[1],
                rng.standard_normal((128, 28, 28, 1), dtype=np.float32),
                rng.integers(0, 10, 128),
            ),
        ),
        (
            "LSTM(64) forward, 64x32x16",
            lambda d: forward_ms(
                tf,
                d,
                lambda: keras.Sequential([keras.Input((32, 16)), keras.layers.LSTM(64)]),
                rng.standard_normal((64, 32, 16), dtype=np.float32),
            ),
        ),
        (
            "MobileNetV2 forward, 8x224x224x3",
            lambda d: forward_ms(
                tf,
                d,
                lambda: keras.applications.MobileNetV2(weights=None),
                rng.standard_normal((8, 224, 224, 3), dtype=np.float32),
            ),
        ),
    ]
    print(f"\n  {'Keras (ms)':<36}{'GPU:0':>10}{'CPU:0':>10}{'GPU/CPU':>9}")
    for name, measure in cases:
        gpu, cpu = measure("GPU:0"), measure("CPU:0")
        print(f"  {name:<36}{gpu:>10.3g}{cpu:>10.3g}{cpu / gpu:>8.2f}x")


if __name__ == "__main__":
    main()
