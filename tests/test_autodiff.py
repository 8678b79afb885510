"""Gradients of every differentiable op against central finite differences (float64, CPU), GPU
gradients against CPU gradients, and second derivatives through nested tapes."""

import ferroflow as tf
import numpy as np
import pytest
from conftest import require_gpu

RNG = np.random.default_rng(7)


def uniform(shape, lo=-2.0, hi=2.0):
    return lambda: RNG.uniform(lo, hi, size=shape)


def spread(shape, lo=-2.0, hi=2.0):
    """Distinct values well apart (no ties, away from kinks), shuffled."""

    def make():
        n = int(np.prod(shape))
        return RNG.permutation(np.linspace(lo, hi, n)).reshape(shape)

    return make


def positive(shape, lo=0.5, hi=2.0):
    return uniform(shape, lo, hi)


def away_from_zero(shape):
    return lambda: RNG.choice([-1.0, 1.0], size=shape) * RNG.uniform(0.3, 2.0, size=shape)


M23, M34 = (2, 3), (3, 4)
LABELS = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]])

# (id, function of float tensors, input makers)
CASES = [
    ("negative", tf.negative, [uniform(M23)]),
    ("abs", tf.abs, [away_from_zero(M23)]),
    ("sign", tf.sign, [away_from_zero(M23)]),
    ("square", tf.square, [uniform(M23)]),
    ("sqrt", tf.sqrt, [positive(M23)]),
    ("rsqrt", tf.math.rsqrt, [positive(M23)]),
    ("exp", tf.exp, [uniform(M23)]),
    ("expm1", tf.math.expm1, [uniform(M23)]),
    ("log", tf.math.log, [positive(M23)]),
    ("log1p", tf.math.log1p, [positive(M23)]),
    ("sin", tf.sin, [uniform(M23)]),
    ("cos", tf.cos, [uniform(M23)]),
    ("tan", tf.math.tan, [uniform(M23, -1.0, 1.0)]),
    ("asin", tf.math.asin, [uniform(M23, -0.9, 0.9)]),
    ("acos", tf.math.acos, [uniform(M23, -0.9, 0.9)]),
    ("atan", tf.math.atan, [uniform(M23)]),
    ("sinh", tf.math.sinh, [uniform(M23)]),
    ("cosh", tf.math.cosh, [uniform(M23)]),
    ("asinh", tf.math.asinh, [uniform(M23)]),
    ("acosh", tf.math.acosh, [uniform(M23, 1.2, 3.0)]),
    ("atanh", tf.math.atanh, [uniform(M23, -0.9, 0.9)]),
    ("tanh", tf.tanh, [uniform(M23)]),
    ("sigmoid", tf.sigmoid, [uniform(M23)]),
    ("erf", tf.math.erf, [uniform(M23)]),
    # tf.math's special functions (issue 19).
    ("lgamma", tf.math.lgamma, [positive(M23)]),
    ("digamma", tf.math.digamma, [positive(M23)]),
    ("erfc", tf.math.erfc, [uniform(M23)]),
    ("erfinv", tf.math.erfinv, [uniform(M23, -0.9, 0.9)]),
    ("ndtri", tf.math.ndtri, [uniform(M23, 0.05, 0.95)]),
    ("bessel_i0", tf.math.special.bessel_i0, [away_from_zero(M23)]),
    ("bessel_i0e", tf.math.special.bessel_i0e, [away_from_zero(M23)]),
    ("bessel_i1", tf.math.special.bessel_i1, [away_from_zero(M23)]),
    ("bessel_i1e", tf.math.special.bessel_i1e, [away_from_zero(M23)]),
    ("bessel_j0", tf.math.special.bessel_j0, [away_from_zero(M23)]),
    ("bessel_j1", tf.math.special.bessel_j1, [away_from_zero(M23)]),
    ("dawsn", tf.math.special.dawsn, [away_from_zero(M23)]),
    ("fresnel_cos", tf.math.special.fresnel_cos, [away_from_zero(M23)]),
    ("fresnel_sin", tf.math.special.fresnel_sin, [away_from_zero(M23)]),
    ("bessel_k0", tf.math.special.bessel_k0, [positive(M23)]),
    ("bessel_k0e", tf.math.special.bessel_k0e, [positive(M23)]),
    ("bessel_k1", tf.math.special.bessel_k1, [positive(M23)]),
    ("bessel_k1e", tf.math.special.bessel_k1e, [positive(M23)]),
    ("bessel_y0", tf.math.special.bessel_y0, [positive(M23)]),
    ("bessel_y1", tf.math.special.bessel_y1, [positive(M23)]),
    ("expint", tf.math.special.expint, [positive(M23)]),
    ("spence", tf.math.special.spence, [positive(M23)]),
    ("reciprocal", tf.math.reciprocal, [away_from_zero(M23)]),
    ("relu", tf.nn.relu, [away_from_zero(M23)]),
    ("relu6", tf.nn.relu6, [spread(M23, -3.0, 8.0)]),
    ("elu", tf.nn.elu, [away_from_zero(M23)]),
    ("selu", tf.nn.selu, [away_from_zero(M23)]),
    ("softplus", tf.nn.softplus, [uniform(M23)]),
    ("leaky_relu", lambda x: tf.nn.leaky_relu(x, 0.3), [away_from_zero(M23)]),
    ("gelu", tf.nn.gelu, [uniform(M23)]),
    ("gelu_tanh", lambda x: tf.nn.gelu(x, approximate=True), [uniform(M23)]),
    ("softmax", tf.nn.softmax, [uniform(M23)]),
    ("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), [uniform(M23)]),
    ("log_softmax", tf.nn.log_softmax, [uniform(M23)]),
    ("log_softmax_axis0", lambda x: tf.nn.log_softmax(x, axis=0), [uniform(M23)]),
    (
        "softmax_cross_entropy",
        lambda x: tf.nn.softmax_cross_entropy_with_logits(tf.constant(LABELS, x.dtype), x),
        [uniform(M23)],
    ),
    (
        "sparse_softmax_cross_entropy",
        lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([2, 0]), x),
        [uniform(M23)],
    ),
    (
        "sigmoid_cross_entropy",
        lambda x: tf.nn.sigmoid_cross_entropy_with_logits(tf.constant(LABELS, x.dtype), x),
        [away_from_zero(M23)],
    ),
    ("l2_loss", tf.nn.l2_loss, [uniform(M23)]),
    ("bias_add", tf.nn.bias_add, [uniform(M23), uniform((3,))]),
    ("add_broadcast", tf.add, [uniform(M23), uniform((3,))]),
    ("subtract_broadcast", tf.subtract, [uniform((2, 1)), uniform(M23)]),
    ("multiply_broadcast", tf.multiply, [uniform(M23), uniform((1, 3))]),
    ("divide", tf.divide, [uniform(M23), away_from_zero((3,))]),
    ("pow", tf.pow, [positive(M23), uniform((3,))]),
    ("maximum", tf.maximum, [spread(M23), spread((3,), -1.9, 1.9)]),
    ("minimum", tf.minimum, [spread(M23), spread((2, 1), -1.9, 1.9)]),
    ("atan2", tf.math.atan2, [away_from_zero(M23), away_from_zero(M23)]),
    ("floormod", tf.math.floormod, [uniform(M23, 0.1, 0.9), uniform(M23, 1.1, 1.9)]),
    ("squared_difference", tf.math.squared_difference, [uniform(M23), uniform((3,))]),
    (
        "where",
        lambda x, y: tf.where(tf.constant([True, False, True]), x, y),
        [
            uniform(M23),
            uniform((1, 3)),
        ],
    ),
    ("cast_complex_real", lambda x: tf.math.real(tf.cast(x, tf.complex128) * 2), [uniform(M23)]),
    (
        "complex_parts",
        lambda x, y: tf.math.imag(tf.complex(x, y) ** 2),
        [
            uniform(M23),
            uniform(M23),
        ],
    ),
    ("reduce_sum", lambda x: tf.reduce_sum(x, axis=1), [uniform((2, 3, 4))]),
    (
        "reduce_sum_keepdims",
        lambda x: tf.reduce_sum(x, [0, 2], keepdims=True),
        [uniform((2, 3, 4))],
    ),
    ("reduce_mean", lambda x: tf.reduce_mean(x, axis=-1), [uniform((2, 3, 4))]),
    ("reduce_max", lambda x: tf.reduce_max(x, axis=1), [spread((2, 3, 4))]),
    ("reduce_min_all", tf.reduce_min, [spread((2, 3, 4))]),
    ("reduce_prod", lambda x: tf.reduce_prod(x, axis=[0, 2]), [uniform((2, 3, 4))]),
    (
        "reduce_prod_with_zero",
        lambda x: tf.reduce_prod(x * tf.constant([1.0, 0.0, 1.0], x.dtype), 1),
        [uniform(M23)],
    ),
    ("reduce_logsumexp", lambda x: tf.reduce_logsumexp(x, axis=0), [uniform(M23)]),
    ("reduce_variance", lambda x: tf.math.reduce_variance(x, axis=1), [uniform(M23)]),
    ("reduce_std", lambda x: tf.math.reduce_std(x), [uniform(M23)]),
    ("norm", lambda x: tf.norm(x, axis=1), [uniform(M23)]),
    ("cumsum", lambda x: tf.cumsum(x, axis=1), [uniform(M34)]),
    (
        "cumsum_exclusive_reverse",
        lambda x: tf.cumsum(x, 0, exclusive=True, reverse=True),
        [uniform(M34)],
    ),
    ("cumprod", lambda x: tf.math.cumprod(x, axis=1), [away_from_zero(M34)]),
    ("matmul", tf.matmul, [uniform(M23), uniform(M34)]),
    (
        "matmul_transpose_a",
        lambda a, b: tf.matmul(a, b, transpose_a=True),
        [
            uniform((3, 2)),
            uniform(M34),
        ],
    ),
    (
        "matmul_transpose_b",
        lambda a, b: tf.matmul(a, b, transpose_b=True),
        [
            uniform(M23),
            uniform((4, 3)),
        ],
    ),
    (
        "matmul_transpose_both",
        lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
        [
            uniform((3, 2)),
            uniform((4, 3)),
        ],
    ),
    (
        "matmul_adjoint",
        lambda a, b: tf.matmul(a, b, adjoint_a=True),
        [
            uniform((3, 2)),
            uniform(M34),
        ],
    ),
    ("matmul_batch_broadcast", tf.matmul, [uniform((2, 1, 2, 3)), uniform((3, 3, 4))]),
    ("matvec", tf.linalg.matvec, [uniform(M23), uniform((3,))]),
    ("tensordot", lambda a, b: tf.tensordot(a, b, axes=1), [uniform(M23), uniform(M34)]),
    ("einsum", lambda a, b: tf.einsum("ij,jk->ik", a, b), [uniform(M23), uniform(M34)]),
    (
        "reshape",
        lambda x: tf.reshape(x, [3, 2]) * tf.constant([[1.0], [2.0], [3.0]], x.dtype),
        [uniform(M23)],
    ),
    ("transpose", lambda x: tf.transpose(x, [2, 0, 1]), [uniform((2, 3, 4))]),
    ("broadcast_to", lambda x: tf.broadcast_to(x, [2, 2, 3]), [uniform((1, 3))]),
    ("concat", lambda a, b: tf.concat([a, b, a], axis=1), [uniform(M23), uniform((2, 1))]),
    ("stack", lambda a, b: tf.stack([a, b], axis=1), [uniform(M23), uniform(M23)]),
    ("split", lambda x: tf.split(x, [1, 3], axis=1)[1], [uniform(M34)]),
    ("unstack", lambda x: tf.unstack(x, axis=1)[2], [uniform(M34)]),
    ("squeeze_expand", lambda x: tf.expand_dims(tf.squeeze(x), 0), [uniform((1, 3, 1))]),
    ("tile", lambda x: tf.tile(x, [2, 3]), [uniform(M23)]),
    ("pad_constant", lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0), [uniform(M23)]),
    ("pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"), [uniform(M34)]),
    ("pad_symmetric", lambda x: tf.pad(x, [[1, 1], [2, 2]], mode="SYMMETRIC"), [uniform(M34)]),
    ("getitem_steps", lambda x: x[::-1, 1::2], [uniform((3, 5))]),
    ("getitem_shrink_newaxis", lambda x: x[1, tf.newaxis, :3], [uniform((3, 5))]),
    ("slice", lambda x: tf.slice(x, [1, 1], [2, 2]), [uniform((3, 5))]),
    ("reverse", lambda x: tf.reverse(x, [1]), [uniform(M34)]),
    ("gather_duplicates", lambda x: tf.gather(x, [2, 0, 2]), [uniform(M34)]),
    ("gather_axis1", lambda x: tf.gather(x, [[3, 1], [0, 0]], axis=1), [uniform(M34)]),
    (
        "gather_batch_dims",
        lambda x: tf.gather(x, [[1, 1], [0, 2], [3, 3]], axis=1, batch_dims=1),
        [uniform(M34)],
    ),
    ("gather_nd", lambda x: tf.gather_nd(x, [[0, 1], [2, 3], [0, 1]]), [uniform(M34)]),
    ("scatter_nd", lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 2]), [uniform((3, 2))]),
    ("boolean_mask", lambda x: tf.boolean_mask(x, [True, False, True]), [uniform(M34)]),
    ("sort", lambda x: tf.sort(x, direction="DESCENDING"), [spread(M34)]),
    ("top_k", lambda x: tf.math.top_k(x, k=2).values, [spread((2, 3, 4))]),
    ("fill", lambda v: tf.fill([2, 3], v), [uniform(())]),
    ("clip_by_value", lambda x: tf.clip_by_value(x, -1.0, 1.0), [spread(M34, -1.9, 1.9)]),
    ("add_n", lambda a, b: tf.add_n([a, b, a]), [uniform(M23), uniform(M23)]),
    ("identity", tf.identity, [uniform(M23)]),
    ("moments", lambda x: tf.add_n(list(tf.nn.moments(x, axes=[0]))), [uniform(M34)]),
    (
        "dense_layer",
        lambda x, w, b: tf.nn.relu(x @ w + b),
        [
            uniform(M23),
            uniform(M34),
            uniform((4,)),
        ],
    ),
]


