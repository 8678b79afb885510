"""`tf.function` argument binding and return structures: dicts in any key order, nested lists and
tuples, namedtuples, keyword arguments, defaults, None, Python scalars and bools."""

from .harness import parity


@parity
def test_dict_argument_reduce_max(tf):
    @tf.function
    def f(batch):
        return tf.reduce_max(batch["x"])

    return f({"x": tf.constant([1.0, 5.0, 3.0]), "scale": tf.constant(2.0)})


@parity
def test_dict_argument_keys_not_sorted(tf):
    # Insertion order differs from sorted order; each key gets a different shape and value, so a
    # leaf bound to the wrong key shows.
    @tf.function
    def f(batch):
        return batch["zeta"] * 10.0 + tf.reduce_sum(batch["alpha"]), batch["mid"] - 1

    batch = {
        "zeta": tf.constant([1.0, 2.0]),
        "alpha": tf.constant([[100.0, 200.0, 300.0]]),
        "mid": tf.constant(7),
    }
    return f(batch)


@parity
def test_dict_argument_any_key_order(tf):
    @tf.function
    def f(batch):
        return {"scaled": batch["x"] * batch["scale"], "shifted": batch["scale"] - batch["x"]}

    x = tf.constant([1.0, 5.0, 3.0])
    first = f({"x": x, "scale": tf.constant(2.0)})
    reordered = f({"scale": tf.constant(2.0), "x": x})
    other = f({"scale": tf.constant(-1.0), "x": x})
    return first, reordered, other, f.experimental_get_tracing_count()


@parity
def test_dict_return_key_order(tf):
    @tf.function
    def f(x):
        return {"z": x + 1, "a": x * 2, "m": {"y": x - 1, "b": x * x}}

    return f(tf.constant([1.0, 2.0]))


@parity
def test_nested_lists_and_tuples(tf):
    @tf.function
    def f(structure):
        a, (b, inner) = structure
        return [a + b, (inner["k"] * a, [inner["j"]])], b

    args = [
        tf.constant([1.0, 2.0]),
        (tf.constant([10.0, 20.0]), {"k": tf.constant(3.0), "j": tf.constant([4, 5, 6])}),
    ]
    return f(args), f.experimental_get_tracing_count()


@parity
def test_namedtuple_argument_and_result(tf):
    import collections

    Point = collections.namedtuple("Point", ["x", "y"])
    Box = collections.namedtuple("Box", ["low", "high", "label"])

    @tf.function
    def f(box):
        size = Point(box.high.x - box.low.x, box.high.y - box.low.y)
        return Box(low=box.low, high=size, label=box.label * 2)

    box = Box(
        Point(tf.constant(1.0), tf.constant(2.0)),
        Point(tf.constant(4.0), tf.constant(7.0)),
        tf.constant(3),
    )
    return f(box)


@parity
def test_keyword_arguments_and_defaults(tf):
    @tf.function
    def f(x, scale=2.0, offset=None, *, power=1):
        y = x * scale
        if offset is not None:
            y = y + offset
        return y**power

    x = tf.constant([1.0, 2.0, 3.0])
    results = [
        f(x),
        f(x, 3.0),
        f(x, scale=tf.constant(4.0)),
        f(offset=tf.constant(1.0), x=x),
        f(x, offset=tf.constant([0.5, 0.5, 0.5]), power=2),
        f(scale=tf.constant(4.0), x=x),
    ]
    return results, f.experimental_get_tracing_count()


@parity
def test_none_arguments_and_results(tf):
    @tf.function
    def f(x, mask):
        if mask is None:
            return {"y": x, "mask": None}
        return {"y": x * mask, "mask": mask}

    x = tf.constant([1.0, 2.0])
    return f(x, None), f(x, tf.constant([0.0, 1.0])), f(x, None), f.experimental_get_tracing_count()


