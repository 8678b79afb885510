"""tf.linalg operators against TensorFlow: the hint and shape errors of each constructor and
method, the operator algebra (which class `matmul`/`solve`/`inverse`/`cholesky`/`adjoint`
return, with which hints), the tf.linalg functions that dispatch on operators, block-wise
arguments, batch slicing, variables and tf.function boundaries."""

import numpy as np
import pytest

DEVICES = ["CPU:0", "GPU:0"]


def _errors_program(tf):
    la = tf.linalg
    m = tf.constant([[2.0, 1.0], [0.5, 3.0]])
    wide = tf.ones([2, 3])
    d = tf.constant([1.0, 2.0])
    full = la.LinearOperatorFullMatrix(m)
    pd = la.LinearOperatorFullMatrix(m, is_self_adjoint=True, is_positive_definite=True)
    cases = {
        "pd_singular": lambda: la.LinearOperatorFullMatrix(
            m, is_positive_definite=True, is_non_singular=False
        ),
        "nonsingular_nonsquare": lambda: la.LinearOperatorFullMatrix(
            m, is_non_singular=True, is_square=False
        ),
        "selfadjoint_nonsquare": lambda: la.LinearOperatorFullMatrix(
            m, is_self_adjoint=True, is_square=False
        ),
        "square_hint_false": lambda: la.LinearOperatorFullMatrix(m, is_square=False).is_square,
        "wide_square": lambda: la.LinearOperatorFullMatrix(wide, is_square=True).is_square,
        "full_int": lambda: la.LinearOperatorFullMatrix([[1, 2], [3, 4]]),
        "full_vector": lambda: la.LinearOperatorFullMatrix([1.0, 2.0]),
        "diag_not_self_adjoint": lambda: la.LinearOperatorDiag(d, is_self_adjoint=False),
        "diag_not_square": lambda: la.LinearOperatorDiag(d, is_square=False),
        "diag_scalar": lambda: la.LinearOperatorDiag(1.0),
        "identity_not_pd": lambda: la.LinearOperatorIdentity(3, is_positive_definite=False),
        "identity_negative": lambda: la.LinearOperatorIdentity(-1),
        "identity_float": lambda: la.LinearOperatorIdentity(2.5),
        "identity_vector": lambda: la.LinearOperatorIdentity([2]),
        "identity_batch_negative": lambda: la.LinearOperatorIdentity(3, batch_shape=[-1]),
        "identity_batch_scalar": lambda: la.LinearOperatorIdentity(3, batch_shape=2),
        "identity_variable": lambda: la.LinearOperatorIdentity(tf.Variable(3)),
        "scaled_not_square": lambda: la.LinearOperatorScaledIdentity(3, 1.0, is_square=False),
        "scaled_not_sa": lambda: la.LinearOperatorScaledIdentity(3, 1.0, is_self_adjoint=False),
        "tril_not_square": lambda: la.LinearOperatorLowerTriangular(m, is_square=False),
        "tril_vector": lambda: la.LinearOperatorLowerTriangular(d),
        "composition_empty": lambda: la.LinearOperatorComposition([]),
        "composition_dtypes": lambda: la.LinearOperatorComposition(
            [full, la.LinearOperatorIdentity(2, dtype=tf.float64)]
        ),
        "composition_singular_hint": lambda: la.LinearOperatorComposition(
            [pd, pd], is_non_singular=False
        ),
        "composition_aat_not_sa": lambda: la.LinearOperatorComposition(
            [pd, pd], is_self_adjoint=False
        ),
        "composition_shapes": lambda: (
            la.LinearOperatorComposition(
                [la.LinearOperatorFullMatrix(wide), la.LinearOperatorFullMatrix(wide)]
            ).shape
        ),
        "adjoint_contradiction": lambda: la.LinearOperatorAdjoint(pd, is_non_singular=False),
        "adjoint_square": lambda: la.LinearOperatorAdjoint(pd, is_square=False),
        "inversion_singular": lambda: la.LinearOperatorInversion(
            la.LinearOperatorFullMatrix(m, is_non_singular=False)
        ),
        "inversion_nonsquare": lambda: la.LinearOperatorInversion(full, is_square=False),
        "zeros_nonsingular": lambda: la.LinearOperatorZeros(3, is_non_singular=True),
        "zeros_rect_square": lambda: la.LinearOperatorZeros(2, 3),
        "zeros_not_sa": lambda: la.LinearOperatorZeros(3, is_self_adjoint=False),
        "zeros_assert": lambda: la.LinearOperatorZeros(3).assert_non_singular(),
        "zeros_pd": lambda: la.LinearOperatorZeros(3).assert_positive_definite(),
        "lru_diag_positive": lambda: la.LinearOperatorLowRankUpdate(
            pd, tf.ones([2, 1]), is_diag_update_positive=False
        ),
        "lru_shapes": lambda: la.LinearOperatorLowRankUpdate(pd, tf.ones([3, 1])),
        "lru_diag_shape": lambda: la.LinearOperatorLowRankUpdate(
            pd, tf.ones([2, 1]), diag_update=tf.ones([2])
        ),
        "lru_pd_hint": lambda: la.LinearOperatorLowRankUpdate(
            pd, tf.ones([2, 1]), is_positive_definite=False
        ),
        "lru_sa_hint": lambda: la.LinearOperatorLowRankUpdate(
            pd, tf.ones([2, 1]), is_self_adjoint=False
        ),
        "block_empty": lambda: la.LinearOperatorBlockDiag([]),
        "block_dtypes": lambda: la.LinearOperatorBlockDiag(
            [full, la.LinearOperatorIdentity(2, dtype=tf.float64)]
        ),
        "block_pd_hint": lambda: la.LinearOperatorBlockDiag([pd, pd], is_positive_definite=False),
        "matmul_dims": lambda: full.matmul(tf.ones([3, 1])),
        "matmul_dtype": lambda: full.matmul(tf.ones([2, 1], tf.float64)),
        "matmul_rank1": lambda: full.matmul(tf.ones([2])),
        "matvec_dims": lambda: full.matvec(tf.ones([3])),
        "solve_dims": lambda: full.solve(tf.ones([3, 1])),
        "solvevec_dtype": lambda: full.solvevec(tf.ones([2], tf.float64)),
        "add_dtype": lambda: full.add_to_tensor(tf.ones([2, 2], tf.float64)),
        "det_nonsquare": lambda: la.LinearOperatorFullMatrix(wide, is_square=False).determinant(),
        "logdet_nonsquare": lambda: la.LinearOperatorFullMatrix(wide).log_abs_determinant(),
        "solve_nonsquare": lambda: la.LinearOperatorFullMatrix(wide).solve(tf.ones([2, 1])),
        "solve_singular": lambda: la.LinearOperatorFullMatrix(m, is_non_singular=False).solve(m),
        "inverse_nonsquare": lambda: la.LinearOperatorFullMatrix(wide).inverse(),
        "cholesky_no_hints": lambda: full.cholesky(),
        "eigvals_not_sa": lambda: full.eigvals(),
        "operator_dims": lambda: full.matmul(la.LinearOperatorIdentity(3)),
        "operator_solve_dims": lambda: full.solve(la.LinearOperatorIdentity(3)),
        "block_blocks_differ": lambda: la.LinearOperatorBlockDiag([pd, pd]).matmul(
            la.LinearOperatorBlockDiag([la.LinearOperatorIdentity(4)])
        ),
        "block_tuple": lambda: la.LinearOperatorBlockDiag(
            [pd, la.LinearOperatorDiag([1.0])]
        ).matmul((tf.ones([2, 1]), tf.ones([1, 1]))),
        "block_nested_lists": lambda: la.LinearOperatorBlockDiag(
            [pd, la.LinearOperatorDiag([1.0])]
        ).matvec([[1.0, 2.0], [3.0]]),
        "block_ambiguous": lambda: la.LinearOperatorBlockDiag([pd, pd]).matmul(
            [[1.0, 2.0], [3.0, 4.0]]
        ),
        "logdet_not_pd": lambda: la.logdet(full),
        "solve_tensor_operator": lambda: la.solve(m, full),
        "matmul_transpose": lambda: tf.matmul(full, m, transpose_a=True),
        "diag_assert_singular": lambda: la.LinearOperatorDiag([1.0, 0.0]).assert_non_singular(),
        "diag_assert_pd": lambda: la.LinearOperatorDiag([1.0, -1.0]).assert_positive_definite(),
        "scaled_assert_singular": lambda: la.LinearOperatorScaledIdentity(
            2, 0.0
        ).assert_non_singular(),
        "full_assert_sa": lambda: full.assert_self_adjoint(),
        "full_assert_singular": lambda: la.LinearOperatorFullMatrix(
            tf.ones([2, 2])
        ).assert_non_singular(),
        "pd_assert_pd": lambda: la.LinearOperatorFullMatrix(
            tf.constant([[1.0, 2.0], [2.0, 1.0]]), is_self_adjoint=True
        ).assert_positive_definite(),
        "slice_no_batch": lambda: la.LinearOperatorDiag(d)[0],
        "slice_out_of_range": lambda: la.LinearOperatorDiag(tf.ones([2, 2]))[5],
        "convert": lambda: tf.convert_to_tensor(full),
        "add_number": lambda: full + 1.0,
        "identity_proper_shapes": lambda: la.LinearOperatorIdentity(
            3, assert_proper_shapes=True
        ).matmul(tf.ones([3, 1])),
    }
    out = {}
    for name, fn in cases.items():
        try:
            value = fn()
            out[name] = value if isinstance(value, (bool, type(None))) else "ok"
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out


