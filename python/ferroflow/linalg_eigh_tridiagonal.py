"""`tf.linalg.eigh_tridiagonal`: eigenvalues of a Hermitian tridiagonal matrix by TensorFlow's
bisection (the same starting interval, tolerance, midpoints and stopping rule, so a coarse
``tol`` gives TensorFlow's coarse values) on eigenvalue counts taken from the dense Hermitian
eigendecomposition, which also gives the eigenvectors.

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
    stack,
    where,
    zeros,
    zeros_like,
)
from ferroflow.array_ops import range as _range
from ferroflow.control_flow import while_loop
from ferroflow.math import (
    abs as _abs,
)
from ferroflow.math import (
    cast,
    conj,
    is_finite,
    logical_and,
    maximum,
    minimum,
    real,
    reduce_all,
    reduce_max,
    reduce_min,
    reduce_sum,
    sqrt,
    square,
)


def _counter(alpha, beta):
    """``count(x)``: how many eigenvalues are at most each ``x``. TensorFlow counts the
    negative pivots of ``T - x I`` (a Sturm sequence, sequential in ``n``); ferroflow counts the
    dense decomposition's eigenvalues, one op whatever ``n``. The two differ only for ``x``
    within rounding of an eigenvalue, where the bisection's midpoints are equally good."""
    from ferroflow.linalg_ops import eigvalsh

    dense = _dense(alpha, beta)
    # TensorFlow's result for non-finite input is undefined (its bisection gives NaN or junk);
    # the decomposition, which would refuse it, gets a finite stand-in.
    dense = where(is_finite(_abs(dense)), dense, zeros_like(dense))
    values = eigvalsh(dense)
    if values.dtype.is_complex:
        values = real(values)

    def count(x):
        below = cast(values[None, :] <= x[..., None], _dt.int32)
        return reduce_sum(below, axis=-1)

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
    count = _counter(alpha, beta)
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
        first = count(lower[None])[0]
        last = count(upper[None])[0]
        target_counts = _range(first, last)
    upper = minimum(upper, finfo.max)
    lower = maximum(lower, finfo.min)
    shape = target_counts.shape
    lower, upper = broadcast_to(lower, shape), broadcast_to(upper, shape)

    def more(i, lower, upper):
        return logical_and(i < max_it, abs_tol < reduce_max(upper - lower))

    def step(i, lower, upper):
        mid = 0.5 * lower + 0.5 * upper
        counts = count(mid)
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

    dense = _dense(alpha, beta)
    finite = is_finite(_abs(dense))
    _, vectors = eigh(where(finite, dense, zeros_like(dense)))
    # Non-finite input: TensorFlow's inverse iteration gives NaN vectors.
    nan = convert_to_tensor(float("nan"), dtype=vectors.dtype)
    vectors = where(reduce_all(finite), vectors, nan)
    return eigvals, gather(vectors, counts, axis=1)
