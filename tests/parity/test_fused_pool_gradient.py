"""The gradient through an activation and a max pool, as a traced training step computes it,
against TensorFlow. ferroflow's fusion pass takes the MaxPoolGrad into the activation
gradient's chain (its producer): each image's pooled gradient is routed in cache and the
Relu mask applied there. Values must be TensorFlow's for windows that overlap or not, SAME and
VALID padding, pooled gradients with NaN, infinities and both signs, ties and zeros in the
activations, float32 and float64, on both devices; and the fused node's results must equal
ferroflow's eager ones bit for bit.

The activations hold no NaN: TensorFlow's traced MaxPoolGrad (oneDNN) skips NaN in a window
where its eager kernel, which ferroflow follows, does not (see test_max_pool_grad_scan)."""

import numpy as np
import pytest

from .harness import assert_parity

CASES = [
    # (channels, window, stride, padding)
    (32, 2, 2, "VALID"),
    (13, 3, 2, "SAME"),
    (21, 3, 1, "SAME"),
]


def _pool_step(tf, x, up, b, window, stride, padding, activation, device):
    """The gradients of sum(pool(act(x + b)) * up) with respect to x and b, traced and eager."""
    with tf.device(device):
        x, up, b = tf.constant(x), tf.constant(up), tf.Variable(b)
        act = {"relu": tf.nn.relu, "relu6": tf.nn.relu6}[activation]

        def grads(x, up):
            with tf.GradientTape() as tape:
                tape.watch(x)
                pooled = tf.nn.max_pool2d(act(x + b), window, stride, padding)
                loss = tf.reduce_sum(pooled * up)
            return tape.gradient(loss, [x, b])

        # The traced step also takes its tensors in a nested dict (bound by key).
        by_key = tf.function(lambda batch: grads(batch["image"], batch["rest"]["up"][0]))
        nested = by_key({"rest": {"up": [up]}, "image": x})
        return [*tf.function(grads)(x, up), *grads(x, up), *nested]


def _inputs(channels, window, stride, padding, dtype):
    """Activations of small integers and halves (ties, zeros, values above 6) and pooled
    gradients with NaN, infinities and both signs."""
    rng = np.random.default_rng(channels)
    x = (rng.integers(-6, 16, (3, 9, 8, channels)) / 2).astype(dtype)
    out = [
        (n + stride - 1) // stride if padding == "SAME" else (n - window) // stride + 1
        for n in (9, 8)
    ]
    up = rng.standard_normal((3, *out, channels))
    flat = up.reshape(-1)
    flat[rng.choice(flat.size, 12, replace=False)] = [np.nan, np.inf, -np.inf, -0.0] * 3
    b = rng.standard_normal(channels).round(1)
    return x, up.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", ["relu", "relu6"])
def test_activation_and_pool_gradients_match_tensorflow(tf_oracle, case, dtype, activation, device):
    channels, window, stride, padding = case
    x, up, b = _inputs(channels, window, stride, padding, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    args = (x, up, b, window, stride, padding, activation, device)
    assert_parity(tf_oracle, _pool_step, args, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_pool_gradient_is_eagers_bit_for_bit(case, dtype):
    import ferroflow as tf
    from ferroflow import _core

    channels, window, stride, padding = case
    x, up, b = _inputs(channels, window, stride, padding, dtype)
    _core.op_times_start()
    try:
        traced_dx, traced_db, eager_dx, eager_db, keyed_dx, keyed_db = _pool_step(
            tf, x, up, b, window, stride, padding, "relu", "CPU:0"
        )
    finally:
        nodes = [key for key, _, _ in _core.op_times_take()]
    assert any(key.startswith("FusedElementwise(MaxPoolGrad;") for key in nodes), nodes
    assert not any(key.startswith("MaxPoolGrad ") for key in nodes), nodes
    pairs = [
        (traced_dx, eager_dx),
        (traced_db, eager_db),
        (keyed_dx, eager_dx),
        (keyed_db, eager_db),
    ]
    for traced, eager in pairs:
        t, e = traced.numpy(), eager.numpy()
        assert np.isnan(e).any() and np.isinf(e).any()
        same = (t.view(f"u{t.itemsize}") == e.view(f"u{e.itemsize}")) | np.isnan(t) & np.isnan(e)
        assert same.all()
