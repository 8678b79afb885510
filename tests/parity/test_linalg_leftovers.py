"""The rest of `tf.linalg` against TensorFlow: diagonal ops with any ``k`` and alignment,
banded_triangular_solve, eigh_tridiagonal, lstsq(fast=False) and
tf.linalg.experimental.conjugate_gradient, on both devices, eager and traced, with gradients
where TensorFlow registers them and TensorFlow's errors."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _forward(tf, x, bands, rhs, alpha, beta, tall, device):
    with tf.device(device):
        x, bands, rhs = tf.constant(x), tf.constant(bands), tf.constant(rhs)
        out = {}
        for k in [1, -2, (-1, 1), (1, 3), (-2, 0)]:
            for align in ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]:
                part = tf.linalg.diag_part(x, k=k, align=align, padding_value=-1)
                key = f"{k}_{align}"
                out["part_" + key] = part
                out["set_" + key] = tf.linalg.set_diag(x, part * 10, k=k, align=align)
                out["diag_" + key] = tf.linalg.diag(part, k=k, align=align, padding_value=7)
                out["diag_sized_" + key] = tf.linalg.diag(part, k=k, align=align, num_cols=5)
        out["part_tall"] = tf.linalg.diag_part(tf.linalg.matrix_transpose(x), k=(-3, 1))
        out["diag_rows"] = tf.linalg.diag(x[0, 0], k=-1, num_rows=6)
        out["diag_bool"] = tf.linalg.diag(x[0] > 0, k=(0, 1))
        out["traced"] = tf.function(lambda t: tf.linalg.diag_part(t, k=(0, 2)))(x)
        for lower in [True, False]:
            for adjoint in [False, True]:
                key = f"{lower}_{adjoint}"
                out["banded_" + key] = tf.linalg.banded_triangular_solve(
                    bands, rhs, lower=lower, adjoint=adjoint
                )
        out["banded_broadcast"] = tf.linalg.banded_triangular_solve(bands[0], rhs[None])
        out["banded_extra_rows"] = tf.linalg.banded_triangular_solve(
            tf.concat([bands[0], bands[0]], 0), rhs[0], lower=False
        )
        out["banded_traced"] = tf.function(tf.linalg.banded_triangular_solve)(bands, rhs)
        eig = tf.linalg.eigh_tridiagonal
        alpha, beta = tf.constant(alpha), tf.constant(beta)
        out["eig_all"] = eig(alpha, beta)
        out["eig_tol"] = eig(alpha, beta, tol=0.1)
        out["eig_index"] = eig(alpha, beta, select="i", select_range=[1, 3])
        out["eig_value"] = eig(alpha, beta, select="v", select_range=[-1.0, 1.0])
        w, v = eig(alpha, beta, eigvals_only=False, select="i", select_range=[2, 4])
        out["eig_vectors"] = (w, tf.abs(v))
        out["eig_one"] = eig(alpha[:1], beta[:0], eigvals_only=False)
        out["eig_traced"] = tf.function(eig)(alpha, beta)
        tall = tf.constant(tall)
        deficient = tf.matmul(tall[:, :2], tall[:2, :3])
        out["lstsq_tall"] = tf.linalg.lstsq(tall, rhs[0, :6], fast=False)
        out["lstsq_wide"] = tf.linalg.lstsq(tf.transpose(tall), rhs[0, :4], fast=False)
        out["lstsq_reg_ignored"] = tf.linalg.lstsq(tall, rhs[0, :6], 5.0, fast=False)
        out["lstsq_deficient"] = tf.linalg.lstsq(deficient, rhs[0, :4], fast=False)
        out["lstsq_deficient_t"] = tf.linalg.lstsq(tf.transpose(deficient), rhs[0, :3], fast=False)
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward(tf_oracle, dtype, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 5)).astype(dtype)
    bands = rng.standard_normal((2, 3, 6)).astype(dtype)
    bands[:, 0] += 4.0 * np.sign(bands[:, 0])
    bands[:, -1] += 4.0 * np.sign(bands[:, -1])
    rhs = rng.standard_normal((2, 6, 2)).astype(dtype)
    alpha = rng.standard_normal(6).astype(dtype)
    beta = rng.standard_normal(5).astype(dtype)
    tall = rng.standard_normal((6, 4)).astype(dtype)
    rtol = 1e-4 if dtype == "float32" else 1e-5
    args = (x, bands, rhs, alpha, beta, tall, device)
    assert_parity(tf_oracle, _forward, args, rtol=rtol, atol=1e-5)


def _complex_tridiagonal(tf, alpha, beta):
    w, v = tf.linalg.eigh_tridiagonal(tf.constant(alpha), tf.constant(beta), eigvals_only=False)
    # Eigenvectors are defined up to a phase: compare the projectors v vᴴ.
    projectors = tf.einsum("ik,jk->kij", v, tf.math.conj(v))
    return w, projectors


def test_eigh_tridiagonal_complex(tf_oracle):
    rng = np.random.default_rng(2)
    # TensorFlow's inverse iteration reads alpha's imaginary part (its vectors are then not
    # eigenvectors); a Hermitian input has none.
    alpha = rng.standard_normal(4).astype("complex128")
    beta = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    assert_parity(tf_oracle, _complex_tridiagonal, (alpha, beta))


def _gradients(tf, x, bands, rhs):
    x, bands, rhs = tf.constant(x), tf.constant(bands), tf.constant(rhs)
    out = {}
    cases = {
        "diag_part": lambda t: tf.linalg.diag_part(t, k=(-1, 2), align="LEFT_RIGHT") ** 2,
        "diag": lambda t: tf.linalg.diag(t[0, :2], k=(0, 1), num_cols=7) * 3.0,
        "set_diag": lambda t: tf.linalg.set_diag(t, t[:, :2, :4] * 2.0, k=(1, 2)) ** 2,
    }
    for name, fn in cases.items():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x) * tf.range(1.0, 2.0, 0.1, dtype=x.dtype)[: fn(x).shape[-1]])
        out[name] = tape.gradient(y, x)
    for lower in [True, False]:
        for adjoint in [False, True]:
            for b in [bands, bands[0]]:
                with tf.GradientTape() as tape:
                    tape.watch([b, rhs])
                    s = tf.linalg.banded_triangular_solve(b, rhs, lower=lower, adjoint=adjoint)
                    y = tf.reduce_sum(s * s)
                out[f"banded_{lower}_{adjoint}_{b.shape.rank}"] = tape.gradient(y, [b, rhs])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.linalg.lstsq(x[0], x[1, :, :2], fast=False)
    try:
        out["lstsq_slow"] = tape.gradient(y, x)
    except ValueError as e:
        out["lstsq_slow"] = str(e)
    return out


def test_gradients(tf_oracle):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 5))
    bands = rng.standard_normal((2, 3, 4))
    bands[:, 0] += 4.0
    bands[:, -1] += 4.0
    rhs = rng.standard_normal((2, 4, 3))
    assert_parity(tf_oracle, _gradients, (x, bands, rhs))


def _conjugate_gradient(tf, a, rhs):
    out = {}
    cg = tf.linalg.experimental.conjugate_gradient
    full = tf.linalg.LinearOperatorFullMatrix
    for dtype in [tf.float32, tf.float64]:
        m = tf.constant(a, dtype)
        b = tf.constant(rhs, dtype)
        op = full(m, is_self_adjoint=True, is_positive_definite=True)
        pre = full(tf.linalg.inv(m) * 0.9, is_self_adjoint=True, is_positive_definite=True)
        state = cg(op, b)
        out[f"{dtype.name}_converged"] = (state.i, state.x, type(state).__name__, state._fields)
        out[f"{dtype.name}_three_steps"] = cg(op, b[0], tol=1e-2, max_iter=3)
        state = cg(op, b, preconditioner=pre, x=tf.ones([5], dtype))
        out[f"{dtype.name}_preconditioned"] = (state.i, state.x)
        out[f"{dtype.name}_traced"] = tf.function(lambda r, op=op: cg(op, r).x)(b)
    try:
        cg(full(m), b)
    except ValueError as e:
        out["not_spd"] = str(e)
    return out


def test_conjugate_gradient(tf_oracle):
    import ferroflow

    if not hasattr(ferroflow.linalg, "LinearOperatorFullMatrix"):
        pytest.skip("needs tf.linalg.LinearOperatorFullMatrix")
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 5, 5))
    a = q @ np.swapaxes(q, -1, -2) + np.eye(5)
    rhs = rng.standard_normal((2, 5))
    assert_parity(tf_oracle, _conjugate_gradient, (a, rhs), rtol=1e-4, atol=1e-5)


def _errors(tf):
    x = tf.reshape(tf.range(12.0), [3, 4])
    d = tf.ones([2, 3])
    bands = tf.ones([2, 4])
    bts = tf.linalg.banded_triangular_solve
    eig = tf.linalg.eigh_tridiagonal
    three, two = tf.ones([3]), tf.ones([2])
    tri_mm, tri_solve = tf.linalg.tridiagonal_matmul, tf.linalg.tridiagonal_solve
    seq = (tf.ones([3]) * 0.5, tf.ones([4]) * 3.0, tf.ones([3]) * 0.25)
    dense = tf.reshape(tf.range(16.0), [4, 4]) + 10.0 * tf.eye(4)
    cases = {
        "part_order": lambda: tf.linalg.diag_part(x, k=(2, 1)),
        "part_bound": lambda: tf.linalg.diag_part(x, k=5),
        "part_three": lambda: tf.linalg.diag_part(x, k=(0, 1, 2)),
        "part_align": lambda: tf.linalg.diag_part(x, k=1, align="UP"),
        "diag_count": lambda: tf.linalg.diag(d, k=(0, 2)),
        "diag_rows": lambda: tf.linalg.diag(d[0], k=1, num_rows=2),
        "diag_sizes": lambda: tf.linalg.diag(d[0], num_rows=5, num_cols=6),
        "set_shape": lambda: tf.linalg.set_diag(x, d),
        "banded_vector": lambda: bts(bands, tf.ones([4])),
        "banded_rows": lambda: bts(bands, tf.ones([5, 1])),
        "banded_dtype": lambda: bts(bands, tf.ones([4, 1], "float64")),
        "banded_int": lambda: bts(tf.ones([2, 4], "int32"), tf.ones([4, 1], "int32")),
        "banded_singular": lambda: bts(tf.zeros([2, 4]), tf.ones([4, 1])),
        "banded_batch": lambda: bts(tf.ones([3, 2, 4]), tf.ones([2, 4, 1])),
        "banded_half": lambda: bts(tf.ones([2, 4], "float16"), tf.ones([4, 1], "float16")),
        "banded_complex": lambda: bts(
            tf.complex(bands + 1.0, bands * 0.5), tf.complex(tf.ones([4, 2]), 1.0), adjoint=True
        ),
        "eig_dtypes": lambda: eig(three, tf.ones([2], "float64")),
        "eig_select": lambda: eig(three, two, select="x"),
        "eig_index": lambda: eig(three, two, select="i", select_range=[2, 1]),
        "eig_interval": lambda: eig(three, two, select="v", select_range=[2.0, 1.0]),
        "eig_nan": lambda: eig(tf.constant([float("nan"), 1.0, 2.0]), two, eigvals_only=False),
        "lstsq_rows": lambda: tf.linalg.lstsq(x, tf.ones([4, 1]), fast=False),
        "tri_matmul_batch": lambda: tri_mm(tf.ones([2, 3, 4]), tf.ones([3, 2, 4, 2])),
        "tri_matmul_length": lambda: tri_mm(seq, tf.ones([4, 2]), diagonals_format="sequence"),
        "tri_matmul_dtype": lambda: tri_mm(tf.ones([3, 4]), tf.ones([4, 2], "float64")),
        "tri_matmul_matrix": lambda: tri_mm(dense, tf.ones([4, 2]), diagonals_format="matrix"),
        "tri_solve_batch": lambda: tri_solve(tf.ones([2, 3, 4]), tf.ones([1, 4, 2])),
        "tri_solve_rank": lambda: tri_solve(tf.ones([2, 3, 4]), tf.ones([3, 2, 4, 2])),
        "tri_solve_padded": lambda: tri_solve(seq, tf.ones([4, 1]), diagonals_format="sequence"),
        "tri_solve_matrix": lambda: tri_solve(dense, tf.ones([4, 1]), diagonals_format="matrix"),
        "tri_solve_conj_vector": lambda: tri_solve(
            tf.complex(dense, 1.0), tf.complex(tf.ones([4]), 2.0), "matrix", conjugate_rhs=True
        ),
    }
    out = {}
    for name, fn in cases.items():
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)


def _diagonals_unknown_batch(tf, device):
    """The diagonal ops in a tf.function whose batch size is left to the call (once a
    TypeError: the index tables were built with the batch's static size)."""
    m = tf.TensorSpec([None, 3, 4], tf.float32)
    v = tf.TensorSpec([None, 3], tf.float32)
    band = tf.TensorSpec([None, 2, 3], tf.float32)
    part = tf.function(
        lambda x: [tf.linalg.diag_part(x), tf.linalg.diag_part(x, k=(-1, 1), padding_value=9)],
        input_signature=[m],
    )
    make = tf.function(
        lambda d, b: [tf.linalg.diag(d), tf.linalg.diag(b, k=(0, 1), num_cols=4)],
        input_signature=[v, band],
    )
    # (A band's set_diag is left out: TensorFlow's graph shape function refuses it whenever
    # the batch size is unknown, "Shapes must be equal rank".)
    put = tf.function(lambda x, d: tf.linalg.set_diag(x, d, k=1), input_signature=[m, v])
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    b = tf.reshape(tf.range(12.0), [2, 2, 3])
    with tf.device(device):
        d = x[:, 1, :3]
        return [part(x), part(x[:0]), make(x[:, 0, :3], b), put(x, d), put(x[:0], d[:0])]


@pytest.mark.parametrize("device", DEVICES)
def test_diagonals_unknown_batch(tf_oracle, device):
    assert_parity(tf_oracle, _diagonals_unknown_batch, (device,))