def _inputs(case, dtype):
    return [np.asarray(make(), dtype=dtype) for make in case[2]]


def _analytic(fn, arrays, weights=None):
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    seeds = None if weights is None else tf.constant(weights)
    grads = tape.gradient(y, xs, output_gradients=seeds)
    # A gather's gradient is IndexedSlices (as in TensorFlow): compare it dense.
    return np.asarray(y), [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]


def _numeric(fn, arrays, weights, h=1e-6):
    def loss(values):
        return float(np.sum(np.asarray(fn(*[tf.constant(v) for v in values])) * weights))

    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            plus = [v.copy() for v in arrays]
            minus = [v.copy() for v in arrays]
            plus[k][i] += h
            minus[k][i] -= h
            g[i] = (loss(plus) - loss(minus)) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(case):
    arrays = _inputs(case, np.float64)
    with tf.device("CPU:0"):
        y, _ = _analytic(case[1], arrays)
        weights = RNG.uniform(0.5, 1.5, size=np.shape(y))
        _, analytic = _analytic(case[1], arrays, weights)
        numeric = _numeric(case[1], arrays, weights)
    for a, n in zip(analytic, numeric):
        assert a is not None
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gpu_gradients_match_cpu(case):
    require_gpu()
    arrays = _inputs(case, np.float32)
    with tf.device("CPU:0"):
        y_cpu, g_cpu = _analytic(case[1], arrays)
    with tf.device("GPU:0"):
        y_gpu, g_gpu = _analytic(case[1], arrays)
    np.testing.assert_allclose(y_gpu, y_cpu, rtol=1e-4, atol=1e-5)
    for a, b in zip(g_gpu, g_cpu):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_gradients_run_on_the_device_of_the_forward_pass():
    require_gpu()
    with tf.device("GPU:0"):
        x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.softmax(x @ x))
    # Outside any scope: the backward ops follow the forward ops' device.
    assert "GPU:0" in tape.gradient(y, x).device
    with tf.device("CPU:0"):
        c = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(c * c)
    assert "CPU:0" in tape.gradient(y, c).device


