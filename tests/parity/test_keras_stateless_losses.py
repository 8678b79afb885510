"""`keras.StatelessScope(collect_losses=True)` against Keras 3 under TensorFlow 2.21: losses
added with `add_loss` inside the scope go to ``scope.losses`` (and a layer's ``losses`` lists
its own while the scope lasts), not to the layers; a scope that does not collect drops them."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _stateless_losses(tf, device):
    import numpy as np

    k = tf.keras

    class AddsLoss(k.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x * 2.0

    def values(losses):
        return [np.asarray(loss) for loss in losses]

    out = []
    x = np.arange(6, dtype="float32").reshape(2, 3)
    with tf.device(device):
        layer = AddsLoss()
        layer(x)
        out.append(values(layer.losses))
        with k.StatelessScope(collect_losses=True) as scope:
            layer(x * 3.0)
            out.append(values(layer.losses))
            out.append(values(scope.losses))
            # A second outermost call replaces the layer's collected losses.
            layer(x + 1.0)
            out.append(values(scope.losses))
            other = AddsLoss()
            other(x)
            layer.add_loss(tf.constant(5.0))
            out += [values(scope.losses), values(layer.losses), values(other.losses)]
        out += [values(scope.losses), values(layer.losses), values(other.losses)]
        with k.StatelessScope() as quiet:
            layer(x)
            out += [values(layer.losses), values(quiet.losses)]
        out += [values(quiet.losses), values(layer.losses)]

        # A model: sublayers' losses and the (mapped) weights' regularization losses.
        model = k.Sequential([AddsLoss(), k.layers.Dense(2, kernel_regularizer="l2"), AddsLoss()])
        model.build((None, 3))
        model.set_weights([np.full((3, 2), 0.25, "float32"), np.array([1.0, -1.0], "float32")])
        model(x)
        mapping = [(v, np.ones(v.shape, "float32")) for v in model.weights]
        with k.StatelessScope(mapping, collect_losses=True) as scope:
            y = model(x)
            out += [y, values(model.losses), values(model.layers[2].losses)]
        out += [values(scope.losses), values(model.losses), model.weights[0].numpy()]

        # Gradients flow to the inputs through a collected loss.
        inputs = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            with k.StatelessScope(collect_losses=True) as scope:
                y = layer(inputs * inputs)
            total = tf.add_n(scope.losses)
        out.append(tape.gradient(total, inputs))

        @tf.function
        def traced(v):
            with k.StatelessScope(collect_losses=True) as scope:
                y = layer(v)
            return y, scope.losses

        y, losses = traced(tf.constant(x))
        out += [y, values(losses)]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_stateless_scope_collects_losses(tf_oracle, device):
    assert_parity(tf_oracle, _stateless_losses, (device,))
