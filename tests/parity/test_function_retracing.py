"""When `tf.function` traces again, counted with `experimental_get_tracing_count()`."""

from .harness import parity


@parity
def test_tensor_values_do_not_retrace_shapes_and_dtypes_do(tf):
    @tf.function
    def f(x):
        return x + x

    counts = []
    for value in ([1.0, 2.0], [3.0, 4.0], [1.0, 2.0, 3.0], [1, 2], [5.0, 6.0]):
        f(tf.constant(value))
        counts.append(f.experimental_get_tracing_count())
    return counts


@parity
def test_python_values_retrace(tf):
    @tf.function
    def f(x, n):
        return x * n

    counts = []
    for n in (1, 2, 1, 2.0, True, 3):
        f(tf.constant(1.0), n)
        counts.append(f.experimental_get_tracing_count())
    return counts


@parity
def test_structures_retrace(tf):
    @tf.function
    def f(s):
        return tf.add_n(tf.nest.flatten(s))

    one = tf.constant(1.0)
    counts = []
    for s in (
        [one, one],
        [one, one],
        (one, one),
        {"a": one, "b": one},
        {"b": one, "a": one},
        {"a": one, "c": one},
        [one, one, one],
    ):
        f(s)
        counts.append(f.experimental_get_tracing_count())
    return counts


@parity
def test_input_signature_traces_once(tf):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.reduce_sum(x)

    results = [f(tf.constant([1.0] * n)) for n in (1, 2, 5)]
    return results, f.experimental_get_tracing_count()


@parity
def test_reduce_retracing_generalises_shapes(tf):
    @tf.function(reduce_retracing=True)
    def f(x):
        return tf.reduce_sum(x)

    results = [f(tf.ones([n])) for n in (1, 2, 3, 4)]
    return results, f.experimental_get_tracing_count()


@parity
def test_traced_python_side_effects_run_once(tf):
    trace_log = []

    @tf.function
    def f(x):
        trace_log.append("traced")
        return x * 2

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    f(tf.constant([1.0]))
    return len(trace_log), f.experimental_get_tracing_count()


@parity
def test_zeros_and_ones_like_keep_unknown_sizes(tf):
    # ZerosLike/OnesLike take their shape when they run: a relaxed signature traces once, and
    # the traced shape keeps its unknown batch dimension.
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(x):
        z = tf.zeros_like(x)
        o = tf.ones_like(x, dtype=tf.int32)
        return x + z, o, tf.zeros_like(x, dtype=tf.bool), z.shape.as_list()

    outs = [f(tf.ones([n, 2])) for n in (1, 3, 5)]
    graph_ops = [op.type for op in f.get_concrete_function().graph.get_operations()]
    return outs, f.experimental_get_tracing_count(), "ZerosLike" in graph_ops


@parity
def test_logsumexp_in_a_relaxed_trace(tf):
    # Regression: the reduced result was reshaped to the example's dims, so a second batch
    # size raised a reshape error.
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def f(x):
        return tf.reduce_logsumexp(x, axis=1), tf.reduce_logsumexp(x, axis=0, keepdims=True)

    outs = [f(tf.reshape(tf.range(4 * n, dtype=tf.float32), [n, 4])) for n in (1, 3, 5)]
    return outs, f.experimental_get_tracing_count()


@parity
def test_a_spec_of_unknown_rank_serves_every_rank(tf):
    # TensorSpec(None): ferroflow traces once per rank, counting only the first, so the values
    # and the tracing count are TensorFlow's (it crashed with a TypeError before).
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec([2], tf.int32)])
    def f(x, k):
        return tf.reduce_sum(x * 2.0) + tf.cast(tf.reduce_sum(k), tf.float32), tf.shape(x)

    out = []
    for value in ([1.0, 2.0], [[1.0], [2.0]], 3.0, [[1.0, 2.0, 3.0]], [4.0]):
        out.append(f(tf.constant(value), tf.constant([1, 2])))
    out.append(f.experimental_get_tracing_count())
    try:
        f(tf.constant([1, 2]), tf.constant([1, 2]))
    except TypeError as e:
        out.append(type(e).__name__)
    return out