SECOND_ORDER = [
    ("tanh", tf.tanh, [uniform((4,))]),
    ("sigmoid", tf.sigmoid, [uniform((4,))]),
    (
        "softmax",
        lambda x: tf.nn.softmax(x) * tf.constant([1.0, 2.0, 3.0, 4.0], x.dtype),
        [uniform((4,))],
    ),
    ("pow", lambda x: x**3, [uniform((4,))]),
    ("reduce_max", lambda x: tf.reduce_max(x * x), [spread((4,), 0.5, 2.0)]),
    ("gather", lambda x: tf.gather(x * x, [0, 3, 3]), [uniform((4,))]),
    ("matmul", lambda x: tf.matmul(tf.reshape(x, [2, 2]), tf.reshape(x, [2, 2])), [uniform((4,))]),
    ("divide", lambda x: 1.0 / (x * x + 1.0), [uniform((4,))]),
    ("log_softmax", tf.nn.log_softmax, [uniform((4,))]),
    ("cumprod", lambda x: tf.math.cumprod(x), [away_from_zero((4,))]),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_nested_tapes_give_second_derivatives(case):
    fn = case[1]
    (x0,) = _inputs(case, np.float64)

    def first(x):
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        return inner.gradient(y, x)

    with tf.device("CPU:0"):
        x = tf.constant(x0)
        with tf.GradientTape() as outer:
            outer.watch(x)
            g = first(x)
        weights = RNG.uniform(0.5, 1.5, size=x0.shape)
        second = outer.gradient(g, x, output_gradients=tf.constant(weights)).numpy()
        (numeric,) = _numeric(lambda v: first(v), [x0], weights)
    np.testing.assert_allclose(second, numeric, rtol=1e-5, atol=1e-6)
