"""`tf.linalg.experimental`: the conjugate gradient solver, TensorFlow's iteration step for
step (the same updates in the same order, so the iterates and the stopping step match)."""

import collections

from ferroflow import dtypes as _dt
from ferroflow.array_ops import broadcast_to, concat, convert_to_tensor, squeeze, zeros
from ferroflow.array_ops import shape as _shape
from ferroflow.control_flow import while_loop
from ferroflow.linalg import matvec, norm
from ferroflow.manip_ops import broadcast_dynamic_shape
from ferroflow.math import logical_and, reduce_any

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(x, y):
    """``xᴴ y`` along the last axis, as TensorFlow's solver computes it (a matvec)."""
    return squeeze(matvec(x[..., None], y, adjoint_a=True), axis=-1)


def conjugate_gradient(
    operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20, name="conjugate_gradient"
):
    """Solves ``A x = rhs`` for a self-adjoint positive definite `LinearOperator` ``A`` by
    (preconditioned) conjugate gradients; stops after ``max_iter`` steps or once every residual
    norm is at most ``tol`` times its right-hand side's norm. Returns the final
    ``CGState(i, x, r, p, gamma)``.

    >>> import ferroflow as tf
    >>> a = tf.linalg.LinearOperatorFullMatrix(
    ...     [[4.0, 1.0], [1.0, 3.0]], is_self_adjoint=True, is_positive_definite=True)
    >>> tf.linalg.experimental.conjugate_gradient(a, tf.constant([1.0, 2.0])).x.numpy().round(4)
    array([0.0909, 0.6364], dtype=float32)
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    rhs = convert_to_tensor(rhs)

    def keep_going(i, state):
        return logical_and(i < max_iter, reduce_any(norm(state.r, axis=-1) > tol))

    def step(i, state):
        z = operator.matvec(state.p)
        alpha = state.gamma / _dot(state.p, z)
        x = state.x + alpha[..., None] * state.p
        r = state.r - alpha[..., None] * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = _dot(r, q)
        beta = gamma / state.gamma
        p = q + beta[..., None] * state.p
        return i + 1, CGState(i + 1, x, r, p, gamma)

    batch = broadcast_dynamic_shape(_shape(rhs)[:-1], operator.batch_shape_tensor())
    if preconditioner is not None:
        batch = broadcast_dynamic_shape(batch, preconditioner.batch_shape_tensor())
    rhs_shape = concat([batch, _shape(rhs)[-1:]], axis=-1)
    r0 = broadcast_to(rhs, rhs_shape)
    tol = tol * norm(r0, axis=-1)
    if x is None:
        x = zeros(rhs_shape, dtype=rhs.dtype)
    else:
        r0 = rhs - operator.matvec(x)
    p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
    i = convert_to_tensor(0, dtype=_dt.int32)
    state = CGState(i=i, x=x, r=r0, p=p0, gamma=_dot(r0, p0))
    _, state = while_loop(keep_going, step, [i, state])
    return CGState(state.i, x=state.x, r=state.r, p=state.p, gamma=state.gamma)
