"""`tf.compat.v1.nn.fused_batch_norm` (one FusedBatchNormV3 node) and `tf.nn.batch_normalization`
against TensorFlow: training and inference values, the running statistics' blend, layouts,
half-precision inputs, gradients (which outputs pass one back, and to which inputs), the graph's
op name and the errors."""

import numpy as np

from .harness import parity


def _data(shape, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 2.0 + 0.5).astype(dtype)


# (x shape, data_format)
LAYOUTS = [
    ([2, 3, 2, 4], "NHWC"),
    ([2, 4, 3, 2], "NCHW"),
    ([1, 1, 1, 3], "NHWC"),
    ([2, 2, 3, 2, 3], "NDHWC"),
    ([2, 3, 2, 2, 2], "NCDHW"),
]
CHANNELS = [4, 4, 3, 3, 3]
STATS = {
    "scale": _data([4], 1),
    "offset": _data([4], 2),
    "mean": _data([4], 3),
    "variance": np.abs(_data([4], 4)) + 0.5,
}


def _cases():
    return [
        (_data(shape, 10 + i), fmt, {k: v[: CHANNELS[i]] for k, v in STATS.items()})
        for i, (shape, fmt) in enumerate(LAYOUTS)
    ]


@parity(args=(_cases(),), rtol=1e-5, atol=1e-5)
def test_fused_batch_norm_training(tf, cases):
    return [
        tf.compat.v1.nn.fused_batch_norm(x, s["scale"], s["offset"], data_format=fmt)
        for x, fmt, s in cases
    ]


@parity(args=(_cases(),), rtol=1e-5, atol=1e-5)
def test_fused_batch_norm_inference(tf, cases):
    return [
        tf.compat.v1.nn.fused_batch_norm(
            x, s["scale"], s["offset"], s["mean"], s["variance"], data_format=fmt, is_training=False
        )
        for x, fmt, s in cases
    ]


@parity(args=(_cases(),), rtol=1e-5, atol=1e-5)
def test_fused_batch_norm_blends_running_statistics(tf, cases):
    return [
        tf.compat.v1.nn.fused_batch_norm(
            x,
            s["scale"],
            s["offset"],
            s["mean"],
            s["variance"],
            epsilon=0.01,
            data_format=fmt,
            exponential_avg_factor=factor,
        )
        for x, fmt, s in cases
        for factor in (0.3, 0.0)
    ]


@parity(args=(_cases()[:2],), rtol=2e-3, atol=2e-3)
def test_fused_batch_norm_half_input(tf, cases):
    results = []
    for x, fmt, s in cases:
        x = tf.cast(x, tf.float16)
        train = tf.compat.v1.nn.fused_batch_norm(x, s["scale"], s["offset"], data_format=fmt)
        infer = tf.compat.v1.nn.fused_batch_norm(
            x, s["scale"], s["offset"], s["mean"], s["variance"], data_format=fmt, is_training=False
        )
        results.append((train, infer))
    return results


@parity(args=(_cases(),), rtol=1e-4, atol=1e-4)
def test_fused_batch_norm_gradients(tf, cases):
    """Gradients of y (weighted), of the statistics alone, and of both, in both modes."""
    results = []
    for x, fmt, s in cases:
        x = tf.constant(x)
        scale, offset = tf.constant(s["scale"]), tf.constant(s["offset"])
        mean, variance = tf.constant(s["mean"]), tf.constant(s["variance"])
        sources = [x, scale, offset, mean, variance]
        for training in (True, False):
            for target in ("y", "mean", "variance", "both"):
                with tf.GradientTape() as tape:
                    tape.watch(sources)
                    y, m, v = tf.compat.v1.nn.fused_batch_norm(
                        x,
                        scale,
                        offset,
                        mean,
                        variance,
                        data_format=fmt,
                        is_training=training,
                        exponential_avg_factor=0.5 if training else 1.0,
                    )
                    weights = tf.reshape(tf.cast(tf.range(tf.size(y)) % 5, y.dtype), tf.shape(y))
                    loss = {
                        "y": tf.reduce_sum(y * weights),
                        "mean": tf.reduce_sum(m),
                        "variance": tf.reduce_sum(v * 2.0),
                        "both": tf.reduce_sum(y * weights) + tf.reduce_sum(m * 3.0),
                    }[target]
                results.append(tape.gradient(loss, sources))
    return results


@parity(args=(_cases()[:2],), rtol=1e-3, atol=1e-3)
def test_fused_batch_norm_gradients_traced_and_second_order(tf, cases):
    results = []
    for x, fmt, s in cases:
        x = tf.constant(x)
        scale, offset = tf.constant(s["scale"]), tf.constant(s["offset"])

        @tf.function
        def loss(x, scale, offset, fmt=fmt):
            y, _, _ = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, data_format=fmt)
            return tf.reduce_sum(y * y * y)

        with tf.GradientTape() as outer:
            outer.watch([x, scale, offset])
            with tf.GradientTape() as inner:
                inner.watch([x, scale, offset])
                value = loss(x, scale, offset)
            gx, gscale, goffset = inner.gradient(value, [x, scale, offset])
            penalty = tf.reduce_sum(gx * gx)
        results.append((value, gx, gscale, goffset, outer.gradient(penalty, [x, scale, offset])))
    return results


