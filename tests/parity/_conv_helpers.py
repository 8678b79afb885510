"""Helpers the convolution and pooling parity programs share (passed with ``helpers=[...]``,
which sends their source to the TensorFlow worker too)."""


def fill_weights(layer):
    """Sets each weight of a built ``layer`` to fixed values in [-0.5, 0.5]."""
    import numpy as np

    values = []
    for i, w in enumerate(layer.get_weights()):
        wave = np.sin(np.arange(w.size, dtype=np.float64) * 0.37 + i) * 0.5
        values.append(wave.reshape(w.shape).astype(w.dtype))
    layer.set_weights(values)


def run_cases(tf, device, cases):
    """For each (layer, input shape): the output, the gradients of ``sum(output ** 2)`` for
    the input and each weight, and the output of a traced `tf.function` call."""
    import numpy as np

    out = []
    with tf.device(device):
        for layer, shape in cases:
            n = int(np.prod(shape))
            x = tf.constant(np.cos(np.arange(n) * 0.71).reshape(shape).astype(np.float32))
            layer.build(shape)
            fill_weights(layer)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = layer(x)
                loss = tf.reduce_sum(y * y)
            grads = tape.gradient(loss, [x, *layer.trainable_weights])
            out.append((y, grads, tf.function(layer)(x)))
    return out


def configs_and_names(layers):
    """Each layer's class, default name, config (without the dtype policy), whether
    ``from_config`` gives back the same config, and its weights" paths and shapes."""
    out = []
    for layer in layers:
        config = layer.get_config()
        back = type(layer).from_config(config)
        config.pop("dtype", None)
        weights = [(w.path, tuple(w.shape)) for w in layer.weights]
        out.append(
            (
                type(layer).__name__,
                layer.name,
                config,
                back.get_config() == layer.get_config(),
                weights,
            )
        )
    return out
