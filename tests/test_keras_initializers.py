"""tf.keras.initializers and tf.keras.regularizers against Keras 3 (TensorFlow 2.21).

Initializers: exact values for the deterministic ones, shapes and dtypes, Keras' fan
computation, sample statistics of the random ones (their values cannot match TensorFlow's RNG),
Keras 3's seeding (one instance gives the same values on every call), get / configs /
serialization and argument errors. Regularizers: penalties and gradients (expected values from
Keras 3), configs and get.
"""

import math

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras import initializers, regularizers

I = initializers  # noqa: E741


def values(tensor):
    return np.asarray(tensor.numpy(), np.float64)


# -- deterministic initializers -----------------------------------------------------------


def test_zeros_and_ones():
    z = I.Zeros()((2, 3))
    o = I.Ones()([4])
    assert z.shape == (2, 3) and z.dtype == tf.float32
    assert o.shape == (4,) and o.dtype == tf.float32
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(o.numpy(), np.ones(4))
    assert I.Zeros()((2,), dtype="int32").dtype == tf.int32
    assert I.Ones()((2,), dtype=tf.bool).numpy().tolist() == [True, True]
    assert I.Ones()(tf.TensorShape([2, 2]), dtype="float16").dtype == tf.float16
    assert I.Zeros()(()).shape == ()


def test_constant_fills_and_casts():
    c = I.Constant(2.5)((2, 2))
    np.testing.assert_array_equal(c.numpy(), np.full((2, 2), 2.5, np.float32))
    assert c.dtype == tf.float32
    ints = I.Constant(2)((3,), dtype="int32")
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [2, 2, 2]
    # As in Keras (`ops.cast` of a Python float), the value passes through float32.
    assert I.Constant(3.7)((1,), dtype=tf.float64).numpy().tolist() == [3.700000047683716]
    assert I.Identity(gain=3.7)((2, 2), dtype="float64").numpy()[0, 0] == 3.7
    # A value that broadcasts to the shape, as Keras' `value * ones(shape)` allows.
    row = I.Constant(np.array([1.0, 2.0]))((2, 2))
    np.testing.assert_array_equal(row.numpy(), [[1.0, 2.0], [1.0, 2.0]])


def test_identity_with_gain_and_rectangular_shapes():
    np.testing.assert_array_equal(I.Identity()((3, 3)).numpy(), np.eye(3))
    np.testing.assert_array_equal(I.Identity(gain=2.0)((2, 3)).numpy(), 2 * np.eye(2, 3))
    assert I.Identity()((2, 2), dtype="float64").dtype == tf.float64
    with pytest.raises(ValueError, match="can only be used for 2D matrices"):
        I.Identity()((2, 2, 2))


# -- fans ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, fans",
    [
        ((), (1, 1)),
        ((5,), (5, 5)),
        ((3, 4), (3, 4)),
        ((7, 1, 2), (7, 14)),
        ((3, 3, 4, 8), (36, 72)),
        ((2, 3, 3, 4, 8), (72, 144)),
    ],
)
def test_compute_fans_matches_keras(shape, fans):
    assert I.compute_fans(shape) == fans


def test_compute_fans_with_explicit_axes():
    assert I.compute_fans((3, 4, 5), input_axes=[0, 1], output_axes=[2]) == (12, 5)


# -- random initializers: statistics ------------------------------------------------------

# (class, scale, mode, distribution)
PRESETS = [
    (I.GlorotUniform, 1.0, "fan_avg", "uniform"),
    (I.GlorotNormal, 1.0, "fan_avg", "truncated_normal"),
    (I.HeNormal, 2.0, "fan_in", "truncated_normal"),
    (I.HeUniform, 2.0, "fan_in", "uniform"),
    (I.LecunNormal, 1.0, "fan_in", "truncated_normal"),
    (I.LecunUniform, 1.0, "fan_in", "uniform"),
]


def fan(shape, mode):
    fan_in, fan_out = I.compute_fans(shape)
    return {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]


