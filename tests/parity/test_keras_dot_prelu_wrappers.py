"""`Dot`/`dot`, `PReLU`, `ThresholdedReLU`, `Wrapper`, `TFSMLayer` and
`tf.keras.layers.serialize`/`deserialize` against Keras 3 under TensorFlow 2.21 on both
devices: outputs and gradients with fixed weights (eager and traced), functional shapes,
configs and their round trips, default names, argument errors, a fit, and a SavedModel called
through `TFSMLayer`."""

import pytest

from ._outcomes import error_classes, output_and_gradient
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _dot(tf, device):
    import numpy as np

    rng = np.random.default_rng(0)
    a2, b2 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    a3, b3 = rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 4, 6))
    a4, b4 = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 5, 3, 2))
    L = tf.keras.layers
    cases = [
        (L.Dot(axes=1), a2, b2),
        (L.Dot(axes=-1, normalize=True), a2, b2),
        (L.Dot(axes=(2, 1)), a3, b3),
        (L.Dot(axes=[1, 2]), b3, a3.transpose(0, 2, 1)),
        (L.Dot(axes=(2, 1), normalize=True), a3, b3),
        (L.Dot(axes=(-1, 1)), a4, b4),
        (L.Dot(axes=(1, 2)), a4, b4),
        (L.Dot(axes=(2, 1)), a3, b2[:, :, None].repeat(6, 2)[:, :, 0]),
        (L.Dot(axes=1), a2, b3[:, :, 0]),
    ]
    out = []
    with tf.device(device):
        for layer, x, y in cases:
            tx, ty = tf.constant(x.astype(np.float32)), tf.constant(y.astype(np.float32))
            with tf.GradientTape() as tape:
                tape.watch([tx, ty])
                z = layer([tx, ty])
                loss = tf.reduce_sum(z * z)
            traced = tf.function(lambda p, q, layer=layer: layer([p, q]))(tx, ty)
            out.append((z, tape.gradient(loss, [tx, ty]), traced))
        out.append(L.dot([tf.constant(a2), tf.constant(b2)], axes=1))
        # Unknown sizes while tracing: the squashing reshapes read them at run time.
        layer = L.Dot(axes=(-1, 1))
        spec = [tf.TensorSpec([None, 3, None, 5]), tf.TensorSpec([None, 5, None, 2])]
        dynamic = tf.function(lambda p, q: layer([p, q]), input_signature=spec)
        out.append(dynamic(a4.astype(np.float32), b4.astype(np.float32)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dot_outputs_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _dot, (device,), rtol=1e-5, atol=1e-5)


def _activations(tf, device):
    import numpy as np

    x = np.linspace(-3, 3, 60, dtype=np.float32).reshape(2, 5, 6)
    L = tf.keras.layers
    out = []
    with tf.device(device):
        t = tf.constant(x)
        for layer in (L.PReLU(), L.PReLU(shared_axes=1), L.PReLU(shared_axes=[1, 2])):
            layer.build(x.shape)
            alpha = layer.get_weights()[0]
            layer.set_weights(
                [np.linspace(-0.5, 0.8, alpha.size, dtype=np.float32).reshape(alpha.shape)]
            )
            with tf.GradientTape() as tape:
                tape.watch(t)
                y = layer(t)
                loss = tf.reduce_sum(y * y)
            grads = tape.gradient(loss, [t, layer.alpha])
            out.append((y, grads, tf.function(lambda v, layer=layer: layer(v))(t)))
        for theta in (1.0, 0.0, 2.5):
            layer = L.ThresholdedReLU(theta=theta)
            out.append(output_and_gradient(tf, layer, t))
            out.append(tf.function(lambda v, layer=layer: layer(v))(t))
        out.append(L.ThresholdedReLU(dtype="float64")(tf.constant(x.astype(np.float64))))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_prelu_and_thresholded_relu(tf_oracle, device):
    assert_parity(
        tf_oracle, _activations, (device,), rtol=1e-5, atol=1e-6, helpers=[output_and_gradient]
    )


def _configs_errors(tf):
    L = tf.keras.layers
    out = []
    for layer, shapes in (
        (L.Dot(axes=(2, 1), normalize=True), [(5, 4), (4, 6)]),
        (L.Dot(axes=1), [(4,), (4,)]),
        (L.PReLU(alpha_initializer="ones", shared_axes=[1]), [(5, 4)]),
        (L.ThresholdedReLU(0.5), [(5, 4)]),
    ):
        inputs = [tf.keras.Input(s) for s in shapes]
        symbolic = layer(inputs if len(inputs) > 1 else inputs[0])
        config = layer.get_config()
        back = type(layer).from_config(dict(config))
        out.append((layer.name, tuple(symbolic.shape), config, back.get_config() == config))
    wrapper = L.Wrapper(L.Dense(3, name="inner"))
    config = wrapper.get_config()
    out.append((wrapper.name, config, L.Wrapper.from_config(dict(config)).get_config() == config))
    dense = L.Dense(2, activation="relu", name="d")
    serialized = L.serialize(dense)
    out.append((serialized, L.deserialize(serialized).get_config() == dense.get_config()))
    out.append(
        type(
            L.deserialize({"module": "keras.layers", "class_name": "PReLU", "config": {}})
        ).__name__
    )
    out.append(L.PReLU(shared_axes=2).shared_axes)
    out += error_classes(
        [
            lambda: L.Dot(axes="1"),
            lambda: L.Dot(axes=(1, 2, 3)),
            lambda: L.Dot(axes=(1.0, 2)),
            lambda: L.Dot(axes=1)([tf.ones((2, 3)), tf.ones((2, 4))]),
            lambda: L.Dot(axes=1)(tf.ones((2, 3))),
            lambda: L.Dot(axes=0)([tf.ones((2, 3)), tf.ones((2, 3))]),
            lambda: L.Dot(axes=1)([tf.ones((2,)), tf.ones((2,))]),
            lambda: L.ThresholdedReLU(theta=None),
            lambda: L.ThresholdedReLU(theta=-1.0),
            lambda: L.Wrapper("dense"),
            lambda: (lambda w: (w.build((2, 3)), w(tf.ones((2, 3)))))(
                type("W", (L.Wrapper,), {})(L.Dense(2))
            ),
            lambda: L.deserialize({"class_name": "NoSuchLayer", "config": {}}),
        ]
    )
    prelu = L.PReLU(shared_axes=[1])
    prelu(tf.ones((2, 3, 4)))
    out += error_classes([lambda: prelu(tf.ones((2, 5, 6)))])
    return out


def test_configs_names_shapes_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_errors, rtol=0, atol=0, helpers=[error_classes])


