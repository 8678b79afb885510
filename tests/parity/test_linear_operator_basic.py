"""tf.linalg.LinearOperator and its first subclasses against TensorFlow: every operator's
dense form, products, solves, determinants, shapes, algebra result types, gradients through
its parameters and a traced call, on both devices in float32 and float64 with a batch."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

# Operators built by `_build` (a helper the programs share): name -> what it constructs.
CASES = [
    "full",
    "full_pd",
    "diag",
    "identity",
    "scaled_identity",
    "lower_triangular",
    "composition",
    "adjoint",
    "inversion",
    "zeros",
    "low_rank_update",
    "low_rank_update_v",
    "block_diag",
]


def _build(tf, case, p):
    """The operator `case` over the parameter tensors `p` (a dict)."""
    la = tf.linalg
    if case == "full":
        return la.LinearOperatorFullMatrix(p["m"])
    if case == "full_pd":
        return la.LinearOperatorFullMatrix(
            p["spd"], is_self_adjoint=True, is_positive_definite=True
        )
    if case == "diag":
        return la.LinearOperatorDiag(p["d"])
    if case == "identity":
        return la.LinearOperatorIdentity(3, batch_shape=[2], dtype=p["m"].dtype)
    if case == "scaled_identity":
        return la.LinearOperatorScaledIdentity(3, p["s"])
    if case == "lower_triangular":
        return la.LinearOperatorLowerTriangular(p["m"])
    if case == "composition":
        return la.LinearOperatorComposition(
            [la.LinearOperatorFullMatrix(p["m"]), la.LinearOperatorDiag(p["d"])]
        )
    if case == "adjoint":
        return la.LinearOperatorAdjoint(la.LinearOperatorFullMatrix(p["m"]))
    if case == "inversion":
        return la.LinearOperatorInversion(la.LinearOperatorFullMatrix(p["m"]))
    if case == "zeros":
        return la.LinearOperatorZeros(3, batch_shape=[2], dtype=p["m"].dtype)
    if case == "low_rank_update":
        base = la.LinearOperatorDiag(p["d"], is_positive_definite=True)
        return la.LinearOperatorLowRankUpdate(
            base, p["u"], diag_update=p["du"], is_diag_update_positive=True
        )
    if case == "low_rank_update_v":
        return la.LinearOperatorLowRankUpdate(la.LinearOperatorFullMatrix(p["m"]), p["u"], v=p["v"])
    if case == "block_diag":
        return la.LinearOperatorBlockDiag(
            [la.LinearOperatorFullMatrix(p["m"][..., :2, :2]), la.LinearOperatorDiag(p["d"])]
        )
    raise ValueError(case)


def _params(dtype):
    rng = np.random.default_rng(0)
    m = rng.standard_normal((2, 3, 3)) + 4.0 * np.eye(3)
    a = rng.standard_normal((2, 3, 3))
    return {
        "m": m.astype(dtype),
        "spd": (a @ a.transpose(0, 2, 1) + 3.0 * np.eye(3)).astype(dtype),
        "d": rng.uniform(1.0, 2.0, (2, 3)).astype(dtype),
        "s": np.array([1.5, -2.0], dtype),
        "u": (0.5 * rng.standard_normal((2, 3, 2))).astype(dtype),
        "v": (0.5 * rng.standard_normal((2, 3, 2))).astype(dtype),
        "du": rng.uniform(1.0, 2.0, (2, 2)).astype(dtype),
    }


def _describe(tf, op):
    """Everything an operator computes, errors as their class names."""

    def attempt(fn):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    def kind(fn):
        return attempt(lambda: type(fn()).__name__)

    n = int(op.shape[-1])
    x = tf.reshape(tf.range(2 * n * 2, dtype=op.dtype), [2, n, 2]) / 7.0 - 0.5
    x2 = x[0]  # no batch dims: broadcast against the operator's
    vec = x[..., 0]
    return {
        "dense": op.to_dense(),
        "shape": op.shape.as_list(),
        "batch_shape": op.batch_shape.as_list(),
        "shape_tensor": op.shape_tensor(),
        "batch_shape_tensor": op.batch_shape_tensor(),
        "dims": [int(op.domain_dimension), int(op.range_dimension), op.tensor_rank],
        "dim_tensors": [op.domain_dimension_tensor(), op.range_dimension_tensor()],
        "hints": [op.is_non_singular, op.is_self_adjoint, op.is_positive_definite, op.is_square],
        "dtype": op.dtype,
        "matmul": op.matmul(x),
        "matmul_adj": op.matmul(x, adjoint=True),
        "matmul_adj_arg": op.matmul(tf.linalg.adjoint(x), adjoint_arg=True),
        "matmul_bcast": attempt(lambda: op.matmul(x2)),
        "at": op @ x,
        "matvec": op.matvec(vec),
        "matvec_adj": op.matvec(vec, adjoint=True),
        "solve": attempt(lambda: op.solve(x)),
        "solve_adj": attempt(lambda: op.solve(x, adjoint=True)),
        "solve_adj_arg": attempt(lambda: op.solve(tf.linalg.adjoint(x), adjoint_arg=True)),
        "solve_bcast": attempt(lambda: op.solve(x2)),
        "solvevec": attempt(lambda: op.solvevec(vec)),
        "det": attempt(op.determinant),
        "logdet": attempt(op.log_abs_determinant),
        "trace": op.trace(),
        "diag_part": op.diag_part(),
        "add_to_tensor": op.add_to_tensor(x[..., :1] * tf.ones([n], op.dtype)),
        "inverse": kind(op.inverse),
        "adjoint": kind(op.adjoint),
        "cholesky": kind(op.cholesky),
        "H": kind(lambda: op.H),
        "inverse_dense": attempt(lambda: op.inverse().to_dense()),
        "cholesky_dense": attempt(lambda: op.cholesky().to_dense()),
        "adjoint_dense": op.adjoint().to_dense(),
        "eigvals": attempt(op.eigvals),
        "slice": attempt(lambda: op[1].to_dense()),
        "traced": tf.function(lambda o, t: (o.matmul(t), o.to_dense()))(op, x),
        "flat": len(tf.nest.flatten(op, expand_composites=True)),
    }


def _operator_program(tf, cases, params, device):
    with tf.device(device):
        p = {k: tf.constant(v) for k, v in params.items()}
        return {case: _describe(tf, _build(tf, case, p)) for case in cases}


def _gradient_program(tf, cases, params, device):
    out = {}
    with tf.device(device):
        p = {k: tf.constant(v) for k, v in params.items()}
        for case in cases:
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(list(p.values()))
                op = _build(tf, case, p)
                n = int(op.shape[-1])
                x = tf.reshape(tf.range(2 * n * 2, dtype=op.dtype), [2, n, 2]) / 7.0 - 0.5
                loss = tf.reduce_sum(op.matmul(x) ** 2)
                loss = loss + tf.reduce_sum(op.trace() * op.diag_part()[..., 0])
                if case != "zeros":
                    loss = loss + tf.reduce_sum(op.solve(x, adjoint=True))
                    loss = loss + tf.reduce_sum(op.log_abs_determinant())
            out[case] = {k: tape.gradient(loss, v) for k, v in p.items()}
    return out


def _assert_ran(*args, **kwargs):
    """assert_parity, and the program must have returned (a program raising under both
    frameworks would agree without testing anything)."""
    expected = assert_parity(*args, **kwargs)
    assert expected[0] != "raised", expected


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_operators(tf_oracle, dtype, device):
    _assert_ran(
        tf_oracle,
        _operator_program,
        (CASES, _params(dtype), device),
        helpers=[_build, _describe],
        rtol=2e-4 if dtype == "float32" else 1e-10,
        atol=1e-5 if dtype == "float32" else 1e-10,
    )


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device):
    _assert_ran(
        tf_oracle,
        _gradient_program,
        (CASES, _params("float64"), device),
        helpers=[_build],
        rtol=1e-8,
        atol=1e-10,
    )
