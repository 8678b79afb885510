"""Subscripts and slices whose bounds are known only when the graph runs (`x[i]`, `x[i:j]`,
`x[:, i]`, `tf.slice(x, [i, 0], ...)`, `tf.strided_slice` with tensor bounds) inside a
tf.function, against TensorFlow: values, static shapes seen while tracing, dense gradients,
and the errors for bad indices. ferroflow used to refuse every symbolic index (TypeError)."""

import pytest

from .harness import assert_parity

CASES = {
    "index": "x[i]",
    "index_negative": "x[-i]",
    "index_then_int": "x[i, 1]",
    "int_then_index": "x[1, i]",
    "column": "x[:, i]",
    "ellipsis_index": "x[..., i]",
    "newaxis_index": "x[None, i]",
    "from": "x[i:]",
    "upto": "x[:i]",
    "between": "x[i:j]",
    "between_columns": "x[1:, i:j]",
    "stepped": "x[::s]",
    "stepped_from": "x[i::s]",
    "reverse_from": "x[i::-1]",
    "reverse_between": "x[j:i:-1]",
    "both_axes": "x[i, j]",
    "int64_index": "x[tf.cast(i, tf.int64)]",
    "slice_fn": "tf.slice(x, [i, 0], [1, -1])",
    "slice_fn_size": "tf.slice(x, [0, i], [j, 1])",
    "strided_fn": "tf.strided_slice(x, [i], [j], [1])",
    "strided_fn_masks": "tf.strided_slice(x, [i, 0], [0, j], [1, 1], end_mask=1)",
    "strided_fn_shrink": "tf.strided_slice(x, [i, 0], [i + 1, 3], shrink_axis_mask=1)",
    "float_index": "x[tf.cast(i, tf.float32)]",
    "vector_index": "x[tf.stack([i, j])]",
}

# TensorFlow's StridedSlice shape function gives up where bounds are not constants: unknown
# rank when the strides are symbolic, unknown sizes for every sliced axis when begin or end
# is. ferroflow keeps what it knows (the rank, axes sliced by Python numbers); values agree.
STATIC_SHAPE_KNOWN_BETTER = {"stepped", "stepped_from", "strided_fn_shrink"}

# (i, j, s): in range, negative, out of range, zero step.
ARGS = [(1, 3, 1), (-2, 2, 2), (0, 4, -1), (5, 1, 1), (-6, 2, -2), (1, 2, 0)]


def _run(tf, expression, device, cases, static_shape):
    spec = [tf.TensorSpec([None, 5], tf.float32)] + [tf.TensorSpec([], tf.int32)] * 3
    static = {}

    @tf.function(input_signature=spec)
    def sliced(x, i, j, s):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = eval(expression, {"tf": tf, "x": x, "i": i, "j": j, "s": s})  # noqa: S307
            static["shape"] = y.shape.as_list() if y.shape.rank is not None else None
            loss = tf.reduce_sum(y * y)
        grad = tape.gradient(loss, x)
        return y, grad

    x = tf.reshape(tf.range(20.0), [4, 5]) / 3.0
    out = []
    with tf.device(device):
        for i, j, s in cases:
            try:
                y, grad = sliced(x, tf.constant(i), tf.constant(j), tf.constant(s))
                out.append((y, grad, isinstance(grad, tf.IndexedSlices)))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    return out, static.get("shape") if static_shape else "not compared"


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("name", list(CASES))
def test_symbolic_subscript(tf_oracle, name, device):
    static_shape = name not in STATIC_SHAPE_KNOWN_BETTER
    assert_parity(tf_oracle, _run, (CASES[name], device, ARGS, static_shape))


def _variable_and_loop(tf, device):
    """`v[i]` on a variable and `x[i]` in an AutoGraph loop over tf.range (the common case)."""
    with tf.device(device):
        v = tf.Variable(tf.reshape(tf.range(6.0), [3, 2]))

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def loop(x):
            total = tf.zeros([2])
            for i in tf.range(tf.shape(x)[0]):
                total += x[i] * v[i % 3]
            return total

        return loop(tf.ones([4, 2])), loop(tf.ones([0, 2]))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_symbolic_subscript_in_loop(tf_oracle, device):
    assert_parity(tf_oracle, _variable_and_loop, (device,))
