"""`tf.linalg` compositions against TensorFlow: band_part, diagonals, trace, transposes, cross,
normalize, on both devices, eager and traced, with gradients."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _compositions(tf, x, c, v, device):
    with tf.device(device):
        x, c, v = tf.constant(x), tf.constant(c), tf.constant(v)
        out = {
            "band_1_0": tf.linalg.band_part(x, 1, 0),
            "band_all_2": tf.linalg.band_part(x, -1, 2),
            "band_0_all": tf.linalg.band_part(x, tf.constant(0), tf.constant(-1)),
            "diag_part": tf.linalg.diag_part(x),
            "diag_part_tall": tf.linalg.diag_part(tf.linalg.matrix_transpose(x)),
            "trace": tf.linalg.trace(x),
            "set_diag": tf.linalg.set_diag(x, tf.ones(x.shape[:-1][:-1] + [3], x.dtype)),
            "diag": tf.linalg.diag(v),
            "tensor_diag": tf.linalg.tensor_diag(v[0]),
            "tensor_diag_part": tf.linalg.tensor_diag_part(tf.linalg.diag(v[0])),
            "transpose": tf.linalg.matrix_transpose(c),
            "transpose_conj": tf.linalg.matrix_transpose(c, conjugate=True),
            "adjoint": tf.linalg.adjoint(c),
            "cross": tf.linalg.cross(v[..., :3], v[..., 1:4]),
            "normalize": tf.linalg.normalize(v),
            "normalize_axis": tf.linalg.normalize(x, axis=-1),
            "l2_normalize": tf.linalg.l2_normalize(v, axis=-1),
            "tridiagonal_matmul": tf.linalg.tridiagonal_matmul(
                tf.stack([v[..., :3], v[..., 1:], v[..., :3] * 2.0], axis=-2), x[..., :3, :]
            ),
            "tridiagonal_matmul_seq": tf.linalg.tridiagonal_matmul(
                (v[0, :3], v[0, 1:], v[1, :3]), x[0, :, :2], diagonals_format="sequence"
            ),
        }
        out["traced"] = tf.function(
            lambda t: tf.linalg.band_part(t, 1, 1) + tf.linalg.trace(t)[..., None, None]
        )(x)
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compositions(tf_oracle, dtype, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    c = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype("complex64")
    v = rng.standard_normal((2, 4)).astype(dtype)
    assert_parity(tf_oracle, _compositions, (x, c, v, device))


def _composition_gradients(tf, x):
    x = tf.constant(x)
    out = {}
    for name, fn in {
        "band_part": lambda t: tf.linalg.band_part(t, 1, 0) * 3.0,
        "diag_part": lambda t: tf.linalg.diag_part(t) ** 2,
        "trace": lambda t: tf.linalg.trace(t),
        "set_diag": lambda t: tf.linalg.set_diag(t, tf.linalg.diag_part(t) * 2.0) ** 2,
        "adjoint": lambda t: tf.linalg.adjoint(t) * tf.range(4, dtype=t.dtype)[:, None],
    }.items():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x))
        out[name] = tape.gradient(y, x)
    return out


def test_composition_gradients(tf_oracle):
    x = np.random.default_rng(1).standard_normal((3, 4))
    assert_parity(tf_oracle, _composition_gradients, (x,))