@parity
def test_python_scalar_and_bool_arguments(tf):
    @tf.function
    def f(x, n, flag, factor):
        y = x
        for _ in range(n):
            y = y * factor
        if flag:
            y = -y
        return y, n, flag

    x = tf.constant([1.0, 2.0])
    results = [f(x, 2, True, 3.0), f(x, 2, False, 3.0), f(x, 3, True, 0.5), f(x, 2, True, 3.0)]
    return results, f.experimental_get_tracing_count()


@parity
def test_python_values_returned(tf):
    @tf.function
    def f(x):
        return {"t": x, "i": 3, "f": 2.5, "b": True, "n": None, "a": [1, 2]}

    return f(tf.constant(1.0))


@parity
def test_python_string_returned(tf):
    @tf.function
    def f(x):
        return {"t": x, "s": "text"}

    return f(tf.constant(1.0))


@parity
def test_numpy_argument_is_a_tensor(tf):
    import numpy as np

    @tf.function
    def f(x):
        return x * 2

    a = f(np.array([1.0, 2.0], dtype=np.float32))
    b = f(np.array([3.0, 4.0], dtype=np.float32))
    c = f(tf.constant([5.0, 6.0]))
    return a, b, c, f.experimental_get_tracing_count()


@parity
def test_method_with_structured_arguments(tf):
    class Scaler(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([2.0, 3.0])

        @tf.function
        def __call__(self, inputs, bias=None):
            out = {"a": inputs["a"] * self.w, "b": inputs["b"] + 1.0}
            if bias is not None:
                out["a"] = out["a"] + bias
            return out

    module = Scaler()
    inputs = {"b": tf.constant(5.0), "a": tf.constant([1.0, 1.0])}
    return module(inputs), module(inputs, bias=tf.constant(0.5))


@parity
def test_wrong_structure_raises(tf):
    @tf.function(input_signature=[{"x": tf.TensorSpec([None], tf.float32)}])
    def f(batch):
        return batch["x"] + 1

    ok = f({"x": tf.constant([1.0])})
    try:
        f({"y": tf.constant([1.0])})
    except Exception as error:
        return ok, type(error).__name__
    return ok, "no error"


@parity
def test_python_values_bound_to_input_signature(tf):
    """Python and numpy values a TensorSpec describes become inputs of the trace (one trace
    for every value), not constants baked into it."""
    import numpy as np

    traces = []

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([2], tf.int64)])
    def f(x, y):
        traces.append(1)
        return x * 2.0, y + 1

    results = [f(3.0, [1, 2]), f(4, np.array([5, 6])), f(np.float64(0.5), (7, 8))]
    concrete = f.get_concrete_function()
    results.append(concrete(tf.constant(1.5), tf.constant([3, 4], tf.int64)))
    errors = []
    for bad in [("a", [1, 2]), (1.0, [1.5, 2.0]), (1.0, [1, 2, 3])]:
        try:
            f(*bad)
            errors.append("no error")
        except Exception as error:  # noqa: BLE001 - the class is what is compared
            errors.append(type(error).__name__)
    return results, len(traces), errors


@parity
def test_first_call_with_incompatible_unknown_sizes(tf):
    """Sizes an input_signature leaves unknown are judged when the graph runs: a first call
    whose shapes cannot broadcast raises InvalidArgumentError (the trace must not reject it
    by its example's sizes, a ValueError), and later calls still run."""

    @tf.function(input_signature=[tf.TensorSpec([None, None]), tf.TensorSpec([None])])
    def f(x, y):
        return x * y

    out = []
    for shapes in [([0, 0], [3]), ([2, 2], [3]), ([2, 3], [3]), ([2, 3], [1])]:
        try:
            out.append(f(tf.ones(shapes[0]), tf.ones(shapes[1])))
        except Exception as error:  # noqa: BLE001 - the class is what is compared
            out.append(type(error).__name__)
    return out, f.experimental_get_tracing_count()
