"""`tf.linalg` decompositions and solvers against TensorFlow: values, dtypes, shapes, batches,
errors, traced calls, both devices (soft placement runs them on the CPU) and gradients.
Decompositions that are unique only up to signs or phases (eigenvectors, singular vectors)
are compared through what is unique: reconstructions and sign-normalised vectors."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
FLOATS = ["float32", "float64", "complex64", "complex128"]


def _matrices(dtype, shape, seed=0, spd=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    if spd:
        n = shape[-1]
        x = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
    return x.astype(dtype)


def _tol(dtype):
    return (2e-4, 2e-4) if dtype in ("float32", "complex64") else (1e-9, 1e-9)


def _unique_ops(tf, a, spd, rhs, device):
    with tf.device(device):
        a, spd, rhs = tf.constant(a), tf.constant(spd), tf.constant(rhs)
        sign, logabs = tf.linalg.slogdet(a)
        return {
            "cholesky": tf.linalg.cholesky(spd),
            "inv": tf.linalg.inv(a),
            "inv_adjoint": tf.linalg.inv(a, adjoint=True),
            "det": tf.linalg.det(a),
            "slogdet": (sign, logabs),
            "logdet": tf.linalg.logdet(spd),
            "solve": tf.linalg.solve(a, rhs),
            "solve_adjoint": tf.linalg.solve(a, rhs, adjoint=True),
            "tri_lower": tf.linalg.triangular_solve(spd, rhs),
            "tri_upper_adjoint": tf.linalg.triangular_solve(spd, rhs, lower=False, adjoint=True),
            "cholesky_solve": tf.linalg.cholesky_solve(tf.linalg.cholesky(spd), rhs),
            "eigvalsh": tf.linalg.eigvalsh(spd),
            "singular_values": tf.linalg.svd(a, compute_uv=False),
            "lu": tf.linalg.lu(a),
            "traced_inv": tf.function(tf.linalg.inv)(a),
        }


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unique_results(tf_oracle, dtype, device):
    a = _matrices(dtype, (2, 3, 4, 4), seed=1)
    spd = _matrices(dtype, (2, 3, 4, 4), seed=2, spd=True)
    rhs = _matrices(dtype, (2, 3, 4, 2), seed=3)
    rtol, atol = _tol(dtype)
    assert_parity(tf_oracle, _unique_ops, (a, spd, rhs, device), rtol=rtol, atol=atol)


def _factorizations(tf, a, tall, wide, spd, device):
    def normalise(v):
        # Columns scaled so their largest entry is real and positive (unique for distinct
        # eigen/singular values).
        idx = tf.argmax(tf.abs(v), axis=-2)
        pivot = tf.gather(tf.linalg.matrix_transpose(v), idx, axis=-1, batch_dims=v.shape.rank - 1)
        pivot = tf.linalg.diag_part(pivot)
        phase = pivot / tf.cast(tf.abs(pivot), v.dtype)
        return v / phase[..., None, :]

    with tf.device(device):
        a, tall, wide, spd = (tf.constant(t) for t in (a, tall, wide, spd))
        out = {}
        for name, m in (("square", a), ("tall", tall), ("wide", wide)):
            for full in (False, True):
                q, r = tf.linalg.qr(m, full_matrices=full)
                out[f"qr_{name}_{full}"] = (
                    q.shape, r.shape, tf.matmul(q, r), tf.abs(q), tf.abs(r),
                )  # fmt: skip
                s, u, v = tf.linalg.svd(m, full_matrices=full)
                k = s.shape[-1]
                us = u[..., :, :k] * tf.cast(s, u.dtype)[..., None, :]
                out[f"svd_{name}_{full}"] = (
                    s, u.shape, v.shape, tf.matmul(us, v[..., :, :k], adjoint_b=True),
                    normalise(u[..., :, :k]), normalise(v[..., :, :k]),
                )  # fmt: skip
        e, v = tf.linalg.eigh(spd)
        out["eigh"] = (e, normalise(v))
        e, v = tf.linalg.eig(a)
        out["eigvals_sorted"] = tf.sort(tf.math.real(tf.linalg.eigvals(a)))
        out["eig_reconstruct"] = tf.matmul(tf.cast(a, v.dtype), v) - v * e[..., None, :]
        out["eig_dtype"] = (e.dtype, v.dtype, e.shape, v.shape)
        if a.dtype.is_complex:
            out["logm"] = tf.linalg.logm(a)
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_factorizations(tf_oracle, dtype, device):
    a = _matrices(dtype, (2, 4, 4), seed=4)
    tall = _matrices(dtype, (2, 5, 3), seed=5)
    wide = _matrices(dtype, (2, 3, 5), seed=6)
    spd = _matrices(dtype, (2, 4, 4), seed=7, spd=True)
    rtol, atol = _tol(dtype)
    rtol, atol = rtol * 10, atol * 10
    assert_parity(tf_oracle, _factorizations, (a, tall, wide, spd, device), rtol=rtol, atol=atol)


def _lu_helpers(tf, a, rhs):
    a, rhs = tf.constant(a), tf.constant(rhs)
    lu, p = tf.linalg.lu(a)
    lu64, p64 = tf.linalg.lu(a, output_idx_type=tf.int64)
    return {
        "solve": tf.linalg.lu_solve(lu, p, rhs),
        "inverse": tf.linalg.lu_matrix_inverse(lu, p),
        "reconstruct": tf.linalg.lu_reconstruct(lu, p),
        "reconstruct_2d": tf.linalg.lu_reconstruct(lu[0], p[0]),
        "p64": p64,
        "pinv": tf.linalg.pinv(a),
        "rank": tf.linalg.matrix_rank(a),
        "rank_low": tf.linalg.matrix_rank(tf.matmul(a[..., :2], a[..., :2], adjoint_b=True)),
        "lstsq": tf.linalg.lstsq(a, rhs),
        "lstsq_reg": tf.linalg.lstsq(a, rhs, l2_regularizer=0.5),
        "expm": tf.linalg.expm(a * 0.3),
        "expm_big": tf.linalg.expm(a * 3.0),
        "tridiagonal_solve": tf.linalg.tridiagonal_solve(
            tf.stack([a[..., 0, :], a[..., 1, :] + 4.0, a[..., 2, :]], axis=-2), rhs
        ),
        "tridiagonal_solve_vec": tf.linalg.tridiagonal_solve(
            (a[0, 0], a[0, 1] + 4.0, a[0, 2]), rhs[0, :, 0], diagonals_format="sequence"
        ),
        "tridiagonal_solve_t": tf.linalg.tridiagonal_solve(
            tf.stack([a[..., 0, :], a[..., 1, :] + 4.0, a[..., 2, :]], axis=-2),
            tf.linalg.matrix_transpose(rhs),
            transpose_rhs=True,
        ),
    }


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_helpers_and_compositions(tf_oracle, dtype):
    a = _matrices(dtype, (3, 4, 4), seed=8)
    rhs = _matrices(dtype, (3, 4, 2), seed=9)
    rtol, atol = _tol(dtype)
    assert_parity(tf_oracle, _lu_helpers, (a, rhs), rtol=rtol * 10, atol=atol * 10)


def _edge_cases(tf, dtype):
    out = {}
    dt = getattr(tf, dtype)
    empty = tf.zeros([3, 0, 0], dt)
    out["inv_empty"] = tf.linalg.inv(empty)
    out["det_empty"] = tf.linalg.det(empty)
    out["chol_empty"] = tf.linalg.cholesky(empty)
    # On a non-positive-definite input TensorFlow fills the lower triangle with
    # NaN and leaves the strictly-upper triangle unwritten (uninitialised memory,
    # a different value on every run), so only the lower triangle is defined.
    nonpd = tf.linalg.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]], dt))
    out["nonpd"] = tf.linalg.band_part(nonpd, -1, 0)
    singular = tf.constant([[1.0, 2.0], [2.0, 4.0]], dt)
    out["det_singular"] = tf.linalg.det(singular)
    out["slogdet_singular"] = tf.linalg.slogdet(singular)
    out["tri_zero_diag"] = tf.linalg.triangular_solve(
        tf.constant([[0.0, 0.0], [1.0, 1.0]], dt), tf.ones([2, 1], dt)
    )
    # NaN everywhere in the first column: TensorFlow's Q is all NaN and R NaN above its
    # diagonal (ferroflow's QR panicked on NaN).
    nan_first = tf.constant([[[float("nan")], [-13430.5], [-1.0], [4125.5]]], dt)
    out["qr_nan_full"] = tf.linalg.qr(nan_first, full_matrices=True)
    out["qr_nan_thin"] = tf.linalg.qr(nan_first)
    # A full QR of a tall matrix: R is [M, N] with zero rows below (faer's R has min(M, N)
    # rows, and the kernel built a tensor too short). Q's last columns are any orthonormal
    # completion: compared by shape.
    tall = tf.reshape(tf.range(8, dtype=dt), [4, 2]) + tf.eye(4, 2, dtype=dt)
    q, r = tf.linalg.qr(tall, full_matrices=True)
    out["qr_full_tall"] = (q.shape, q[:, :2], r)
    out["tri_broadcast"] = tf.linalg.triangular_solve(
        tf.eye(2, batch_shape=[3], dtype=dt), tf.ones([2, 1], dt)
    )
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_edge_cases(tf_oracle, dtype):
    assert_parity(tf_oracle, _edge_cases, (dtype,))


def _errors(tf, traced):
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    s = tf.constant([[1.0, 2.0], [2.0, 4.0]])
    sq = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    cases = {
        "chol_nonsquare": lambda: tf.linalg.cholesky(a),
        "chol_rank1": lambda: tf.linalg.cholesky(tf.constant([1.0, 2.0])),
        "chol_int": lambda: tf.linalg.cholesky(tf.constant([[1, 0], [0, 1]])),
        "inv_singular": lambda: tf.linalg.inv(s),
        "inv_nonsquare": lambda: tf.linalg.inv(a),
        "det_nonsquare": lambda: tf.linalg.det(a),
        "solve_singular": lambda: tf.linalg.solve(s, tf.ones([2, 1])),
        "solve_shape": lambda: tf.linalg.solve(sq, tf.ones([3, 1])),
        "solve_rank": lambda: tf.linalg.solve(sq, tf.ones([2])),
        "tri_shape": lambda: tf.linalg.triangular_solve(sq, tf.ones([3, 1])),
        "logm_float": lambda: tf.linalg.logm(sq),
        "tridiagonal_singular": lambda: tf.linalg.tridiagonal_solve(
            tf.zeros([3, 3]), tf.ones([3, 1])
        ),
        "eigh_nan": lambda: tf.linalg.eigh(tf.constant([[float("nan"), 0.0], [0.0, 1.0]])),
        "lu_singular": lambda: tf.linalg.lu(tf.zeros([2, 2])),
        "lu_nonsquare": lambda: tf.linalg.lu(a),
        "qr_int": lambda: tf.linalg.qr(tf.constant([[1, 0], [0, 1]])),
        "svd_int": lambda: tf.linalg.svd(tf.constant([[1, 0], [0, 1]])),
    }
    out = {}
    for name, fn in cases.items():
        try:
            out[name] = tf.function(fn)() if traced else fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out


@pytest.mark.parametrize("traced", [False, True])
def test_errors(tf_oracle, traced):
    assert_parity(tf_oracle, _errors, (traced,))


def _gradients(tf, a, spd, rhs, tall, wide):
    a, spd, rhs, tall, wide = (tf.constant(t) for t in (a, spd, rhs, tall, wide))
    out = {}

    def grad(name, fn, *xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = fn(*xs)
        out[name] = tape.gradient(y, xs)

    w = tf.reshape(tf.range(1, 17, dtype=a.dtype), [4, 4]) / 10.0
    grad("cholesky", lambda x: tf.reduce_sum(w * tf.linalg.cholesky(x)), spd)
    grad("inv", lambda x: tf.reduce_sum(w * tf.linalg.inv(x)), a)
    grad("inv_adjoint", lambda x: tf.reduce_sum(w * tf.linalg.inv(x, adjoint=True)), a)
    grad("det", lambda x: tf.linalg.det(x), a)
    grad("slogdet", lambda x: tf.linalg.slogdet(x)[1], a)
    grad("logdet", lambda x: tf.linalg.logdet(x), spd)
    grad("solve", lambda x, b: tf.reduce_sum(tf.linalg.solve(x, b) ** 2), a, rhs)
    grad("solve_adj", lambda x, b: tf.reduce_sum(tf.linalg.solve(x, b, adjoint=True)), a, rhs)
    grad("tri", lambda x, b: tf.reduce_sum(tf.linalg.triangular_solve(x, b) ** 2), spd, rhs)
    grad(
        "tri_upper",
        lambda x, b: tf.reduce_sum(tf.linalg.triangular_solve(x, b, lower=False, adjoint=True)),
        spd,
        rhs,
    )
    grad("eigvalsh", lambda x: tf.reduce_sum(w * tf.linalg.eigvalsh(x)[:, None]), spd)
    grad("eigh", lambda x: tf.reduce_sum(tf.linalg.eigh(x)[1] ** 2 * w), spd)
    grad("sv", lambda x: tf.reduce_sum(tf.linalg.svd(x, compute_uv=False)), a)
    grad("svd_s_uv", lambda x: tf.reduce_sum(tf.linalg.svd(x)[0] ** 2), tall)
    grad("svd_recon", lambda x: tf.reduce_sum(_recon(tf, x) * 1.5), wide)
    grad("qr_sq", lambda x: tf.reduce_sum(tf.abs(tf.linalg.qr(x)[1])), a)
    grad("qr_tall", lambda x: tf.reduce_sum(tf.linalg.qr(x)[0] ** 3), tall)
    grad("qr_wide", lambda x: tf.reduce_sum(tf.linalg.qr(x)[1] ** 3), wide)
    grad("expm", lambda x: tf.reduce_sum(tf.linalg.expm(x * 0.3) * w), a)
    grad("pinv", lambda x: tf.reduce_sum(tf.linalg.pinv(x) * w), a)
    return out


def _recon(tf, x):
    s, u, v = tf.linalg.svd(x)
    return tf.matmul(u * s[..., None, :], v, adjoint_b=True)


def test_gradients(tf_oracle):
    a = _matrices("float64", (4, 4), seed=10)
    spd = _matrices("float64", (4, 4), seed=11, spd=True)
    rhs = _matrices("float64", (4, 2), seed=12)
    tall = _matrices("float64", (5, 3), seed=13)
    wide = _matrices("float64", (3, 5), seed=14)
    assert_parity(
        tf_oracle,
        _gradients,
        (a, spd, rhs, tall, wide),
        rtol=1e-7,
        atol=1e-8,
        helpers=(_recon,),
    )


def test_gradients_match_finite_differences():
    """float64 gradients of ferroflow against central differences (no TensorFlow needed)."""
    import ferroflow as tf

    rng = np.random.default_rng(3)
    a0 = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    spd0 = a0 @ a0.T
    fns = {
        "cholesky": (lambda x: tf.reduce_sum(tf.linalg.cholesky(x) ** 2), spd0, True),
        "inv": (lambda x: tf.reduce_sum(tf.linalg.inv(x) ** 2), a0, False),
        "det": (lambda x: tf.linalg.det(x), a0, False),
        "eigh": (lambda x: tf.reduce_sum(tf.linalg.eigvalsh(x) ** 3), spd0, True),
        "svd": (lambda x: tf.reduce_sum(tf.linalg.svd(x, compute_uv=False) ** 3), a0, False),
        "qr": (lambda x: tf.reduce_sum(tf.linalg.qr(x)[1] ** 3), a0, False),
    }
    for name, (fn, x0, symmetric) in fns.items():
        x = tf.constant(x0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        g = tape.gradient(y, x).numpy()
        num = np.zeros_like(x0)
        h = 1e-6
        for i in range(3):
            for j in range(3):
                d = np.zeros_like(x0)
                d[i, j] = h
                if symmetric:
                    # The op reads the lower triangle: perturb it alone.
                    if j > i:
                        continue
                num[i, j] = (fn(tf.constant(x0 + d)).numpy() - fn(tf.constant(x0 - d)).numpy()) / (
                    2 * h
                )
        if symmetric:
            g = np.tril(g)
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6, err_msg=name)