def test_errors(tf_oracle):
    _assert_ran(tf_oracle, _errors_program)


def _describe_result(tf, value):
    """A result's class, hints and dense form (or the class of what it raised)."""
    if not isinstance(value, tf.linalg.LinearOperator):
        return value
    hints = [value.is_non_singular, value.is_self_adjoint, value.is_positive_definite]
    return [type(value).__name__, hints, value.is_square, value.to_dense()]


def _algebra_program(tf, device, dtype):
    la = tf.linalg
    with tf.device(device):
        m = tf.constant([[2.0, 1.0, 0.0], [0.5, 3.0, 0.2], [0.1, 0.3, 4.0]], dtype)
        spd = tf.matmul(m, m, adjoint_b=True)
        d = tf.constant([1.5, 2.0, 3.0], dtype)
        x = tf.reshape(tf.range(6, dtype=dtype), [3, 2]) / 4.0
        full = la.LinearOperatorFullMatrix(m)
        pd = la.LinearOperatorFullMatrix(spd, is_self_adjoint=True, is_positive_definite=True)
        diag = la.LinearOperatorDiag(d)
        diag_pd = la.LinearOperatorDiag(d, is_positive_definite=True)
        scaled = la.LinearOperatorScaledIdentity(3, tf.constant(2.0, dtype))
        ident = la.LinearOperatorIdentity(3, dtype=dtype)
        zeros = la.LinearOperatorZeros(3, dtype=dtype)
        tril = la.LinearOperatorLowerTriangular(m, is_non_singular=True)
        block = la.LinearOperatorBlockDiag(
            [la.LinearOperatorFullMatrix(m[:2, :2]), la.LinearOperatorDiag(d[:1])]
        )
        block_pd = la.LinearOperatorBlockDiag(
            [
                la.LinearOperatorFullMatrix(
                    spd[:2, :2], is_self_adjoint=True, is_positive_definite=True
                ),
                la.LinearOperatorDiag(d[:1], is_positive_definite=True),
            ]
        )
        results = {
            "diag@diag": lambda: diag @ diag_pd,
            "diag@scaled": lambda: diag.matmul(scaled),
            "diag@tril": lambda: diag.matmul(tril),
            "diag@full": lambda: diag.matmul(full),
            "diag_adj@full_adj": lambda: diag.matmul(full, adjoint=True, adjoint_arg=True),
            "scaled@scaled": lambda: scaled.matmul(scaled),
            "scaled@diag": lambda: scaled.matmul(diag),
            "scaled@full": lambda: scaled.matmul(full),
            "ident@full": lambda: ident.matmul(full),
            "full@ident": lambda: full.matmul(ident),
            "zeros@full": lambda: zeros.matmul(full),
            "full@zeros": lambda: full.matmul(zeros),
            "tril@diag": lambda: tril.matmul(diag),
            "tril@full": lambda: tril.matmul(full),
            "block@block": lambda: block.matmul(block),
            "block.solve(block)": lambda: block.solve(block),
            "diag.solve(diag)": lambda: diag.solve(diag_pd),
            "diag.solve(scaled)": lambda: diag.solve(scaled),
            "diag.solve(tril)": lambda: diag.solve(tril),
            "scaled.solve(diag)": lambda: scaled.solve(diag),
            "scaled.solve(scaled)": lambda: scaled.solve(scaled),
            "full.solve(full)": lambda: full.solve(full),
            "full.solve(ident)": lambda: full.solve(ident),
            "ident.solve(full)": lambda: ident.solve(full),
            "inv.solve(full)": lambda: full.inverse().solve(full),
            "pd.solve(pd)": lambda: pd.solve(pd),
            "diag.inverse": lambda: diag.inverse(),
            "diag_pd.cholesky": lambda: diag_pd.cholesky(),
            "scaled.inverse": lambda: scaled.inverse(),
            "scaled_pd.cholesky": lambda: la.LinearOperatorScaledIdentity(
                3, tf.constant(4.0, dtype), is_positive_definite=True
            ).cholesky(),
            "pd.cholesky": lambda: pd.cholesky(),
            "block_pd.cholesky": lambda: block_pd.cholesky(),
            "block.inverse": lambda: block.inverse(),
            "block.adjoint": lambda: block.adjoint(),
            "tril_composition.cholesky": lambda: la.LinearOperatorComposition(
                [
                    la.LinearOperatorLowerTriangular(-m, is_self_adjoint=False),
                    la.LinearOperatorLowerTriangular(-m, is_self_adjoint=False).adjoint(),
                ],
                is_self_adjoint=True,
                is_positive_definite=True,
            ).cholesky(),
            "pd_pair": lambda: la.LinearOperatorComposition([pd, pd]),
            "adjoint.adjoint": lambda: full.adjoint().adjoint(),
            "inversion.inverse": lambda: la.LinearOperatorInversion(full).inverse(),
            "lru_pd": lambda: la.LinearOperatorLowRankUpdate(
                diag_pd, x, diag_update=tf.constant([1.0, 2.0], dtype)
            ),
            "lru_pd_inverse": lambda: la.LinearOperatorLowRankUpdate(diag_pd, x).inverse(),
            "lru_pd_cholesky": lambda: la.LinearOperatorLowRankUpdate(diag_pd, x).cholesky(),
            "la.adjoint": lambda: la.adjoint(full),
            "la.inv": lambda: la.inv(diag),
            "la.inv_adjoint": lambda: la.inv(full, adjoint=True),
            "la.cholesky": lambda: la.cholesky(pd),
            "la.det": lambda: la.det(full),
            "la.logdet": lambda: la.logdet(pd),
            "la.trace": lambda: la.trace(diag),
            "la.diag_part": lambda: la.diag_part(full),
            "tf.matmul(op, x)": lambda: tf.matmul(full, x),
            "tf.matmul(x, op)": lambda: tf.matmul(tf.transpose(x), full),
            "tf.matmul(op, op)": lambda: tf.matmul(full, diag),
            "la.matmul adjoints": lambda: la.matmul(full, x, adjoint_a=True),
            "x @ op": lambda: tf.transpose(x) @ full,
            "la.solve": lambda: la.solve(full, x),
            "block.matmul(list)": lambda: block.matmul([x[:2], x[2:]]),
            "block.matvec(list)": lambda: block.matvec([x[:2, 0], x[2:, 0]]),
            "block.solve(list)": lambda: block.solve([x[:2], x[2:]]),
            "block.solvevec(list)": lambda: block.solvevec([x[:2, 0], x[2:, 0]]),
            "block.solve(list, adjoint)": lambda: block.solve([x[:2], x[2:]], adjoint=True),
            "block.matmul(tensor)": lambda: block.matmul(x),
        }
        out = {}
        for name, fn in results.items():
            try:
                out[name] = _describe_result(tf, fn())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out[name] = type(e).__name__
        return out


