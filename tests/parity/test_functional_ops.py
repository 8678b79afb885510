"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr` against TensorFlow: values, structures and
gradients, eagerly and traced with a static leading size."""

import pytest

from .harness import assert_parity

CASES = {
    "map_square": "tf.map_fn(lambda v: v * v, x)",
    "map_reduce": "tf.map_fn(tf.reduce_sum, x)",
    "map_signature": (
        "tf.map_fn(lambda v: tf.cast(v > 0.5, tf.int32), x, fn_output_signature=tf.int32)"
    ),
    "map_nested": "tf.map_fn(lambda t: (t[0] + t[1], t[0] * 2.0), (x, x * 3.0))",
    "map_dict": (
        "tf.map_fn(lambda d: d['a'] - d['b'], {'a': x, 'b': x[::-1]}, "
        "fn_output_signature=tf.float32)"
    ),
    "scan": "tf.scan(lambda a, v: a + v, x)",
    "scan_init": "tf.scan(lambda a, v: a * 0.5 + v, x, initializer=tf.zeros([3]))",
    "scan_reverse": "tf.scan(lambda a, v: a + v, x, reverse=True)",
    "foldl": "tf.foldl(lambda a, v: a * 2.0 + v, x)",
    "foldr": "tf.foldr(lambda a, v: a * 2.0 + v, x)",
    "foldl_init": "tf.foldl(lambda a, v: a + tf.reduce_sum(v), x, initializer=1.0)",
    "foldr_empty": "tf.foldr(lambda a, v: a + v, x[:0])",
    "map_scalar": "tf.map_fn(lambda v: v, tf.constant(1.0))",
    "map_empty": "tf.map_fn(lambda v: v * 2.0, x[:0])",
    "map_empty_reduce": "tf.map_fn(tf.reduce_sum, x[:0])",
    "map_empty_spec": (
        "tf.map_fn(lambda v: v[:2], x[:0], fn_output_signature=tf.TensorSpec([2], tf.float32))"
    ),
    "map_spec": (
        "tf.map_fn(lambda v: v[:2], x, fn_output_signature=tf.TensorSpec([2], tf.float32))"
    ),
    # A signature's shape binds the results (a ValueError when fn's static shape disagrees,
    # an InvalidArgumentError when only the run shows it); once ignored silently.
    "map_spec_shape_mismatch": (
        "tf.map_fn(lambda v: v, x, fn_output_signature=tf.TensorSpec([2], tf.float32))"
    ),
    "map_spec_partial": (
        "tf.map_fn(lambda v: v[:2], x, fn_output_signature=tf.TensorSpec([None], tf.float32))"
    ),
    "map_signature_mismatch": "tf.map_fn(lambda v: v * 2.0, x, fn_output_signature=tf.int32)",
    "map_structure_mismatch": "tf.map_fn(lambda v: (v, v), x)",
    "map_structure_signature": (
        "tf.map_fn(lambda v: (v, tf.reduce_sum(v)), x, "
        "fn_output_signature=(tf.float32, tf.float32))"
    ),
    "scan_empty": "tf.scan(lambda a, v: a + v, x[:0])",
    "scan_empty_reverse": "tf.scan(lambda a, v: a + v, x[:0], reverse=True)",
    "scan_empty_init": "tf.scan(lambda a, v: a + v, x[:0], initializer=tf.zeros([3]))",
    "scan_nested": (
        "tf.scan(lambda a, v: (a[0] + v, a[1] * 2.0), x, initializer=(tf.zeros([3]), 1.0))"
    ),
    "scan_structure_mismatch": "tf.scan(lambda a, v: (a, v), x)",
    "foldl_empty": "tf.foldl(lambda a, v: a + v, x[:0])",
    "foldl_empty_init": "tf.foldl(lambda a, v: a + v, x[:0], initializer=tf.zeros([3]))",
    "foldl_nested": (
        "tf.foldl(lambda a, v: (a[0] + v[0], a[1] * v[1]), (x, x + 1.0), "
        "initializer=(tf.zeros([3]), tf.ones([3])))"
    ),
}


def _run(tf, expression, traced):
    def body(x):
        return eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression

    x = tf.reshape(tf.range(12.0) / 10.0, [4, 3])
    try:
        return (tf.function(body) if traced else body)(x)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_functional(tf_oracle, name, traced):
    assert_parity(tf_oracle, _run, (CASES[name], traced))


def _gradient(tf, traced):
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.scan(lambda a, v: a * v, x)) + tf.reduce_sum(
                tf.map_fn(lambda v: tf.sin(v) * v, x)
            )
        return tape.gradient(y, x)

    x = tf.reshape(tf.range(1.0, 7.0) / 4.0, [3, 2])
    return (tf.function(grad) if traced else grad)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_functional_gradient(tf_oracle, traced):
    assert_parity(tf_oracle, _gradient, (traced,))


# --- leading sizes known only when the graph runs: a staged loop over TensorArrays ------------

UNKNOWN_SIZE_CASES = sorted(
    set(CASES)
    - {"map_scalar", "map_empty", "map_empty_reduce", "map_empty_spec"}
    - {"scan_empty", "scan_empty_reverse", "scan_empty_init", "foldl_empty", "foldl_empty_init"}
    - {"foldr_empty"}
)


def _run_unknown_size(tf, expression, dims, rows, device):
    def body(x):
        return eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression

    x = tf.reshape(tf.range(12.0) / 10.0, [4, 3])[:rows]
    f = tf.function(body, input_signature=[tf.TensorSpec(dims, tf.float32)])
    with tf.device(device):
        try:
            return f(x), f.experimental_get_tracing_count()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("rows", [4, 1, 0])
@pytest.mark.parametrize("dims", [[None, 3], [None, None]], ids=["rows_unknown", "all_unknown"])
@pytest.mark.parametrize("name", UNKNOWN_SIZE_CASES)
def test_functional_unknown_size(tf_oracle, name, dims, rows, device):
    assert_parity(tf_oracle, _run_unknown_size, (CASES[name], dims, rows, device))


def _unknown_size_gradient(tf, device, inside):
    def body(x):
        return (
            tf.reduce_sum(tf.scan(lambda a, v: a * v, x))
            + tf.reduce_sum(tf.map_fn(lambda v: tf.sin(v) * v, x))
            + tf.foldl(lambda a, v: a * tf.reduce_sum(v), x, initializer=1.0)
            + tf.reduce_sum(tf.foldr(lambda a, v: a * 0.5 + v, x))
        )

    x = tf.reshape(tf.range(1.0, 13.0) / 10.0, [4, 3])
    signature = [tf.TensorSpec([None, None], tf.float32)]
    with tf.device(device):
        if inside:

            @tf.function(input_signature=signature)
            def gradient(x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = body(x)
                return y, tape.gradient(y, x)

            return gradient(x)
        f = tf.function(body, input_signature=signature)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return y, tape.gradient(y, x)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_functional_unknown_size_gradient_from_outside(tf_oracle, device):
    assert_parity(tf_oracle, _unknown_size_gradient, (device, False), rtol=1e-4)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_functional_unknown_size_gradient_inside(tf_oracle, device):
    assert_parity(tf_oracle, _unknown_size_gradient, (device, True), rtol=1e-4)


def _switch_case_indices(tf, traced):
    """TensorFlow takes only an integer tensor as `branch_index` (Python numbers too are
    refused), only int32 once staged, and only a scalar; out of range runs the last branch."""
    branches = {0: lambda: tf.constant(10), 1: lambda: tf.constant(20)}
    indices = [
        1, True, b"\x00\xff", 1.0, tf.constant(1.0), tf.constant(1, tf.int64),
        tf.constant(1, tf.uint8), tf.constant(0), tf.constant(7), tf.constant(-1), tf.constant([1]),
    ]  # fmt: skip
    out = []
    for index in indices:
        run = lambda i=index: tf.switch_case(i, branches)  # noqa: E731 - one case per index
        try:
            out.append(tf.function(run)() if traced else run())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("traced", [False, True])
def test_switch_case_branch_index(tf_oracle, traced):
    assert_parity(tf_oracle, _switch_case_indices, (traced,))
