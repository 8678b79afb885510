"""Dense, Activation, Dropout, Flatten, Reshape and Embedding against Keras 3 (TensorFlow 2.21):
forward values (and Dense's gradients) from the TF oracle for fixed inputs and weights, shapes,
training versus inference, config round trips and Keras's errors for bad arguments."""

import ferroflow as tf
import numpy as np
import pytest

layers = tf.keras.layers
ATOL = 1e-5


def wave(shape, phase=0.3, freq=0.7):
    """Fixed test data (the TF oracle used the same formula)."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * freq + phase).reshape(shape).astype("float32")


def policy(name):
    return {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": name},
        "registered_name": None,
    }


# keras.layers.Dense(4, activation="tanh") with kernel wave((3, 4), 1.1, 0.9), bias
# wave((4,), 0.2, 1.3) on wave((2, 3)); gradients of sum(y * wave((2, 4), 0.5, 0.4)).
DENSE_Y = [
    [0.4740527, 0.74251, -0.03314, -0.843883],
    [0.204159, 0.8955081, 0.7104003, -0.5243669],
]
DENSE_GX = [[0.7064485, -0.1299241, -0.4734274], [0.9433506, -0.9792882, 0.8130192]]
DENSE_GK = [
    [0.6686042, 0.1839313, 0.3644858, 0.0071058],
    [0.3471599, 0.3006741, 0.8148434, 0.2354523],
    [-0.1375591, 0.2760053, 0.8819674, 0.3530619],
]
DENSE_GB = [1.1989162, 0.4699988, 1.0810076, 0.1710902]
# The same weights without activation on a rank-3 input wave((2, 2, 3), 0.9, 0.5).
DENSE3_Y = [
    [[0.7651272, 1.2986113, 0.1428841, -1.3582211], [0.3308741, 1.4037043, 0.7077909, -0.7610106]],
    [
        [-0.349085, 0.7538469, 0.5798342, -0.2702315],
        [-0.0110287, 0.5568157, -0.0031751, -0.7980091],
    ],
]
ACT_SOFTMAX = [[0.2113159, 0.3647837, 0.4239004], [0.5535452, 0.2936713, 0.1527836]]
ACT_GELU = [[0.1821001, 0.6731413, 0.8323236], [0.5068063, 0.0214799, -0.1653949]]
# Embedding(5, 3) with weights wave((5, 3), 0.1, 0.8) on [[4, 0], [2, 2]].
EMB_Y = [
    [[-0.2717606, -0.8796958, -0.9540192], [0.0998334, 0.7833269, 0.9916648]],
    [[-0.9824526, -0.5506855, 0.21512], [-0.9824526, -0.5506855, 0.21512]],
]
# Flatten(data_format="channels_first") on wave((2, 3, 2, 2)).
FLAT_CF = [
    [0.2955202, 0.0415807, -0.3738767, 0.841471, -0.6118579, 0.3115413]
    + [0.9916648, -0.9775301, 0.8504366, 0.6754632, -0.8834547, 0.9893582],
    [0.6629692, -0.8754522, 0.9867719, 0.0247754, -0.3582293, 0.6502879]
    + [-0.6250706, 0.3274744, 0.0079632, -0.9809362, 0.8591618, -0.6381067],
]


def fixed_dense(activation="tanh"):
    layer = layers.Dense(4, activation=activation)
    layer.build((None, 3))
    layer.set_weights([wave((3, 4), 1.1, 0.9), wave((4,), 0.2, 1.3)])
    return layer


def test_dense_forward_and_gradients_match_tensorflow():
    layer = fixed_dense()
    x = tf.constant(wave((2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * wave((2, 4), 0.5, 0.4))
    gx, gk, gb = tape.gradient(loss, [x, layer.kernel, layer.bias])
    np.testing.assert_allclose(y.numpy(), DENSE_Y, atol=ATOL)
    np.testing.assert_allclose(gx.numpy(), DENSE_GX, atol=ATOL)
    np.testing.assert_allclose(gk.numpy(), DENSE_GK, atol=ATOL)
    np.testing.assert_allclose(gb.numpy(), DENSE_GB, atol=ATOL)
    rank3 = fixed_dense(activation=None)(wave((2, 2, 3), 0.9, 0.5))
    np.testing.assert_allclose(rank3.numpy(), DENSE3_Y, atol=ATOL)


def test_dense_in_a_tf_function_matches_eager():
    layer = fixed_dense()
    traced = tf.function(lambda x: layer(x))
    np.testing.assert_allclose(traced(tf.constant(wave((2, 3)))).numpy(), DENSE_Y, atol=ATOL)


def test_dense_config_is_keras_and_round_trips():
    layer = layers.Dense(3, name="head")
    assert layer.get_config() == {
        "name": "head",
        "trainable": True,
        "dtype": policy("float32"),
        "units": 3,
        "activation": "linear",
        "use_bias": True,
        "kernel_initializer": {
            "module": "keras.initializers",
            "class_name": "GlorotUniform",
            "config": {"seed": None, "input_axes": None, "output_axes": None},
            "registered_name": None,
        },
        "bias_initializer": {
            "module": "keras.initializers",
            "class_name": "Zeros",
            "config": {},
            "registered_name": None,
        },
        "kernel_regularizer": None,
        "bias_regularizer": None,
        "kernel_constraint": None,
        "bias_constraint": None,
        "quantization_config": None,
    }
    custom = layers.Dense(
        2, activation=tf.nn.relu, use_bias=False, kernel_regularizer="l2", dtype="float64"
    )
    config = custom.get_config()
    assert config["activation"] == "relu"
    assert config["kernel_regularizer"]["config"] == {"l2": 0.01}
    clone = layers.Dense.from_config(config)
    assert clone.get_config() == {**config, "name": clone.name} and clone.name == custom.name
    out = clone(np.ones([1, 3]))
    assert out.dtype == tf.float64 and [tuple(w.shape) for w in clone.weights] == [(3, 2)]


def test_activation_layer():
    np.testing.assert_allclose(
        layers.Activation("softmax")(wave((2, 3))).numpy(), ACT_SOFTMAX, atol=ATOL
    )
    np.testing.assert_allclose(layers.Activation("gelu")(wave((2, 3))).numpy(), ACT_GELU, atol=ATOL)
    assert layers.Activation(tf.keras.activations.swish).get_config()["activation"] == "silu"
    clone = layers.Activation.from_config(layers.Activation("relu").get_config())
    np.testing.assert_allclose(clone(tf.constant([-1.0, 2.0])).numpy(), [0.0, 2.0])
    assert clone.compute_output_shape((None, 4)) == (None, 4)
    with pytest.raises(ValueError, match="Could not interpret activation function identifier"):
        layers.Activation("nope")


def test_dropout_drops_only_in_training():
    layer = layers.Dropout(0.25, seed=7)
    x = tf.ones([20, 40])
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    first = layer(x, training=True).numpy()
    second = layer(x, training=True).numpy()
    assert set(np.unique(first)) <= {np.float32(0.0), np.float32(1.0 / 0.75)}
    assert 0.15 < (first == 0).mean() < 0.35
    assert not np.array_equal(first, second)  # a new mask per call
    np.testing.assert_array_equal(layers.Dropout(1.0)(x, training=True).numpy(), 0 * x.numpy())
    np.testing.assert_array_equal(layers.Dropout(0.0)(x, training=True).numpy(), x.numpy())


def test_dropout_noise_shape_shares_the_mask():
    layer = layers.Dropout(0.5, noise_shape=(None, 1, 6), seed=1)
    out = layer(tf.ones([3, 5, 6]), training=True).numpy()
    assert (out == out[:, :1, :]).all()  # one decision per (batch, feature)
    assert layer.get_config() == {
        "name": layer.name,
        "trainable": True,
        "dtype": policy("float32"),
        "rate": 0.5,
        "seed": 1,
        "noise_shape": (None, 1, 6),
    }
    assert layers.Dropout.from_config(layer.get_config()).noise_shape == (None, 1, 6)


def test_dropout_bad_arguments():
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1"):
        layers.Dropout(1.5)
    with pytest.raises(ValueError, match="Expected a tuple or list of integers"):
        layers.Dropout(0.5, noise_shape="ab")
    with pytest.raises(ValueError, match="Received negative or zero value at index 1: 0"):
        layers.Dropout(0.5, noise_shape=(None, 0))


def test_flatten():
    x = wave((2, 3, 2, 2))
    np.testing.assert_allclose(layers.Flatten()(x).numpy(), x.reshape(2, 12))
    flat_cf = layers.Flatten(data_format="channels_first")(x)
    np.testing.assert_allclose(flat_cf.numpy(), FLAT_CF, atol=ATOL)
    assert layers.Flatten()(tf.ones([3])).shape == (3, 1)
    assert layers.Flatten().compute_output_shape((None, 3, None)) == (None, None)
    config = layers.Flatten(data_format="channels_first").get_config()
    assert config["data_format"] == "channels_first"
    assert layers.Flatten.from_config(config).data_format == "channels_first"
    with pytest.raises(ValueError, match="The `data_format` argument must be one of"):
        layers.Flatten(data_format="nhwc")
    with pytest.raises(ValueError, match="expected min_ndim=1, found ndim=0"):
        layers.Flatten()(tf.constant(1.0))


def test_reshape():
    x = wave((2, 3, 4))
    out = layers.Reshape((-1, 2))(x)
    assert out.shape == (2, 6, 2)
    np.testing.assert_allclose(out.numpy(), x.reshape(2, 6, 2))
    assert layers.Reshape((-1, 2)).compute_output_shape((None, 3, 4)) == (None, 6, 2)
    config = layers.Reshape([2, -1]).get_config()
    assert config["target_shape"] == (2, -1)
    assert layers.Reshape.from_config(config)(x).shape == (2, 2, 6)
    with pytest.raises(ValueError, match="at most one unknown dimension"):
        layers.Reshape((-1, -1))
    with pytest.raises(ValueError, match="total size of the tensor must be unchanged"):
        layers.Reshape((5, -1))(x)
    with pytest.raises(ValueError, match="total size of the tensor must be unchanged"):
        layers.Reshape((3, 5))(x)


def test_embedding_lookup_mask_and_config():
    layer = layers.Embedding(5, 3)
    layer.build()
    layer.set_weights([wave((5, 3), 0.1, 0.8)])
    indices = np.array([[4, 0], [2, 2]])
    np.testing.assert_allclose(layer(indices).numpy(), EMB_Y, atol=ATOL)
    np.testing.assert_allclose(layer(indices.astype("float32")).numpy(), EMB_Y, atol=ATOL)
    assert layer.compute_output_shape((None, 7)) == (None, 7, 3)
    assert layer.compute_mask(indices) is None
    masking = layers.Embedding(5, 3, mask_zero=True, weights=wave((5, 3)))
    np.testing.assert_array_equal(
        masking.compute_mask(indices).numpy(), [[True, False], [True, True]]
    )
    np.testing.assert_allclose(masking.embeddings.numpy(), wave((5, 3)))
    config = masking.get_config()
    assert config["embeddings_initializer"]["class_name"] == "RandomUniform"
    assert config["embeddings_initializer"]["config"] == {
        "seed": None,
        "minval": -0.05,
        "maxval": 0.05,
    }
    assert (config["input_dim"], config["output_dim"], config["mask_zero"]) == (5, 3, True)
    assert config["activity_regularizer"] is None
    assert layers.Embedding.from_config(config).mask_zero


def test_embedding_gradient_reaches_the_looked_up_rows():
    layer = layers.Embedding(4, 2, embeddings_initializer="ones")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(np.array([1, 1, 3])))
    grad = tf.convert_to_tensor(tape.gradient(loss, layer.embeddings))
    np.testing.assert_allclose(grad.numpy(), [[0, 0], [2, 2], [0, 0], [1, 1]])


def test_embedding_bad_arguments():
    with pytest.raises(ValueError, match="`input_dim` must be a positive integer"):
        layers.Embedding(0, 3)
    with pytest.raises(ValueError, match=r"Received: output_dim=2.5 \(of type float\)"):
        layers.Embedding(3, 2.5)