def _assert_ran(oracle, program, *args, **kwargs):
    from .harness import assert_parity

    expected = assert_parity(oracle, program, *args, **kwargs)
    assert expected[0] != "raised", expected


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_algebra(tf_oracle, device, dtype):
    rtol = 2e-5 if dtype == "float32" else 1e-12
    _assert_ran(
        tf_oracle,
        _algebra_program,
        (device, dtype),
        helpers=[_describe_result],
        rtol=rtol,
        atol=rtol,
    )


def _composite_program(tf, values):
    la = tf.linalg
    out = {}
    v = tf.Variable(values["d"])
    op = la.LinearOperatorDiag(v)
    m = tf.Variable(values["m"])
    composed = la.LinearOperatorComposition([la.LinearOperatorFullMatrix(m), op])
    out["trainable"] = [w.shape.as_list() for w in composed.trainable_variables]
    out["flat_variables"] = [
        type(t).__name__.endswith("Variable") for t in tf.nest.flatten(op, expand_composites=True)
    ]
    out["full_variable"] = la.LinearOperatorFullMatrix(m).to_dense()
    out["parameters"] = sorted(op.parameters)
    out["names"] = [
        op.name,
        op.adjoint().name,
        la.LinearOperatorInversion(la.LinearOperatorFullMatrix(values["m"])).name,
        la.LinearOperatorComposition([op, op]).name,
        la.LinearOperatorBlockDiag([op, op]).name,
    ]

    @tf.function
    def loss_fn(o, x):
        return tf.reduce_sum(o.solvevec(x) ** 2), o.to_dense()

    with tf.GradientTape() as tape:
        loss, dense = loss_fn(op, tf.constant(values["x"]))
    out["loss"] = loss
    out["dense"] = dense
    out["grad"] = tape.gradient(loss, v)

    @tf.function
    def make(d):
        return la.LinearOperatorDiag(d).inverse()

    diag = tf.constant(values["d"])
    u = tf.constant(values["u"])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([diag, u])
        target = la.LinearOperatorLowRankUpdate(
            la.LinearOperatorDiag(diag, is_positive_definite=True), u
        )
        target_loss = tf.reduce_sum(target.to_dense() ** 2)
    grad_op = tape.gradient(target_loss, target)
    out["operator_grad"] = [
        type(grad_op).__name__,
        type(grad_op.base_operator).__name__,
        grad_op.base_operator.diag,
        grad_op.u,
    ]
    out["operator_grad_none"] = tape.gradient(target_loss, la.LinearOperatorDiag(diag))
    made = make(tf.constant(values["d"]))
    out["returned"] = [type(made).__name__, made.to_dense()]
    lru = la.LinearOperatorLowRankUpdate(
        la.LinearOperatorDiag(values["d"], is_positive_definite=True), values["u"]
    )
    out["lru_traced"] = tf.function(lambda o: (o.to_dense(), o.log_abs_determinant()))(lru)
    block = la.LinearOperatorBlockDiag(
        [la.LinearOperatorFullMatrix(values["m"]), la.LinearOperatorIdentity(2)]
    )
    out["block_traced"] = tf.function(lambda o: o.matvec(tf.ones([5])))(block)
    batch = la.LinearOperatorFullMatrix(values["batch"])
    out["slices"] = [
        batch[0].to_dense(),
        batch[1:].to_dense(),
        batch[..., 0].shape.as_list(),
        la.LinearOperatorIdentity(2, batch_shape=[4, 3])[1:, 0].shape.as_list(),
        la.LinearOperatorDiag(values["bd"])[:, None].to_dense(),
        la.LinearOperatorComposition([batch, la.LinearOperatorDiag(values["d"])])[1].to_dense(),
    ]

    @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.float32)])
    def unknown(x):
        op = la.LinearOperatorFullMatrix(x)
        ident = la.LinearOperatorIdentity(tf.shape(x)[-1])
        return [
            op.to_dense(),
            op.shape_tensor(),
            op.batch_shape_tensor(),
            op.matmul(x, adjoint=True),
            op.solve(tf.ones([3, 1])),
            op.determinant(),
            ident.matmul(x),
            ident.to_dense(),
            la.LinearOperatorComposition([op, op]).shape_tensor(),
        ]

    out["unknown_shapes"] = unknown(tf.constant(values["batch"]))

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, 3, 3], tf.float32),
            tf.TensorSpec([None, 3], tf.float32),
        ]
    )
    def sliced(m, d):
        full = la.LinearOperatorFullMatrix(m)
        comp = la.LinearOperatorComposition([full, la.LinearOperatorDiag(d)])
        i = tf.constant(1)
        return [
            full[1].to_dense(),
            full[1:].to_dense(),
            comp[1].to_dense(),
            comp[:1].to_dense(),
            comp[..., i].to_dense(),
        ]

    out["unknown_slices"] = sliced(tf.constant(values["batch"]), tf.constant(values["d"][None]))
    traces = []

    @tf.function
    def dense(o):
        traces.append(type(o).__name__)
        return o.to_dense()

    for o in [
        la.LinearOperatorDiag([1.0, 2.0]),
        la.LinearOperatorDiag([3.0, 4.0]),
        la.LinearOperatorDiag([3.0, 4.0], is_positive_definite=True),
        la.LinearOperatorDiag([3.0, 4.0, 5.0]),
        la.LinearOperatorIdentity(2),
        la.LinearOperatorIdentity(2),
        la.LinearOperatorIdentity(3),
    ]:
        dense(o)
    out["traces"] = traces

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def proper(x):
        return [
            la.LinearOperatorIdentity(3, assert_proper_shapes=True).matmul(x),
            la.LinearOperatorScaledIdentity(3, 2.0, assert_proper_shapes=True).solve(x),
        ]

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def sized(n):
        return la.LinearOperatorIdentity(n, assert_proper_shapes=True).to_dense()

    checks = []
    for fn, arg in [(proper, tf.ones([3, 2])), (proper, tf.ones([4, 2])), (sized, -1)]:
        try:
            checks.append(fn(arg))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            checks.append(type(e).__name__)
    out["proper_shapes"] = checks
    ds = tf.data.Dataset.from_tensors(batch).map(lambda o: o.inverse())
    out["dataset"] = [o.to_dense() for o in ds]
    try:
        out["dataset_slices"] = [o.to_dense() for o in tf.data.Dataset.from_tensor_slices(batch)]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out["dataset_slices"] = type(e).__name__
    signed = tf.function(
        lambda o: o.inverse().to_dense(),
        input_signature=[la.LinearOperatorDiag([1.0, 2.0])._type_spec],
    )
    signed_out = [signed(la.LinearOperatorDiag([4.0, 8.0]))]
    for other in (la.LinearOperatorDiag([4.0, 8.0, 1.0]), la.LinearOperatorIdentity(2)):
        try:
            signed_out.append(signed(other))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            signed_out.append(type(e).__name__)
    out["input_signature"] = signed_out
    same = tf.identity(lru)
    out["identity"] = [type(same).__name__, same.to_dense()]
    out["flat"] = [t.shape.as_list() for t in tf.nest.flatten(lru, expand_composites=True)]
    return out


