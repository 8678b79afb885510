"""The seeds' basics guide on ferroflow: tensors, ops, and the training data, plotted.

Run with `make demo`. Writes out/basics_data.png. (Training joins this demo as variables,
autodiff and Keras land.)
"""

import os

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


def plot(x, y):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    matplotlib.rcParams["figure.figsize"] = [9, 6]
    plt.plot(x.numpy(), y.numpy(), ".", label="Data")
    plt.plot(x, f(x), label="Ground truth")
    plt.legend()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.abspath(os.path.join(OUT, "basics_data.png"))
    plt.savefig(path)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    tensors()
    x, y = training_data()
    residual = y - f(x)
    print(
        f"\n201 noisy points of f(x) = x**2 + 2x - 5: residual mean "
        f"{float(tf.reduce_mean(residual)):.3f}, std {float(tf.math.reduce_std(residual)):.3f}"
    )
    plot(x, y)
