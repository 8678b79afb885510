"""`tf.linalg.tridiagonal_matmul` and `tf.linalg.tridiagonal_solve`, with TensorFlow's
argument rules: the three formats ('compact', 'sequence', 'matrix'), the Python wrappers'
static checks (ValueError) and the kernels' (InvalidArgumentError: equal ranks and batch
dims, no broadcasting)."""

from ferroflow.array_ops import concat, convert_to_tensor, eye, pad, stack, where, zeros_like
from ferroflow.linalg_band_solvers import _op_error, _tf_name
from ferroflow.math import abs as abs_
from ferroflow.math import conj, is_finite, logical_not, logical_or


def _as_matrix_diagonals(diagonals):
    from ferroflow.linalg_diagonals import diag_part

    d = convert_to_tensor(diagonals)
    m1, m2 = d.shape[-1], d.shape[-2]
    if m1 and m2 and m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
    return diag_part(d, k=(-1, 1), padding_value=0.0, align="LEFT_RIGHT")


def _three_diagonals(diagonals, diagonals_format):
    """(superdiagonal, main diagonal, subdiagonal), each ``[..., M]``."""
    if diagonals_format == "compact":
        d = convert_to_tensor(diagonals)
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if diagonals_format == "sequence":
        return tuple(convert_to_tensor(d) for d in diagonals)
    if diagonals_format == "matrix":
        d = _as_matrix_diagonals(diagonals)
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _check_matmul(sup, main, sub, rhs):
    """TensorFlow's TridiagonalMatMul kernel checks (diagonals seen as ``[..., 1, M]``)."""
    op = "TridiagonalMatMul"
    for i, t in enumerate((sup, main, sub, rhs)):
        if t.dtype != sup.dtype:
            raise _op_error(
                op,
                f"cannot compute {op} as input #{i}(zero-based) was expected to be a "
                f"{_tf_name(sup.dtype)} tensor but is a {_tf_name(t.dtype)} tensor",
            )
    rank = rhs.shape.rank
    if any(d.shape.rank + 1 != rank for d in (sup, main, sub)):
        raise _op_error(op, "All input tensors must have the same rank.")
    if rank < 2:
        raise _op_error(op, f"Expected matrix, got rank {rank}.")
    batch = list(rhs.shape[:-2])
    if any(list(d.shape[:-1]) != batch for d in (sup, main, sub)):
        raise _op_error(op, "All input tensors must have the same outer dimensions.")
    m = rhs.shape[-2]
    for name, d in (("superdiagonal", sup), ("main diagonal", main), ("subdiagonal", sub)):
        if d.shape[-1] != m:
            raise _op_error(op, f"Invalid {name} shape.")


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """The product of tridiagonal matrices (given by their three diagonals) and ``rhs``
    (``[..., M, N]``, the same batch dims: TensorFlow does not broadcast them)."""
    sup, main, sub = _three_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs)
    _check_matmul(sup, main, sub, rhs)
    zero = zeros_like(rhs[..., :1, :])
    up = concat([rhs[..., 1:, :], zero], axis=-2)
    down = concat([zero, rhs[..., :-1, :]], axis=-2)
    return sup[..., None] * up + main[..., None] * rhs + sub[..., None] * down


def _compact(diagonals, diagonals_format):
    """The diagonals as one ``[..., 3, M]`` tensor (TensorFlow's tridiagonal_solve)."""
    if diagonals_format == "compact":
        return convert_to_tensor(diagonals)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        sup, main, sub = (convert_to_tensor(d) for d in diagonals)
        if sub.shape[:-1] != main.shape[:-1] or sup.shape[:-1] != main.shape[:-1]:
            raise ValueError(
                "Tensors representing the three diagonals must have the same shape,except for "
                f"the last dimension, got {sub.shape}, {main.shape}, {sup.shape}"
            )
        m = main.shape[-1]

        def padded(t, what, last):
            n = t.shape[-1]
            if not n or n == m:
                return t
            if n == m - 1:
                return pad(t, [[0, 0]] * (t.shape.rank - 1) + [last])
            raise ValueError(f"Expected {what} to be have length {m} or {m - 1}, got {n}.")

        sub = padded(sub, "subdiagonal", [1, 0])
        sup = padded(sup, "superdiagonal", [0, 1])
        return stack([sup, main, sub], axis=-2)
    if diagonals_format == "matrix":
        return _as_matrix_diagonals(diagonals)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _check_solve(diagonals, rhs):
    """TensorFlow's static checks; whether ``rhs`` is a (batch of) vector(s)."""
    d_rank, r_rank = diagonals.shape.rank, rhs.shape.rank
    if d_rank < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {d_rank}")
    if r_rank != d_rank and r_rank != d_rank - 1:
        raise ValueError(f"Expected the rank of rhs to be {d_rank - 1} or {d_rank}, got {r_rank}")
    d_batch, r_batch = diagonals.shape[:-2], rhs.shape[: d_rank - 2]
    if list(d_batch) != list(r_batch):
        raise ValueError(f"Batch shapes {d_batch} and {r_batch} are incompatible")
    if diagonals.shape[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {diagonals.shape[-2]}")
    return r_rank == d_rank - 1


def tridiagonal_solve(
    diagonals,
    rhs,
    diagonals_format="compact",
    transpose_rhs=False,
    conjugate_rhs=False,
    name=None,
    partial_pivoting=True,
    perturb_singular=False,
):
    """Solves tridiagonal systems (given by their three diagonals) by pivoted LU of the dense
    matrices: TensorFlow's solutions, and NaN for a singular matrix as TensorFlow's kernel."""
    from ferroflow.linalg_diagonals import diag
    from ferroflow.linalg_ops import matrix_transpose, slogdet, solve

    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if not partial_pivoting or perturb_singular:
        raise NotImplementedError(
            "ferroflow's tridiagonal_solve supports partial_pivoting=True without perturb_singular"
        )
    d = _compact(diagonals, diagonals_format)
    b = convert_to_tensor(rhs)
    vector = _check_solve(d, b)
    if vector:
        b = (conj(b) if conjugate_rhs else b)[..., None]
    elif transpose_rhs:
        b = matrix_transpose(b, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        b = conj(b)
    m = d.shape[-1]
    if m and b.shape[-2] and m != b.shape[-2]:
        raise ValueError(
            "Expected number of left-hand sided and right-hand sides to be equal, got "
            f"{m} and {b.shape[-2]}"
        )
    if b.dtype != d.dtype:
        raise _op_error(
            "TridiagonalSolve",
            "cannot compute TridiagonalSolve as input #1(zero-based) was expected to be a "
            f"{_tf_name(d.dtype)} tensor but is a {_tf_name(b.dtype)} tensor",
        )
    dense = diag(d, k=(-1, 1), num_rows=m, num_cols=m, align="LEFT_RIGHT") if m else None
    if dense is None:
        return b[..., 0] if vector else b
    # A singular system gives NaN (TensorFlow's kernel does not raise): solve a harmless
    # stand-in there and mask it.
    sign = abs_(slogdet(dense).sign)
    singular = logical_or(sign == 0, logical_not(is_finite(sign)))[..., None, None]
    x = solve(where(singular, eye(m, dtype=dense.dtype), dense), b)
    x = where(singular, convert_to_tensor(float("nan"), x.dtype), x)
    return x[..., 0] if vector else x
