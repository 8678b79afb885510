"""`tf.linalg.eigh_tridiagonal`: eigenvalues of a Hermitian tridiagonal matrix by TensorFlow's
bisection on Sturm sequence counts (the same starting interval, tolerance and stopping rule,
so a coarse ``tol`` gives TensorFlow's coarse values), eigenvectors from the dense Hermitian
eigendecomposition.

*Departure:* TensorFlow's eigenvectors come from inverse iteration started at a seeded random
vector; each is defined up to a sign (a phase for complex ``beta``), which ferroflow takes from
the dense decomposition, so ``v`` may differ from TensorFlow's by those factors (``v vᴴ`` and
``|v|`` agree)."""

import numpy as np

from ferroflow import dtypes as _dt
from ferroflow.array_ops import (
    broadcast_to,
    concat,
    convert_to_tensor,
    gather,
    ones,
    stack,
    where,
    zeros,
)
from ferroflow.array_ops import range as _range
from ferroflow.control_flow import while_loop
from ferroflow.math import (
    abs as _abs,
)
from ferroflow.math import (
    cast,
    conj,
    equal,
    logical_and,
    maximum,
    minimum,
    real,
    reduce_max,
    reduce_min,
    sqrt,
    square,
)


def _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each ``x`` (TensorFlow's Sturm recurrence)."""
    n = alpha.shape[0]
    one = ones([], _dt.int32)
    q = alpha[0] - x
    count = where(q < 0, broadcast_to(one, x.shape), zeros(x.shape, _dt.int32))
    q = where(equal(alpha[0], x), alpha0_perturbation, q)
    for i in range(1, n):
        q = alpha[i] - beta_sq[i - 1] / q - x
        low = q <= pivmin
        count = where(low, count + 1, count)
        q = where(low, minimum(q, -pivmin), q)
    return count


def _select_counts(select, select_range, n):
    from ferroflow.check_ops import assert_less, assert_less_equal

    if select == "a":
        return _range(n), None
    if select == "i":
        assert_less_equal(
            select_range[0], select_range[1], message="Got empty index range in select_range."
        )
        return _range(select_range[0], select_range[1] + 1), None
    if select == "v":
        assert_less(select_range[0], select_range[1], message="Got empty interval in select_range.")
        return None, select_range
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")


def _eigenvalues(alpha, beta, select, select_range, tol):
    n = alpha.shape[0]
    if alpha.dtype.is_complex:
        alpha = real(alpha)
        beta_sq = real(conj(beta) * beta)
        beta_abs = sqrt(beta_sq)
    else:
        beta_sq = square(beta)
        beta_abs = _abs(beta)
    finfo = np.finfo(alpha.dtype.as_numpy_dtype)
    # Gershgorin bounds on the spectrum.
    row_sum = concat([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    est_max = minimum(finfo.max, reduce_max(alpha + row_sum))
    est_min = maximum(finfo.min, reduce_min(alpha - row_sum))
    t_norm = maximum(_abs(est_min), _abs(est_max))
    one = np.ones([], dtype=alpha.dtype.as_numpy_dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * maximum(one, reduce_max(beta_sq))
    alpha0_perturbation = square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol:
        abs_tol = maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    target_counts, value_range = _select_counts(select, select_range, n)
    fudge = 2.1
    norm_slack = cast(n, alpha.dtype) * fudge * finfo.eps * t_norm
    if value_range is None:
        lower = est_min - norm_slack - 2 * fudge * pivmin
        upper = est_max + norm_slack + fudge * pivmin
    else:
        lower = value_range[0] - norm_slack - 2 * fudge * pivmin
        upper = value_range[1] + norm_slack + fudge * pivmin
        first = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, lower)
        last = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, upper)
        target_counts = _range(first, last)
    upper = minimum(upper, finfo.max)
    lower = maximum(lower, finfo.min)
    shape = target_counts.shape
    lower, upper = broadcast_to(lower, shape), broadcast_to(upper, shape)
    pivmin = broadcast_to(pivmin, shape)
    alpha0_perturbation = broadcast_to(alpha0_perturbation, shape)

    def more(i, lower, upper):
        return logical_and(i < max_it, abs_tol < reduce_max(upper - lower))

    def step(i, lower, upper):
        mid = 0.5 * lower + 0.5 * upper
        counts = _sturm(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = where(counts <= target_counts, mid, lower)
        upper = where(counts > target_counts, mid, upper)
        return i + 1, lower, upper

    _, lower, upper = while_loop(more, step, [0, lower, upper])
    return 0.5 * lower + 0.5 * upper, target_counts


def _dense(alpha, beta):
    """The Hermitian tridiagonal matrix: ``beta`` above the diagonal, its conjugate below."""
    from ferroflow.linalg_diagonals import diag

    zero = zeros([1], beta.dtype)
    main = cast(real(alpha), beta.dtype)
    bands = stack([concat([beta, zero], 0), main, concat([zero, conj(beta)], 0)], 0)
    n = alpha.shape[0]
    return diag(bands, k=(-1, 1), num_rows=n, num_cols=n, align="LEFT_RIGHT")


def eigh_tridiagonal(
    alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None
):
    """Eigenvalues (ascending; with ``eigvals_only=False`` also eigenvectors, as columns) of
    the Hermitian tridiagonal matrix with diagonal ``alpha`` (``[n]``, real part read) and
    superdiagonal ``beta`` (``[n - 1]``). ``select``: 'a' all, 'v' those in
    ``(select_range[0], select_range[1]]``, 'i' indices ``select_range[0]..select_range[1]``.

    >>> import ferroflow as tf
    >>> tf.linalg.eigh_tridiagonal([0.0, 0.0, 0.0], [1.0, 1.0]).numpy().round(4)
    array([-1.4142,  0.    ,  1.4142], dtype=float32)
    """
    alpha = convert_to_tensor(alpha)
    n = alpha.shape[0]
    if n <= 1:
        return real(alpha)
    beta = convert_to_tensor(beta)
    if alpha.dtype != beta.dtype:
        raise ValueError("'alpha' and 'beta' must have the same type.")
    eigvals, counts = _eigenvalues(alpha, beta, select, select_range, tol)
    if eigvals_only:
        return eigvals
    from ferroflow.linalg_ops import eigh

    _, vectors = eigh(_dense(alpha, beta))
    return eigvals, gather(vectors, counts, axis=1)
