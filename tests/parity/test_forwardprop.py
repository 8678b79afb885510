"""`tf.autodiff.ForwardAccumulator` against TensorFlow: JVPs of elementwise ops, matmuls and
reductions on the CPU and the GPU, structures, unconnected outputs, nesting with other
accumulators and with `GradientTape` (Hessian-vector products both ways, TensorFlow's ordering
rules), inside and across `tf.function`, and the errors TensorFlow raises. JVPs are also checked
against central finite differences in float64."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

JVPS = {
    "sin_exp": "tf.sin(x) * tf.exp(x / 3.0)",
    "div_pow": "(x**3.0) / (1.0 + x * x) + tf.pow(tf.abs(x) + 1.0, x)",
    "tanh_sigmoid": "tf.tanh(x) + tf.sigmoid(2.0 * x) - tf.nn.relu(x) * tf.square(x)",
    "sqrt_log": "tf.sqrt(x * x + 1.0) * tf.math.log(x * x + 2.0)",
    "matmul": "tf.matmul(x, tf.transpose(x)) @ x",
    "matmul_const": "tf.matmul(tf.reshape(tf.range(6.0), [2, 3]), x)",
    "reduce_sum": "tf.reduce_sum(x * x, axis=0)",
    "reduce_mean": "tf.reduce_mean(tf.sin(x), axis=1, keepdims=True)",
    "reduce_max": "tf.reduce_max(x, axis=1) + tf.reduce_min(x)",
    "reduce_prod": "tf.reduce_prod(x + 2.0, axis=0)",
    "logsumexp": "tf.reduce_logsumexp(x, axis=1)",
    "softmax": "tf.nn.softmax(x, axis=-1)",
    "shape_ops": "tf.concat([tf.transpose(x), tf.reverse(x, [0])[:, :2]], axis=1)",
    "gather": "tf.gather(x, [2, 0, 2], axis=1) * tf.reshape(x, [3, 2])[:, :1]",
    "where": "tf.where(x > 0.0, x * x, -x)",
    "primal_itself": "x",
}


def _jvp(tf, expression, device, traced):
    def run(x, t):
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            y = eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        return acc.jvp(y)

    with tf.device(device):
        x = tf.constant([[0.3, -1.2, 2.0], [0.5, 0.1, -0.7]])
        t = tf.constant([[1.0, 0.5, -2.0], [0.25, -1.0, 3.0]])
        return (tf.function(run) if traced else run)(x, t)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(JVPS))
def test_jvp(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _jvp, (JVPS[name], device, traced), rtol=1e-5, atol=1e-5)


def _structures(tf, device):
    with tf.device(device):
        a = tf.constant([1.0, 2.0])
        b = tf.constant(3.0, tf.float64)
        v = tf.Variable([[0.5, -1.0]])
        primals = {"a": a, "pair": [b, v]}
        tangents = {
            "a": tf.constant([1.0, -1.0]),
            "pair": [tf.constant(0.5, tf.float64), [[2.0, 1.0]]],
        }
        with tf.autodiff.ForwardAccumulator(primals, tangents) as acc:
            y = a * tf.cast(b, tf.float32) + tf.reduce_sum(v * v)
            z = tf.cast(a, tf.float64) * b
            w = tf.constant(2.0) * 3.0
            i = tf.cast(a, tf.int32) * 2
            m = tf.argmax(a)
        return {
            "y_z": acc.jvp([y, (z,)]),
            "v": acc.jvp(v),
            "a": acc.jvp(a),
            "unconnected": acc.jvp(w),
            "unconnected_zero": acc.jvp(w, unconnected_gradients="zero"),
            "unconnected_enum": acc.jvp(w, unconnected_gradients=tf.UnconnectedGradients.ZERO),
            "int": acc.jvp(i),
            "int_zero": acc.jvp(i, unconnected_gradients="zero"),
            "argmax": acc.jvp(m),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_structures_and_unconnected(tf_oracle, device):
    assert_parity(tf_oracle, _structures, (device,))


def _complex(tf, device):
    with tf.device(device):
        c = tf.constant([1 + 2j, 3 - 1j])
        t = tf.constant([1 - 1j, 2 + 0.5j])
        r = tf.constant([0.5, -2.0], tf.float64)
        tr = tf.constant([1.0, 3.0], tf.float64)
        with tf.autodiff.ForwardAccumulator([c, r], [t, tr]) as acc:
            holomorphic = c * c + tf.math.conj(c) * 2.0
            real_of = tf.math.imag(c) * tf.math.real(c) + r * r
            mixed = c * tf.complex(r, r)
        return acc.jvp([holomorphic, real_of, mixed])


@pytest.mark.parametrize("device", DEVICES)
def test_complex(tf_oracle, device):
    assert_parity(tf_oracle, _complex, (device,))


def _nested_accumulators(tf):
    primal = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(primal, tf.constant(1.0)) as inner:
            primal_out = primal ** tf.constant(3.5)
    inner_jvp = inner.jvp(primal_out)
    # TensorFlow: reversing the order does not work (the inner accumulator never saw the
    # outer one's JVP computation).
    return inner_jvp, outer.jvp(inner_jvp), inner.jvp(outer.jvp(primal_out))


def test_nested_accumulators(tf_oracle):
    assert_parity(tf_oracle, _nested_accumulators)


def _third_order(tf):
    x = tf.constant([0.7, -0.3])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0])) as a1:
        with tf.autodiff.ForwardAccumulator(x, tf.constant([0.5, 1.0])) as a2:
            with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, -1.0])) as a3:
                y = tf.sin(x) * tf.exp(x)
            j3 = a3.jvp(y)
        j23 = a2.jvp(j3)
    return j3, j23, a1.jvp(j23)


def test_third_order(tf_oracle):
    assert_parity(tf_oracle, _third_order, rtol=1e-5, atol=1e-5)


def _hessian_vector_products(tf, device, traced):
    with tf.device(device):
        x = tf.constant([[2.0, 3.0], [1.0, 4.0]])
        targets = tf.constant([[1.0], [-1.0]])
        kernel = tf.Variable([[0.5], [-0.25]])
        bias = tf.Variable([0.1])

    def loss_fn():
        return tf.reduce_sum((tf.matmul(x, kernel) + bias - targets) ** 2.0)

    def run(vector):
        # Forward over backward (TensorFlow's recommended HVP).
        with tf.autodiff.ForwardAccumulator(kernel, vector) as acc:
            with tf.GradientTape() as tape:
                loss = loss_fn()
            backward = tape.gradient(loss, kernel)
        forward_over_backward = acc.jvp(backward)
        # Backward over forward, the JVP asked for inside the tape.
        with tf.GradientTape() as tape:
            with tf.autodiff.ForwardAccumulator(kernel, vector) as acc:
                loss = loss_fn()
            jvp_inside = acc.jvp(loss)
        backward_over_forward = tape.gradient(jvp_inside, [kernel, bias])
        # Backward over forward, the JVP asked for after the tape: TensorFlow computed it while
        # the tape recorded.
        with tf.GradientTape(persistent=True) as tape:
            with tf.autodiff.ForwardAccumulator(kernel, vector) as acc:
                loss = tf.reduce_sum(tf.tanh(tf.matmul(x, kernel)) ** 2.0)
        later = tape.gradient(acc.jvp(loss), kernel)
        return forward_over_backward, backward_over_forward, later, acc.jvp(loss)

    return (tf.function(run) if traced else run)(tf.constant([[1.0], [0.5]]))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
def test_hessian_vector_products(tf_oracle, device, traced):
    assert_parity(tf_oracle, _hessian_vector_products, (device, traced), rtol=1e-5, atol=1e-5)


def _docstring_examples(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v**3.0)
        backward = tape.gradient(y, v)
    # TensorFlow's docstring uses a Keras Dense layer; with Keras 3 its kernel's dtype is a
    # string that TensorFlow 2.21's accumulator rejects, so the layer is written out here.
    x = tf.constant([[2.0, 3.0], [1.0, 4.0]])
    kernel = tf.Variable([[1.0], [1.0]])
    bias = tf.Variable([0.0])
    loss_fn = lambda: tf.reduce_sum((x @ kernel + bias - tf.constant([[1.0], [-1.0]])) ** 2.0)  # noqa: E731
    kernel_fprop = []
    with tf.autodiff.ForwardAccumulator(kernel, tf.constant([[1.0], [0.0]])) as acc2:
        kernel_fprop.append(acc2.jvp(loss_fn()))
    with tf.autodiff.ForwardAccumulator(kernel, tf.constant([[0.0], [1.0]])) as acc2:
        kernel_fprop.append(acc2.jvp(loss_fn()))
    with tf.autodiff.ForwardAccumulator(bias, tf.constant([1.0])) as acc2:
        bias_fprop = acc2.jvp(loss_fn())
    with tf.GradientTape() as tape2:
        loss = loss_fn()
    grads = tape2.gradient(loss, [kernel, bias])
    return backward, acc.jvp(backward), kernel_fprop, bias_fprop, grads


def test_docstring_examples(tf_oracle):
    assert_parity(tf_oracle, _docstring_examples)


def _ordering(tf):
    x = tf.constant([0.5, 2.0])
    t = tf.constant([1.0, 0.5])
    out = {}
    # A tape entered after the accumulator's context does not see its JVPs.
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        y = tf.sin(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        j = acc.jvp(y)
    out["tape_after"] = tape.gradient(j, x)
    # A tape inside the accumulator takes its JVPs as constants.
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.sin(x)
            w = acc.jvp(y) * y
        out["tape_inner"] = tape.gradient(w, x)
    # A tape outside the accumulator sees them, wherever jvp() is called.
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, t) as acc:
            y = tf.sin(x)
    out["tape_outer"] = tape.gradient(acc.jvp(y), x)
    # The accumulator does not differentiate its own JVPs.
    with tf.autodiff.ForwardAccumulator(x, t) as acc:
        y = x * x
        z = y * acc.jvp(y)
    out["own_jvp"] = acc.jvp(z)
    # Only ops run inside the context count; entering again records more.
    acc = tf.autodiff.ForwardAccumulator(x, t)
    before = x * 3.0
    with acc:
        inside = before * x
    after = inside * x
    with acc:
        again = after * x
    out["context"] = acc.jvp([before, inside, after, again])
    return out


def test_ordering_rules(tf_oracle):
    assert_parity(tf_oracle, _ordering)


def _function_calls(tf, device):
    @tf.function
    def f(y):
        return tf.reduce_max(tf.tanh(y) * y, axis=1) + tf.reduce_mean(y)

    @tf.function
    def g(y, t):
        with tf.autodiff.ForwardAccumulator(y, t) as acc:
            z = tf.nn.softmax(y) @ tf.transpose(y)
        return acc.jvp(z), acc.jvp(tf.constant(1.0), unconnected_gradients="zero")

    with tf.device(device):
        x = tf.constant([[0.3, -1.2, 2.0], [0.5, 0.1, -0.7]])
        with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x) * 0.5) as acc:
            called = f(x)
        return acc.jvp(called), g(x, tf.reverse(x, [1]))


@pytest.mark.parametrize("device", DEVICES)
def test_function_calls(tf_oracle, device):
    assert_parity(tf_oracle, _function_calls, (device,), rtol=1e-5, atol=1e-5)


ERRORS = {
    "duplicate": "x = tf.constant(1.0); tf.autodiff.ForwardAccumulator([x, x], [x, x])",
    "dtype": "tf.autodiff.ForwardAccumulator(tf.constant([1.0]), tf.constant([1]))",
    "python_number": "tf.autodiff.ForwardAccumulator(1.0, 1.0)",
    "structure": "tf.autodiff.ForwardAccumulator(tf.constant([1.0]), [1.0])",
    "reenter": (
        "acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))\n"
        "with acc:\n    with acc:\n        pass"
    ),
    "tangent_shape": (
        "x = tf.constant([1.0, 2.0])\n"
        "with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0, 3.0])) as acc:\n"
        "    y = acc.jvp(x * 2.0)"
    ),
    "bad_unconnected": (
        "x = tf.constant(1.0)\n"
        "with tf.autodiff.ForwardAccumulator(x, x) as acc:\n"
        "    acc.jvp(x, unconnected_gradients='nope')"
    ),
}


def _error(tf, source):
    try:
        exec(source, {"tf": tf})  # noqa: S102 - the test's own program
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return "no error"


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(tf_oracle, name):
    assert_parity(tf_oracle, _error, (ERRORS[name],))


def _int_primal(tf):
    i = tf.constant([1, 2])
    with tf.autodiff.ForwardAccumulator(i, tf.constant([1, 1])) as acc:
        y = i * 3
    return acc.jvp(y), acc.jvp(i)


def test_int_primal(tf_oracle):
    assert_parity(tf_oracle, _int_primal)


def test_jvp_matches_finite_differences():
    import ferroflow as tf

    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(3, 4))
    t0 = rng.normal(size=(3, 4))
    w = tf.constant(rng.normal(size=(4, 2)))

    def f(x):
        return tf.reduce_logsumexp(tf.tanh(x @ w) * tf.reduce_mean(x, axis=1, keepdims=True), 0)

    for device in DEVICES:
        with tf.device(device):
            x = tf.constant(x0)
            with tf.autodiff.ForwardAccumulator(x, tf.constant(t0)) as acc:
                y = f(x)
            eps = 1e-6
            numeric = (f(tf.constant(x0 + eps * t0)) - f(tf.constant(x0 - eps * t0))) / (2 * eps)
            np.testing.assert_allclose(acc.jvp(y).numpy(), numeric.numpy(), rtol=1e-6, atol=1e-8)