def check_variance_scaling(sample, shape, scale, mode, distribution):
    x = values(sample)
    assert x.shape == shape
    stddev = math.sqrt(scale / fan(shape, mode))
    assert abs(x.mean()) < 0.03 * stddev
    assert x.std() == pytest.approx(stddev, rel=0.03)
    if distribution == "uniform":
        limit = math.sqrt(3.0) * stddev
        assert np.abs(x).max() <= limit * (1 + 1e-6)
        assert np.abs(x).max() > 0.99 * limit
    elif distribution == "truncated_normal":
        bound = 2 * stddev / 0.87962566103423978
        assert np.abs(x).max() <= bound * (1 + 1e-6)
        assert np.abs(x).max() > 0.98 * bound
    else:
        assert np.abs(x).max() > 3.5 * stddev  # untruncated tails


@pytest.mark.parametrize("cls, scale, mode, distribution", PRESETS)
def test_presets_have_keras_statistics(cls, scale, mode, distribution):
    shape = (300, 200)
    check_variance_scaling(cls(seed=1)(shape), shape, scale, mode, distribution)


@pytest.mark.parametrize("cls, scale, mode, distribution", PRESETS)
def test_presets_use_the_receptive_field_for_conv_kernels(cls, scale, mode, distribution):
    shape = (5, 5, 32, 64)
    check_variance_scaling(cls(seed=2)(shape), shape, scale, mode, distribution)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("distribution", ["uniform", "truncated_normal", "untruncated_normal"])
def test_variance_scaling_modes_and_distributions(mode, distribution):
    shape = (100, 400)
    init = I.VarianceScaling(scale=3.0, mode=mode, distribution=distribution, seed=3)
    check_variance_scaling(init(shape), shape, 3.0, mode, distribution)


def test_variance_scaling_normal_means_truncated_normal():
    assert I.VarianceScaling(distribution="Normal").distribution == "truncated_normal"


def test_variance_scaling_with_explicit_axes():
    shape = (20, 30, 100)
    init = I.VarianceScaling(
        mode="fan_in", distribution="uniform", input_axes=[0, 1], output_axes=[2]
    )
    x = values(init(shape, dtype="float64"))
    assert np.abs(x).max() <= math.sqrt(3.0 / 600)


def test_random_normal_statistics():
    x = values(I.RandomNormal(mean=1.0, stddev=2.0, seed=4)((400, 250)))
    assert x.mean() == pytest.approx(1.0, abs=0.03)
    assert x.std() == pytest.approx(2.0, rel=0.02)
    assert np.abs(x - 1.0).max() > 7.0  # not truncated


def test_random_uniform_statistics():
    x = values(I.RandomUniform(minval=-3.0, maxval=-1.0, seed=5)((400, 250)))
    assert x.min() >= -3.0 and x.max() <= -1.0
    assert x.mean() == pytest.approx(-2.0, abs=0.01)
    assert x.std() == pytest.approx(2.0 / math.sqrt(12.0), rel=0.02)


def test_random_uniform_integers():
    x = I.RandomUniform(minval=0, maxval=5, seed=6)((1000,), dtype="int32")
    assert x.dtype == tf.int32
    assert set(x.numpy().tolist()) == {0, 1, 2, 3, 4}


def test_truncated_normal_statistics():
    x = values(I.TruncatedNormal(mean=0.5, stddev=0.1, seed=7)((400, 250)))
    assert np.abs(x - 0.5).max() <= 0.2 + 1e-6
    assert x.mean() == pytest.approx(0.5, abs=0.002)
    assert x.std() == pytest.approx(0.1 * 0.87962566, rel=0.02)


def test_default_arguments_match_keras():
    x = values(I.RandomNormal(seed=8)((200, 200)))
    assert x.std() == pytest.approx(0.05, rel=0.03)
    x = values(I.RandomUniform(seed=8)((200, 200)))
    assert x.min() >= -0.05 and x.max() <= 0.05
    x = values(I.TruncatedNormal(seed=8)((200, 200)))
    assert np.abs(x).max() <= 0.1 + 1e-7


@pytest.mark.parametrize("gain", [1.0, 2.0])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (3, 3, 4, 8)])
def test_orthogonal(shape, gain):
    q = values(I.Orthogonal(gain=gain, seed=9)(shape))
    assert q.shape == shape
    flat = q.reshape(-1, shape[-1])
    rows, cols = flat.shape
    gram = flat @ flat.T if rows < cols else flat.T @ flat
    np.testing.assert_allclose(gram, gain**2 * np.eye(min(rows, cols)), atol=1e-5)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        I.Orthogonal()((3,))


