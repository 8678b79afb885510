"""Functions whose intermediate sizes follow the input's values (a boolean mask, a count): one
trace serves every call because the input's shape never changes, so any size the trace took
from its example would be silently wrong on the next call. Each body runs on three inputs of
the same shape whose masks keep 3, 2 and 5 elements, against TensorFlow.
"""

import pytest

from .harness import assert_parity

# name -> body: `x` is a [5] float32 argument; `m` is its positive elements (value-sized).
BODIES = {
    "mean": "tf.reduce_mean(m)",
    "variance": "tf.math.reduce_variance(m)",
    "softmax": "tf.nn.softmax(m)",
    "l2_normalize": "tf.nn.l2_normalize(m)",
    "moments": "tf.nn.moments(m, axes=[0])",
    "pad": "tf.pad(m, [[1, 1]])",
    "concat": "tf.concat([m, m], 0)",
    "split_even": "tf.split(tf.concat([m, m], 0), 2)",
    "split_sizes": "tf.split(tf.concat([m, m, m], 0), [-1, 2])[0]",
    "matmul": "tf.matmul(tf.reshape(m, [1, -1]), tf.reshape(m, [1, -1]), transpose_b=True)",
    "einsum_dot": "tf.einsum('i,i->', m, m)",
    "einsum_outer": "tf.einsum('i,j->ij', m, tf.range(2.0))",
    "top_k": "tf.math.top_k(m, k=1).values",
    "top_k_too_many": "tf.math.top_k(m, k=3).values",
    "reverse": "tf.reverse(m, [0])",
    "cumsum": "tf.cumsum(m, reverse=True)",
    "slice": "m[1:]",
    "argmax": "tf.argmax(m)",
    "sort": "tf.sort(m)",
    "tile": "tf.tile(m, [2])",
    "gather_reversed": "tf.gather(m, tf.range(tf.size(m) - 1, -1, -1))",
    "broadcast_to": "tf.broadcast_to(m[:1], tf.shape(m))",
    "logsumexp": "tf.reduce_logsumexp(m)",
    "norm": "tf.norm(m)",
    "linspace": "tf.linspace(0.0, 1.0, tf.size(m))",
    "eye": "tf.eye(tf.size(m))",
    "eye_rect": "tf.eye(2, tf.size(m))",
    "fill": "tf.fill([tf.size(m), 2], 1.0)",
    "dense": "tf.reduce_sum(tf.matmul(tf.reshape(m, [-1, 1]), tf.ones([1, 3])), axis=0)",
    "unique": "tf.unique(tf.concat([m, m], 0))[0]",
    "range_of_count": "tf.reduce_mean(tf.cast(tf.range(tf.size(m)), tf.float32))",
    "where_mean": "tf.reduce_mean(tf.cast(tf.where(x > 0), tf.float32))",
    "ensure_shape_unknown": "tf.ensure_shape(m, [None])",
    # Shape lists packing a value-sized count with a constant: TensorFlow's shape functions
    # read the packed constants (`constant_value_as_shape`), so the static shape is [None, 2].
    "zeros_list": "tf.zeros([tf.size(m), 2])",
    "reshape_list": "tf.reshape(tf.concat([m, m], 0), [tf.size(m), 2])",
    "broadcast_to_list": "tf.broadcast_to(m[:1, None], [tf.size(m), 2])",
}

# A packed shape list keeps its constant items when another item is known only when the graph
# runs (`[tf.size(m), 2]` is `[None, 2]`, src/graph/known_ints.rs `moved`): fill, zeros_list,
# reshape_list and broadcast_to_list check it.

INPUTS = (
    [1.0, -2.0, 3.0, 4.0, -5.0],
    [-1.0, 2.0, -3.0, -4.0, 5.0],
    [1.0, 2.0, 3.0, 4.0, 5.0],
)


def _program(tf, body, inputs):
    shapes = []

    @tf.function
    def f(x):
        m = tf.boolean_mask(x, x > 0)
        y = eval(body, {"tf": tf, "x": x, "m": m})  # noqa: S307 - the test's own expression
        # The static shapes seen while tracing: None where the size follows the values.
        shapes.append(tf.nest.map_structure(lambda t: t.shape.as_list(), y))
        return y

    out = []
    for values in inputs:
        try:
            out.append(f(tf.constant(values)))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out, shapes, f.experimental_get_tracing_count()


@pytest.mark.parametrize("name", sorted(BODIES))
def test_value_sized(tf_oracle, name):
    assert_parity(tf_oracle, _program, (BODIES[name], INPUTS))


def _gradient_program(tf, inputs):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            m = tf.boolean_mask(x, x > 0)
            halves = tf.split(tf.concat([m, m * m], 0), 2)
            y = tf.reduce_mean(halves[0] * halves[1]) + tf.einsum("i,i->", m, m)
        return tape.gradient(y, x)

    return [f(tf.constant(v)) for v in inputs], f.experimental_get_tracing_count()


def test_value_sized_gradient(tf_oracle):
    assert_parity(tf_oracle, _gradient_program, (INPUTS,))


def _ensure_shape_program(tf, expected, traced):
    def check(x):
        return tf.ensure_shape(x, expected) * 2.0

    fn = tf.function(check) if traced else check
    out = []
    for n in (3, 2):
        try:
            out.append(fn(tf.ones([n, 2])))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


# An unknown rank accepts any tensor; TensorFlow 2.21's graph shape function rejects it
# ("Shape must be rank -1"), which is not mimicked, so it is compared eagerly only.
@pytest.mark.parametrize(
    ("expected", "traced"),
    [(e, t) for e in ([3, 2], [None, 2], [None, 3], [3, None, 1]) for t in (False, True)]
    + [(None, False)],
)
def test_ensure_shape(tf_oracle, expected, traced):
    assert_parity(tf_oracle, _ensure_shape_program, (expected, traced))