def test_composite(tf_oracle):
    rng = np.random.default_rng(1)
    values = {
        "d": np.array([1.0, 2.0, 4.0], np.float32),
        "x": np.array([1.0, -1.0, 0.5], np.float32),
        "m": (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32),
        "u": rng.standard_normal((3, 2)).astype(np.float32),
        "batch": rng.standard_normal((2, 3, 3)).astype(np.float32),
        "bd": rng.standard_normal((2, 3)).astype(np.float32),
    }
    _assert_ran(tf_oracle, _composite_program, (values,), rtol=1e-5)


def _subclass_program(tf, matrix):
    """A user's subclass defining only _shape and _matmul: every other method is the base
    class's dense default."""

    class Scaled(tf.linalg.LinearOperator):
        def __init__(self, m, **hints):
            self._m = tf.convert_to_tensor(m)
            super().__init__(dtype=self._m.dtype, parameters=dict(m=m), **hints)

        def _shape(self):
            return self._m.shape

        def _matmul(self, x, adjoint=False, adjoint_arg=False):
            return tf.linalg.matmul(2.0 * self._m, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    x = tf.ones([3, 2], tf.float64)
    methods = {
        "dense": lambda o: o.to_dense(),
        "solve": lambda o: o.solve(x),
        "solve_adj": lambda o: o.solve(x, adjoint=True),
        "det": lambda o: o.determinant(),
        "logdet": lambda o: o.log_abs_determinant(),
        "trace": lambda o: o.trace(),
        "diag": lambda o: o.diag_part(),
        "cond": lambda o: o.cond(),
        "eigvals": lambda o: o.eigvals(),
        "inverse": lambda o: o.inverse().to_dense(),
        "cholesky": lambda o: o.cholesky().to_dense(),
        "adjoint": lambda o: o.adjoint().to_dense(),
        "assert_ns": lambda o: o.assert_non_singular(),
        "assert_pd": lambda o: o.assert_positive_definite(),
        "assert_sa": lambda o: o.assert_self_adjoint(),
        "matvec": lambda o: o.matvec(x[:, 0]),
        "traced": lambda o: tf.function(lambda p: p.to_dense())(o),
    }
    spd = tf.matmul(matrix, matrix, transpose_b=True)
    out = {}
    for name, op in {
        "plain": Scaled(matrix),
        "spd": Scaled(spd, is_self_adjoint=True, is_positive_definite=True),
    }.items():
        results = {}
        for key, fn in methods.items():
            try:
                results[key] = fn(op)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                results[key] = type(e).__name__
        out[name] = results
    parents = []
    for graph_parents in ([matrix], [1.0]):
        try:
            parents.append(len(Scaled(matrix, graph_parents=graph_parents).graph_parents))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            parents.append(type(e).__name__)
    out["graph_parents"] = parents
    return out


def test_subclass_defaults(tf_oracle):
    matrix = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 0.2], [0.1, 0.3, 4.0]], np.float64)
    _assert_ran(tf_oracle, _subclass_program, (matrix,), rtol=1e-10, atol=1e-12)