# -- dtypes and shapes --------------------------------------------------------------------

RANDOM_NAMES = [
    "glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "lecun_normal",
    "lecun_uniform", "random_normal", "random_uniform", "truncated_normal", "orthogonal",
    "variance_scaling",
]  # fmt: skip


@pytest.mark.parametrize("name", RANDOM_NAMES)
def test_random_dtypes_and_shapes(name):
    init = I.get(name)
    default = init((4, 3))
    assert default.shape == (4, 3) and default.dtype == tf.float32
    for dtype in ["float64", tf.float16, np.float32]:
        assert init([4, 3], dtype=dtype).dtype == tf.as_dtype(dtype)
    assert init(tf.TensorShape([2, 5])).shape == (2, 5)


@pytest.mark.parametrize("cls", [I.RandomNormal, I.TruncatedNormal, I.GlorotNormal])
def test_normal_initializers_reject_integer_dtypes(cls):
    with pytest.raises(TypeError, match="floating-point dtype"):
        cls(seed=1)((2,), dtype="int32")


# -- seeding (Keras 3: stateless draws keyed by the seed) ---------------------------------


@pytest.mark.parametrize("name", RANDOM_NAMES)
def test_an_instance_returns_the_same_values_every_call(name):
    init = I.get(name)  # unseeded: the seed is drawn once, at construction
    np.testing.assert_array_equal(init((6, 5)).numpy(), init((6, 5)).numpy())


