"""TensorFlow's stateless random ops and `tf.random.Generator`: the same numbers, exactly.

Every program returns draws (not facts about them), compared with rtol = atol = 0, eagerly and
inside `tf.function`, for several seeds, shapes (sizes that are not a multiple of 4, and over
100000 elements) and dtypes. Generator programs also return the state after each call.
"""

import pytest

from .harness import assert_parity, parity

EXACT = {"rtol": 0.0, "atol": 0.0}
SEEDS = [[1, 2], [0, 0], [-7, 2**31 - 1], [2**40, -(2**35)]]
SHAPES = [[], [7], [3, 5], [100_003]]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def _uniform_program(tf, seed, shape, dtype):
    dtype = tf.as_dtype(dtype)
    seed = tf.constant(seed, dtype=tf.int64 if max(map(abs, seed)) >= 2**31 else tf.int32)

    @tf.function
    def traced(seed):
        return tf.random.stateless_uniform(shape, seed=seed, minval=-2.5, maxval=4.0, dtype=dtype)

    return {
        "eager": tf.random.stateless_uniform(shape, seed=seed, dtype=dtype),
        "scaled": tf.random.stateless_uniform(
            shape, seed=seed, minval=-2.5, maxval=4.0, dtype=dtype
        ),
        "traced": traced(seed),
    }


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("seed", SEEDS, ids=str)
def test_stateless_uniform_floats(tf_oracle, seed, shape, dtype):
    assert_parity(tf_oracle, _uniform_program, args=(seed, shape, dtype), **EXACT)


def _normal_program(tf, seed, shape, dtype):
    dtype = tf.as_dtype(dtype)

    @tf.function
    def traced(seed):
        return (
            tf.random.stateless_normal(shape, seed=seed, dtype=dtype),
            tf.random.stateless_truncated_normal(
                shape, seed=seed, mean=1.5, stddev=3.0, dtype=dtype
            ),
        )

    normal, truncated = traced(tf.constant(seed))
    return {
        "normal": tf.random.stateless_normal(shape, seed=seed, dtype=dtype),
        "scaled": tf.random.stateless_normal(shape, seed=seed, mean=-1.0, stddev=0.5, dtype=dtype),
        "truncated": tf.random.stateless_truncated_normal(shape, seed=seed, dtype=dtype),
        "traced_normal": normal,
        "traced_truncated": truncated,
    }


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("seed", SEEDS[:3], ids=str)
def test_stateless_normal_and_truncated_normal(tf_oracle, seed, shape, dtype):
    assert_parity(tf_oracle, _normal_program, args=(seed, shape, dtype), **EXACT)


def _int_program(tf, seed, shape):
    def uniform(dtype, lo, hi):
        return tf.random.stateless_uniform(shape, seed=seed, minval=lo, maxval=hi, dtype=dtype)

    def full(dtype):
        return tf.random.stateless_uniform(shape, seed=seed, minval=None, maxval=None, dtype=dtype)

    @tf.function
    def traced(seed, lo, hi):
        return tf.random.stateless_uniform(shape, seed=seed, minval=lo, maxval=hi, dtype=tf.int64)

    return {
        "int32": uniform(tf.int32, -3, 1000),
        "int32_wide": uniform(tf.int32, -(2**31), 2**31 - 1),
        "int64": uniform(tf.int64, -(10**12), 10**15 + 7),
        "int64_wide": uniform(tf.int64, -(2**63), 2**63 - 1),
        "full_int32": full(tf.int32),
        "full_int64": full(tf.int64),
        "full_uint32": full(tf.uint32),
        "full_uint64": full(tf.uint64),
        "traced": traced(tf.constant(seed), tf.constant(-5, tf.int64), tf.constant(77, tf.int64)),
    }


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("seed", SEEDS, ids=str)
def test_stateless_uniform_ints(tf_oracle, seed, shape):
    assert_parity(tf_oracle, _int_program, args=(seed, shape), **EXACT)


