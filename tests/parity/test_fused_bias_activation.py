"""Bias rows and Relu in fused elementwise chains, against TensorFlow.

A traced `relu(x @ w + b)` (Keras's Dense and Conv2D with activation="relu") runs its bias add
and activation as one fused node: the bias is a row operand (`[C]` or `[1, C]` against
`[..., C]`) and Relu a chain step computed as its decomposition, `maximum(x, 0)`. Values must
be TensorFlow's, NaN, infinities and signed zeros included, on both devices, for float32 and
float64, traced and eager, and with the traced function called under an outer tape (where the
chain runs step by step). ReluGrad multiplies by the mask as TensorFlow's does, so a NaN or
infinite gradient reaching an inactive unit stays NaN instead of becoming 0."""

import numpy as np
import pytest

from .harness import assert_parity

SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40]


def _dense_relu(tf, x, w, b, device):
    with tf.device(device):
        x, w, b = tf.constant(x), tf.constant(w), tf.constant(b)

        def layer(x, w, b):
            # Without a weight matrix the input itself meets the bias (TensorFlow's traced
            # MatMul fuses with the bias in oneDNN, whose results on NaN and infinities differ
            # from its own eager ones).
            product = x if w is None else tf.matmul(x, w)
            return tf.nn.relu(product + b) * 2.0 - b

        @tf.function
        def traced(x, w, b):
            return layer(x, w, b)

        sources = [x, b] if w is None else [x, w, b]
        with tf.GradientTape() as tape:
            tape.watch(sources)
            under_tape = traced(x, w, b)
        grads = tape.gradient(tf.reduce_sum(under_tape * under_tape), sources)
        return [layer(x, w, b), traced(x, w, b), under_tape, *grads]


def _conv_relu_step(tf, x, f, b, device):
    with tf.device(device):
        x, f, b = tf.constant(x), tf.Variable(f), tf.Variable(b)

        @tf.function
        def step(x):
            with tf.GradientTape() as tape:
                y = tf.nn.relu(tf.nn.conv2d(x, f, 1, "VALID") + b)
                loss = tf.reduce_sum(tf.nn.max_pool2d(y, 2, 2, "VALID") ** 2)
            return [y, loss, *tape.gradient(loss, [f, b])]

        return step(x)


def _arrays(rng, shape, dtype, special):
    v = rng.standard_normal(shape)
    if special:
        flat = v.reshape(-1)
        picks = rng.choice(flat.size, size=min(flat.size, 3 * len(SPECIAL)), replace=False)
        flat[picks] = np.resize(SPECIAL, picks.size)
    return v.astype(dtype)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("bias_shape", [(24,), (1, 24)])
def test_dense_bias_relu_chain_matches_tensorflow(tf_oracle, device, dtype, bias_shape):
    # float16 chains run outside the typed float loops (step by step when a row is read).
    rng = np.random.default_rng(3)
    x = _arrays(rng, (37, 16), dtype, special=False)
    w = _arrays(rng, (16, 24), dtype, special=False)
    b = _arrays(rng, bias_shape, dtype, special=False)
    tol = {"float16": 2e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
    assert_parity(tf_oracle, _dense_relu, (x, w, b, device), rtol=tol, atol=tol)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_bias_relu_chain_with_nan_infinities_and_signed_zeros(tf_oracle, device):
    rng = np.random.default_rng(4)
    x = _arrays(rng, (9, 5), "float32", special=True)
    b = _arrays(rng, (5,), "float32", special=True)
    assert_parity(tf_oracle, _dense_relu, (x, None, b, device), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_conv_bias_relu_training_step_matches_tensorflow(tf_oracle, device):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 10, 10, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    assert_parity(tf_oracle, _conv_relu_step, (x, f, b, device), rtol=1e-4, atol=1e-4)


def _relu_gradients(tf, x, g, device):
    with tf.device(device):
        x, g = tf.constant(x), tf.constant(g)
        out = []
        for act in (tf.nn.relu, tf.nn.relu6):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = act(x)
            out.append(tape.gradient(y, x, output_gradients=g))

            @tf.function
            def traced(x, g, act=act):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = act(x)
                return tape.gradient(y, x, output_gradients=g)

            out.append(traced(x, g))
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_relu_gradient_keeps_nan_and_infinite_upstream_gradients(tf_oracle, device):
    # TensorFlow's ReluGrad and Relu6Grad are g * mask: NaN or inf times 0 is NaN, and a
    # negative gradient at an inactive unit gives -0.
    x = np.array([-1.0, 0.0, 2.0, -3.0, 7.0, 6.0, 5.0, -0.0] * 5, np.float32)
    g = np.array([np.nan, np.inf, np.nan, -1.0, -np.inf, 2.0, 1.0, -2.0] * 5, np.float32)
    assert_parity(tf_oracle, _relu_gradients, (x, g, device), rtol=0, atol=0)


def test_bias_and_relu_run_as_one_fused_node():
    import ferroflow as tf

    @tf.function
    def layer(x, w, b):
        return tf.nn.relu(tf.matmul(x, w) + b)

    x, w, b = tf.ones([4, 3]), tf.ones([3, 5]), tf.ones([5])
    with tf.device("CPU:0"):
        ops = [
            op.type for op in layer.get_concrete_function(x, w, b).graph.get_optimized_operations()
        ]
    assert "FusedElementwise" in ops
    assert "AddV2" not in ops and "Relu" not in ops, ops


def _dict_layer(tf, x, b, device):
    with tf.device(device):

        @tf.function
        def layer(inputs):
            biased = inputs["x"] + inputs["params"]["bias"]
            return {"relu": tf.nn.relu(biased), "scaled": tf.nn.relu(biased * 0.5 - 1.0)}

        return layer({"x": tf.constant(x), "params": {"bias": tf.constant(b)}})


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_fused_bias_relu_with_nested_dict_arguments(tf_oracle, device):
    # Each fused chain must read the bias its dict key names, not a neighbour's tensor.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((50, 7)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    assert_parity(tf_oracle, _dict_layer, (x, b, device), rtol=1e-6, atol=1e-6)
