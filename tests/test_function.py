"""tf.function: tracing and retracing, signatures, concrete functions, variables, control flow,
tf.print, gradients, the optimised graph, and errors — checked against TensorFlow's behaviour
(its printed results where the seeds show them)."""

import io
import sys

import ferroflow as tf
import numpy as np
import pytest


def test_seeds_graph_cells_trace_once_per_signature(capsys):
    @tf.function
    def my_func(x):
        print("Tracing.\n")
        return tf.reduce_sum(x)

    assert str(my_func(tf.constant([1, 2, 3]))) == "tf.Tensor(6, shape=(), dtype=int32)"
    assert int(my_func(tf.constant([10, 9, 8]))) == 27
    out = my_func(tf.constant([10.0, 9.1, 8.2], dtype=tf.float32))
    assert repr(out) == "<tf.Tensor: shape=(), dtype=float32, numpy=27.3>"
    assert capsys.readouterr().out == "Tracing.\n\n" * 2
    assert my_func.experimental_get_tracing_count() == 2


def test_later_calls_do_not_run_python():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x * 2 + 1

    for i in range(5):
        np.testing.assert_array_equal(f(tf.constant([i, i])).numpy(), [2 * i + 1] * 2)
    assert len(calls) == 1


def test_retracing_rules():
    @tf.function
    def f(x, n=1):
        return x * n

    f(tf.constant(1))
    f(tf.constant(2))  # same dtype and shape
    assert f.experimental_get_tracing_count() == 1
    f(tf.constant([1]))  # new shape
    f(tf.constant(1.0))  # new dtype
    assert f.experimental_get_tracing_count() == 3
    f(tf.constant(1), 2)
    f(tf.constant(1), 2)  # Python values retrace by value
    f(tf.constant(1), 3)
    assert f.experimental_get_tracing_count() == 5
    f([tf.constant(1)])  # structure
    assert f.experimental_get_tracing_count() == 6


def test_reduce_retracing_relaxes_shapes(capsys):
    @tf.function(reduce_retracing=True)
    def g(x):
        print("Tracing with", x)
        return x

    g(tf.constant([1, 2, 3]))
    g(tf.constant([1, 2, 3, 4, 5]))
    np.testing.assert_array_equal(g(tf.constant([7, 8])).numpy(), [7, 8])
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(3,), dtype=int32)\n'
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
    )
    assert g.experimental_get_tracing_count() == 2


def test_input_signature_restricts_calls(capsys):
    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.int32)])
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    np.testing.assert_array_equal(next_collatz(tf.constant([1, 2])).numpy(), [4, 1])
    np.testing.assert_array_equal(next_collatz(tf.constant([1, 2, 3, 4])).numpy(), [4, 1, 10, 2])
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
    with pytest.raises(TypeError, match="Can not cast"):
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="Can not cast"):
        next_collatz(tf.constant([1.0, 2.0]))
    assert next_collatz.experimental_get_tracing_count() == 1


def test_relaxed_graph_with_slices_follows_the_input_length():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def tail_sum(x):
        return tf.reduce_sum(x[1:] * 2.0)

    assert float(tail_sum(tf.constant([1.0, 2.0, 3.0]))) == 10.0
    assert float(tail_sum(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))) == 28.0


