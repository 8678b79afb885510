"""Tracing cost: the seeds' Keras `Model(64)` (Dense 64 relu -> Dense 1) traced as a training
step (tape, loss, optimizer update) into a fresh `tf.function` each time, side by side with
TensorFlow. numpy has no tracing: its column is the eager numpy step, for scale."""

import json
import sys

from _harness import best_time, report, run_tensorflow
from bench_training_step import data, numpy_step


def make_trace(tf):
    x, y, _ = data()
    x, y = tf.constant(x[:, None]), tf.constant(y)

    class Model(tf.keras.Model):
        def __init__(self, units):
            super().__init__()
            self.dense1 = tf.keras.layers.Dense(units, activation=tf.nn.relu)
            self.dense2 = tf.keras.layers.Dense(1)

        def call(self, x, training=True):
            return tf.squeeze(self.dense2(self.dense1(x)), axis=1)

    model = Model(64)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    model(x)
    optimizer.build(model.trainable_variables)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((y - model(x)) ** 2)
        optimizer.apply_gradients(
            zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
        )
        return loss

    def trace():
        tf.function(step).get_concrete_function(x, y)

    return trace


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps({"trace": best_time(make_trace(tf), repeat=5, min_seconds=1.0) * 1e3}))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    ff = best_time(make_trace(tf), repeat=5, min_seconds=1.0) * 1e3
    np_step = best_time(numpy_step(*data()), min_seconds=0.5) * 1e3
    t = run_tensorflow(__file__) or {}
    report(
        "Tracing the seeds' Keras model (one training step)",
        [("trace a training step", ff, np_step, t.get("trace"))],
        "ms per trace",
    )


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_half()
    else:
        main()
