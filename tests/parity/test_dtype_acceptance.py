"""Dtypes TensorFlow accepts where ferroflow refused: `zeros_like`/`ones_like` of any input with
another dtype (strings too), `tf.linalg.qr` and `tf.linalg.inv` in float16, bool `*` (the
operator multiplies as int32; `tf.math.multiply` itself refuses bool), `argmax`/`argmin` of
bool, `real`/`imag`/`conj` of real tensors (no complex gradients); and `atan2` at signed zeros
and infinities, where the GPU's builtin is indeterminate."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _outcomes(calls):
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def _filled_like(tf, device):
    with tf.device(device):
        s = tf.constant([["a", "bb", "c"]])
        i = tf.constant([1, 2])
        traced = tf.function(
            lambda x: (tf.zeros_like(x, dtype=tf.int64), tf.ones_like(x, dtype=tf.float32)),
            input_signature=[tf.TensorSpec([None, None], tf.string)],
        )
        return _outcomes(
            [
                lambda: tf.zeros_like(s, dtype=tf.int64),
                lambda: tf.zeros_like(s, dtype=tf.bool),
                lambda: tf.zeros_like(s),
                lambda: tf.ones_like(s, dtype=tf.int64),
                lambda: tf.ones_like(s, dtype=tf.complex64),
                lambda: tf.ones_like(s),
                lambda: tf.zeros_like(i, dtype=tf.string),
                lambda: tf.ones_like(i, dtype=tf.string),
                lambda: tf.zeros_like([[1, 2]], dtype=tf.string),
                lambda: tf.ones_like(tf.constant([True]), dtype=tf.float32),
                lambda: traced(s),
            ]
        )


def _half_linalg(tf, device):
    with tf.device(device):
        a = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], tf.float16)
        square = tf.constant([[4.0, 1.0], [1.0, 3.0]], tf.float16)
        return _outcomes(
            [
                lambda: tf.linalg.qr(a),
                lambda: tf.linalg.qr(a, full_matrices=True),
                lambda: tf.linalg.qr(tf.zeros([2, 0, 3], tf.float16)),
                lambda: tf.linalg.inv(square),
                lambda: tf.function(tf.linalg.qr)(a),
                lambda: tf.linalg.cholesky(square),
                lambda: tf.linalg.qr(tf.constant([[1.0]], tf.bfloat16)),
            ]
        )


def _bool_products(tf, device):
    import numpy as np

    with tf.device(device):
        b = tf.constant([True, False, True])
        c = tf.constant([False, True, True])
        f = tf.constant([0.5, 1.0, 2.0])
        return _outcomes(
            [
                lambda: b * c,
                lambda: b * True,
                lambda: True * b,
                lambda: b * 2,
                lambda: b * 0.5,
                lambda: b * f,
                lambda: f * b,
                lambda: b * tf.constant([0, 1, 2]),
                lambda: b * np.array([True, True, False]),
                lambda: np.array([True, True, False]) * b,
                lambda: b * tf.constant([[True], [False]]),
                lambda: tf.function(lambda x, y: x * y)(b, c),
                lambda: tf.Variable([True, False]) * tf.constant([True, True]),
                lambda: tf.math.multiply(b, c),
                lambda: b + c,
            ]
        )


def _bool_arg_reductions(tf, device):
    with tf.device(device):
        b = tf.constant([[False, True, True], [False, False, False]])
        return _outcomes(
            [
                lambda: tf.argmax(b, axis=1),
                lambda: tf.argmin(b, axis=1),
                lambda: tf.argmax(b, axis=0, output_type=tf.int32),
                lambda: tf.argmin(tf.reshape(b, [-1])),
                lambda: tf.function(lambda x: tf.argmax(x, axis=1))(b),
                lambda: tf.argmax(tf.zeros([0, 2], tf.bool)),
            ]
        )


def _real_parts(tf, device):
    """real/imag/conj of real, bool and string tensors, and their gradients (imag of a real
    tensor is zeros no gradient reaches; real and conj pass the tensor through)."""
    with tf.device(device):
        x = tf.constant([1.0, -2.0])
        b = tf.constant([True, False])
        s = tf.constant(["a"])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            parts = [tf.math.real(x), tf.math.imag(x), tf.math.conj(x)]
        grads = [tape.gradient(p, x) for p in parts]
        calls = [lambda: tf.math.imag(b), lambda: tf.math.imag(s), lambda: tf.math.real(b)]
        calls += [lambda: tf.math.conj(b), lambda: tf.math.imag(tf.constant([1, 2]))]
        return parts, grads, _outcomes(calls)


def _atan2_special(tf, device):
    inf = float("inf")
    y = [0.0, 0.0, -0.0, -0.0, 1.0, -1.0, inf, inf, -inf, 0.0, -0.0, 2.0, -2.0, 1.0, float("nan")]
    x = [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, inf, -inf, -inf, inf, -inf, inf, -inf, 1.0, 1.0]
    with tf.device(device):
        out = []
        for dtype in (tf.float32, tf.float16, tf.float64):
            a, b = tf.constant(y, dtype), tf.constant(x, dtype)
            r = tf.math.atan2(a, b)
            # The sign of a zero result counts: 1/r tells +0 from -0.
            out += [r, 1.0 / r]
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "program",
    [_filled_like, _half_linalg, _bool_products, _bool_arg_reductions, _real_parts, _atan2_special],
)
def test_dtype_acceptance(tf_oracle, program, device):
    # TensorFlow's half QR and inverse compute in half precision (r[1, 1] 0.6274 where the
    # float32 factorisation rounds to 0.6323), ferroflow's in float32.
    tol = 1e-2 if program is _half_linalg else 1e-5
    assert_parity(tf_oracle, program, (device,), rtol=tol, atol=tol, helpers=[_outcomes])
