"""`tf.py_function` and `tf.numpy_function` inside `tf.function`, against TensorFlow.

Both frameworks stage them as graph nodes (EagerPyFunc, PyFunc, PyFuncStateless) that call the
Python function each time the graph runs and never while tracing: the programs count the calls
(after tracing, per run, for results nothing reads) and compare values, dtypes, the unknown
static shapes of the results (and what `ensure_shape`, `set_shape`, `tf.shape` and
`structured_outputs` make of them), the error classes of the function's exceptions and of
results that do not match `Tout`, gradients (eager tapes around a call, tapes inside the
function), control flow, `tf.data` map functions and a same-process SavedModel round trip.
Each program runs under `tf.device` on the CPU and the GPU.

Calls are counted per function, not in order: TensorFlow may run independent nodes in any
order."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _calls_and_shapes(tf, device):
    import numpy as np

    calls = []
    seen = []

    def double(a):
        calls.append("py")
        return a * 2.0

    def square(a):
        calls.append("np")
        return np.square(a)

    with tf.device(device):

        @tf.function
        def f(x):
            y = tf.py_function(double, [x], tf.float32)
            z = tf.numpy_function(square, [x], tf.float32)
            total = y + z
            fixed = tf.ensure_shape(y, [None])
            seen.append(
                {
                    "py": (y.shape, y.dtype),
                    "np": (z.shape, z.dtype),
                    "sum": total.shape,
                    "shape_of": tf.shape(y).shape,
                    "size": tf.size(y).shape,
                    "rank": tf.rank(y).shape,
                    "ensured": fixed.shape,
                }
            )
            return total, fixed, tf.shape(y)

        concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
        after_trace = list(calls)
        first = concrete(tf.constant([1.0, 2.0]))
        after_first = (calls.count("py"), calls.count("np"))
        second = concrete(tf.constant([3.0, 4.0, 5.0]))
        outputs = concrete.structured_outputs
        return {
            "after_trace": after_trace,
            "after_first": after_first,
            "after_second": (calls.count("py"), calls.count("np")),
            "first": first,
            "second": second,
            "seen": seen,
            "outputs": [(o.shape, o.dtype) for o in outputs],
        }


@pytest.mark.parametrize("device", DEVICES)
def test_calls_values_and_shapes(tf_oracle, device):
    assert_parity(tf_oracle, _calls_and_shapes, (device,))


def _unread_results(tf, device):
    calls = []

    def note(kind):
        def fn(a):
            calls.append(kind)
            return a

        return fn

    with tf.device(device):

        @tf.function
        def f(x):
            tf.py_function(note("py"), [x], tf.float32)
            tf.numpy_function(note("np"), [x], tf.float32)
            tf.numpy_function(note("np_stateless"), [x], tf.float32, stateful=False)
            a = tf.numpy_function(note("kept_a"), [x], tf.float32, stateful=False)
            b = tf.numpy_function(note("kept_b"), [x], tf.float32, stateful=False)
            return a + b

        values = [f(tf.constant(1.0)), f(tf.constant(2.0))]
        kinds = ["py", "np", "np_stateless", "kept_a", "kept_b"]
        return {"values": values, "counts": {k: calls.count(k) for k in kinds}}


@pytest.mark.parametrize("device", DEVICES)
def test_results_nothing_reads(tf_oracle, device):
    assert_parity(tf_oracle, _unread_results, (device,))


def _structures(tf, device):
    import numpy as np

    types = []

    def numpy_types(a, b):
        types.append((type(a).__name__, str(a.dtype), type(b).__name__, str(b.dtype)))
        return a + 1, np.array([b"x", b"yz"])

    with tf.device(device):

        @tf.py_function(Tout=tf.float32)
        def decorated(a, b):
            return a * b

        @tf.function
        def f(x):
            pair = tf.py_function(lambda a: (a, a + 1.0), [x], [tf.float32, tf.float32])
            as_tuple = tf.py_function(lambda a: [a * 3.0], [x], (tf.float32,))
            first_of_list = tf.py_function(lambda a: [a, a * 2.0], [x], tf.float32)
            ints = tf.py_function(lambda a: tf.cast(a, tf.int64) * 2, [x], tf.int64)
            from_numpy = tf.numpy_function(
                numpy_types, [x, tf.constant([1, 2])], [tf.float32, tf.string]
            )
            return {
                "pair": pair,
                "tuple": as_tuple,
                "first_of_list": first_of_list,
                "ints": ints,
                "numpy": from_numpy,
                "decorated": decorated(x, 4.0),
                "python_float": tf.numpy_function(lambda a: 2.5, [x], tf.float64),
                "bytes": tf.numpy_function(lambda a: b"hi", [x], tf.string),
            }

        out = f(tf.constant(2.0))
        return {"out": out, "numpy_arguments": types}


@pytest.mark.parametrize("device", DEVICES)
def test_result_structures(tf_oracle, device):
    assert_parity(tf_oracle, _structures, (device,))


def _errors(tf, device):
    import numpy as np

    class Custom(Exception):
        pass

    def raising(error):
        def fn(a):
            raise error

        return fn

    errors = [
        ValueError("v"),
        TypeError("t"),
        ZeroDivisionError("z"),
        StopIteration(),
        MemoryError("m"),
        NotImplementedError("n"),
        KeyError("k"),
        Custom("c"),
        tf.errors.InvalidArgumentError(None, None, "op error"),
    ]
    with tf.device(device):
        staged = {}
        for error in errors:
            name = type(error).__name__

            def py(x, error=error):
                return tf.py_function(raising(error), [x], tf.float32)

            def numpy(x, error=error):
                return tf.numpy_function(raising(error), [x], tf.float32)

            def eager(error=error):
                return tf.py_function(raising(error), [1.0], tf.float32)

            staged[name] = (
                _outcome(lambda: tf.function(py)(tf.constant(1.0))),
                _outcome(lambda: tf.function(numpy)(tf.constant(1.0))),
                _outcome(eager),
            )

        def call(fn):
            return _outcome(lambda: tf.function(fn)(tf.constant(1.0)))

        def numpy_node(func, tout):
            return call(lambda x: tf.numpy_function(func, [x], tout))

        def py_node(func, tout):
            return call(lambda x: tf.py_function(func, [x], tout))

        return {
            "staged": staged,
            "numpy_dtype": numpy_node(lambda a: a.astype(np.float64), tf.float32),
            "numpy_count": numpy_node(lambda a: [a, a], tf.float32),
            "numpy_none": numpy_node(lambda a: None, tf.float32),
            "py_count": py_node(lambda a: a, [tf.float32] * 2),
            "py_none": py_node(lambda a: None, tf.float32),
            "py_dtype": py_node(lambda a: tf.cast(a, tf.int32), tf.float32),
            "py_nested_tout": py_node(lambda a: a, [[tf.float32]]),
            "py_not_callable": call(lambda x: tf.py_function(3, [x], tf.float32)),
            "no_inp": _outcome(lambda: tf.py_function(lambda: 1.0, None, tf.float32)),
            "no_tout": _outcome(lambda: tf.numpy_function(lambda a: a, [1.0], None)),
            "eager_single_tout_list": tf.py_function(lambda a: [a, a], [1.0], tf.float32),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_errors(tf_oracle, device):
    assert_parity(tf_oracle, _errors, (device,), helpers=(_outcome,))


def _gradients(tf, device):
    with tf.device(device):

        def cube(a):
            return a * a * a

        @tf.function
        def staged(x):
            return tf.py_function(cube, [x], tf.float32) * 2.0

        @tf.function
        def inside(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.py_function(cube, [x], tf.float32)
                loss = tf.reduce_sum(y * y)
            return loss, tape.gradient(loss, x)

        @tf.function
        def two_inputs(x, w):
            with tf.GradientTape() as tape:
                tape.watch([x, w])
                y = tf.py_function(lambda a, b: a * b + b, [x, w], tf.float32)
            return tape.gradient(y, [x, w])

        @tf.function
        def numpy_inside(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.numpy_function(lambda a: a * 2.0, [x], tf.float32)
            return tape.gradient(y, x)

        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            eager = tf.py_function(cube, [x], tf.float32)
        eager_grad = tape.gradient(eager, x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            outer = staged(x)
        outer_grad = tape.gradient(outer, x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            numpy_outer = tf.function(lambda a: tf.numpy_function(lambda b: b, [a], tf.float32))(x)
        return {
            "eager": (eager, eager_grad),
            "outer": (outer, outer_grad),
            "inside": inside(x),
            "two_inputs": two_inputs(tf.constant(2.0), tf.constant(5.0)),
            "numpy_inside": numpy_inside(x),
            "numpy_outer": (numpy_outer, tape.gradient(numpy_outer, x)),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,))


def _control_flow(tf, device):
    calls = []

    def noted(a):
        calls.append(1)
        return a + 1.0

    with tf.device(device):

        @tf.function
        def in_cond(x):
            if x > 0:
                y = tf.py_function(noted, [x], tf.float32)
            else:
                y = x * 10.0
            return y

        @tf.function
        def in_while(n):
            def body(i, acc):
                step = tf.py_function(noted, [tf.cast(i, tf.float32)], tf.float32)
                return i + 1, acc + tf.ensure_shape(step, [])

            return tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.constant(0.0)])

        @tf.function
        def in_for(n):
            acc = tf.constant(0.0)
            for i in tf.range(n):
                step = tf.py_function(noted, [i], tf.float32)
                step.set_shape([])
                acc += step
            return acc

        @tf.function
        def shape_changes(n):
            acc = tf.constant(0.0)
            for i in tf.range(n):
                acc += tf.py_function(noted, [i], tf.float32)
            return acc

        results = {}
        results["cond_true"] = in_cond(tf.constant(2.0))
        results["cond_true_calls"] = len(calls)
        results["cond_false"] = in_cond(tf.constant(-2.0))
        results["cond_false_calls"] = len(calls)
        results["while"] = in_while(tf.constant(3))
        results["while_calls"] = len(calls)
        results["for"] = in_for(tf.constant(4))
        results["for_calls"] = len(calls)
        results["shape_changes"] = _outcome(lambda: shape_changes(tf.constant(2)))
        return results


@pytest.mark.parametrize("device", DEVICES)
def test_control_flow(tf_oracle, device):
    assert_parity(tf_oracle, _control_flow, (device,), helpers=(_outcome,))


def _set_shape(tf, device):
    seen = []
    with tf.device(device):

        @tf.function
        def f(x):
            y = tf.py_function(lambda a: a * 2.0, [x], tf.float32)
            seen.append(y.shape)
            y.set_shape([None, 2])
            seen.append(y.shape)
            y.set_shape([3, None])
            seen.append(y.shape)
            seen.append(_outcome(lambda: y.set_shape([3, 4])))
            seen.append(_outcome(lambda: y.set_shape([3])))
            z = tf.reduce_sum(y, axis=1)
            seen.append(z.shape)
            return z

        value = f(tf.ones([3, 2]))
        eager = tf.constant([[1.0, 2.0]])
        eager.set_shape([1, None])
        return {
            "value": value,
            "seen": seen,
            "eager_bad": _outcome(lambda: eager.set_shape([2, 2])),
            "eager_rank": _outcome(lambda: eager.set_shape([2])),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_set_shape(tf_oracle, device):
    assert_parity(tf_oracle, _set_shape, (device,), helpers=(_outcome,))


def _data_map(tf, device):
    calls = []

    def noted(a):
        calls.append(1)
        return a * 10

    with tf.device(device):
        ds = tf.data.Dataset.range(3).map(lambda x: tf.py_function(noted, [x], tf.int64))
        eager = [int(v) for v in ds]
        eager_calls = len(calls)

        @tf.function
        def total():
            s = tf.constant(0, tf.int64)
            for v in ds:
                s += tf.ensure_shape(v, [])
            return s

        first = total()
        first_calls = len(calls)
        second = total()
        traced_calls = (first_calls, len(calls))
        # The element spec and batching never call the function (TensorFlow traces it).
        batched = ds.batch(2)
        specs = (ds.element_spec, batched.element_spec, len(calls))
        numpy_ds = tf.data.Dataset.range(2).map(
            lambda x: tf.numpy_function(lambda a: a + 1, [x], tf.int64)
        )
        return {
            "eager": eager,
            "eager_calls": eager_calls,
            "traced": (first, second),
            "traced_calls": traced_calls,
            "specs": specs,
            "batches": [list(b) for b in batched],
            "batch_calls": len(calls),
            "numpy_spec": numpy_ds.element_spec,
            "numpy_values": list(numpy_ds),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_data_map(tf_oracle, device):
    assert_parity(tf_oracle, _data_map, (device,))


def _saved_model(tf, device):
    import tempfile

    class Doubler(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return tf.py_function(lambda a: a * 2.0, [x], tf.float32)

    with tf.device(device):
        path = tempfile.mkdtemp()
        module = Doubler()  # its traced graph keeps the function registered
        tf.saved_model.save(module, path)
        loaded = tf.saved_model.load(path)
        return loaded(tf.constant([1.0, 2.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_saved_model_in_the_same_process(tf_oracle, device):
    assert_parity(tf_oracle, _saved_model, (device,))


def _saved_model_elsewhere(tf):
    import subprocess
    import sys
    import tempfile

    class Doubler(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return tf.py_function(lambda a: a * 2.0, [x], tf.float32)

    path = tempfile.mkdtemp()
    tf.saved_model.save(Doubler(), path)
    child = (
        f"import {tf.__name__} as tf\n"
        f"loaded = tf.saved_model.load({path!r})\n"
        "try:\n"
        "    loaded(tf.constant([1.0]))\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, 'Could not find callback' in str(e))\n"
    )
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    return run.stdout.strip().splitlines()[-1:]


def test_saved_model_in_another_process(tf_oracle):
    assert_parity(tf_oracle, _saved_model_elsewhere)


def _cond_gradient(tf, device):
    calls = []

    def cube(a):
        calls.append(1)
        return a * a * a

    with tf.device(device):

        @tf.function
        def f(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.cond(
                    x > 0,
                    lambda: tf.ensure_shape(tf.py_function(cube, [x], tf.float32), []),
                    lambda: x * 2.0,
                )
            return y, tape.gradient(y, x)

        positive = f(tf.constant(2.0))
        after_positive = len(calls)
        negative = f(tf.constant(-2.0))
        return {"positive": (positive, after_positive), "negative": (negative, len(calls))}


@pytest.mark.parametrize("device", DEVICES)
def test_gradient_through_a_staged_branch(tf_oracle, device):
    assert_parity(tf_oracle, _cond_gradient, (device,))


def _composites(tf, device):
    spec = tf.RaggedTensorSpec([2, None], tf.float32, ragged_rank=1, row_splits_dtype=tf.int64)

    def make(a):
        return tf.ragged.constant([[1.0], [2.0, 3.0]]) * a

    def flat(a):
        return a.flat_values * 2.0

    def parts(r):
        return type(r).__name__, r.flat_values, r.row_splits

    rt = tf.ragged.constant([[1.0], [2.0, 3.0]])
    with tf.device(device):
        staged_out = tf.function(lambda x: tf.py_function(make, [x], spec))
        staged_in = tf.function(lambda x: tf.py_function(flat, [x], tf.float32))
        not_ragged = tf.function(lambda x: tf.py_function(lambda a: a, [x], spec))
        not_dense = tf.function(lambda x: tf.py_function(make, [x], tf.float32))
        return {
            "eager_out": parts(tf.py_function(make, [2.0], spec)),
            "staged_out": parts(staged_out(tf.constant(2.0))),
            "eager_in": tf.py_function(flat, [rt], tf.float32),
            "staged_in": staged_in(rt),
            "not_ragged": _outcome(lambda: not_ragged(tf.constant(2.0))),
            "not_dense": _outcome(lambda: not_dense(tf.constant(2.0))),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_composite_inputs_and_outputs(tf_oracle, device):
    assert_parity(tf_oracle, _composites, (device,), helpers=(_outcome,))