def _complex_program(tf, c):
    la = tf.linalg
    m = tf.constant(c)
    ops = {
        "diag": la.LinearOperatorDiag(m[0]),
        "full": la.LinearOperatorFullMatrix(m),
        "scaled": la.LinearOperatorScaledIdentity(3, m[0, 0]),
        "tril": la.LinearOperatorLowerTriangular(m),
        "lru": la.LinearOperatorLowRankUpdate(
            la.LinearOperatorFullMatrix(m), m[:, :2], diag_update=m[1, :2]
        ),
        "adjoint": la.LinearOperatorAdjoint(la.LinearOperatorFullMatrix(m)),
    }
    out = {}
    for name, op in ops.items():
        out[name] = [
            op.to_dense(),
            op.adjoint().to_dense(),
            op.determinant(),
            op.log_abs_determinant(),
            op.trace(),
            op.solve(m, adjoint=True),
            op.matmul(m, adjoint=True, adjoint_arg=True),
            op.matvec(m[0], adjoint=True),
            [op.is_self_adjoint, op.adjoint().is_self_adjoint, type(op.inverse()).__name__],
        ]
    return out


def test_complex(tf_oracle):
    rng = np.random.default_rng(2)
    c = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3)
    _assert_ran(tf_oracle, _complex_program, (c.astype(np.complex128),), rtol=1e-10, atol=1e-12)