def test_concrete_function_and_its_graph():
    @tf.function
    def f(x):
        return {"double": x * 2, "none": None}

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    ops = [(op.name, op.type) for op in concrete.graph.get_operations()]
    assert ops == [("x", "Placeholder"), ("Const", "Const"), ("Mul", "Mul")]
    outputs = concrete.structured_outputs
    assert outputs["none"] is None
    assert str(outputs["double"]) == 'Tensor("Mul:0", shape=(None,), dtype=float32)'
    result = concrete(tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(result["double"].numpy(), [2.0, 4.0, 6.0])
    assert result["none"] is None
    with pytest.raises(TypeError):
        concrete(tf.constant([1, 2]))
    assert "ConcreteFunction" in repr(concrete)


def test_nested_arguments_and_outputs():
    @tf.function
    def f(pair, d):
        a, b = pair
        return [a + b, (d["k"] * 2,)]

    out = f((tf.constant(1), tf.constant(2)), {"k": tf.constant(5)})
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert int(out[0]) == 3 and int(out[1][0]) == 10


def test_methods_bind_self_and_read_variables_by_reference():
    class Scale:
        def __init__(self, value):
            self.weight = tf.Variable(value)

        @tf.function
        def multiply(self, x):
            return x * self.weight

    a, b = Scale(3), Scale(5)
    assert str(a.multiply(tf.constant([1, 2, 3]))) == (
        "tf.Tensor([3 6 9], shape=(3,), dtype=int32)"
    )
    np.testing.assert_array_equal(b.multiply(tf.constant([1, 2, 3])).numpy(), [5, 10, 15])
    a.weight.assign(4)
    np.testing.assert_array_equal(a.multiply(tf.constant([1, 2, 3])).numpy(), [4, 8, 12])


def test_assignments_run_when_called_not_when_traced():
    v = tf.Variable(1.0)

    @tf.function
    def bump(x):
        v.assign_add(x)
        v.assign(v * 2.0)
        return v.read_value()

    assert float(bump(tf.constant(1.0))) == 4.0
    assert float(bump(tf.constant(1.0))) == 10.0
    assert float(v) == 10.0


def test_eager_tensors_are_captured_as_constants():
    c = tf.constant(2.0)

    @tf.function
    def f(x):
        return x * c

    assert float(f(tf.constant(3.0))) == 6.0
    c = tf.constant(100.0)  # rebinding the name does not change the traced constant
    assert float(f(tf.constant(3.0))) == 6.0


def test_creating_variables_after_the_first_trace_is_an_error():
    @tf.function
    def f(x):
        w = tf.Variable(2.0)
        return w * x

    assert float(f(tf.constant(1.0))) == 2.0
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        f(tf.constant([1.0]))


def test_control_flow_functions_in_a_graph():
    @tf.function
    def f(x):
        y = tf.cond(x > 0, lambda: x * 2, lambda: x - 1)
        (i, s) = tf.while_loop(lambda i, s: i < x, lambda i, s: (i + 1, s + i), (0, 0))
        z = tf.switch_case(x, [lambda: 10, lambda: 20, lambda: 30])
        return y, s, z

    for x in (-2, 0, 1, 2, 7):
        y, s, z = f(tf.constant(x))
        assert int(y) == (x * 2 if x > 0 else x - 1)
        assert int(s) == sum(range(max(x, 0)))
        assert int(z) == (x if 0 <= x < 3 else 2) * 10 + 10
    assert f.experimental_get_tracing_count() == 1
    kinds = {op.type for op in f.get_concrete_function(tf.constant(1)).graph.get_operations()}
    assert {"If", "While", "Case"} <= kinds


def test_autograph_turns_python_control_flow_into_graph_control_flow():
    @tf.function
    def collatz_steps(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    @tf.function
    def triangle(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total += i
        return total

    assert int(collatz_steps(tf.constant(6))) == 8
    assert int(collatz_steps(tf.constant(27))) == 111
    assert collatz_steps.experimental_get_tracing_count() == 1
    assert int(triangle(tf.constant(5))) == 10
    assert int(triangle(tf.constant(100))) == 4950


def test_python_bool_of_a_symbolic_tensor_without_autograph():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        f(tf.constant(1))


def test_tf_print_prints_at_run_time():
    stream = io.StringIO()

    @tf.function
    def f(x):
        tf.print("x:", x, [x, 1], output_stream=stream)
        return x + 1

    f(tf.constant([1, 2]))
    f(tf.constant([3, 4]))
    assert stream.getvalue() == "x: [1 2] [[1 2], 1]\nx: [3 4] [[3 4], 1]\n"
    eager = io.StringIO()
    tf.print(tf.range(10), tf.constant([1.5, 2.0]), output_stream=eager)
    assert eager.getvalue() == "[0 1 2 ... 7 8 9] [1.5 2]\n"


def test_tf_print_default_stream_is_stderr(capsys):
    tf.print("hello", tf.constant(3))
    assert capsys.readouterr().err == "hello 3\n"


def test_gradient_tape_inside_a_function_and_a_training_step():
    w = tf.Variable([[1.0], [2.0]])
    b = tf.Variable([0.5])

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = np.array([[1.0], [2.0]], np.float32)
    wn, bn = np.array([[1.0], [2.0]], np.float32), np.array([0.5], np.float32)
    for _ in range(3):
        err = x @ wn + bn - y
        expected = np.mean(err**2)
        gw = 2 * x.T @ err / 2
        gb = 2 * err.sum(0) / 2
        wn, bn = wn - 0.1 * gw, bn - 0.1 * gb
        np.testing.assert_allclose(float(step(tf.constant(x), tf.constant(y))), expected, rtol=1e-5)
    np.testing.assert_allclose(w.numpy(), wn, rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), bn, rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_a_function_is_differentiable_under_an_eager_tape():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return tf.sin(x) * x * v + tf.exp(x) * 0.5

    x = tf.constant(0.7)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    np.testing.assert_allclose(
        float(gx), np.cos(0.7) * 0.7 * 2 + np.sin(0.7) * 2 + 0.5 * np.exp(0.7), rtol=1e-5
    )
    np.testing.assert_allclose(float(gv), np.sin(0.7) * 0.7, rtol=1e-5)


def test_optimised_graph_folds_merges_prunes_and_fuses():
    @tf.function
    def f(x):
        k = tf.constant(2.0) * tf.constant(3.0)  # folded
        a = tf.exp(x)
        b = tf.exp(x)  # merged with a
        _ = tf.sin(x)  # dead
        y = (a + b) * k
        for _ in range(4):
            y = tf.tanh(y) * 0.5 + 1.0
        return y

    x = tf.constant(np.linspace(-1, 1, 1000, dtype=np.float32))
    concrete = f.get_concrete_function(x)
    traced = [op.type for op in concrete.graph.get_operations()]
    optimized = [op.type for op in concrete.graph.get_optimized_operations()]
    assert traced.count("Exp") == 2 and "Sin" in traced
    assert "Sin" not in optimized and optimized.count("FusedElementwise") == 1
    assert optimized.count("Exp") == 1 and "Mul" not in optimized and "Tanh" not in optimized
    assert len([t for t in optimized if t != "Const"]) == 3  # x, exp, the fused chain
    a = np.exp(x.numpy())
    y = (a + a) * 6.0
    for _ in range(4):
        y = np.tanh(y) * 0.5 + 1.0
    np.testing.assert_allclose(f(x).numpy(), y, rtol=1e-6)


def test_errors_while_running_have_eager_types():
    @tf.function
    def f(x, i):
        return tf.gather(x, i)

    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1, 2, 3]), tf.constant(7))

    # Shapes that cannot broadcast fail while the graph is built: TensorFlow's shape function
    # raises ValueError there.
    @tf.function
    def g(x, y):
        return x + y

    with pytest.raises(ValueError, match="Incompatible shapes"):
        g(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_tracing_errors_point_at_the_users_line():
    @tf.function
    def f(x):
        return x.numpy()  # the line the error note names

    with pytest.raises(AttributeError) as info:
        f(tf.constant(1))
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "test_function.py" in notes and "x.numpy()" in notes


def test_symbolic_values_cannot_become_python_values_or_attributes():
    @tf.function
    def as_int(x):
        return int(x)

    with pytest.raises(TypeError, match="symbolic tensor"):
        as_int(tf.constant(1))

    # A shape may be symbolic: the reshape takes it as an input, as TensorFlow's does.
    @tf.function
    def reshape_by_value(x, n):
        return tf.reshape(x, n)

    assert reshape_by_value(tf.constant([1, 2]), tf.constant([2, 1])).shape == (2, 1)


def test_nested_functions_trace_inline():
    @tf.function
    def inner(x):
        return x + 1

    @tf.function
    def outer(x):
        return inner(x) * 2

    assert int(outer(tf.constant(1))) == 4
    assert int(inner(tf.constant(1))) == 2


def test_gpu_function_matches_cpu():
    if not tf.config.list_physical_devices("GPU"):
        pytest.skip("no GPU")

    @tf.function
    def f(x):
        y = x
        for _ in range(10):
            y = tf.sin(y) * 1.5 + 0.25
        return y

    x = np.linspace(-3, 3, 100_000).astype(np.float32)
    with tf.device("GPU:0"):
        gpu = f(tf.constant(x)).numpy()
    with tf.device("CPU:0"):
        cpu = f(tf.constant(x)).numpy()
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-5)