@parity
def test_traced_graph_names_the_fused_batch_norm_node(tf):
    @tf.function
    def model(x, scale, offset):
        y, mean, variance = tf.compat.v1.nn.fused_batch_norm(x, scale, offset)
        return y, mean, variance

    x = tf.reshape(tf.range(2 * 3 * 2 * 4, dtype=tf.float32) ** 1.3 / 10.0, [2, 3, 2, 4])
    scale, offset = tf.constant([1.0, 2.0, 0.5, -1.0]), tf.constant([0.1, 0.2, 0.3, 0.4])
    graph = model.get_concrete_function(x, scale, offset).graph
    types = [op.type for op in graph.get_operations()]
    return types.count("FusedBatchNormV3"), model(x, scale, offset)


@parity
def test_fused_batch_norm_errors(tf):
    fbn = tf.compat.v1.nn.fused_batch_norm
    x = tf.ones([2, 3, 2, 4])
    scale, offset = tf.ones([4]), tf.zeros([4])
    mean, variance = tf.zeros([4]), tf.ones([4])
    calls = {
        "rank 3": lambda: fbn(tf.ones([2, 3, 4]), scale, offset),
        "rank 5 as NHWC": lambda: fbn(tf.ones([2, 3, 4, 1, 4]), scale, offset),
        "scale size": lambda: fbn(x, tf.ones([3]), offset),
        "offset size": lambda: fbn(x, scale, tf.ones([3])),
        "scale of rank 2": lambda: fbn(x, tf.ones([1, 4]), offset),
        "float64 x": lambda: fbn(tf.ones([2, 3, 2, 4], tf.float64), scale, offset),
        "float64 statistics": lambda: fbn(x, tf.ones([4], tf.float64), tf.zeros([4], tf.float64)),
        "half scale": lambda: fbn(x, tf.ones([4], tf.float16), offset),
        "offset of another dtype": lambda: fbn(x, scale, tf.zeros([4], tf.float64)),
        "integer x": lambda: fbn(tf.ones([2, 3, 2, 4], tf.int32), scale, offset),
        "unknown data format": lambda: fbn(x, scale, offset, data_format="NCWH"),
        "inference without statistics": lambda: fbn(x, scale, offset, is_training=False),
        "blend without statistics": lambda: fbn(x, scale, offset, exponential_avg_factor=0.5),
        "inference mean size": lambda: fbn(
            x, scale, offset, tf.zeros([3]), variance, is_training=False
        ),
        "inference variance size": lambda: fbn(
            x, scale, offset, mean, tf.ones([5]), is_training=False
        ),
        "blend mean size": lambda: fbn(
            x, scale, offset, tf.zeros([3]), variance, exponential_avg_factor=0.5
        ),
        "inference mean of rank 2": lambda: fbn(
            x, scale, offset, tf.zeros([1, 4]), variance, is_training=False
        ),
        "training ignores the statistics' sizes": lambda: fbn(
            x, scale, offset, tf.zeros([3]), tf.zeros([7])
        )[1],
    }
    raised = {}
    for what, call in calls.items():
        try:
            call()
            raised[what] = "no error"
        except Exception as error:
            raised[what] = type(error).__name__
    return raised


# (x shape, statistics shape, with offset, with scale)
NORMALIZATION_CASES = [
    ([2, 3, 4], [4], True, True),
    ([2, 3, 4], [1, 1, 4], True, False),
    ([5, 3], [3], False, True),
    ([5, 3], [1, 3], False, False),
    ([2, 3, 2, 2], [1, 3, 1, 1], True, True),
]


def _normalization_args():
    rng = np.random.default_rng(5)
    cases = []
    for x, stats, with_offset, with_scale in NORMALIZATION_CASES:
        cases.append(
            (
                rng.standard_normal(x).astype(np.float32),
                rng.standard_normal(stats).astype(np.float32),
                (np.abs(rng.standard_normal(stats)) + 0.1).astype(np.float32),
                rng.standard_normal(stats).astype(np.float32) if with_offset else None,
                rng.standard_normal(stats).astype(np.float32) if with_scale else None,
            )
        )
    return cases


@parity(args=(_normalization_args(),), rtol=1e-5, atol=1e-5)
def test_batch_normalization(tf, cases):
    results = []
    for x, mean, variance, offset, scale in cases:
        tensors = [tf.constant(v) if v is not None else None for v in (x, mean, variance)]
        x, mean, variance = tensors
        offset = None if offset is None else tf.constant(offset)
        scale = None if scale is None else tf.constant(scale)
        sources = [t for t in (x, mean, variance, offset, scale) if t is not None]
        with tf.GradientTape() as tape:
            tape.watch(sources)
            y = tf.nn.batch_normalization(x, mean, variance, offset, scale, 0.001)
            loss = tf.reduce_sum(y * y)
        results.append((y, tape.gradient(loss, sources)))
    # Python numbers as statistics, a half input with float32 statistics.
    results.append(tf.nn.batch_normalization(tf.constant([1.0, 3.0]), 2.0, 1.0, 0.5, 2.0, 0.0))
    half = tf.constant([[1.0, 2.0], [3.0, 5.0]], tf.float16)
    results.append(
        tf.nn.batch_normalization(
            half, tf.constant([2.0, 3.0]), tf.constant([1.0, 4.0]), None, None, 1e-3
        )
    )
    return results
