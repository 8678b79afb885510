"""BatchNormalization and LayerNormalization against Keras 3 (TensorFlow 2.21): training-mode
outputs, gradients and moving statistics, inference with the moving statistics, other axes,
configs and bad arguments. Expected numbers come from the TF oracle for fixed data."""

import ferroflow as tf
import numpy as np
import pytest

layers = tf.keras.layers
ATOL = 1e-5


def wave(shape, phase=0.3, freq=0.7):
    """Fixed test data (the TF oracle used the same formula)."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * freq + phase).reshape(shape).astype("float32")


X = wave((4, 3)) * 2 + 0.5
UPSTREAM = wave((4, 3), 0.5, 0.4)
GAMMA, BETA = wave((3,), 0.4, 1.0) + 1, wave((3,), 1.4, 1.0)
X4 = wave((2, 3, 2, 2), 0.2, 0.9)

# BatchNormalization(momentum=0.9) with weights [GAMMA, BETA, wave((3,), 2.0, 0.5),
# wave((3,), 0.1, 0.3) ** 2 + 0.5], called on X with training=True; gradients of
# sum(y * UPSTREAM); then the moving statistics and an inference call.
BN_TRAIN_Y = [
    [1.4711292, 2.4267173, 1.411458],
    [2.3126907, 0.1995399, -2.1869767],
    [-1.3486366, -2.3760855, -1.6529275],
    [1.5066154, 2.4516809, 1.4062817],
]
BN_GX = [
    [0.244674, 0.9580396, 1.1408145],
    [0.7438807, 1.011447, 0.5722629],
    [0.2068275, -0.4767497, -0.6701604],
    [-1.1953822, -1.4927367, -1.0429169],
]
BN_GGAMMA = [0.4060254, -0.1480545, -0.2637694]
BN_GBETA = [0.8920625, 0.5112605, 0.0497415]
BN_MOVING_MEAN = [0.8836174, 0.6311266, 0.2267724]
BN_MOVING_VAR = [0.6162651, 0.7897717, 1.046388]
BN_INFER_Y = [
    [1.3522706, 4.1402254, 3.4387188],
    [2.6961048, 0.5683705, -1.8116064],
    [-3.1504266, -3.5623109, -1.0323977],
    [1.4089363, 4.1802607, 3.4311662],
]
# BatchNormalization(axis=1, center=False, scale=False) on X4, training=True.
BN4_TRAIN_Y = [
    [
        [[-0.0313981, 1.0015519], [1.0285339, 0.0291287]],
        [[-0.4566689, -1.0650588], [-0.487097, 0.8398268]],
        [[0.8719101, 0.877467], [-0.2123061, -1.5726905]],
    ],
    [
        [[-1.8192499, -1.2496996], [0.0175849, 1.0235482]],
        [[1.9053823, 0.8262619], [-0.4978205, -1.0648257]],
        [[-1.5402229, -0.1722879], [0.8947508, 0.8533795]],
    ],
]
BN4_MOVING_MEAN = [0.0021972, -0.0032057, 0.0035523]
BN4_MOVING_VAR = [0.994485, 0.9940586, 0.9938753]
# LayerNormalization() with weights [GAMMA, BETA] on X; gradients of sum(y * UPSTREAM).
LN_Y = [
    [-0.935075, 1.5498819, 1.3224735],
    [2.6776848, 0.7000779, -2.3169351],
    [-0.230948, -0.3596516, 2.0847847],
    [-0.9393387, 1.5796385, 1.3025036],
]
LN_GX = [
    [-0.0342852, 0.1469935, -0.1127085],
    [-0.1673907, 0.3300937, -0.1627033],
    [0.4193015, -0.4919568, 0.0726554],
    [0.0853884, -0.4078082, 0.3224203],
]
LN_GGAMMA = [1.4692261, -0.0072381, -1.4824989]
LN_GBETA = [0.8920625, 0.5112605, 0.0497415]
# LayerNormalization(axis=[1, 2], epsilon=1e-5) with weights [wave((3, 2), 0.4, 1.0) + 1,
# wave((3, 2), 1.4, 1.0)] on X4.
LN2_Y = [
    [
        [[1.0617703, 2.5230463], [3.0465074, 1.0534406]],
        [[-2.3406696, -2.8544908], [-1.9012524, -0.8351227]],
        [[-0.7157889, -0.7184592], [0.1378549, -0.1162213]],
    ],
    [
        [[-0.7836554, -0.4288346], [1.3701313, 2.9144146]],
        [[1.7953964, -0.0160169], [-1.5444134, -2.1093516]],
        [[-0.8091811, -0.7630271], [0.4001458, 0.3667849]],
    ],
]


def fixed_batch_norm(**kwargs):
    layer = layers.BatchNormalization(momentum=0.9, **kwargs)
    layer.build((None, 3))
    layer.set_weights([GAMMA, BETA, wave((3,), 2.0, 0.5), wave((3,), 0.1, 0.3) ** 2 + 0.5])
    return layer


def test_batch_norm_training_call_matches_tensorflow():
    layer = fixed_batch_norm()
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        loss = tf.reduce_sum(y * UPSTREAM)
    gx, gg, gb = tape.gradient(loss, [x, layer.gamma, layer.beta])
    np.testing.assert_allclose(y.numpy(), BN_TRAIN_Y, atol=ATOL)
    np.testing.assert_allclose(gx.numpy(), BN_GX, atol=ATOL)
    np.testing.assert_allclose(gg.numpy(), BN_GGAMMA, atol=ATOL)
    np.testing.assert_allclose(gb.numpy(), BN_GBETA, atol=ATOL)
    np.testing.assert_allclose(layer.moving_mean.numpy(), BN_MOVING_MEAN, atol=ATOL)
    np.testing.assert_allclose(layer.moving_variance.numpy(), BN_MOVING_VAR, atol=ATOL)
    np.testing.assert_allclose(layer(x).numpy(), BN_INFER_Y, atol=ATOL)
    # Inference leaves the moving statistics alone.
    np.testing.assert_allclose(layer.moving_mean.numpy(), BN_MOVING_MEAN, atol=ATOL)


def test_batch_norm_weights_and_frozen_layer_run_in_inference_mode():
    layer = fixed_batch_norm()
    assert [w.path.rsplit("/", 1)[1] for w in layer.weights] == [
        "gamma",
        "beta",
        "moving_mean",
        "moving_variance",
    ]
    assert len(layer.trainable_weights) == 2 and len(layer.non_trainable_weights) == 2
    layer.trainable = False
    before = layer.moving_mean.numpy()
    y = layer(tf.constant(X), training=True)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), before)
    # Frozen: the moving statistics normalise, as in inference.
    moving_var = wave((3,), 0.1, 0.3) ** 2 + 0.5
    expected = (X - before) / np.sqrt(moving_var + 1e-3) * GAMMA + BETA
    np.testing.assert_allclose(y.numpy(), expected, atol=ATOL)


def test_batch_norm_on_channels_first_axis():
    layer = layers.BatchNormalization(axis=1, center=False, scale=False)
    y = layer(X4, training=True)
    np.testing.assert_allclose(y.numpy(), BN4_TRAIN_Y, atol=ATOL)
    np.testing.assert_allclose(layer.moving_mean.numpy(), BN4_MOVING_MEAN, atol=ATOL)
    np.testing.assert_allclose(layer.moving_variance.numpy(), BN4_MOVING_VAR, atol=ATOL)
    assert [w.path.rsplit("/", 1)[1] for w in layer.weights] == ["moving_mean", "moving_variance"]
    with pytest.raises(ValueError, match="expected axis 1 of input shape to have value 3"):
        layer(tf.ones([2, 4, 2, 2]))


def test_batch_norm_training_inside_a_model_and_tf_function():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.norm = fixed_batch_norm()

        def call(self, inputs):
            return self.norm(inputs)

    net = Net()
    train_step = tf.function(lambda x: net(x, training=True))
    np.testing.assert_allclose(train_step(tf.constant(X)).numpy(), BN_TRAIN_Y, atol=ATOL)
    np.testing.assert_allclose(net.norm.moving_mean.numpy(), BN_MOVING_MEAN, atol=ATOL)
    np.testing.assert_allclose(net(tf.constant(X)).numpy(), BN_INFER_Y, atol=ATOL)


def test_batch_norm_with_mask_uses_only_the_unmasked_steps():
    layer = layers.BatchNormalization(momentum=0.0, center=False, scale=False)
    x = wave((2, 3, 2))
    mask = tf.constant([[True, True, False], [True, False, False]])
    layer(x, training=True, mask=mask)
    chosen = np.concatenate([x[0, :2], x[1, :1]])
    np.testing.assert_allclose(layer.moving_mean.numpy(), chosen.mean(0), atol=ATOL)
    np.testing.assert_allclose(layer.moving_variance.numpy(), chosen.var(0), atol=ATOL)
    with pytest.raises(ValueError, match="one dimension less than the inputs"):
        layer(x, mask=tf.constant([True, False]))


def test_batch_renorm_with_fresh_statistics_equals_batch_norm():
    # Fresh renorm statistics give r = stddev / 1 and d = mean; clipping r to 1 and d to 0
    # reduces renormalisation to plain batch normalisation.
    renorm = layers.BatchNormalization(
        renorm=True, renorm_clipping={"rmax": 1.0, "rmin": 1.0, "dmax": 0.0}
    )
    plain = layers.BatchNormalization()
    x = tf.constant(X)
    np.testing.assert_allclose(
        renorm(x, training=True).numpy(), plain(x, training=True).numpy(), atol=ATOL
    )
    np.testing.assert_allclose(renorm.moving_mean.numpy(), plain.moving_mean.numpy(), atol=ATOL)
    assert len(renorm.weights) == 7
    with pytest.raises(ValueError, match="invalid keys for `renorm_clipping`"):
        layers.BatchNormalization(renorm=True, renorm_clipping={"bogus": 1})


def test_batch_norm_config_round_trip():
    layer = layers.BatchNormalization(axis=1, momentum=0.9, epsilon=1e-5, center=False)
    config = layer.get_config()
    assert {k: config[k] for k in ("axis", "momentum", "epsilon", "center", "scale")} == {
        "axis": 1,
        "momentum": 0.9,
        "epsilon": 1e-5,
        "center": False,
        "scale": True,
    }
    assert config["gamma_initializer"]["class_name"] == "Ones"
    assert config["moving_variance_initializer"]["class_name"] == "Ones"
    assert (config["renorm"], config["renorm_clipping"], config["synchronized"]) == (
        False,
        None,
        False,
    )
    clone = layers.BatchNormalization.from_config(config)
    assert clone.get_config() == {**config, "name": clone.name}
    assert layer.compute_output_shape((None, 3, 4)) == (None, 3, 4)
    with pytest.raises(ValueError, match="Axis 5 is out of bounds"):
        layers.BatchNormalization(axis=5)(tf.ones([2, 3]))


def test_layer_norm_matches_tensorflow():
    layer = layers.LayerNormalization()
    layer.build((None, 3))
    layer.set_weights([GAMMA, BETA])
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * UPSTREAM)
    gx, gg, gb = tape.gradient(loss, [x, layer.gamma, layer.beta])
    np.testing.assert_allclose(y.numpy(), LN_Y, atol=ATOL)
    np.testing.assert_allclose(gx.numpy(), LN_GX, atol=ATOL)
    np.testing.assert_allclose(gg.numpy(), LN_GGAMMA, atol=ATOL)
    np.testing.assert_allclose(gb.numpy(), LN_GBETA, atol=ATOL)


def test_layer_norm_over_several_axes():
    layer = layers.LayerNormalization(axis=[2, 1], epsilon=1e-5)
    layer.build((None, 3, 2, 2))
    layer.set_weights([wave((3, 2), 0.4, 1.0) + 1, wave((3, 2), 1.4, 1.0)])
    np.testing.assert_allclose(layer(X4).numpy(), LN2_Y, atol=ATOL)
    assert layer.get_config()["axis"] == [1, 2]


def test_layer_norm_config_and_errors():
    layer = layers.LayerNormalization(epsilon=1e-6, center=False)
    config = layer.get_config()
    assert config["axis"] == -1 and config["epsilon"] == 1e-6 and config["rms_scaling"] is False
    assert config["beta_initializer"]["class_name"] == "Zeros"
    clone = layers.LayerNormalization.from_config(config)
    clone(tf.ones([2, 4]))
    assert [w.path.rsplit("/", 1)[1] for w in clone.weights] == ["gamma"]
    assert clone.get_config()["axis"] == [-1]  # a list once built, as in Keras
    with pytest.raises(TypeError, match="Expected an int or a list/tuple of ints"):
        layers.LayerNormalization(axis="a")
    with pytest.raises(ValueError, match="Axis 3 is out of bounds"):
        layers.LayerNormalization(axis=3)(tf.ones([2, 3]))
