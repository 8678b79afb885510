"""`tf.recompute_grad`, `tf.grad_pass_through`, `tf.AggregationMethod`, `tf.UnconnectedGradients`,
`tf.RegisterGradient`, `tf.no_gradient`, `tf.gradients`/`tf.hessians` (eager) and
`tf.custom_gradient` against TensorFlow, on the CPU and the GPU, eagerly and traced."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _recompute(tf, device, traced):
    with tf.device(device):
        w = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
        b = tf.Variable([0.1, -0.2])

    def block(x, scale=1.0):
        return tf.tanh(x @ w + b) * scale

    def pair(x, y):
        return x * y, tf.sin(x) + y

    step = tf.recompute_grad(block)
    both = tf.recompute_grad(pair)

    def run(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            r = x
            for _ in range(3):
                # TensorFlow's graph mode refuses keyword arguments here (ferroflow takes them).
                r = step(r) * 2.0 if traced else step(r, scale=2.0)
            p, q = both(r, x)
            loss = tf.reduce_sum(p * q)
        with tf.GradientTape() as plain_tape:
            plain_tape.watch(x)
            s = x
            for _ in range(3):
                s = block(s) * 2.0 if traced else block(s, scale=2.0)
            plain = tf.reduce_sum(s * x * (tf.sin(s) + x))
        return (
            loss,
            tape.gradient(loss, [x, w, b]),
            tape.gradient(r, x),
            plain,
            plain_tape.gradient(plain, [x, w, b]),
        )

    with tf.device(device):
        x = tf.constant([[0.3, -0.6], [1.0, 0.2]])
    return (tf.function(run) if traced else run)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
def test_recompute_grad(tf_oracle, device, traced):
    assert_parity(tf_oracle, _recompute, (device, traced), rtol=1e-5, atol=1e-5)


def _recompute_second_order(tf):
    f = tf.recompute_grad(lambda x: tf.sin(x) * x)
    x = tf.constant([0.5, 1.5])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(f(x))
        g = inner.gradient(y, x)
    return g, outer.gradient(g, x)


def test_recompute_grad_second_order(tf_oracle):
    assert_parity(tf_oracle, _recompute_second_order)


def _pass_through(tf, device, traced):
    with tf.device(device):
        x = tf.Variable(1.0)
        z = tf.Variable(3.0)

    def run(a):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(a)
            assigned = tf.grad_pass_through(x.assign)(z**2)
            rounded = tf.grad_pass_through(lambda v: tf.round(v) * x)(a * 2.0)
            pair = tf.grad_pass_through(lambda u, v: (tf.floor(u), tf.sign(v)))(a, z * a)
            total = tf.reduce_sum(pair[0] * 3.0 + pair[1])
        return (
            assigned,
            tape.gradient(assigned, z),
            rounded,
            tape.gradient(rounded, [a, x]),
            tape.gradient(total, [a, z]),
        )

    with tf.device(device):
        a = tf.constant([0.4, 1.7])
    return (tf.function(run) if traced else run)(a)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
def test_grad_pass_through(tf_oracle, device, traced):
    assert_parity(tf_oracle, _pass_through, (device, traced))


def _enums(tf):
    m = tf.AggregationMethod
    u = tf.UnconnectedGradients
    return (
        [m.ADD_N, m.DEFAULT, m.EXPERIMENTAL_TREE, m.EXPERIMENTAL_ACCUMULATE_N],
        sorted(a for a in dir(m) if not a.startswith("_")),
        [u.NONE.value, u.ZERO.value, u("zero") is u.ZERO, [e.name for e in u]],
    )


def test_enums(tf_oracle):
    assert_parity(tf_oracle, _enums)


def _outcome(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return "ok" if result is None else type(result).__name__


def _registry(tf, suffix):
    def grad(op, g):
        return g

    out = []
    out.append(_outcome(lambda: tf.RegisterGradient(f"FfUserOp{suffix}")(grad) is grad))
    out.append(_outcome(lambda: tf.RegisterGradient(f"FfUserOp{suffix}")(grad)))
    out.append(_outcome(lambda: tf.no_gradient(f"FfUserOp{suffix}")))
    out.append(_outcome(lambda: tf.no_gradient(f"FfNoGrad{suffix}")))
    out.append(_outcome(lambda: tf.no_gradient(f"FfNoGrad{suffix}")))
    out.append(_outcome(lambda: tf.RegisterGradient(f"FfNoGrad{suffix}")(grad)))
    for existing in ("Square", "AddV2", "MatMul", "Sum", "Cholesky", "Relu"):
        out.append(_outcome(lambda name=existing: tf.RegisterGradient(name)(grad)))
        out.append(_outcome(lambda name=existing: tf.no_gradient(name)))
    out.append(_outcome(lambda: tf.RegisterGradient(3)))
    out.append(_outcome(lambda: tf.no_gradient(None)))
    return out


def test_gradient_registry(tf_oracle):
    import uuid

    expected = assert_parity(tf_oracle, _registry, (uuid.uuid4().hex,), helpers=(_outcome,))
    assert expected[0] == "list"


def _graph_gradients_eagerly(tf):
    x = tf.constant(2.0)
    return [
        _outcome(lambda: tf.gradients(x * x, x)),
        _outcome(lambda: tf.hessians(x * x, x)),
        _outcome(lambda: tf.gradients([x], [x], grad_ys=[x], stop_gradients=[x])),
    ]


def test_graph_gradients_eagerly(tf_oracle):
    expected = assert_parity(tf_oracle, _graph_gradients_eagerly, helpers=(_outcome,))
    assert expected[0] == "list"


def _custom_gradient(tf, device):
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5)

        return tf.identity(x), grad

    with tf.device(device):
        x = tf.constant([1.0, -2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(clip_grad(x) * tf.constant([0.1, -3.0, 2.0]))
        return y, tape.gradient(y, x)


@pytest.mark.parametrize("device", DEVICES)
def test_custom_gradient(tf_oracle, device):
    assert_parity(tf_oracle, _custom_gradient, (device,))


def test_recompute_grad_runs_the_function_again_for_the_gradient():
    import ferroflow as tf

    calls = []

    def f(x):
        calls.append(1)
        return tf.exp(x) * x

    g = tf.recompute_grad(f)
    x = tf.constant([0.5, -1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = g(g(x))
    assert len(calls) == 2
    grad = tape.gradient(y, x)
    assert len(calls) == 4
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = f(f(x))
    assert abs(grad.numpy() - tape.gradient(z, x).numpy()).max() < 1e-6
