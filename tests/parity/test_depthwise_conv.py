"""`tf.nn.depthwise_conv2d` and `tf.nn.separable_conv2d` against TensorFlow: values over shapes,
strides, paddings, dilations and channel multipliers, gradients (eager, through a traced call,
second order), the graph's op names and the errors.

Not compared: NCHW (TensorFlow 2.21's CPU kernel aborts the process on it; tests/
test_depthwise_batchnorm.py checks it against NHWC), and dilations above 1 with strides above 1
(TensorFlow warns, then computes through space_to_batch something other than its documented
formula, which ferroflow computes)."""

import numpy as np

from .harness import parity

# (input shape, filter shape, strides, padding, dilations)
CASES = [
    ([2, 5, 5, 3], [3, 3, 3, 2], [1, 1, 1, 1], "SAME", None),
    ([2, 5, 5, 3], [3, 3, 3, 2], [1, 2, 2, 1], "SAME", None),
    ([1, 7, 6, 2], [2, 3, 2, 3], [1, 2, 2, 1], "VALID", None),
    ([2, 6, 7, 3], [3, 2, 3, 1], [1, 1, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]], None),
    ([1, 6, 6, 2], [2, 2, 2, 2], [1, 3, 3, 1], [[0, 0], [2, 0], [1, 1], [0, 0]], None),
    ([1, 8, 8, 2], [3, 3, 2, 2], [1, 1, 1, 1], "SAME", [2, 2]),
    ([1, 9, 8, 2], [3, 2, 2, 1], [1, 1, 1, 1], "VALID", [2, 3]),
    ([2, 6, 5, 4], [1, 1, 4, 3], [1, 1, 1, 1], "VALID", None),
    ([1, 5, 6, 2], [2, 2, 2, 2], [1, 2, 3, 1], "SAME", None),
    ([1, 4, 4, 3], [4, 4, 3, 1], [1, 1, 1, 1], "SAME", None),
    ([3, 4, 3, 1], [2, 2, 1, 4], (1, 1, 1, 1), "VALID", [1, 1]),
]


def _arrays(cases, dtype="float32"):
    rng = np.random.default_rng(7)
    return [
        (rng.standard_normal(x).astype(dtype), rng.standard_normal(f).astype(dtype), s, p, d)
        for x, f, s, p, d in CASES[cases]
    ]


@parity(args=(_arrays(slice(None)),), rtol=1e-5, atol=1e-5)
def test_depthwise_values(tf, cases):
    return [
        tf.nn.depthwise_conv2d(x, f, strides, padding, dilations=dilations)
        for x, f, strides, padding, dilations in cases
    ]


@parity(args=(_arrays(slice(0, 4), "float64"),), rtol=1e-10, atol=1e-10)
def test_depthwise_float64(tf, cases):
    return [tf.nn.depthwise_conv2d(x, f, s, p, dilations=d) for x, f, s, p, d in cases]


@parity(args=(_arrays(slice(0, 3), "float16"),), rtol=1e-2, atol=1e-2)
def test_depthwise_float16(tf, cases):
    return [tf.nn.depthwise_conv2d(x, f, s, p, dilations=d) for x, f, s, p, d in cases]


@parity(args=(_arrays(slice(None)),), rtol=1e-4, atol=1e-4)
def test_depthwise_gradients(tf, cases):
    results = []
    for x, f, strides, padding, dilations in cases:
        x, f = tf.constant(x), tf.constant(f)
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            y = tf.nn.depthwise_conv2d(x, f, strides, padding, dilations=dilations)
            weights = tf.reshape(tf.cast(tf.range(tf.size(y)) % 7, y.dtype) - 3.0, tf.shape(y))
            loss = tf.reduce_sum(y * weights)
        results.append(tape.gradient(loss, [x, f]))
    return results


@parity(args=(_arrays(slice(0, 4)),), rtol=1e-4, atol=1e-4)
def test_depthwise_gradients_through_a_traced_call(tf, cases):
    results = []
    for x, f, strides, padding, dilations in cases:
        x, f = tf.constant(x), tf.constant(f)

        @tf.function
        def loss(x, f, strides=strides, padding=padding, dilations=dilations):
            y = tf.nn.depthwise_conv2d(x, f, strides, padding, dilations=dilations)
            return tf.reduce_sum(y * y)

        with tf.GradientTape() as tape:
            tape.watch([x, f])
            value = loss(x, f)
        results.append((value, tape.gradient(value, [x, f])))
    return results


