"""The structured LinearOperators against TensorFlow: Kronecker, Circulant (1-D, 2-D, 3-D),
Toeplitz, Tridiag, Householder, Permutation and BlockLowerTriangular. One program per operator:
dense form, products, solves, determinants, trace, diagonal, shapes, hints, the classes of
inverse() and adjoint(), a batch case, a traced call and a gradient, on both devices."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _summary(tf, op, x):
    """What every operator is compared on (``x`` a ``[..., N, R]`` argument)."""
    return {
        "dense": op.to_dense(),
        "matmul": op.matmul(x),
        "matmul_adjoint": op.matmul(x, adjoint=True),
        "matmul_adjoint_arg": op.matmul(tf.linalg.adjoint(x), adjoint_arg=True),
        "matvec": op.matvec(x[..., 0]),
        "solve": op.solve(x),
        "solve_adjoint": op.solve(x, adjoint=True),
        "solvevec": op.solvevec(x[..., 0]),
        "det": op.determinant(),
        "log_abs_det": op.log_abs_determinant(),
        "trace": op.trace(),
        "diag_part": op.diag_part(),
        "shape": (op.shape.as_list(), op.batch_shape.as_list(), op.shape_tensor()),
        "dims": (int(op.range_dimension), int(op.domain_dimension), op.tensor_rank),
        "dtype": op.dtype.name,
        "hints": (op.is_non_singular, op.is_self_adjoint, op.is_positive_definite, op.is_square),
        "algebra": (type(op.inverse()).__name__, type(op.adjoint()).__name__),
        "inverse_dense": op.inverse().to_dense(),
        "adjoint_dense": op.adjoint().to_dense(),
        "sliced": op[-1].to_dense() if op.batch_shape.rank else None,
        "through_function": tf.function(lambda o: o.matmul(x))(op),
    }


def _errors_of(cases):
    out = {}
    for name, fn in cases.items():
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out


def _run(tf_oracle, program, *args):
    assert_parity(tf_oracle, program, args, rtol=2e-4, atol=2e-5, helpers=(_summary, _errors_of))


def _cases(dtypes):
    return [(d, dev) for d in dtypes for dev in DEVICES]


def _kronecker(tf, a, b, x, device):
    with tf.device(device):
        a, b, x = tf.constant(a), tf.constant(b), tf.constant(x)
        full = tf.linalg.LinearOperatorFullMatrix
        op = tf.linalg.LinearOperatorKronecker([full(a), full(b)])
        out = _summary(tf, op, x)
        out["name"] = op.name
        tri = tf.linalg.LinearOperatorLowerTriangular(b)
        out["three"] = _summary(
            tf, tf.linalg.LinearOperatorKronecker([full(a), tri, full(a[0])]), x
        )
        pd = tf.linalg.LinearOperatorKronecker(
            [tf.linalg.LinearOperatorDiag(tf.abs(a[0, 0]) + 1.0, is_positive_definite=True)] * 2
        )
        out["pd"] = (pd.is_positive_definite, pd.is_self_adjoint, type(pd.cholesky()).__name__)
        out["traced"] = tf.function(
            lambda m: tf.linalg.LinearOperatorKronecker([full(m), full(b)]).matmul(x)
        )(a)
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.linalg.LinearOperatorKronecker([full(a), full(b)]).solve(x))
        out["grad"] = tape.gradient(y, a)
        kron = tf.linalg.LinearOperatorKronecker
        half = full(tf.ones([2, 2], "float16"))
        out["errors"] = _errors_of({
            "empty": lambda: kron([]),
            "dtypes": lambda: kron([full(a), half]),
            "hint": lambda: kron([pd.operators[0]] * 2, is_self_adjoint=False),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64"]))
def test_kronecker(tf_oracle, dtype, device):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((2, 2, 2)) + 3 * np.eye(2)).astype(dtype)
    b = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(dtype)
    x = rng.standard_normal((2, 6, 2)).astype(dtype)
    _run(tf_oracle, _kronecker, a, b, x, device)


def _circulant(tf, kernels, x, xc, io, device):
    with tf.device(device):
        io = tf.as_dtype(io)
        cdt = tf.complex128 if io in (tf.float64, tf.complex128) else tf.complex64
        k1, k2, k3 = [tf.cast(tf.constant(k), cdt) for k in kernels]
        x, xc = tf.constant(x), tf.constant(xc)
        spectra = [tf.signal.fft(k1), tf.signal.fft2d(k2), tf.signal.fft3d(k3)]
        classes = [
            tf.linalg.LinearOperatorCirculant,
            tf.linalg.LinearOperatorCirculant2D,
            tf.linalg.LinearOperatorCirculant3D,
        ]
        out = {}
        for cls, spectrum, n in zip(classes, spectra, [4, 6, 12]):
            real = cls(spectrum, input_output_dtype=io)
            out[cls.__name__] = _summary(tf, real, x[..., :n, :])
            out[cls.__name__ + "_kernel"] = real.convolution_kernel()
            complex_op = cls(spectrum * tf.cast(1.0 + 0.5j, cdt), input_output_dtype=cdt)
            out[cls.__name__ + "_complex"] = _summary(
                tf, complex_op, tf.cast(xc[..., :n, :], complex_op.dtype)
            )
            selfadj = cls(tf.math.real(spectrum) ** 2 + 1.0, input_output_dtype=cdt)
            out[cls.__name__ + "_real_spectrum"] = _summary(
                tf, selfadj, tf.cast(xc[..., :n, :], cdt)
            )
            out[cls.__name__ + "_eigvals"] = selfadj.eigvals()
        c1 = classes[0](spectra[0], input_output_dtype=io)
        out["products"] = [
            type(c1.matmul(c1)).__name__,
            c1.matmul(c1).to_dense(),
            type(c1.solve(c1)).__name__,
            c1.adjoint().dtype.name,
        ]
        out["traced"] = tf.function(
            lambda s: classes[0](s, input_output_dtype=io).matmul(x[..., :4, :])
        )(spectra[0])
        with tf.GradientTape() as tape:
            tape.watch(k1)
            op = classes[0](tf.signal.fft(k1), input_output_dtype=io)
            y = tf.reduce_sum(op.matmul(x[..., :4, :]) ** 2)
            # A complex determinant: the gradient of a complex product conjugates.
            z = tf.math.real(tf.reduce_sum(classes[0](tf.signal.fft(k1)).determinant()))
        out["grad"] = tape.gradient([y, z], k1)
        out["errors"] = _errors_of({
            "rank": lambda: classes[1](spectra[0][0]),
            "self_adjoint": lambda: classes[0](tf.ones([3]), is_self_adjoint=False),
            "square": lambda: classes[0](spectra[0], is_square=False),
            "arg_dtype": lambda: classes[0](spectra[0]).matmul(x[..., :4, :]),
            "solve_dtype": lambda: classes[0](spectra[0]).solve(tf.ones([4, 1], tf.complex64)),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64"]))
def test_circulant(tf_oracle, dtype, device):
    rng = np.random.default_rng(1)
    kernels = [
        rng.standard_normal((2, 4)),
        rng.standard_normal((2, 3)),
        rng.standard_normal((2, 2, 3)),
    ]
    kernels = [k + (4.0 if k.ndim > 1 else 0) * (np.indices(k.shape).sum(0) == 0) for k in kernels]
    kernels[0][..., 0] += 4.0
    x = rng.standard_normal((2, 12, 2)).astype(dtype)
    xc = (rng.standard_normal((2, 12, 2)) + 1j * rng.standard_normal((2, 12, 2))).astype(
        "complex128"
    )
    _run(tf_oracle, _circulant, kernels, x, xc, dtype, device)


def _toeplitz(tf, col, row, x, device):
    with tf.device(device):
        col, row, x = tf.constant(col), tf.constant(row), tf.constant(x)
        row = tf.concat([col[..., :1], row[..., 1:]], axis=-1)
        op = tf.linalg.LinearOperatorToeplitz(col, row)
        out = _summary(tf, op, x)
        out["broadcast"] = _summary(tf, tf.linalg.LinearOperatorToeplitz(col[0], row), x)
        out["traced"] = tf.function(lambda c: tf.linalg.LinearOperatorToeplitz(c, row).matmul(x))(
            col
        )
        with tf.GradientTape() as tape:
            tape.watch([col, row])
            y = tf.reduce_sum(tf.linalg.LinearOperatorToeplitz(col, row).matmul(x) ** 2)
        out["grad"] = tape.gradient(y, [col, row])
        out["errors"] = _errors_of({
            "mismatch": lambda: tf.linalg.LinearOperatorToeplitz(col, row[..., :3]),
            "scalar": lambda: tf.linalg.LinearOperatorToeplitz(col[0, 0], row[0, 0]),
            "square": lambda: tf.linalg.LinearOperatorToeplitz(col, row, is_square=False),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64", "complex64"]))
def test_toeplitz(tf_oracle, dtype, device):
    rng = np.random.default_rng(2)
    shape = (2, 4)
    col = rng.standard_normal(shape) + (
        1j * rng.standard_normal(shape) if "complex" in dtype else 0
    )
    row = rng.standard_normal(shape)
    col[..., 0] += 5.0
    x = rng.standard_normal((2, 4, 3))
    _run(tf_oracle, _toeplitz, col.astype(dtype), row.astype(dtype), x.astype(dtype), device)


def _tridiag(tf, diagonals, x, device):
    with tf.device(device):
        d, x = tf.constant(diagonals), tf.constant(x)
        compact = tf.linalg.LinearOperatorTridiag(d)
        out = {"compact": _summary(tf, compact, x)}
        sequence = tf.linalg.LinearOperatorTridiag(
            [d[..., 0, :], d[..., 1, :], d[..., 2, :]], diagonals_format="sequence"
        )
        out["sequence"] = _summary(tf, sequence, x)
        matrix = tf.linalg.LinearOperatorTridiag(compact.to_dense(), diagonals_format="matrix")
        out["matrix"] = _summary(tf, matrix, x)
        out["broadcast"] = compact.solve(x[0])
        out["traced"] = tf.function(lambda t: tf.linalg.LinearOperatorTridiag(t).solve(x))(d)
        with tf.GradientTape() as tape:
            tape.watch(d)
            y = tf.reduce_sum(tf.linalg.LinearOperatorTridiag(d).matmul(x) ** 2)
        out["grad"] = tape.gradient(y, d)
        out["errors"] = _errors_of(
            {
                "format": lambda: tf.linalg.LinearOperatorTridiag(d, diagonals_format="banded"),
            }
        )
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64"]))
def test_tridiag(tf_oracle, dtype, device):
    rng = np.random.default_rng(3)
    diagonals = rng.standard_normal((2, 3, 5))
    diagonals[:, 1] += 4.0 * np.sign(diagonals[:, 1])
    diagonals[:, 0, -1] = 0.0
    diagonals[:, 2, 0] = 0.0
    x = rng.standard_normal((2, 5, 2))
    _run(tf_oracle, _tridiag, diagonals.astype(dtype), x.astype(dtype), device)


def _householder(tf, v, x, device):
    with tf.device(device):
        v, x = tf.constant(v), tf.constant(x)
        op = tf.linalg.LinearOperatorHouseholder(v)
        out = _summary(tf, op, x)
        out["eigvals"] = op.eigvals()
        out["cond"] = op.cond()
        out["traced"] = tf.function(lambda t: tf.linalg.LinearOperatorHouseholder(t).matmul(x))(v)
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.reduce_sum(tf.linalg.LinearOperatorHouseholder(v).matmul(x) ** 3)
        out["grad"] = tape.gradient(y, v)
        out["errors"] = _errors_of({
            "self_adjoint": lambda: tf.linalg.LinearOperatorHouseholder(v, is_self_adjoint=False),
            "positive": lambda: tf.linalg.LinearOperatorHouseholder(v, is_positive_definite=True),
            "scalar": lambda: tf.linalg.LinearOperatorHouseholder(v[0, 0]),
            "assert_pd": lambda: op.assert_positive_definite(),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64", "complex64"]))
def test_householder(tf_oracle, dtype, device):
    rng = np.random.default_rng(4)
    v = rng.standard_normal((2, 4)) + (
        1j * rng.standard_normal((2, 4)) if "complex" in dtype else 0
    )
    x = rng.standard_normal((2, 4, 3))
    _run(tf_oracle, _householder, v.astype(dtype), x.astype(dtype), device)


def _permutation(tf, x, device):
    with tf.device(device):
        x = tf.constant(x)
        perm = tf.constant([[2, 0, 3, 1], [1, 0, 3, 2]])
        op = tf.linalg.LinearOperatorPermutation(perm, dtype=x.dtype)
        out = _summary(tf, op, x)
        out["single"] = _summary(tf, tf.linalg.LinearOperatorPermutation(perm[0], dtype=x.dtype), x)
        out["cond"] = op.cond()
        out["traced"] = tf.function(lambda t: op.solve(t))(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(op.matmul(x) * tf.range(4.0, dtype=x.dtype)[:, None])
        out["grad"] = tape.gradient(y, x)
        perm_op = tf.linalg.LinearOperatorPermutation
        out["errors"] = _errors_of({
            "not_perm": lambda: perm_op([0, 0, 1]),
            "float": lambda: perm_op([0.0, 1.0]),
            "singular": lambda: perm_op([0, 1], is_non_singular=False),
            "arg_dtype": lambda: perm_op([0, 1]).matvec(tf.ones([2], "float64")),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64"]))
def test_permutation(tf_oracle, dtype, device):
    x = np.random.default_rng(5).standard_normal((2, 4, 3)).astype(dtype)
    _run(tf_oracle, _permutation, x, device)


def _block_lower_triangular(tf, a, b, c, x, device):
    with tf.device(device):
        a, b, c, x = tf.constant(a), tf.constant(b), tf.constant(c), tf.constant(x)
        full = tf.linalg.LinearOperatorFullMatrix
        diag = tf.linalg.LinearOperatorDiag(tf.linalg.diag_part(c[..., :2, :2]))
        ops = [
            [full(a)],
            [full(b), diag],
            [full(c[..., :, :2]), full(b[..., :, :2] * 0.5), full(c)],
        ]
        op = tf.linalg.LinearOperatorBlockLowerTriangular(ops[:2])
        out = _summary(tf, op, x[..., :4, :])
        three = tf.linalg.LinearOperatorBlockLowerTriangular(ops)
        out["three"] = _summary(tf, three, x)
        out["blockwise"] = (
            three.matmul([x[..., :2, :], x[..., 2:4, :], x[..., 4:, :]]),
            three.solvevec([x[..., :2, 0], x[..., 2:4, 0], x[..., 4:, 0]]),
            three.solve([x[..., :2, :], x[..., 2:4, :], x[..., 4:, :]], adjoint=True),
        )
        out["eigvals"] = tf.linalg.LinearOperatorBlockLowerTriangular(
            [[full(a + tf.linalg.adjoint(a), is_self_adjoint=True)]]
        ).eigvals()
        out["traced"] = tf.function(
            lambda t: tf.linalg.LinearOperatorBlockLowerTriangular(
                [[full(t)], [full(b), diag]]
            ).solve(x[..., :4, :])
        )(a)
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(
                tf.linalg.LinearOperatorBlockLowerTriangular([[full(a)], [full(b), diag]]).solve(
                    x[..., :4, :]
                )
            )
        out["grad"] = tape.gradient(y, [a, b])
        blt = tf.linalg.LinearOperatorBlockLowerTriangular
        out["errors"] = _errors_of({
            "count": lambda: blt([[full(a)], [diag]]),
            "dims": lambda: blt([[full(a)], [full(c), diag]]),
            "empty": lambda: blt([]),
            "square": lambda: blt([[full(a)]], is_square=False),
        })  # fmt: skip
        return out


@pytest.mark.parametrize("dtype, device", _cases(["float32", "float64"]))
def test_block_lower_triangular(tf_oracle, dtype, device):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal((2, 2, 2)) + 3 * np.eye(2)).astype(dtype)
    b = rng.standard_normal((2, 2)).astype(dtype)
    c = (rng.standard_normal((2, 2)) + 3 * np.eye(2)).astype(dtype)
    x = rng.standard_normal((2, 6, 2)).astype(dtype)
    _run(tf_oracle, _block_lower_triangular, a, b, c, x, device)
