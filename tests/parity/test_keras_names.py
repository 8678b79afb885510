"""What Keras 3 under TensorFlow 2.21 prints and programs key on: `keras.Input`'s shape as a
tuple and dtype as a name, weight names without ``:0`` and their paths, the `Variable` class
and repr Keras shows, default layer names, and the top-level `tf.keras` names."""

from .harness import assert_parity


def _names(tf):
    import re

    inp = tf.keras.Input(shape=(784,))
    d = tf.keras.layers.Dense(3)
    out = d(inp)
    bn = tf.keras.layers.BatchNormalization()
    bn.build((None, 3))
    w = d.kernel
    return (
        repr(inp.shape),
        repr(inp.dtype),
        type(inp.shape).__name__,
        repr(out.shape),
        repr(w.name),
        w.path,
        type(w).__name__,
        # The value part of the repr differs with the random initial values.
        re.sub(r", value=.*", "", repr(w), flags=re.S),
        [(x.name, x.path, x.trainable) for x in bn.weights],
        str(w.dtype),
        w.dtype == "float32",
        w.dtype == tf.float32,
        str(w.shape),
        tf.keras.layers.Conv2D(2, 3).name.rstrip("_0123456789"),
        isinstance(d, tf.keras.Layer),
        tf.keras.Variable(1.0, name="v").name,
        tf.keras.KerasTensor is type(inp),
        tf.keras.version().split(".")[0],
    )


def test_names_reprs_and_classes(tf_oracle):
    assert_parity(tf_oracle, _names, ())
