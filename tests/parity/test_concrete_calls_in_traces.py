"""Concrete functions called inside another `tf.function` trace, against TensorFlow, which
calls their graphs each time the outer graph runs. ferroflow inlines a called graph into the
trace by running it on the symbolic values; its loops and branches ran then on the examples
instead of being recorded: a loop over a dataset (a `for`, `reduce`) returned its starting
value, a `tf.while_loop` was unrolled as often as the first call's values allowed, a `tf.cond`
kept the first call's branch, and a `tf.print` printed once, while tracing; a `set_shape`
made in the called graph was lost. Each program calls the outer function with several values,
so a graph baked from the first call's shows."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _agrees_without_raising(tf_oracle, program, device):
    expected = assert_parity(tf_oracle, program, args=(device,), helpers=(_called_in_traces,))
    assert expected[0] != "raised", expected


def _called_in_traces(tf, concrete, inputs):
    """`concrete` called inside a new trace (and the outer function called) per input."""
    outer = tf.function(lambda x: concrete(x))
    return [outer(x) for x in inputs]


def _dataset_loops(tf, device):
    vectors = [tf.constant(v, tf.int64) for v in ([1, 2], [5, 6, 7], [], [4])]
    spec = tf.TensorSpec([None], tf.int64)
    with tf.device(device):

        @tf.function
        def looped(r):
            s = tf.constant(0, tf.int64)
            for e in tf.data.Dataset.from_tensor_slices(r):
                s = s * 10 + e
            return s

        @tf.function
        def reduced(r):
            ds = tf.data.Dataset.from_tensor_slices(r).map(lambda e: e + 1)
            return ds.reduce(tf.constant(0, tf.int64), lambda a, b: a * 10 + b)

        @tf.function
        def broken_off(r):
            # A loop with `break`: its test reads the iteration and the flag.
            s = tf.constant(0, tf.int64)
            for e in tf.data.Dataset.from_tensor_slices(r):
                if e > 5:
                    break
                s += e
            return s

        out = []
        for fn in (looped, reduced, broken_off):
            out.append([fn(v) for v in vectors])
            out.append(_called_in_traces(tf, fn.get_concrete_function(spec), vectors))
            # The tf.function itself called inside a trace (traced inline).
            out.append([tf.function(lambda x, fn=fn: fn(x))(v) for v in vectors])
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_dataset_loops_of_called_concrete_functions(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _dataset_loops, device)


def _datasets_built_outside(tf, device):
    with tf.device(device):
        squares = tf.data.Dataset.range(5).map(lambda e: e * e)

        @tf.function
        def looped(k):
            s = tf.constant(0, tf.int64)
            for e in squares:
                s += e * k
            return s

        @tf.function
        def reduced(k):
            return squares.reduce(tf.constant(0, tf.int64), lambda a, b: a + b * k)

        @tf.function
        def single(k):
            return squares.batch(5).get_single_element() * k

        ks = [tf.constant(k, tf.int64) for k in (1, 3, -2)]
        spec = tf.TensorSpec([], tf.int64)
        return [
            _called_in_traces(tf, fn.get_concrete_function(spec), ks)
            for fn in (looped, reduced, single)
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_datasets_built_outside_read_by_called_concrete_functions(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _datasets_built_outside, device)


def _single_elements(tf, device):
    with tf.device(device):

        @tf.function
        def batched(r):
            ds = tf.data.Dataset.from_tensor_slices(r).map(lambda e: e * 2)
            return ds.batch(10).get_single_element()

        @tf.function
        def summed(r):
            return tf.data.Dataset.from_tensors(r).map(tf.reduce_sum).get_single_element()

        vectors = [tf.constant(v, tf.int64) for v in ([1, 2], [5, 6, 7], [4])]
        spec = tf.TensorSpec([None], tf.int64)
        return [
            _called_in_traces(tf, fn.get_concrete_function(spec), vectors)
            for fn in (batched, summed)
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_single_elements_of_called_concrete_functions(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _single_elements, device)


def _control_flow(tf, device):
    with tf.device(device):

        @tf.function
        def counted(n):
            return tf.while_loop(
                lambda i, s: i < n,
                lambda i, s: (i + 1, s * 2 + i),
                [tf.constant(0, tf.int64), tf.constant(1, tf.int64)],
            )[1]

        @tf.function
        def autograph_loop(n):
            s = tf.constant(0, tf.int64)
            i = tf.constant(0, tf.int64)
            while i < n:
                s += i * i
                i += 1
            return s

        @tf.function
        def branched(x):
            return tf.cond(x > 0, lambda: x * 10, lambda: x - 1)

        @tf.function
        def switched(x):
            return tf.switch_case(
                tf.cast(x, tf.int32), [lambda: x + 100, lambda: x * x, lambda: -x]
            )

        ns = [tf.constant(n, tf.int64) for n in (3, 0, 6, 1)]
        xs = [tf.constant(x, tf.int64) for x in (3, -3, 0, 1, 2, 7)]
        spec = tf.TensorSpec([], tf.int64)
        out = [
            _called_in_traces(tf, fn.get_concrete_function(spec), ns)
            for fn in (counted, autograph_loop)
        ]
        out += [
            _called_in_traces(tf, fn.get_concrete_function(spec), xs) for fn in (branched, switched)
        ]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_control_flow_of_called_concrete_functions(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _control_flow, device)


def _prints(tf, device):
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "printed.txt")
    with tf.device(device):

        @tf.function
        def printing(x):
            tf.print("value", x, output_stream="file://" + path)
            return x + 1

        concrete = printing.get_concrete_function(tf.TensorSpec([], tf.int64))
        outer = tf.function(lambda x: concrete(x))
        results = [outer(tf.constant(x, tf.int64)) for x in (4, 5, 6)]
    with open(path) as f:
        return results, f.read()


@pytest.mark.parametrize("device", DEVICES)
def test_prints_of_called_concrete_functions_happen_per_call(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _prints, device)


def _loaded(tf, device):
    import tempfile

    class Summer(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
        def looped(self, r):
            s = tf.constant(0, tf.int64)
            for e in tf.data.Dataset.from_tensor_slices(r):
                s = s * 10 + e
            return s

        @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
        def counted(self, n):
            return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [n - n, n - n])[1]

    path = tempfile.mkdtemp()
    # Kept alive: ferroflow's loaded graph iterates the dataset through host nodes calling
    # the saving process's Python, gone with the traced function (TensorFlow saves dataset ops).
    module = Summer()
    with tf.device(device):
        tf.saved_model.save(module, path)
        loaded = tf.saved_model.load(path)
        vectors = [tf.constant(v, tf.int64) for v in ([1, 2], [5, 6, 7], [])]
        ns = [tf.constant(n, tf.int64) for n in (4, 0, 7)]
        return [
            [loaded.looped(v) for v in vectors],
            _called_in_traces(tf, loaded.looped, vectors),
            _called_in_traces(tf, loaded.counted, ns),
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_loaded_functions_called_inside_traces(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _loaded, device)


def _declared_shapes(tf, device):
    # The caller sees the called graph's static shapes: a host call's result given a shape
    # there (ferroflow's inlined host call had an unknown shape again).
    seen = []
    with tf.device(device):

        @tf.function
        def doubled(x):
            out = tf.py_function(lambda a: a * 2, [x], tf.int64)
            out.set_shape([None])
            return out, tf.reshape(out, [-1, 1])

        concrete = doubled.get_concrete_function(tf.TensorSpec([None], tf.int64))

        @tf.function
        def outer(x):
            flat, column = concrete(x)
            seen.append([flat.shape.as_list(), column.shape.as_list()])
            return flat + tf.size(column, tf.int64)

        results = [outer(tf.constant(v, tf.int64)) for v in ([1, 2], [3])]
    return results, seen


@pytest.mark.parametrize("device", DEVICES)
def test_called_graphs_keep_their_static_shapes(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _declared_shapes, device)


def _fused_chains(tf, device):
    """A called graph whose elementwise chains are fused (one with a MaxPoolGrad taken in as
    its producer) on inputs of a fixed shape: each outer call must compute on its own values
    (a chain run on the trace's examples would have been kept as a constant)."""
    import numpy as np

    base = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3) % 7 - 3
    with tf.device(device):

        @tf.function
        def step(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.nn.relu(x * 2.0 + 1.0)
                loss = tf.reduce_sum(tf.nn.max_pool2d(y, 2, 2, "VALID") * 1.5)
            return y - x, tape.gradient(loss, x)

        concrete = step.get_concrete_function(tf.TensorSpec([2, 4, 4, 3], tf.float32))
        inputs = [tf.constant(base * scale) for scale in (1.0, -2.0, 0.5)]
        return _called_in_traces(tf, concrete, inputs)


@pytest.mark.parametrize("device", DEVICES)
def test_fused_chains_of_called_graphs_run_on_each_calls_values(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _fused_chains, device)
