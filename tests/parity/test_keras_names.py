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


def _paths(tf):
    K = tf.keras
    K.backend.clear_session()
    m = K.Sequential([K.Input((3,)), K.layers.Dense(4, name="first"), K.layers.Dense(2)])
    inp = K.Input((3,))
    functional = K.Model(inp, K.layers.Dense(2)(K.layers.Dense(4)(inp)))

    class MyModel(K.Model):
        def __init__(self):
            super().__init__()
            self.d = K.layers.Dense(2)
            self.inner = K.Sequential([K.layers.Dense(3)])

        def call(self, x):
            return self.d(self.inner(x))

    subclassed = MyModel()
    subclassed(tf.ones((1, 3)))
    lstm = K.layers.Bidirectional(K.layers.LSTM(2))
    lstm(tf.ones((1, 2, 3)))
    built = K.Sequential([K.layers.Dense(3), K.layers.BatchNormalization()])
    built(tf.ones((2, 4)))
    alone = K.layers.Dense(2)
    alone.build((None, 3))
    mha = K.layers.MultiHeadAttention(2, 4)
    mha(tf.ones((1, 3, 8)), tf.ones((1, 3, 8)))
    models = (m, functional, subclassed, lstm, built, alone, mha)
    return [[v.path for v in model.weights] for model in models]


def test_variable_paths_follow_name_scopes(tf_oracle):
    assert_parity(tf_oracle, _paths, ())


def _state_variables(tf):
    K = tf.keras
    K.backend.clear_session()
    metric = K.metrics.Precision()
    adam = K.optimizers.Adam()
    dense = K.layers.Dense(2)
    dense.build((None, 3))
    adam.build(dense.trainable_variables)
    model = K.Sequential([K.layers.Dense(2)])
    model.build((None, 3))
    sgd = K.optimizers.SGD(momentum=0.9)
    sgd.build(model.trainable_variables)
    return [
        [(v.name, v.path, type(v).__name__) for v in owner.variables]
        for owner in (metric, adam, sgd)
    ]


def test_optimizer_and_metric_variables_are_keras_variables(tf_oracle):
    assert_parity(tf_oracle, _state_variables, ())
