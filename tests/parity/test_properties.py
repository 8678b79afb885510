"""Property tests: hypothesis generates argument structures and op chains, both frameworks run
them, and the results must agree."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import assert_parity

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

DTYPES = ("float32", "int32")
shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def arrays(draw, dtype=None, shape=None):
    dtype = dtype or draw(st.sampled_from(DTYPES))
    shape = draw(shapes) if shape is None else shape
    size = int(np.prod(shape))
    if dtype == "int32":
        values = draw(st.lists(st.integers(-20, 20), min_size=size, max_size=size))
    else:
        values = draw(
            st.lists(
                st.floats(-10, 10, width=32, allow_subnormal=False), min_size=size, max_size=size
            )
        )
    return np.array(values, dtype=dtype).reshape(shape)


KEYS = ("a", "b", "c", "x", "y", "zz")


def structures(depth=2):
    """Tagged descriptions of nested arguments: leaves, dicts (keys in any order), lists,
    tuples and namedtuples. Tags rather than real containers: namedtuple classes do not pickle
    across to the worker, so the program builds them."""
    leaf = arrays().map(lambda a: ("leaf", a))
    if depth == 0:
        return leaf
    child = structures(depth - 1)
    dicts = st.lists(
        st.tuples(st.sampled_from(KEYS), child), min_size=1, max_size=3, unique_by=lambda kv: kv[0]
    )
    return st.one_of(
        leaf,
        dicts.map(lambda items: ("dict", items)),
        st.lists(child, min_size=1, max_size=3).map(lambda items: ("list", items)),
        st.lists(child, min_size=1, max_size=3).map(lambda items: ("tuple", items)),
        st.lists(child, min_size=2, max_size=2).map(lambda items: ("pair", items)),
    )


def structure_program(tf, spec):
    import collections

    Pair = collections.namedtuple("Pair", ["first", "second"])

    def build(spec, reverse_dicts=False):
        tag, body = spec
        if tag == "leaf":
            return tf.constant(body)
        items = [build(s, reverse_dicts) for s in body] if tag != "dict" else None
        if tag == "dict":
            pairs = [(k, build(s, reverse_dicts)) for k, s in body]
            return dict(reversed(pairs) if reverse_dicts else pairs)
        if tag == "list":
            return items
        if tag == "tuple":
            return tuple(items)
        return Pair(*items)

    @tf.function
    def f(structure, scale=1):
        leaves = tf.nest.flatten(structure)
        mapped = tf.nest.map_structure(lambda t: t * 2 + scale, structure)
        total = tf.add_n(
            [tf.reduce_sum(tf.cast(t, tf.float32)) * (i + 1) for i, t in enumerate(leaves)]
        )
        return {"mapped": mapped, "total": total}

    arg = build(spec)
    return {
        "positional": f(arg),
        "keyword": f(structure=build(spec), scale=3),
        "dicts_reversed": f(build(spec, reverse_dicts=True)),
        # A Python value returned from a tf.function becomes a tensor under TensorFlow
        # (test_function_args.py::test_python_values_returned); counted eagerly here.
        "eager_flatten": tf.nest.flatten(arg),
        "count": len(tf.nest.flatten(arg)),
        "traces": f.experimental_get_tracing_count(),
    }


@SETTINGS
@given(spec=structures())
def test_structured_arguments(tf_oracle, spec):
    assert_parity(tf_oracle, structure_program, args=(spec,))


UNARY_FLOAT = ("abs", "negative", "square", "tanh", "sigmoid", "relu", "exp_clipped", "affine")
UNARY_INT = ("abs", "negative", "relu", "affine")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
REDUCTIONS = ("reduce_sum", "reduce_max", "reduce_min", "reduce_mean", "reduce_prod_small")


@st.composite
def op_chains(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(shapes)
    x = draw(arrays(dtype, shape))
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            unary = UNARY_FLOAT if dtype == "float32" else UNARY_INT
            steps.append(("unary", draw(st.sampled_from(unary))))
        else:
            # The other operand broadcasts: it has the trailing dims of x, some set to 1.
            tail = draw(st.integers(0, len(shape)))
            other_shape = tuple(d if draw(st.booleans()) else 1 for d in shape[len(shape) - tail :])
            steps.append(
                ("binary", draw(st.sampled_from(BINARY)), draw(arrays(dtype, other_shape)))
            )
    if shape and draw(st.booleans()):
        axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
        steps.append(("reduce", draw(st.sampled_from(REDUCTIONS)), axis, draw(st.booleans())))
    return x, steps


def op_chain_program(tf, x, steps):
    def run(x):
        for step in steps:
            if step[0] == "unary":
                name = step[1]
                if name == "exp_clipped":
                    x = tf.exp(tf.clip_by_value(x, -20.0, 20.0))
                elif name == "affine":
                    x = x * 3 - 1
                elif name == "relu":
                    x = tf.nn.relu(x)
                else:
                    x = getattr(tf.math, name)(x)
                # Keep int32 chains away from overflow (wrapping is not what is tested).
                if x.dtype == tf.int32:
                    x = tf.clip_by_value(x, -1000, 1000)
            elif step[0] == "binary":
                x = getattr(tf.math, step[1])(x, tf.constant(step[2]))
            else:
                _, name, axis, keepdims = step
                if name == "reduce_prod_small":
                    x = tf.reduce_prod(tf.clip_by_value(x, -2, 2), axis=axis, keepdims=keepdims)
                else:
                    x = getattr(tf, name)(x, axis=axis, keepdims=keepdims)
        return x

    x = tf.constant(x)
    return {"eager": run(x), "traced": tf.function(run)(x)}


@SETTINGS
@given(chain=op_chains())
def test_op_chains(tf_oracle, chain):
    x, steps = chain
    assert_parity(tf_oracle, op_chain_program, args=(x, steps), rtol=1e-5, atol=1e-5)