def test_same_seed_same_values_and_different_seeds_differ():
    a = I.GlorotUniform(seed=11)((8, 8)).numpy()
    b = I.GlorotUniform(seed=11)((8, 8)).numpy()
    c = I.GlorotUniform(seed=12)((8, 8)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    d = I.HeNormal(seed=-5)((8, 8)).numpy()
    np.testing.assert_array_equal(d, I.HeNormal(seed=-5)((8, 8)).numpy())


def test_unseeded_instances_differ():
    a = I.GlorotUniform()((8, 8)).numpy()
    b = I.GlorotUniform()((8, 8)).numpy()
    assert not np.array_equal(a, b)


def test_global_seed_makes_unseeded_initializers_reproducible():
    try:
        tf.random.set_seed(1234)
        a = I.get("glorot_uniform")((5, 5)).numpy()
        tf.random.set_seed(1234)
        b = I.get("glorot_uniform")((5, 5)).numpy()
    finally:
        tf.random.set_seed(None)
    np.testing.assert_array_equal(a, b)


def test_initializers_inside_tf_function():
    init = I.HeUniform(seed=13)

    @tf.function
    def build():
        return init((3, 4)), I.get("zeros")((2,)), I.Identity()((2, 2))

    kernel, zeros, eye = build()
    np.testing.assert_array_equal(kernel.numpy(), init((3, 4)).numpy())
    assert zeros.numpy().tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(eye.numpy(), np.eye(2))
    # Unseeded construction while tracing works too.

    @tf.function
    def fresh():
        return I.GlorotUniform()((2, 2))

    assert fresh().shape == (2, 2)


def test_initial_values_feed_variables():
    v = tf.Variable(I.get("glorot_uniform")((3, 2)))
    assert v.shape == (3, 2) and v.dtype == tf.float32


# -- get / config / serialization ---------------------------------------------------------

GET_NAMES = {
    "glorot_uniform": I.GlorotUniform,
    "GlorotUniform": I.GlorotUniform,
    "glorot_normal": I.GlorotNormal,
    "he_normal": I.HeNormal,
    "HeNormal": I.HeNormal,
    "he_uniform": I.HeUniform,
    "lecun_normal": I.LecunNormal,
    "lecun_uniform": I.LecunUniform,
    "zeros": I.Zeros,
    "zero": I.Zeros,
    "ones": I.Ones,
    "one": I.Ones,
    "Ones": I.Ones,
    "constant": I.Constant,
    "identity": I.Identity,
    "IdentityInitializer": I.Identity,
    "orthogonal": I.Orthogonal,
    "OrthogonalInitializer": I.Orthogonal,
    "random_normal": I.RandomNormal,
    "normal": I.RandomNormal,
    "random_uniform": I.RandomUniform,
    "uniform": I.RandomUniform,
    "truncated_normal": I.TruncatedNormal,
    "TruncatedNormal": I.TruncatedNormal,
    "variance_scaling": I.VarianceScaling,
}


@pytest.mark.parametrize("name", sorted(GET_NAMES))
def test_get_resolves_names(name):
    init = I.get(name)
    assert type(init) is GET_NAMES[name]
    assert init((2, 2)).shape == (2, 2)


def test_get_constant_defaults_to_zero():
    assert I.get("constant")((2,)).numpy().tolist() == [0.0, 0.0]


def test_get_passes_instances_and_callables_through():
    init = I.RandomNormal(seed=1)
    assert I.get(init) is init
    assert I.get(tf.random.normal) is tf.random.normal
    assert I.get(None) is None

    def custom(shape, dtype=None):
        return tf.ones(shape, dtype=dtype or tf.float32)

    assert I.get(custom) is custom
    assert type(I.get(I.HeNormal)) is I.HeNormal
    assert I.glorot_uniform is I.GlorotUniform and I.zeros is I.Zeros


def test_get_plain_tf_random_normal_is_called_with_dtype():
    init = I.get(tf.random.normal)
    x = init((3, 2), dtype=tf.float32)
    assert x.shape == (3, 2)


def test_get_config_dicts():
    init = I.get({"class_name": "RandomUniform", "config": {"minval": -1, "maxval": 1, "seed": 3}})
    assert type(init) is I.RandomUniform
    assert init.get_config() == {"seed": 3, "minval": -1, "maxval": 1}
    full = {
        "module": "keras.initializers",
        "class_name": "Constant",
        "config": {"value": 2.0},
        "registered_name": None,
    }
    assert I.get(full)((2,)).numpy().tolist() == [2.0, 2.0]


def test_get_fixed_tensor_values():
    init = I.get(np.ones((2, 2)))
    np.testing.assert_array_equal(init((2, 2)).numpy(), np.ones((2, 2), np.float32))
    assert init((2, 2)).dtype == tf.float32
    with pytest.raises(ValueError, match="Expected `shape` to be"):
        init((3,))
    assert I.get(tf.constant([1.0, 2.0]))((2,), dtype="float64").dtype == tf.float64


@pytest.mark.parametrize(
    "identifier, message",
    [
        ("foo", "Could not interpret initializer identifier: foo"),
        ("glorotuniform", "Could not interpret initializer identifier: glorotuniform"),
        (3, "Could not interpret initializer identifier: 3"),
        ({"class_name": "Foo", "config": {}}, "Could not interpret initializer identifier"),
        ({"config": {}}, "Unknown `config` as a `dict`"),
    ],
)
def test_get_rejects_unknown_identifiers(identifier, message):
    with pytest.raises(ValueError, match=message):
        I.get(identifier)


KERAS_CONFIGS = {
    "Zeros": {},
    "Ones": {},
    "Constant": {"value": 0.0},
    "RandomNormal": {"seed": None, "mean": 0.0, "stddev": 0.05},
    "RandomUniform": {"seed": None, "minval": -0.05, "maxval": 0.05},
    "TruncatedNormal": {"seed": None, "mean": 0.0, "stddev": 0.05},
    "VarianceScaling": {
        "seed": None,
        "scale": 1.0,
        "mode": "fan_in",
        "distribution": "truncated_normal",
        "input_axes": None,
        "output_axes": None,
    },
    "GlorotUniform": {"seed": None, "input_axes": None, "output_axes": None},
    "GlorotNormal": {"seed": None, "input_axes": None, "output_axes": None},
    "HeNormal": {"seed": None, "input_axes": None, "output_axes": None},
    "HeUniform": {"seed": None, "input_axes": None, "output_axes": None},
    "LecunNormal": {"seed": None, "input_axes": None, "output_axes": None},
    "LecunUniform": {"seed": None, "input_axes": None, "output_axes": None},
    "Orthogonal": {"seed": None, "gain": 1.0},
}


@pytest.mark.parametrize("name", sorted(KERAS_CONFIGS))
def test_default_configs_match_keras(name):
    assert getattr(I, name)().get_config() == KERAS_CONFIGS[name]


@pytest.mark.parametrize(
    "init",
    [
        I.Constant(1.5),
        I.Identity(gain=3.0),
        I.RandomNormal(mean=1.0, stddev=0.5, seed=2),
        I.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform", seed=4),
        I.HeNormal(seed=3),
        I.Orthogonal(gain=2.0, seed=5),
    ],
    ids=lambda init: type(init).__name__,
)
def test_config_and_serialization_round_trip(init):
    clone = type(init).from_config(init.get_config())
    assert clone.get_config() == init.get_config()
    assert init.clone().get_config() == init.get_config()
    serialized = I.serialize(init)
    assert serialized == {
        "module": "keras.initializers",
        "class_name": type(init).__name__,
        "config": init.get_config(),
        "registered_name": None,
    }
    restored = I.deserialize(serialized)
    assert type(restored) is type(init) and restored.get_config() == init.get_config()
    np.testing.assert_array_equal(restored((3, 3)).numpy(), init((3, 3)).numpy())


def test_seeded_config_keeps_the_seed():
    assert I.GlorotUniform(seed=2).get_config() == {
        "seed": 2,
        "input_axes": None,
        "output_axes": None,
    }


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: I.VarianceScaling(scale=0), "Argument `scale` must be positive float"),
        (lambda: I.VarianceScaling(mode="fan"), "Invalid `mode` argument: fan"),
        (lambda: I.VarianceScaling(distribution="x"), "Invalid `distribution` argument: x"),
        (lambda: I.RandomNormal(seed="a"), "`seed` argument should be"),
        (lambda: I.RandomUniform(seed=1.5), "`seed` argument should be"),
    ],
)
def test_constructor_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_base_class():
    base = I.Initializer()
    assert base.get_config() == {}
    with pytest.raises(NotImplementedError, match="must implement the `__call__\\(\\)` method"):
        base((2,))

    class Twos(I.Initializer):
        def __call__(self, shape, dtype=None):
            return I.Constant(2.0)(shape, dtype)

    assert I.get(Twos())((2,)).numpy().tolist() == [2.0, 2.0]