def _fit(tf, device):
    import numpy as np

    rng = np.random.default_rng(4)
    x1 = rng.normal(size=(16, 4)).astype(np.float32)
    x2 = rng.normal(size=(16, 3, 4)).astype(np.float32)
    y = rng.normal(size=(16, 3)).astype(np.float32)
    L = tf.keras.layers
    with tf.device(device):
        a, b = tf.keras.Input((4,)), tf.keras.Input((3, 4))
        h = L.Dense(4, kernel_initializer="ones")(a)
        h = L.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.2))(h)
        z = L.Dot(axes=(1, 2))([h, b])
        z = L.ThresholdedReLU(0.1)(z)
        model = tf.keras.Model([a, b], z)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
        history = model.fit([x1, x2], y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        return history.history["loss"], model.get_weights()


@pytest.mark.parametrize("device", DEVICES)
def test_fit(tf_oracle, device):
    assert_parity(tf_oracle, _fit, (device,), rtol=1e-5, atol=1e-6)


def _tfsm_layer(tf, path):
    import numpy as np

    class Scaler(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="w")
            self.b = tf.Variable([0.25, -0.25], name="b", trainable=False)

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def serve(self, x):
            return tf.matmul(x, self.w) + self.b

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def train(self, x):
            return tf.matmul(x, self.w) * 2.0

    module = Scaler()
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})
    L = tf.keras.layers
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    layer = L.TFSMLayer(path)
    both = L.TFSMLayer(path, call_endpoint="serving_default", call_training_endpoint="train")
    out = [
        layer.name,
        layer(x),
        both(x),
        both(x, training=True),
        sorted(w.name.split(":")[0] for w in layer.weights),
        [w.trainable for w in layer.weights],
        {k: v for k, v in layer.get_config().items() if k not in ("filepath", "dtype")},
    ]
    inputs = tf.keras.Input((2,))
    model = tf.keras.Model(inputs, L.TFSMLayer(path)(inputs))
    out.append(model(x))
    out += error_classes(
        [
            lambda: L.TFSMLayer(path, call_endpoint="missing"),
            lambda: L.TFSMLayer(path, call_training_endpoint="missing"),
            lambda: L.TFSMLayer.from_config(layer.get_config()),
        ]
    )
    return out


def test_tfsm_layer(tf_oracle, tmp_path):
    assert_parity(
        tf_oracle,
        _tfsm_layer,
        (str(tmp_path / "saved"),),
        rtol=1e-6,
        atol=1e-6,
        helpers=[error_classes],
    )
