"""Checkpoints that tf_keras (Keras 2) wrote restore into ferroflow's Keras 3 models (issue 22):
Keras 2 names a model's layers `layer-N` / `layer_with_weights-N` and a layer's weights by
their public names (`kernel`), where Keras 3 has other edges. TensorFlow 2.21's own `tf.keras`
(Keras 3) leaves these checkpoints unmatched (`assert_existing_objects_matched` fails there);
ferroflow restores them, as the issue asks. So the comparison is against tf_keras itself: the
TensorFlow run builds, trains and checkpoints the model with tf_keras and predicts with it; the
ferroflow run builds the same architecture with `tf.keras`, restores TensorFlow's files and
predicts. The predictions must agree."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _architecture(keras, arch):
    if arch == "mlp":
        return keras.Sequential(
            [
                keras.Input((5,)),
                keras.layers.Dense(8, activation="relu"),
                keras.layers.Dropout(0.2),
                keras.layers.Dense(3),
            ]
        )
    if arch == "cnn":
        inputs = keras.Input((6, 6, 2))
        x = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.Flatten()(x)
        return keras.Model(inputs, keras.layers.Dense(3)(x))
    inputs = keras.Input((4,), dtype="int32")
    x = keras.layers.Embedding(10, 6)(inputs)
    x = keras.layers.LSTM(5)(x)
    return keras.Model(inputs, keras.layers.Dense(3)(x))


def _data(np, arch):
    rng = np.random.default_rng(0)
    if arch == "mlp":
        x = rng.normal(size=(16, 5)).astype(np.float32)
    elif arch == "cnn":
        x = rng.normal(size=(16, 6, 6, 2)).astype(np.float32)
    else:
        x = rng.integers(0, 10, size=(16, 4)).astype(np.int32)
    return x, rng.normal(size=(16, 3)).astype(np.float32)


def restore_tf_keras_checkpoint(tf, root, device, arch, how):
    import os

    import numpy as np

    x, y = _data(np, arch)
    prefix = os.path.join(root, arch)
    if tf.__name__ == "tensorflow":
        import tf_keras

        tf_keras.utils.set_random_seed(5)
        model = _architecture(tf_keras, arch)
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=2, batch_size=4, verbose=0)
        if how == "save_weights":
            model.save_weights(prefix)
        else:
            tf.train.Checkpoint(model=model).write(prefix)
        return np.asarray(model(x, training=False))
    with tf.device(device):
        model = _architecture(tf.keras, arch)
        if how == "save_weights":
            model.load_weights(prefix)
        else:
            status = tf.train.Checkpoint(model=model).read(prefix)
            status.assert_existing_objects_matched()
        return np.asarray(model(x, training=False))


@pytest.mark.parametrize("how", ["checkpoint", "save_weights"])
@pytest.mark.parametrize("arch", ["mlp", "cnn", "embedding_lstm"])
@pytest.mark.parametrize("device", DEVICES)
def test_a_keras_2_checkpoint_restores_into_keras_3(tf_oracle, tmp_path, device, arch, how):
    expected = assert_parity(
        tf_oracle,
        restore_tf_keras_checkpoint,
        args=(str(tmp_path), device, arch, how),
        helpers=[_architecture, _data],
        rtol=1e-5,
        atol=1e-5,
    )
    assert expected[0] != "raised", expected