# -- regularizers -------------------------------------------------------------------------

R = regularizers

W = [[1.0, -2.0, 0.5], [0.0, 3.0, -0.25], [1.5, 1.0, 2.0], [-1.0, 0.5, 0.0]]

# Penalty and gradient with respect to W, from Keras 3 (float32).
REGULARIZER_CASES = {
    "L1_default": (
        lambda: R.L1(),
        0.1274999976158142,
        0.01 * np.sign(W),
    ),
    "L1_03": (lambda: R.L1(0.3), 3.825000047683716, 0.3 * np.sign(W)),
    "L2_default": (lambda: R.L2(), 0.22812499105930328, 0.02 * np.array(W)),
    "L2_02": (lambda: R.L2(0.2), 4.5625, 0.4 * np.array(W)),
    "L1L2_both": (
        lambda: R.L1L2(l1=0.1, l2=0.05),
        2.4156250953674316,
        0.1 * np.sign(W) + 0.1 * np.array(W),
    ),
    "ORTHO_rows": (
        lambda: R.OrthogonalRegularizer(0.1),
        0.047266941517591476,
        [
            [0.00500346627086401, 0.0033091423101723194, 0.0032296371646225452],
            [-0.004283912014216185, 0.0003049299120903015, 0.003659150330349803],
            [0.0057493895292282104, -0.003661622293293476, -0.002481231465935707],
            [0.005970394238829613, 0.011940792202949524, -0.015563699416816235],
        ],
    ),
    "ORTHO_cols": (
        lambda: R.OrthogonalRegularizer(0.2, mode="columns"),
        0.06519529968500137,
        [
            [0.010079408995807171, -0.002813715022057295, -0.00800198782235384],
            [-0.02959275245666504, -0.0043771471828222275, 0.028795620426535606],
            [0.00031808391213417053, 0.0034083181526511908, 0.0055999476462602615],
            [0.0105565395206213, 0.008191388100385666, -0.01132006011903286],
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(REGULARIZER_CASES))
def test_regularizer_values_and_gradients_match_keras(name):
    build, penalty, gradient = REGULARIZER_CASES[name]
    w = tf.Variable(W)
    with tf.GradientTape() as tape:
        loss = build()(w)
    assert loss.shape == () and loss.dtype == tf.float32
    assert float(loss) == pytest.approx(penalty, rel=1e-6)
    np.testing.assert_allclose(values(tape.gradient(loss, w)), gradient, rtol=1e-5, atol=1e-7)


def test_l1l2_defaults_to_no_penalty():
    loss = R.L1L2()(tf.constant(W))
    assert float(loss) == 0.0 and loss.dtype == tf.float32


def test_regularizers_follow_the_weight_dtype():
    w = tf.constant(W, dtype=tf.float64)
    loss = R.L1(0.3)(w)
    assert loss.dtype == tf.float64
    assert float(loss) == pytest.approx(3.825000151991844, rel=1e-12)  # float32-rounded l1
    assert R.L2(0.2)(w).dtype == tf.float64
    assert R.OrthogonalRegularizer()(w).dtype == tf.float64


def test_regularizers_inside_tf_function():
    reg = R.L1L2(l1=0.1, l2=0.05)
    ortho = R.OrthogonalRegularizer(0.1)

    @tf.function
    def penalty(w):
        return reg(w) + ortho(w)

    expected = 2.4156250953674316 + 0.047266941517591476
    assert float(penalty(tf.constant(W))) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize(
    "identifier, cls, config",
    [
        ("l1", R.L1, {"l1": 0.009999999776482582}),
        ("L1", R.L1, {"l1": 0.009999999776482582}),
        ("l2", R.L2, {"l2": 0.01}),
        ("L2", R.L2, {"l2": 0.01}),
        ("l1_l2", R.L1L2, {"l1": 0.01, "l2": 0.01}),
        ("l1l2", R.L1L2, {"l1": 0.0, "l2": 0.0}),
        ("L1L2", R.L1L2, {"l1": 0.0, "l2": 0.0}),
        (
            "orthogonal_regularizer",
            R.OrthogonalRegularizer,
            {"factor": 0.009999999776482582, "mode": "rows"},
        ),
        ({"class_name": "L1L2", "config": {"l1": 0.1, "l2": 0.2}}, R.L1L2, {"l1": 0.1, "l2": 0.2}),
        (R.L2, R.L2, {"l2": 0.01}),
    ],
)
def test_regularizer_get(identifier, cls, config):
    reg = R.get(identifier)
    assert type(reg) is cls
    assert reg.get_config() == config


def test_regularizer_get_passes_callables_through():
    reg = R.L2(0.5)
    assert R.get(reg) is reg
    assert R.get(None) is None

    def custom(w):
        return 0.01 * tf.reduce_sum(tf.abs(w))

    assert R.get(custom) is custom
    assert (
        R.l1 is R.L1 and R.l1_l2 is R.L1L2 and R.orthogonal_regularizer is R.OrthogonalRegularizer
    )


@pytest.mark.parametrize("bad", ["foo", 3])
def test_regularizer_get_rejects_unknown_identifiers(bad):
    with pytest.raises(ValueError, match=f"Could not interpret regularizer identifier: {bad}"):
        R.get(bad)


@pytest.mark.parametrize(
    "reg", [R.L1(0.3), R.L2(0.2), R.L1L2(0.1, 0.2), R.OrthogonalRegularizer(0.5, "columns")]
)
def test_regularizer_serialization_round_trip(reg):
    serialized = R.serialize(reg)
    assert serialized["module"] == "keras.regularizers"
    assert serialized["class_name"] == type(reg).__name__
    restored = R.deserialize(serialized)
    assert type(restored) is type(reg) and restored.get_config() == reg.get_config()
    assert type(reg).from_config(reg.get_config()).get_config() == reg.get_config()


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: R.L1(-1), "Invalid value for argument l1: expected a non-negative float"),
        (lambda: R.L1("a"), "Invalid value for argument l1"),
        (lambda: R.L2(float("nan")), "Invalid value for argument l2"),
        (lambda: R.L1L2(l2=float("inf")), "Invalid value for argument l2"),
        (lambda: R.OrthogonalRegularizer(mode="x"), "Invalid value for argument `mode`"),
        (lambda: R.OrthogonalRegularizer()(tf.ones([2, 2, 2])), "must have rank 2"),
    ],
)
def test_regularizer_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_regularizer_base_class():
    base = R.Regularizer()
    assert base(tf.ones([2])) == 0.0
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        base.get_config()
    assert R.L1(None).get_config() == {"l1": 0.009999999776482582}
