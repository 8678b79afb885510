"""The seeds' basics guide on ferroflow, end to end: tensors and ops, then the training of the
guide's `Model(64)` on noisy quadratic data, first with a hand-written loop (printing the mean
squared error every 100 steps), then with Keras's `compile`/`fit`, and `model.save`.

Run with `make demo`. Writes to out/: basics_data.png (data and ground truth),
basics_before.png and basics_after.png (predictions before and after the custom loop),
basics_fit.png (the fitted model) and basics_loss.png (fit's loss curve), the saved model, a
version of it for ferroflow-serve (out/serving/basics/1) and a TensorBoard log of the fit in
out/logs (`tensorboard --logdir out/logs` shows it).
"""

import os
import shutil
import time

import ferroflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out")


def tensors():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    print(x)
    print(x.shape)
    print(x.dtype)
    for text, value in [
        ("x + x", x + x),
        ("5 * x", 5 * x),
        ("x @ tf.transpose(x)", x @ tf.transpose(x)),
        ("tf.concat([x, x, x], axis=0)", tf.concat([x, x, x], axis=0)),
        ("tf.nn.softmax(x, axis=-1)", tf.nn.softmax(x, axis=-1)),
        ("tf.reduce_sum(x)", tf.reduce_sum(x)),
    ]:
        print(f"\n>>> {text}\n{value!r}")
    if tf.config.list_physical_devices("GPU"):
        print("\nTensorFlow **IS** using the GPU")
    else:
        print("\nTensorFlow **IS NOT** using the GPU")


def f(x):
    return x**2 + 2 * x - 5


def training_data():
    tf.random.set_seed(42)
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = f(x) + tf.random.normal(shape=[201])
    return x, y


class Model(tf.keras.Model):
    """The guide's model: one hidden layer of `units` ReLUs, as written there."""

    def __init__(self, units):
        super().__init__()
        self.dense1 = tf.keras.layers.Dense(
            units=units,
            activation=tf.nn.relu,
            kernel_initializer=tf.random.normal,
            bias_initializer=tf.random.normal,
        )
        self.dense2 = tf.keras.layers.Dense(1)

    def call(self, x, training=True):
        x = x[:, tf.newaxis]
        x = self.dense1(x)
        x = self.dense2(x)
        return tf.squeeze(x, axis=1)


def custom_loop(model, x, y):
    variables = model.variables
    optimizer = tf.optimizers.SGD(learning_rate=0.01)
    for step in range(1000):
        with tf.GradientTape() as tape:
            prediction = model(x)
            error = (y - prediction) ** 2
            mean_error = tf.reduce_mean(error)
        gradient = tape.gradient(mean_error, variables)
        optimizer.apply_gradients(zip(gradient, variables))
        if step % 100 == 0:
            print(f"Mean squared error: {mean_error.numpy():0.3f}")


def keras_fit(x, y):
    new_model = Model(64)
    new_model.compile(loss=tf.keras.losses.MSE, optimizer=tf.optimizers.SGD(learning_rate=0.01))
    logs = os.path.abspath(os.path.join(OUT, "logs"))
    shutil.rmtree(logs, ignore_errors=True)  # one run's log, not every run's
    board = tf.keras.callbacks.TensorBoard(logs, histogram_freq=10)
    start = time.perf_counter()
    history = new_model.fit(x, y, epochs=100, batch_size=32, verbose=0, callbacks=[board])
    seconds = time.perf_counter() - start
    losses = history.history["loss"]
    print(
        f"\nfit: 100 epochs of 7 steps in {seconds:.2f} s; loss {losses[0]:.3f} -> {losses[-1]:.3f}"
    )
    print(f"wrote a TensorBoard log of the fit to {logs}")
    return new_model, history


class Plots:
    """Writes the guide's figures as PNG files (matplotlib without a display)."""

    def __init__(self, x, y):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot

        matplotlib.rcParams["figure.figsize"] = [9, 6]
        self.plt = pyplot
        self.x, self.y = x, y
        os.makedirs(OUT, exist_ok=True)

    def _save(self, name):
        path = os.path.abspath(os.path.join(OUT, name))
        self.plt.savefig(path)
        self.plt.close()
        print(f"wrote {path}")

    def data(self):
        self.plt.plot(self.x.numpy(), self.y.numpy(), ".", label="Data")
        self.plt.plot(self.x, f(self.x), label="Ground truth")
        self.plt.legend()
        self._save("basics_data.png")

    def predictions(self, model, label, title, name):
        self.plt.plot(self.x.numpy(), self.y.numpy(), ".", label="data")
        self.plt.plot(self.x, f(self.x), label="Ground truth")
        self.plt.plot(self.x, model(self.x), label=label)
        self.plt.title(title)
        self.plt.legend()
        self._save(name)

    def loss(self, history):
        self.plt.plot(history.history["loss"])
        self.plt.xlabel("Epoch")
        self.plt.ylim([0, max(self.plt.ylim())])
        self.plt.ylabel("Loss [Mean Squared Error]")
        self.plt.title("Keras training progress")
        self._save("basics_loss.png")


def main():
    tensors()
    x, y = training_data()
    plots = Plots(x, y)
    print()
    plots.data()

    model = Model(64)
    plots.predictions(model, "Untrained predictions", "Before training", "basics_before.png")
    print()
    custom_loop(model, x, y)
    plots.predictions(model, "Trained predictions", "After training", "basics_after.png")

    new_model, history = keras_fit(x, y)
    plots.predictions(new_model, "Fitted predictions", "After Model.fit", "basics_fit.png")
    plots.loss(history)

    saved = os.path.abspath(os.path.join(OUT, "my_model"))
    model.save(saved)
    reloaded = tf.keras.models.load_model(saved)
    same = bool(tf.reduce_all(tf.abs(reloaded(x) - model(x)) < 1e-6))
    print(f"saved and reloaded {saved}: same predictions: {same}")

    # Version 1 of a model that ferroflow-serve serves (README, "Serving models over HTTP"):
    # a signature taking any number of points.
    serve = tf.function(
        lambda x: model(x), input_signature=[tf.TensorSpec([None], tf.float32, name="x")]
    )
    tf.saved_model.save(model, os.path.join(OUT, "serving", "basics", "1"), signatures=serve)


if __name__ == "__main__":
    main()
