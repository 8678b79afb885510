"""The rest of `tf.nn`'s activations, losses, statistics and dropout variants (silu, crelu,
log_poisson_loss, weighted_cross_entropy_with_logits, sufficient_statistics, normalize_moments,
weighted_moments, compute_average_loss, scale_regularization_loss,
batch_norm_with_global_normalization, lrn, experimental.stateless_dropout/general_dropout, top_k)
against TensorFlow: values, dtypes, shapes, errors, a traced call and gradients, on CPU and GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _run(tf, case, device, dtype):
    """One case eagerly, traced, and its gradient wrt the first input (when floating)."""
    import numpy as np

    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal([2, 3, 4]).astype(dtype))
    t = tf.constant(rng.uniform(0, 4, [2, 3, 4]).round().astype(dtype))
    lab = tf.constant((rng.uniform(0, 1, [2, 3, 4]) > 0.5).astype(dtype))
    cases = {
        "silu": lambda x: tf.nn.silu(x),
        "silu_beta": lambda x: tf.nn.silu(x, beta=0.7),
        "swish": lambda x: tf.nn.swish(x, 2.0),
        "crelu": lambda x: tf.nn.crelu(x),
        "crelu_axis": lambda x: tf.nn.crelu(x, axis=1),
        "log_poisson": lambda x: tf.nn.log_poisson_loss(t, x),
        "log_poisson_full": lambda x: tf.nn.log_poisson_loss(t, x, compute_full_loss=True),
        "weighted_xent": lambda x: tf.nn.weighted_cross_entropy_with_logits(lab, x * 9, 2.5),
        "suff_stats": lambda x: tf.nn.sufficient_statistics(x, [0, 2])[:3],
        "suff_stats_shift": lambda x: tf.nn.sufficient_statistics(x, [-1], 0.25, True),
        "normalize": lambda x: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [1])),
        "normalize_shift": lambda x: tf.nn.normalize_moments(
            *tf.nn.sufficient_statistics(x, [0, 1], shift=0.5)
        ),
        "weighted_moments": lambda x: tf.nn.weighted_moments(x, [1], tf.abs(x[:, :, :1])),
        "weighted_moments_keep": lambda x: tf.nn.weighted_moments(
            x, [0, 2], tf.constant([[[1.0]], [[3.0]]], x.dtype), keepdims=True
        ),
        "average_loss": lambda x: tf.nn.compute_average_loss(tf.reshape(x, [6, 4])),
        "average_loss_weighted": lambda x: tf.nn.compute_average_loss(
            x[0, 0], sample_weight=[1.0, 0.0, 2.0, 0.5], global_batch_size=8
        ),
        "average_loss_zero_batch": lambda x: tf.nn.compute_average_loss(x[0], global_batch_size=0),
        "scale_reg": lambda x: tf.nn.scale_regularization_loss(x),
        "bn_global": lambda x: tf.nn.batch_norm_with_global_normalization(
            x, 0.1, 2.0, 0.3, 1.5, 1e-3, True
        ),
        "bn_global_noscale": lambda x: tf.nn.batch_norm_with_global_normalization(
            x, 0.1, 2.0, 0.3, 1.5, 1e-3, False
        ),
        "lrn": lambda x: tf.nn.lrn(tf.reshape(x, [1, 2, 2, 6]), 2, 1.5, 0.3, 0.75),
        "lrn_default": lambda x: tf.nn.local_response_normalization(tf.reshape(x, [2, 1, 1, 12])),
        "stateless_dropout": lambda x: tf.nn.experimental.stateless_dropout(x, 0.4, seed=[3, 7]),
        "stateless_dropout_noise": lambda x: tf.nn.experimental.stateless_dropout(
            x, 0.5, seed=[1, 2], noise_shape=[2, 1, 4]
        ),
        "general_dropout": lambda x: tf.nn.experimental.general_dropout(
            x, 0.3, lambda shape, dtype: tf.random.stateless_uniform(shape, [4, 4], dtype=dtype)
        ),
        "top_k": lambda x: tuple(tf.nn.top_k(x, 3)),
    }
    fn = cases[case]
    with tf.device(device):
        eager = fn(x)
        traced = tf.function(fn)(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = tf.nest.flatten(fn(x))
            total = tf.add_n([tf.reduce_sum(tf.cast(o, x.dtype) * 1.5) for o in out])
        grad = tape.gradient(total, x)
    return eager, traced, grad


CASES = [
    "silu",
    "silu_beta",
    "swish",
    "crelu",
    "crelu_axis",
    "log_poisson",
    "log_poisson_full",
    "weighted_xent",
    "suff_stats",
    "suff_stats_shift",
    "normalize",
    "normalize_shift",
    "weighted_moments",
    "weighted_moments_keep",
    "average_loss",
    "average_loss_weighted",
    "average_loss_zero_batch",
    "scale_reg",
    "bn_global",
    "bn_global_noscale",
    "lrn",
    "lrn_default",
    "stateless_dropout",
    "stateless_dropout_noise",
    "general_dropout",
    "top_k",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_nn_extra_float32(tf_oracle, case, device):
    assert_parity(tf_oracle, _run, (case, device, "float32"), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize(
    "case", ["silu", "crelu", "log_poisson_full", "weighted_xent", "normalize"]
)
def test_nn_extra_float64(tf_oracle, case):
    assert_parity(tf_oracle, _run, (case, "CPU:0", "float64"), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", ["weighted_moments", "lrn", "silu"])
def test_nn_extra_float16(tf_oracle, case):
    assert_parity(tf_oracle, _run, (case, "CPU:0", "float16"), rtol=2e-2, atol=2e-2)


def _errors(tf, which):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    if which == "poisson_shapes":
        return tf.nn.log_poisson_loss(tf.ones([3]), tf.ones([2]))
    if which == "xent_shapes":
        return tf.nn.weighted_cross_entropy_with_logits(tf.ones([3]), tf.ones([2]), 1.0)
    if which == "average_scalar":
        return tf.nn.compute_average_loss(tf.constant(1.0))
    if which == "average_float_batch":
        return tf.nn.compute_average_loss(x, global_batch_size=2.0)
    if which == "average_negative_batch":
        return tf.nn.compute_average_loss(x, global_batch_size=-1)
    if which == "lrn_int":
        return tf.nn.lrn(tf.ones([1, 1, 1, 2], tf.int32))
    if which == "lrn_float64":
        return tf.nn.lrn(tf.ones([1, 1, 1, 2], tf.float64))
    if which == "dropout_rate":
        return tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
    if which == "dropout_int":
        return tf.nn.experimental.stateless_dropout(tf.ones([2], tf.int32), 0.5, seed=[1, 2])
    if which == "dropout_zero":
        return tf.nn.experimental.stateless_dropout(x, 0.0, seed=[1, 2])
    if which == "dropout_tensor_rate":
        return tf.nn.experimental.stateless_dropout(x, tf.constant(0.5), seed=[1, 2])
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which",
    [
        "poisson_shapes",
        "xent_shapes",
        "average_scalar",
        "average_float_batch",
        "average_negative_batch",
        "lrn_int",
        "lrn_float64",
        "dropout_rate",
        "dropout_int",
        "dropout_zero",
        "dropout_tensor_rate",
    ],
)
def test_nn_extra_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
