"""Conv1D, Conv2D and the pooling layers against Keras 3 (TensorFlow 2.21), through the core's
`tf.nn.conv1d/conv2d/max_pool2d/avg_pool2d`: forward values and gradients (Conv2D with
padding="same" and strides 2 to 1e-5) from the TF oracle for fixed inputs and weights,
dilation, groups, channels_first, causal padding, output shapes, configs and bad arguments."""

import ferroflow as tf
import numpy as np
import pytest

layers = tf.keras.layers
ATOL = 1e-5


def wave(shape, phase=0.3, freq=0.7):
    """Fixed test data (the TF oracle used the same formula)."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * freq + phase).reshape(shape).astype("float32")


# Keras's outputs for the layers and data built below (see each test), rounded to 7 places.
CONV_SAME_Y = [
    [
        [
            [0.1969406, 0.7411119, 0.104128],
            [1.2847686, 1.0637475, -0.6910073],
            [-1.0322742, 1.2481019, 1.7932804],
        ],
        [
            [1.5851392, 0.7400095, -1.2850705],
            [0.2548148, 2.1843617, 1.3555591],
            [-1.228909, -0.0271978, 0.832973],
        ],
        [
            [1.4302005, 1.7063909, -0.2534381],
            [-1.1660331, 0.3157881, 1.0812513],
            [0.5730289, 1.1251229, 0.0764117],
        ],
    ],
    [
        [
            [-0.2358926, 1.5153444, 1.2393391],
            [-0.6519822, 0.6286852, 0.8510584],
            [1.5644509, 0.810675, -1.2002749],
        ],
        [
            [-1.4515369, 0.8551587, 1.8560679],
            [0.8898916, 0.161486, -1.1146551],
            [1.0331343, 2.0323379, 0.4393246],
        ],
        [
            [-0.4501221, 0.5328417, 0.5622497],
            [1.5717518, 1.9356086, -0.1870449],
            [-0.7789029, 0.3642132, 0.738052],
        ],
    ],
]
CONV_SAME_GX = [
    [
        [
            [-0.4357796, 0.6342845],
            [0.435829, -0.1917864],
            [1.0596641, -0.9219347],
            [0.2031488, -0.2755648],
            [-0.0457361, -0.2153536],
        ],
        [
            [-1.9406838, 2.1088274],
            [-0.0898546, 0.3762377],
            [1.6330644, -1.3176651],
            [1.4634687, -1.4537427],
            [1.1986126, -1.5100749],
        ],
        [
            [-1.0388814, 1.0197921],
            [0.0368406, 0.1315167],
            [0.5178083, -0.2480443],
            [0.5113999, -0.3767659],
            [0.8035872, -0.9070798],
        ],
        [
            [-2.1777189, 2.0038495],
            [-1.2021171, 1.3245333],
            [-0.209048, 0.5995172],
            [1.1213986, -0.8862226],
            [2.272711, -2.2762725],
        ],
        [
            [-0.8829616, 0.6602252],
            [-0.389064, 0.3587319],
            [-0.4023657, 0.6070707],
            [0.446015, -0.2026964],
            [1.0657983, -0.9360806],
        ],
    ],
    [
        [
            [-0.0819375, -0.1817118],
            [-0.5307128, 0.3238523],
            [-1.0285655, 1.0186512],
            [0.0547653, 0.1194659],
            [0.549322, -0.2811675],
        ],
        [
            [1.1321493, -1.4518816],
            [-0.6208425, 0.3321498],
            [-2.200788, 2.0391343],
            [-1.17215, 1.3035771],
            [-0.1321021, 0.5252906],
        ],
        [
            [0.7789513, -0.8908875],
            [-0.2846153, 0.0523617],
            [-0.9032808, 0.6859906],
            [-0.3764969, 0.3543448],
            [-0.3684967, 0.5791705],
        ],
        [
            [2.2608156, -2.2778285],
            [0.6480072, -0.8834801],
            [-0.8952219, 0.5097643],
            [-1.4479296, 1.3259575],
            [-1.854023, 2.0461895],
        ],
        [
            [1.0707272, -0.9491681],
            [0.1694262, -0.2573852],
            [-0.1180462, -0.1478645],
            [-0.532685, 0.3303343],
            [-1.0170866, 1.0163584],
        ],
    ],
]
CONV_SAME_GK = [
    [
        [[0.8490733, 0.538446, 0.039724], [0.2689359, -1.2283255, -2.2964973]],
        [[-2.1845098, -2.961977, -2.7047405], [-1.4641094, -2.1522152, -2.0884905]],
        [[0.0870523, 0.5756125, 0.8630948], [2.4402313, 2.4913993, 1.6722503]],
    ],
    [
        [[3.1262052, 1.3182038, -0.9502841], [1.3733037, -0.579844, -2.3304353]],
        [[-1.1091515, -1.0487902, -0.622056], [-1.3293518, -0.2877107, 0.8544363]],
        [[1.4662498, 3.2158937, 3.8421335], [2.6429036, 3.3256896, 2.8467164]],
    ],
    [
        [[0.316745, -0.2120861, -0.6668295], [-1.8141589, -2.5351238, -2.3704967]],
        [[-2.9727216, -2.2359371, -0.7180759], [-2.2209816, -1.7932565, -0.7390953]],
        [[0.7446999, 0.8963795, 0.7349281], [2.2021484, 1.0557477, -0.4594562]],
    ],
]
CONV_SAME_GB = [-0.1828096, 0.1736337, 0.4694218]
CONV_DIL_Y = [
    [[[0.975888, 1.7964711]], [[1.7102685, 1.3366532]], [[1.6028624, 0.2189405]]],
    [[[0.0, 0.0]], [[0.0, 0.0]], [[0.0, 0.5657162]]],
]
CONV_CF_Y = [
    [
        [[0.2604704, -2.8333294], [-2.304902, 0.9967876], [4.876164, 3.1006727]],
        [[4.8896475, 4.44066], [-3.3578763, -5.9769392], [-1.6748875, 2.6366599]],
        [[8.9400482, 11.4756565], [1.2519333, -5.3058271], [-3.8368073, 3.2988849]],
    ]
]
CONV_GROUPS_Y = [
    [
        [
            [1.2715479, 2.0744095, 0.8120123, -0.4640554],
            [0.8793263, 0.5993484, -0.7210854, -1.5679594],
        ],
        [
            [0.6361563, 1.8027854, 1.8456966, 0.8220943],
            [1.3820454, 1.5275626, -0.3543442, -1.5501058],
        ],
    ]
]
C1_VALID = [
    [[0.2852121, -0.1398975], [0.610613, -0.0201982], [-0.510192, -0.4097503]],
    [[0.6642491, -0.0067068], [0.1976042, -0.1619342], [-0.5454844, -0.4249752]],
]
C1_CAUSAL = [
    [
        [-0.3929383, -0.0452281],
        [-0.5845649, -0.5002943],
        [0.1663924, -0.0789344],
        [0.402136, 0.1714794],
        [0.9078445, 0.0306427],
        [0.7432387, 0.134859],
        [-0.0127577, -0.0687925],
    ],
    [
        [-0.5981638, -0.3830647],
        [-0.3200099, -0.6739103],
        [0.3579416, 0.1302367],
        [0.4033994, 0.1422433],
        [0.8704644, 0.1380306],
        [0.2255545, 0.0136334],
        [-0.5347895, -0.3071774],
    ],
]
C1_SAME = [
    [
        [-0.2713668, 0.1000426],
        [0.2852121, -0.1398975],
        [0.743922, 0.0220093],
        [0.610613, -0.0201982],
        [0.0078488, -0.2277146],
        [-0.510192, -0.4097503],
        [0.2309387, -0.2158779],
    ],
    [
        [-0.3063675, -0.0146287],
        [0.6642491, -0.0067068],
        [0.7124842, 0.0141015],
        [0.1976042, -0.1619342],
        [-0.4070127, -0.3729674],
        [-0.5454844, -0.4249752],
        [0.4692555, 0.1606559],
    ],
]
C1_GX = [
    [
        [0.9250981, 0.1978376],
        [0.0635346, 1.3359096],
        [-1.0976858, 1.9850473],
        [-1.8754531, 1.940751],
        [-1.9980706, 1.2184943],
        [-1.4227046, 0.0705827],
        [0.9282892, -1.3830034],
    ],
    [
        [-0.2493696, -1.3929408],
        [1.7441688, -2.0171206],
        [2.034652, -1.4400041],
        [1.614373, -0.3598528],
        [0.6301469, 0.8460053],
        [-0.5742077, 1.7563294],
        [-2.2947698, 2.0838358],
    ],
]
C1_GK = [
    [[-0.4644957, 0.0650384], [-0.2003756, 0.1879175]],
    [[-0.6960937, -0.4323537], [-0.3475291, -0.2657195]],
    [[-0.2069172, -0.0492567], [0.5270051, 0.484316]],
]
MAXPOOL_VALID = [
    [
        [[0.9463001, 0.841471], [0.934895, 0.8591618]],
        [[0.9224328, 0.9287952], [0.8838704, 0.9158096]],
    ]
]
MAXPOOL_SAME_S1 = [
    [
        [
            [0.9463001, 0.841471],
            [0.9463001, 0.8591618],
            [0.934895, 0.8591618],
            [0.934895, 0.9407306],
            [0.8504366, 0.9407306],
        ],
        [
            [0.8676441, 0.9287952],
            [0.8676441, 0.9287952],
            [0.934895, 0.8591618],
            [0.934895, 0.8758811],
            [0.16648, 0.8758811],
        ],
        [
            [0.9224328, 0.9287952],
            [0.8676441, 0.9287952],
            [0.8838704, 0.9158096],
            [0.8838704, 0.9158096],
            [0.2546823, 0.8758811],
        ],
        [
            [0.9224328, 0.8916098],
            [0.9089274, 0.8916098],
            [0.9089274, 0.9158096],
            [0.8838704, 0.9158096],
            [0.2546823, 0.2159873],
        ],
        [
            [0.1995397, 0.8916098],
            [0.9089274, 0.8916098],
            [0.9089274, 0.2383869],
            [-0.6125602, 0.2159873],
            [-0.6305776, 0.2159873],
        ],
    ]
]
AVGPOOL_SAME = [
    [
        [[0.0924489, -0.0152718], [-0.0418123, 0.0712846], [0.1461922, -0.0280848]],
        [[0.1307815, 0.0876491], [-0.1208689, -0.0354975], [0.2105812, 0.1383488]],
        [[-0.4000297, 0.1240359], [0.1481836, -0.3807735], [-0.6305776, 0.2159873]],
    ]
]
AVGPOOL_3_S2 = [
    [
        [
            [0.0926877, 0.1695976],
            [0.1181594, -0.0226994],
            [-0.1463798, -0.1592829],
            [-0.0516438, 0.0950782],
        ],
        [
            [-0.0461556, 0.099778],
            [0.1702016, 0.11182],
            [-0.0311847, -0.1505895],
            [-0.1560312, -0.0433915],
        ],
    ]
]
GAP = [[-0.0071411, 0.0142279]]
MAXPOOL_CF = [
    [
        [[0.841471, 0.9463001, 0.3190984], [-0.5580522, 0.8591618, 0.934895]],
        [[0.9224328, -0.5856373, 0.8758811], [0.9158096, 0.9089274, -0.6125602]],
        [[0.2159873, 0.9063304, 0.8943943], [0.1891146, 0.2486946, 0.9200261]],
    ]
]
POOL_GX = [
    [
        [
            [0.1198564, 1.2184595],
            [1.7465098, 0.2330098],
            [0.236575, 0.1288753],
            [0.236575, 0.1288753],
            [-0.7101395, -1.4204149],
        ],
        [
            [0.1198564, 0.2330098],
            [0.1198564, 0.2330098],
            [0.236575, -0.3339603],
            [-1.3783377, 0.1288753],
            [-0.0788728, -0.3784012],
        ],
        [
            [-0.2499808, -0.1931911],
            [2.2240982, 3.0750813],
            [-0.0455406, 0.1235283],
            [-0.0455406, 0.1235283],
            [-0.3538286, -1.492687],
        ],
        [
            [-0.0680066, -0.1931911],
            [-0.2499808, -0.1931911],
            [-0.0455406, 0.1235283],
            [-0.5948043, -1.5860096],
            [-1.4791205, 0.4703653],
        ],
        [
            [0.2505104, -0.0871634],
            [-0.0761247, 2.6785421],
            [2.8820949, -0.0432491],
            [-0.5091785, -0.4999951],
            [-1.7320893, -2.5701854],
        ],
    ]
]
MAXPOOL1D = [
    [[0.9995736, 0.8912073], [0.5155014, 0.0415807], [0.3115413, 0.728969]],
    [[0.9679196, 0.9698898], [-0.1743268, -0.4496475], [0.8591618, 0.9993094]],
]
AVGPOOL1D = [
    [
        [0.7821081, 0.8772084],
        [0.0364905, -0.3883482],
        [-0.8124788, -0.5539886],
        [0.3115413, 0.728969],
    ],
    [
        [0.8511584, 0.6444941],
        [-0.5485511, -0.8098116],
        [-0.3946028, 0.029507],
        [0.8591618, 0.9993094],
    ],
]


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), expected, atol=ATOL, rtol=0)


def fixed(layer, input_shape, weights):
    layer.build(input_shape)
    layer.set_weights(weights)
    return layer


def test_conv2d_same_strides_2_forward_and_gradients_match_tensorflow():
    conv = fixed(
        layers.Conv2D(3, 3, strides=2, padding="same"),
        (None, 5, 5, 2),
        [wave((3, 3, 2, 3), 0.5, 1.1), wave((3,), 0.2, 1.3)],
    )
    x = tf.constant(wave((2, 5, 5, 2)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = conv(x)
        loss = tf.reduce_sum(y * wave((2, 3, 3, 3), 0.1, 0.6))
    gx, gk, gb = tape.gradient(loss, [x, conv.kernel, conv.bias])
    assert y.shape == (2, 3, 3, 3)
    close(y, CONV_SAME_Y)
    close(gx, CONV_SAME_GX)
    close(gk, CONV_SAME_GK)
    close(gb, CONV_SAME_GB)


def test_conv2d_in_a_tf_function_matches_eager():
    conv = fixed(
        layers.Conv2D(3, 3, strides=2, padding="same"),
        (None, 5, 5, 2),
        [wave((3, 3, 2, 3), 0.5, 1.1), wave((3,), 0.2, 1.3)],
    )
    close(tf.function(lambda x: conv(x))(tf.constant(wave((2, 5, 5, 2)))), CONV_SAME_Y)


def test_conv2d_dilation_channels_first_and_groups():
    dilated = fixed(
        layers.Conv2D(2, (2, 3), dilation_rate=2, activation="relu", use_bias=False),
        (None, 5, 5, 2),
        [wave((2, 3, 2, 2), 0.7, 0.9)],
    )
    close(dilated(wave((2, 5, 5, 2))), CONV_DIL_Y)
    first = fixed(
        layers.Conv2D(3, 2, data_format="channels_first"),
        (None, 5, 4, 3),
        [wave((2, 2, 5, 3), 0.7, 0.9), np.array([0.5, -0.5, 2.0], "float32")],
    )
    out = first(wave((1, 5, 4, 3), 0.4, 0.8))
    assert out.shape == (1, 3, 3, 2)
    close(out, CONV_CF_Y)
    grouped = fixed(
        layers.Conv2D(4, 2, groups=2),
        (None, 3, 3, 4),
        [wave((2, 2, 2, 4), 0.9, 0.5), wave((4,), 0.6, 0.9)],
    )
    assert tuple(grouped.kernel.shape) == (2, 2, 2, 4)
    close(grouped(wave((1, 3, 3, 4), 0.2, 0.45)), CONV_GROUPS_Y)


def conv1d(**kwargs):
    return fixed(
        layers.Conv1D(2, 3, **kwargs),
        (None, 7, 2),
        [wave((3, 2, 2), 0.3, 1.2), np.array([0.1, -0.2], "float32")],
    )


def test_conv1d_valid_causal_same_and_gradients():
    x = wave((2, 7, 2), 0.6, 0.5)
    close(conv1d(strides=2)(x), C1_VALID)
    close(conv1d(padding="causal", dilation_rate=2)(x), C1_CAUSAL)
    same = conv1d(padding="same")
    close(same(x), C1_SAME)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(same(xt) * wave((2, 7, 2), 0.2, 0.3))
    gx, gk = tape.gradient(loss, [xt, same.kernel])
    close(gx, C1_GX)
    close(gk, C1_GK)


def test_conv_output_shapes_and_config():
    assert layers.Conv1D(2, 3, padding="causal").compute_output_shape((None, 7, 2)) == (
        None,
        7,
        2,
    )
    assert layers.Conv2D(2, 3, strides=2).compute_output_shape((None, 9, None, 3)) == (
        None,
        4,
        None,
        2,
    )
    conv = layers.Conv2D(3, 3, strides=2, padding="same", name="c")
    assert conv.get_config() == {
        "name": "c",
        "trainable": True,
        "dtype": {
            "module": "keras",
            "class_name": "DTypePolicy",
            "config": {"name": "float32"},
            "registered_name": None,
        },
        "filters": 3,
        "kernel_size": (3, 3),
        "strides": (2, 2),
        "padding": "same",
        "data_format": "channels_last",
        "dilation_rate": (1, 1),
        "groups": 1,
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
        "activity_regularizer": None,
        "kernel_constraint": None,
        "bias_constraint": None,
    }
    clone = layers.Conv2D.from_config(conv.get_config())
    assert clone.get_config() == {**conv.get_config(), "name": clone.name}
    assert clone(tf.ones([1, 5, 5, 2])).shape == (1, 3, 3, 3)
    assert clone.count_params() == 3 * 3 * 2 * 3 + 3


def test_conv_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="Expected a strictly positive value"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match="must be a list/tuple or one of"):
        layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="The `kernel_size` argument must be a tuple of 2"):
        layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="do not satisfy `value > 0`"):
        layers.Conv2D(2, 3, strides=0)
    with pytest.raises(ValueError, match="not supported in conjunction with `dilation_rate > 1`"):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="filters must be evenly divisible by the number of"):
        layers.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match="input channels must be evenly divisible"):
        layers.Conv2D(4, 3, groups=2)(tf.ones([1, 4, 4, 3]))
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        layers.Conv2D(2, 3)(tf.ones([2, 4, 4]))
    with pytest.raises(ValueError, match="Computed output size would be zero or negative"):
        layers.Conv2D(2, 5)(tf.ones([1, 4, 4, 2]))
    conv = layers.Conv2D(2, 3)
    conv(tf.ones([1, 4, 4, 2]))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 2"):
        conv(tf.ones([1, 4, 4, 3]))


def test_pooling_2d_matches_tensorflow():
    p = wave((1, 5, 5, 2), 0.1, 0.9)
    close(layers.MaxPooling2D()(p), MAXPOOL_VALID)
    close(layers.MaxPooling2D(2, strides=1, padding="same")(p), MAXPOOL_SAME_S1)
    close(layers.AveragePooling2D(2, padding="same")(p), AVGPOOL_SAME)
    close(layers.AveragePooling2D((3, 2), strides=(2, 1))(p), AVGPOOL_3_S2)
    close(layers.GlobalAveragePooling2D()(p), GAP)
    close(
        layers.MaxPooling2D(data_format="channels_first")(wave((1, 3, 4, 6), 0.1, 0.9)),
        MAXPOOL_CF,
    )
    assert layers.GlobalAveragePooling2D(keepdims=True)(p).shape == (1, 1, 1, 2)


def test_pooling_gradients_match_tensorflow():
    p = tf.constant(wave((1, 5, 5, 2), 0.1, 0.9))
    with tf.GradientTape() as tape:
        tape.watch(p)
        max_out = layers.MaxPooling2D(2, strides=1, padding="same")(p)
        avg_out = layers.AveragePooling2D(2, padding="same")(p)
        loss = tf.reduce_sum(max_out * wave((1, 5, 5, 2), 0.8, 0.6)) + tf.reduce_sum(
            avg_out * wave((1, 3, 3, 2), 0.5, 0.7)
        )
    close(tape.gradient(loss, p), POOL_GX)


def test_pooling_1d_and_global_1d():
    x = wave((2, 7, 2), 0.6, 0.5)
    close(layers.MaxPooling1D(3, strides=2)(x), MAXPOOL1D)
    close(layers.AveragePooling1D(2, padding="same")(x), AVGPOOL1D)
    close(layers.GlobalAveragePooling1D()(x), x.mean(axis=1))
    close(layers.GlobalMaxPooling1D()(x), x.max(axis=1))
    mask = tf.constant([[True] * 3 + [False] * 4, [True] * 7])
    masked = layers.GlobalAveragePooling1D()(x, mask=mask)
    close(masked, np.stack([x[0, :3].mean(0), x[1].mean(0)]))
    close(layers.GlobalMaxPooling2D()(wave((1, 5, 5, 2))), wave((1, 5, 5, 2)).max(axis=(1, 2)))


def test_pooling_shapes_config_and_errors():
    pool = layers.MaxPooling2D(2, strides=1, padding="same")
    assert pool.compute_output_shape((None, 5, 5, 2)) == (None, 5, 5, 2)
    shape = layers.GlobalAveragePooling2D(keepdims=True).compute_output_shape((None, 5, 5, 2))
    assert shape == (None, 1, 1, 2)
    config = layers.MaxPooling2D().get_config()
    assert (config["pool_size"], config["strides"], config["padding"]) == ((2, 2), (2, 2), "valid")
    assert config["data_format"] == "channels_last"
    assert layers.MaxPooling2D.from_config(config).pool_size == (2, 2)
    config = layers.GlobalAveragePooling2D().get_config()
    assert (config["data_format"], config["keepdims"]) == ("channels_last", False)
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        layers.MaxPooling2D()(tf.ones([2, 3, 3]))
    with pytest.raises(ValueError, match="Computed output size would be zero or negative"):
        layers.MaxPooling2D(pool_size=5)(tf.ones([1, 4, 4, 2]))
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        layers.GlobalAveragePooling2D()(tf.ones([2, 3, 3]))
    with pytest.raises(TypeError):
        layers.AveragePooling2D()  # Keras 3 requires pool_size here


def test_a_small_convnet_trains():
    class ConvNet(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv = layers.Conv2D(4, 3, padding="same", activation="relu")
            self.pool = layers.MaxPooling2D()
            self.flatten = layers.Flatten()
            self.dense = layers.Dense(1)

        def call(self, inputs):
            return self.dense(self.flatten(self.pool(self.conv(inputs))))

    tf.random.set_seed(1)
    model = ConvNet()
    x = tf.constant(wave((8, 4, 4, 1)))
    y = tf.reduce_sum(x, axis=[1, 2])
    losses = []
    for _ in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        for v, g in zip(model.trainable_variables, grads):
            v.assign_sub(0.05 * g)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