def _categorical_program(tf, seed, batch, classes, samples, dtype):
    import numpy as np

    rng = np.random.default_rng(batch * 1000 + classes)
    logits = tf.constant((rng.normal(size=(batch, classes)) * 3.0).astype(dtype))

    @tf.function
    def traced(seed):
        return tf.random.stateless_categorical(logits, samples, seed=seed, dtype=tf.int32)

    return {
        "eager": tf.random.stateless_categorical(logits, samples, seed=seed),
        "traced": traced(tf.constant(seed)),
    }


@pytest.mark.parametrize(
    "batch,classes,samples",
    [(1, 2, 5), (3, 7, 9), (5, 1, 3), (20, 100, 1), (2000, 10, 100), (64, 1000, 50)],
)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_stateless_categorical(tf_oracle, batch, classes, samples, dtype):
    """The larger cases are split between TensorFlow's threads (its default count on the machine
    that runs the test); ferroflow reproduces the split."""
    args = ([5, -9], batch, classes, samples, dtype)
    assert_parity(tf_oracle, _categorical_program, args=args, **EXACT)


@parity(**EXACT)
def test_stateless_categorical_special_logits(tf):
    inf, nan = float("inf"), float("nan")
    logits = tf.constant(
        [[0.0, -inf, 1.0], [-inf, -inf, -inf], [nan, 2.0, 0.5], [inf, 0.0, 1.0], [5.0, 5.0, 5.0]]
    )
    return {
        "samples": tf.random.stateless_categorical(logits, 40, seed=[3, 4]),
        "no_samples": tf.random.stateless_categorical(logits, 0, seed=[3, 4]),
        "no_rows": tf.random.stateless_categorical(tf.zeros([0, 3]), 4, seed=[3, 4]),
    }


def _binomial_program(tf, seed, dtype, out_dtype):
    counts = tf.constant([[0.0], [1.0], [5.0], [40.0], [1000.0]], dtype=dtype)
    probs = tf.constant([0.0, 0.05, 0.3, 0.5, 0.7, 0.999, 1.0], dtype=dtype)

    @tf.function
    def traced(seed):
        return tf.random.stateless_binomial(
            [6, 5, 7], seed=seed, counts=counts, probs=probs, output_dtype=out_dtype
        )

    return {
        "grid": tf.random.stateless_binomial(
            [6, 5, 7], seed=seed, counts=counts, probs=probs, output_dtype=out_dtype
        ),
        "traced": traced(tf.constant(seed)),
        "many": tf.random.stateless_binomial(
            [100_003], seed=seed, counts=tf.constant(30.0, dtype), probs=tf.constant(0.4, dtype)
        ),
        "nan_prob": tf.random.stateless_binomial(
            [3],
            seed=seed,
            counts=tf.constant(5.0, dtype),
            probs=tf.constant(float("nan"), dtype),
            output_dtype=tf.float32,
        ),
    }