def test_print_to_stdout_stream(capsys):
    tf.print(tf.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "[[1 2]\n [3 4]]\n"


def test_gradients_through_staged_conditionals_inside_a_function():
    v = tf.Variable(2.0)

    @tf.function
    def variable_grad():
        with tf.GradientTape() as tape:
            y = tf.cond(v > 0, lambda: v * v, lambda: -v)
        return tape.gradient(y, v)

    assert variable_grad().numpy() == 4.0
    v.assign(-3.0)
    assert variable_grad().numpy() == -1.0

    @tf.function
    def captured_by_both_branches(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            if x > 0:  # AutoGraph: a staged cond capturing x in both branches
                y = x * x
            else:
                y = x * 3.0
        return tape.gradient(y, x)

    assert captured_by_both_branches(tf.constant(2.0)).numpy() == 4.0
    assert captured_by_both_branches(tf.constant(-1.0)).numpy() == 3.0

    @tf.function
    def nested_and_second_order(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.cond(
                    x > 0,
                    lambda: tf.cond(x > 10, lambda: x, lambda: x * x * x),
                    lambda: tf.zeros_like(x),
                )
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    dy, d2y = nested_and_second_order(tf.constant(2.0))
    assert (dy.numpy(), d2y.numpy()) == (12.0, 12.0)
    dy, d2y = nested_and_second_order(tf.constant(20.0))
    assert (dy.numpy(), d2y.numpy()) == (1.0, 0.0)


def test_gradient_through_a_staged_loop_inside_a_function():
    # y = x**4 (three products by x): the staged While's gradient, not an error or a None
    # (tests/parity/test_while_gradient.py compares many more loops with TensorFlow).
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), (0, x))[1]
        return tape.gradient(y, x)

    assert float(f(tf.constant(2.0))) == 32.0


def test_name_scopes_prefix_graph_op_names():
    @tf.function
    def f(x):
        with tf.name_scope("layer"):
            y = x * 2.0
            with tf.name_scope("inner"):
                z = tf.exp(y)
        return z + 1.0

    names = [op.name for op in f.get_concrete_function(tf.constant([1.0])).graph.get_operations()]
    assert "layer/Mul" in names and "layer/inner/Exp" in names and "AddV2" in names


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_fused_comparisons_and_selects_match_eager_bit_for_bit(dtype):
    # Comparisons feeding selects run in the fused CPU loops as masks; NaN compares unordered.
    values = np.array([-2.0, -0.0, 0.0, 0.5, np.nan, 3.0, np.inf, -np.inf] * 40)

    def chain(x, y):
        relu_grad = tf.where(x > 0.0, y, tf.zeros_like(y))
        kept = tf.where(tf.math.greater_equal(x, y), x * 2.0, y - 1.0)
        picked = tf.where(tf.not_equal(x, x), y, x)
        scale = tf.where(x <= y, tf.ones_like(x) * 1.5, tf.ones_like(y) * -0.5)
        return relu_grad + kept * scale + picked

    x = tf.constant(values, dtype)
    y = tf.constant(values[::-1].copy(), dtype)
    traced = tf.function(chain)
    with tf.device("CPU:0"):
        np.testing.assert_array_equal(traced(x, y).numpy(), chain(x, y).numpy())
        ops = traced.get_concrete_function(x, y)._core.optimized_operations()
    assert any(op[1] == "FusedElementwise" for op in ops)


def test_tracing_runs_no_kernel_on_traced_values(capfd):
    # Tracing is abstract evaluation: the ops of the body are recorded with shapes from their
    # shape rules, and their kernels run only when the graph does (placement logs each run).
    @tf.function
    def body(x):
        y = tf.matmul(x, x)
        # Staged control flow on traced values is deferred too: no example branch or iteration.
        y = tf.cond(tf.reduce_sum(y) > 0, lambda: y * 2.0, lambda: y - 1.0)
        _, y = tf.while_loop(
            lambda i, v: i < tf.cast(tf.reduce_max(v), tf.int32),
            lambda i, v: (i + 1, v + tf.abs(v)),
            (tf.constant(0), y),
        )
        return tf.nn.softmax(tf.tanh(y) + tf.reduce_mean(y, 0)), tf.random.uniform(tf.shape(y))

    x = tf.ones([3, 3])
    tf.debugging.set_log_device_placement(True)
    try:
        capfd.readouterr()
        concrete = body.get_concrete_function(x)
        traced = capfd.readouterr().err
        concrete(x)
        ran = capfd.readouterr().err
    finally:
        tf.debugging.set_log_device_placement(False)
    for op in (
        "BatchMatMulV2",
        "Sum",
        "Greater",
        "Less",
        "Abs",
        "Tanh",
        "Softmax",
        "RandomUniform",
    ):
        assert f"Executing op {op} " not in traced, traced
    for op in ("BatchMatMulV2", "RandomUniform"):
        assert f"Executing op {op} " in ran, ran
    assert [t.shape.as_list() for t in concrete.outputs] == [[3, 3], [3, 3]]


def test_tracing_runs_no_kernel_for_value_sized_results(capfd):
    # Sizes that follow values (a mask's, a unique's, a range up to a computed count) are not
    # known while tracing: those ops and everything after them are recorded, not run on the
    # example, as long as no composition needs one of those sizes.
    def body(x):
        kept = tf.boolean_mask(x, x > 0.0)
        values, _ = tf.unique(tf.cast(kept, tf.int32))
        count = tf.reduce_sum(tf.cast(x > 0.0, tf.int32))
        grid = tf.zeros(tf.stack([count, 2])) + tf.cast(tf.range(count), tf.float32)[:, None]
        return (
            tf.reduce_sum(tf.nn.softmax(kept * 2.0)),
            tf.reduce_max(values),
            tf.reduce_sum(grid),
            tf.shape(kept),
        )

    x = tf.constant([1.0, -2.0, 3.0, 3.0])
    traced_fn = tf.function(body)
    tf.debugging.set_log_device_placement(True)
    try:
        capfd.readouterr()
        concrete = traced_fn.get_concrete_function(x)
        traced = capfd.readouterr().err
        results = concrete(x)
        ran = capfd.readouterr().err
    finally:
        tf.debugging.set_log_device_placement(False)
    for op in ("Where", "Unique", "Range", "Fill", "Softmax", "Max", "GatherV2"):
        assert f"Executing op {op} " not in traced, traced
        assert f"Executing op {op} " in ran, ran
    for got, want in zip(results, body(x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert [o.shape.as_list() for o in concrete.outputs] == [[], [], [], [1]]


def test_a_concrete_function_of_unknown_rank_is_a_typed_error():
    # One graph per rank: a concrete function for a spec of unknown rank does not exist here,
    # and asking for one says so (calls with any rank work; see tests/parity).
    f = tf.function(tf.reduce_sum, input_signature=[tf.TensorSpec(None, tf.float32)])
    with pytest.raises(tf.errors.UnimplementedError, match="unknown rank"):
        f.get_concrete_function()
    assert f.get_concrete_function(tf.TensorSpec([None, 2])).structured_outputs.shape == []


def test_map_fn_over_a_size_unknown_while_tracing_is_one_graph():
    # An unknown leading size stages a while loop writing a TensorArray: one trace serves
    # every size (tests/parity/test_functional_ops.py compares values with TensorFlow).
    f = tf.function(
        lambda x: tf.map_fn(lambda v: v * 2.0, x),
        input_signature=[tf.TensorSpec([None], tf.float32)],
    )
    assert f(tf.ones([3])).numpy().tolist() == [2.0, 2.0, 2.0]
    assert f(tf.ones([5])).numpy().tolist() == [2.0] * 5
    assert f(tf.ones([0])).numpy().tolist() == []
    assert f.experimental_get_tracing_count() == 1
    assert tf.map_fn(lambda v: v * 2.0, tf.ones([3])).numpy().tolist() == [2.0, 2.0, 2.0]