@parity(args=(_arrays(slice(1, 4)),), rtol=1e-4, atol=1e-4)
def test_depthwise_second_derivative(tf, cases):
    results = []
    for x, f, strides, padding, dilations in cases:
        x, f = tf.constant(x), tf.constant(f)
        with tf.GradientTape() as outer:
            outer.watch([x, f])
            with tf.GradientTape() as inner:
                inner.watch([x, f])
                y = tf.nn.depthwise_conv2d(x, f, strides, padding, dilations=dilations)
                loss = tf.reduce_sum(y * y)
            gx = inner.gradient(loss, x)
            penalty = tf.reduce_sum(gx * gx)
        results.append(outer.gradient(penalty, [x, f]))
    return results


@parity(args=(_arrays(slice(0, 4)),), rtol=1e-5, atol=1e-5)
def test_separable_conv2d(tf, cases):
    import numpy as np

    rng = np.random.default_rng(3)
    results = []
    for x, f, strides, padding, dilations in cases:
        channels = f.shape[2] * f.shape[3]
        pointwise = tf.constant(rng.standard_normal((1, 1, channels, 2)).astype(np.float32))
        x, f = tf.constant(x), tf.constant(f)
        with tf.GradientTape() as tape:
            tape.watch([x, f, pointwise])
            y = tf.nn.separable_conv2d(x, f, pointwise, strides, padding, dilations=dilations)
            loss = tf.reduce_sum(y * y)
        results.append((y, tape.gradient(loss, [x, f, pointwise])))
    return results


@parity
def test_traced_graph_names_the_depthwise_node(tf):
    @tf.function
    def model(x, f, pointwise):
        y = tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME")
        z = tf.nn.separable_conv2d(x, f, pointwise, [1, 1, 1, 1], "VALID")
        return y, z

    x = tf.reshape(tf.range(2 * 5 * 5 * 3, dtype=tf.float32) / 50.0, [2, 5, 5, 3])
    f = tf.reshape(tf.range(3 * 3 * 3 * 2, dtype=tf.float32) / 20.0 - 1.0, [3, 3, 3, 2])
    pointwise = tf.ones([1, 1, 6, 4])
    graph = model.get_concrete_function(x, f, pointwise).graph
    types = [op.type for op in graph.get_operations()]
    names = ["DepthwiseConv2dNative", "Conv2D"]
    counts = {name: types.count(name) for name in names}
    return counts, model(x, f, pointwise)


@parity
def test_depthwise_errors(tf):
    import warnings

    x = tf.ones([1, 5, 5, 3])
    f = tf.ones([3, 3, 3, 2])
    calls = {
        "channels differ": lambda: tf.nn.depthwise_conv2d(
            x, tf.ones([3, 3, 4, 2]), [1] * 4, "SAME"
        ),
        "channels do not divide": lambda: tf.nn.depthwise_conv2d(
            tf.ones([1, 5, 5, 5]), f, [1, 1, 1, 1], "SAME"
        ),
        "integer input": lambda: tf.nn.depthwise_conv2d(
            tf.ones([1, 5, 5, 3], tf.int32), tf.ones([3, 3, 3, 2], tf.int32), [1] * 4, "SAME"
        ),
        "filter of another dtype": lambda: tf.nn.depthwise_conv2d(
            x, tf.ones([3, 3, 3, 2], tf.float64), [1, 1, 1, 1], "SAME"
        ),
        "filter of rank 3": lambda: tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 3]), [1] * 4, "SAME"),
        "batch stride": lambda: tf.nn.depthwise_conv2d(x, f, [2, 1, 1, 1], "SAME"),
        "depth stride": lambda: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 2], "SAME"),
        "int strides": lambda: tf.nn.depthwise_conv2d(x, f, 1, "SAME"),
        "two strides": lambda: tf.nn.depthwise_conv2d(x, f, [1, 1], "SAME"),
        "unknown padding": lambda: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "FOO"),
        "lower-case padding": lambda: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "same"),
        "filter larger than the image": lambda: tf.nn.depthwise_conv2d(
            x, tf.ones([7, 7, 3, 1]), [1, 1, 1, 1], "VALID"
        ),
        "zero dilation": lambda: tf.nn.depthwise_conv2d(x, f, [1] * 4, "SAME", dilations=[0, 1]),
        "int dilation": lambda: tf.nn.depthwise_conv2d(x, f, [1] * 4, "SAME", dilations=2),
        "pointwise filter not 1x1": lambda: tf.nn.separable_conv2d(
            x, f, tf.ones([2, 1, 6, 4]), [1, 1, 1, 1], "SAME"
        ),
        "pointwise filter of rank 2": lambda: tf.nn.separable_conv2d(
            x, f, tf.ones([6, 4]), [1, 1, 1, 1], "SAME"
        ),
    }
    raised = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for what, call in calls.items():
            try:
                call()
                raised[what] = "no error"
            except Exception as error:
                raised[what] = type(error).__name__
    return raised