@pytest.mark.parametrize("out_dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_stateless_binomial(tf_oracle, dtype, out_dtype):
    assert_parity(tf_oracle, _binomial_program, args=([11, 12], dtype, out_dtype), **EXACT)


def _poisson_program(tf, seed, lam_dtype, dtype):
    big = 6e4 if lam_dtype == "float16" else 1e6
    lam = tf.constant([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0, big, -2.0], dtype=lam_dtype)
    if lam_dtype.startswith("int"):
        lam = tf.constant([0, 1, 3, 9, 10, 25, 1000, 50000, -2], dtype=lam_dtype)

    @tf.function
    def traced(seed):
        return tf.random.stateless_poisson([4, 9], seed=seed, lam=lam, dtype=dtype)

    out = {
        "grid": tf.random.stateless_poisson([4, 9], seed=seed, lam=lam, dtype=dtype),
        "traced": traced(tf.constant(seed)),
        "many_small": tf.random.stateless_poisson([100_003], seed=seed, lam=4.0, dtype=dtype),
        "many_large": tf.random.stateless_poisson([50_001], seed=seed, lam=77.0, dtype=dtype),
    }
    if not lam_dtype.startswith("int"):
        inf = tf.constant([float("inf")], dtype=lam_dtype)
        out["inf"] = tf.random.stateless_poisson([2, 1], seed=seed, lam=inf, dtype=dtype)
    return out


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("lam_dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_stateless_poisson(tf_oracle, lam_dtype, dtype):
    if dtype == "float16" and lam_dtype in ("float32", "float64"):
        pytest.skip("a rate above 65504 never finishes in TensorFlow with float16 output")
    assert_parity(tf_oracle, _poisson_program, args=([21, -22], lam_dtype, dtype), **EXACT)


@parity(**EXACT)
def test_stateless_poisson_float16_output(tf):
    lam = tf.constant([0.0, 0.5, 3.0, 10.0, 25.0, 1000.0, 60000.0])
    return tf.random.stateless_poisson([5, 7], seed=[1, 2], lam=lam, dtype=tf.float16)


def _gamma_program(tf, seed, dtype):
    alpha = tf.constant([[0.01], [0.5], [1.0], [1.5], [7.0], [300.0]], dtype=dtype)
    beta = tf.constant([0.5, 1.0, 3.0], dtype=dtype)

    @tf.function
    def traced(seed):
        return tf.random.stateless_gamma([4, 6, 3], seed=seed, alpha=alpha, beta=beta, dtype=dtype)

    return {
        "grid": tf.random.stateless_gamma(
            [4, 6, 3], seed=seed, alpha=alpha, beta=beta, dtype=dtype
        ),
        "no_beta": tf.random.stateless_gamma([2, 6, 1], seed=seed, alpha=alpha, dtype=dtype),
        "traced": traced(tf.constant(seed)),
        "many": tf.random.stateless_gamma([100_003], seed=seed, alpha=2.5, dtype=dtype),
        "many_small_alpha": tf.random.stateless_gamma([20_001], seed=seed, alpha=0.3, dtype=dtype),
        "edge": tf.random.stateless_gamma(
            [2, 4],
            seed=seed,
            alpha=tf.constant([0.0, -1.0, float("inf"), 1e-30], dtype),
            dtype=dtype,
        ),
    }


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("seed", [[1, 2], [-5, 123456789]], ids=str)
def test_stateless_gamma(tf_oracle, seed, dtype):
    assert_parity(tf_oracle, _gamma_program, args=(seed, dtype), **EXACT)


@parity(**EXACT)
def test_split_and_fold_in(tf):
    @tf.function
    def traced(seed, data):
        return tf.random.split(seed, 4), tf.random.fold_in(seed, data)

    seed64 = tf.constant([2**40, -3], tf.int64)
    return {
        "split": tf.random.split([1, 2], num=3),
        "split_default": tf.random.split(tf.constant([7, 8])),
        "split64": tf.random.split(seed64, 5),
        "split_none": tf.random.split([1, 2], 0),
        "fold_in": tf.random.fold_in([1, 2], 3),
        "fold_in64": tf.random.fold_in(seed64, tf.constant(2**50, tf.int64)),
        "experimental": tf.random.experimental.stateless_split([4, 5], 2),
        "experimental_fold": tf.random.experimental.stateless_fold_in([4, 5], 9),
        "traced": traced(tf.constant([9, 10]), tf.constant(11)),
        "philox": tf.random.stateless_normal([5], seed=[1, 2], alg="philox"),
        "philox_enum": tf.random.stateless_uniform(
            [5], seed=[1, 2], alg=tf.random.Algorithm.PHILOX
        ),
    }


@parity
def test_stateless_errors(tf):
    def raised(f):
        try:
            f()
        except Exception as error:  # noqa: BLE001 - the class is the result
            return type(error).__name__
        return "no error"

    s = [1, 2]
    r = tf.random
    return {
        "seed_shape_3": raised(lambda: r.stateless_uniform([3], seed=[1, 2, 3])),
        "seed_shape_2x2": raised(lambda: r.stateless_normal([3], seed=[[1, 2], [3, 4]])),
        "float_seed": raised(lambda: r.stateless_uniform([3], seed=[1.0, 2.0])),
        "int_without_max": raised(lambda: r.stateless_uniform([3], seed=s, dtype=tf.int32)),
        "min_equals_max": raised(
            lambda: r.stateless_uniform([3], seed=s, minval=5, maxval=5, dtype=tf.int32)
        ),
        "min_above_max": raised(
            lambda: r.stateless_uniform([3], seed=s, minval=6, maxval=5, dtype=tf.int64)
        ),
        "empty_min_above_max": raised(
            lambda: r.stateless_uniform([0], seed=s, minval=6, maxval=5, dtype=tf.int64)
        ),
        "unsigned_bounds": raised(
            lambda: r.stateless_uniform([3], seed=s, minval=1, maxval=5, dtype=tf.uint32)
        ),
        "int8": raised(lambda: r.stateless_uniform([3], seed=s, minval=1, maxval=5, dtype=tf.int8)),
        "vector_int_bounds": raised(
            lambda: r.stateless_uniform([3], seed=s, minval=[0, 1, 2], maxval=5, dtype=tf.int32)
        ),
        "negative_dim": raised(lambda: r.stateless_uniform([-1], seed=s)),
        "normal_int": raised(lambda: r.stateless_normal([3], seed=s, dtype=tf.int32)),
        "categorical_vector": raised(lambda: r.stateless_categorical([1.0, 2.0], 3, seed=s)),
        "categorical_no_classes": raised(
            lambda: r.stateless_categorical(tf.zeros([2, 0]), 3, seed=s)
        ),
        "categorical_negative": raised(lambda: r.stateless_categorical([[1.0, 2.0]], -1, seed=s)),
        "categorical_float_out": raised(
            lambda: r.stateless_categorical([[1.0, 2.0]], 3, seed=s, dtype=tf.float32)
        ),
        "binomial_shape": raised(
            lambda: r.stateless_binomial([3], seed=s, counts=[1.0, 2.0], probs=0.5)
        ),
        "binomial_int8": raised(
            lambda: r.stateless_binomial([3], seed=s, counts=5.0, probs=0.5, output_dtype=tf.int8)
        ),
        "poisson_shape": raised(lambda: r.stateless_poisson([3], seed=s, lam=[1.0, 2.0])),
        "poisson_bfloat16": raised(
            lambda: r.stateless_poisson([3], seed=s, lam=2.0, dtype=tf.bfloat16)
        ),
        "gamma_bfloat16": raised(
            lambda: r.stateless_gamma([3], seed=s, alpha=2.0, dtype=tf.bfloat16)
        ),
        "gamma_int": raised(lambda: r.stateless_gamma([3], seed=s, alpha=2, dtype=tf.int32)),
        "gamma_shape": raised(lambda: r.stateless_gamma([3], seed=s, alpha=[1.0, 2.0])),
        "split_float": raised(lambda: r.split([1.0, 2.0])),
        "fold_in_float": raised(lambda: r.fold_in([1, 2], 1.5)),
        "threefry": raised(lambda: r.stateless_uniform([3], seed=s, alg="threefry")),
        "bad_alg": raised(lambda: r.stateless_uniform([3], seed=s, alg="foo")),
        "bad_alg_number": raised(lambda: r.stateless_uniform([3], seed=s, alg=7)),
        "stateful_categorical_float": raised(
            lambda: r.categorical([[1.0, 2.0]], 3, dtype=tf.float32)
        ),
        "stateful_gamma_int": raised(lambda: r.gamma([3], 2, dtype=tf.int32)),
    }


@parity
def test_stateless_uniform_repeats_in_and_out_of_tf_function(tf):
    @tf.function
    def f(seed):
        return tf.random.stateless_normal([5], seed=seed), tf.random.stateless_uniform([5], seed)

    a, b = f(tf.constant([1, 2])), f(tf.constant([1, 2]))
    return {"first": a, "second": b, "eager": tf.random.stateless_normal([5], seed=[1, 2])}


# --- tf.random.Generator -----------------------------------------------------------------------


@parity(**EXACT)
def test_generator_draws_and_states(tf):
    g = tf.random.Generator.from_seed(7)
    out = {"alg": g.algorithm, "initial": g.state.read_value()}
    calls = [
        ("normal", lambda: g.normal([3])),
        ("normal_scalar", lambda: g.normal([], mean=2.0, stddev=0.5, dtype=tf.float64)),
        ("uniform", lambda: g.uniform([2, 3])),
        ("uniform_range", lambda: g.uniform([5], minval=-1.0, maxval=3.0, dtype=tf.float16)),
        ("uniform_int", lambda: g.uniform([7], minval=-4, maxval=9, dtype=tf.int32)),
        ("uniform_int64", lambda: g.uniform([3], minval=0, maxval=2**40, dtype=tf.int64)),
        ("uniform_full", lambda: g.uniform([4], minval=None, maxval=None, dtype=tf.int32)),
        ("full_int", lambda: g.uniform_full_int([5])),
        ("full_int32", lambda: g.uniform_full_int([5], dtype=tf.uint32)),
        ("truncated", lambda: g.truncated_normal([9], stddev=2.0, dtype=tf.bfloat16)),
        ("empty", lambda: g.normal([0])),
        ("binomial", lambda: g.binomial([3], counts=10.0, probs=0.5)),
        (
            "binomial_batch",
            lambda: g.binomial([4, 2, 3], counts=[[5.0], [50.0]], probs=[0.1, 0.5, 0.9]),
        ),
        ("large", lambda: g.normal([100_003])),
        ("make_seeds", lambda: g.make_seeds(3)),
        ("skip", lambda: g.skip(5)),
    ]
    for name, call in calls:
        # The state as numpy: TensorFlow's binomial writes its new state into the buffer a live
        # read tensor shares, and then loses the update (the variable keeps the old state).
        out[name] = (call(), g.state.numpy())
    return out


@parity(**EXACT)
def test_generator_seeds_and_states(tf):
    r = tf.random
    return {
        "big_seed": r.Generator.from_seed(2**70 + 2**64 * 3 + 5).state.read_value(),
        "negative": r.Generator.from_seed(-1).state.read_value(),
        "list": r.Generator.from_seed([1, 2]).state.read_value(),
        "long_list": r.Generator.from_seed([1, 2, 3, 4]).state.read_value(),
        "float": r.Generator.from_seed(1.5).state.read_value(),
        "from_state": r.Generator.from_state([1, 2, 3], alg="philox").normal([4]),
        "auto_select": r.Generator.from_seed(3, alg="auto_select").normal([4]),
        "from_key_counter": r.Generator.from_key_counter(5, [6, 7], "philox").state.read_value(),
        "create_rng_state": r.create_rng_state(5, "philox"),
        "create_experimental": r.experimental.create_rng_state(2**64 + 1, r.Algorithm.PHILOX),
        "key": r.Generator.from_seed([1, 2, 3]).key,
    }


@parity(**EXACT)
def test_generator_split_reset_and_copies(tf):
    g = tf.random.Generator.from_seed(11)
    children = g.split(3)
    out = {
        "parent_after_split": g.state.read_value(),
        "children": [c.state.read_value() for c in children],
        "child_draws": [c.normal([4]) for c in children],
        "children_after": [c.state.read_value() for c in children],
    }
    g.reset([1, 2, 3])
    out["after_reset"] = (g.state.read_value(), g.uniform([3]))
    g.reset_from_seed(99)
    out["after_reset_from_seed"] = (g.state.read_value(), g.normal([3]))
    g.reset_from_key_counter(4, [0, 1])
    out["after_reset_from_key_counter"] = (g.state.read_value(), g.normal([2]))
    copy = tf.random.Generator(copy_from=g)
    out["copy"] = (copy.normal([3]), g.normal([3]), copy.state.read_value())
    tf.random.set_global_generator(tf.random.Generator.from_seed(123))
    out["global"] = tf.random.get_global_generator().normal([3])
    out["global_again"] = tf.random.experimental.get_global_generator().uniform([2])
    return out


@parity(**EXACT)
def test_generator_in_tf_function(tf):
    g = tf.random.Generator.from_seed(5)

    @tf.function
    def draw():
        return g.normal([3]), g.uniform([2], maxval=10, dtype=tf.int64), g.binomial([2], 20.0, 0.3)

    first = draw()
    state1 = g.state.numpy()
    second = draw()
    state2 = g.state.numpy()
    eager = g.normal([3])
    return {
        "first": first,
        "second": second,
        "states": (state1, state2, g.state.numpy()),
        "eager_after": eager,
        "traces": draw.experimental_get_tracing_count(),
    }


@parity(**EXACT)
def test_generator_checkpoint_round_trip(tf):
    import os
    import tempfile

    g = tf.random.Generator.from_seed(42)
    g.normal([10])
    directory = tempfile.mkdtemp()
    path = tf.train.Checkpoint(gen=g).save(os.path.join(directory, "ckpt"))
    expected = g.normal([4])
    restored = tf.random.Generator.from_seed(0)
    tf.train.Checkpoint(gen=restored).restore(path)
    state = restored.state.read_value()
    return {
        "state": state,
        "draws": (expected, restored.normal([4])),
        "keys": sorted(name for name, _ in tf.train.list_variables(path) if "gen" in name),
    }


@parity
def test_generator_errors(tf):
    def raised(f):
        try:
            f()
        except Exception as error:  # noqa: BLE001 - the class is the result
            return type(error).__name__
        return "no error"

    g = tf.random.Generator.from_seed(1)
    r = tf.random
    return {
        "int_without_max": raised(lambda: g.uniform([3], dtype=tf.int32)),
        "int8": raised(lambda: g.uniform([3], minval=0, maxval=3, dtype=tf.int8)),
        "uint32_bounds": raised(lambda: g.uniform([3], minval=0, maxval=3, dtype=tf.uint32)),
        "full_float": raised(lambda: g.uniform_full_int([3], dtype=tf.float32)),
        "normal_int": raised(lambda: g.normal([3], dtype=tf.int32)),
        "from_state_shape": raised(lambda: r.Generator.from_state([1, 2], alg="philox")),
        "reset_shape": raised(lambda: g.reset([1, 2])),
        "threefry_draw": raised(lambda: r.Generator.from_seed(1, alg="threefry").normal([2])),
        "auto_select_binomial": raised(
            lambda: r.Generator.from_seed(1, alg="auto_select").binomial([2], 3.0, 0.5)
        ),
        "state_after_errors": g.state.read_value(),
    }


# --- stateful samplers: fresh numbers per call ---------------------------------------------------


@parity
def test_stateful_samplers_fresh_in_tf_function(tf):
    tf.random.set_seed(4)
    logits = tf.math.log([[0.25, 0.25, 0.5]] * 4)

    @tf.function
    def f():
        return (
            tf.random.categorical(logits, 64),
            tf.random.gamma([32], alpha=[1.5, 3.0]),
            tf.random.poisson([40], lam=[2.0, 30.0]),
        )

    (c1, g1, p1), (c2, g2, p2) = f(), f()
    return {
        "categorical_differs": bool(tf.reduce_any(c1 != c2)),
        "gamma_differs": bool(tf.reduce_any(g1 != g2)),
        "poisson_differs": bool(tf.reduce_any(p1 != p2)),
        "categorical_in_range": bool(tf.reduce_all((c1 >= 0) & (c1 < 3))),
        "gamma_positive": bool(tf.reduce_all(g1 > 0.0)),
        "poisson_counts": bool(tf.reduce_all((p1 >= 0.0) & (p1 == tf.round(p1)))),
        "shapes": (c1.shape, g1.shape, p1.shape),
        "dtypes": (c1.dtype, g1.dtype, p1.dtype),
        "traces": f.experimental_get_tracing_count(),
    }


@parity
def test_stateful_samplers_fresh_eagerly(tf):
    tf.random.set_seed(8)
    a = tf.random.categorical([[0.0, 1.0, 2.0]], 50, dtype=tf.int32)
    b = tf.random.categorical([[0.0, 1.0, 2.0]], 50, dtype=tf.int32)
    g1, g2 = tf.random.gamma([3, 2], 2.0), tf.random.gamma([3, 2], 2.0)
    scaled = tf.random.gamma([3], [2.0, 4.0], beta=[[1.0], [2.0]])
    p1, p2 = tf.random.poisson([100], 3.0, dtype=tf.int64), tf.random.poisson([100], 3.0, tf.int64)
    return {
        "categorical_differs": bool(tf.reduce_any(a != b)),
        "gamma_differs": bool(tf.reduce_any(g1 != g2)),
        "poisson_differs": bool(tf.reduce_any(p1 != p2)),
        "shapes": (a.shape, g1.shape, scaled.shape, p1.shape),
        "dtypes": (a.dtype, g1.dtype, p1.dtype),
    }
