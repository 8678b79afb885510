"""Products of `tf.experimental.numpy`: dot, matmul, tensordot, inner, outer, vdot, kron,
cross and einsum, with NumPy's promotion of the operands."""

import ferroflow as tf
from ferroflow.experimental.numpy._arrays import asarray, promote, promote_binary


def _bin_op(fn, a, b):
    return fn(*promote_binary(a, b))


def dot(a, b):
    """Dot product: a * b for scalars, else a contraction of a's last axis with b's last (1-d b)
    or second-to-last axis."""

    def f(a, b):
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        if b.shape.rank == 1:
            return tf.tensordot(a, b, axes=[[-1], [-1]])
        return tf.tensordot(a, b, axes=[[-1], [-2]])

    return _bin_op(f, a, b)


def matmul(x1, x2):
    """Matrix product with NumPy's rules for 1-d operands; shape errors are ValueError."""

    def f(x1, x2):
        try:
            if x2.shape.rank == 1:
                return tf.tensordot(x1, x2, axes=1)
            if x1.shape.rank == 1:
                return tf.tensordot(x1, x2, axes=[[0], [-2]])
            return tf.matmul(x1, x2)
        except tf.errors.InvalidArgumentError as err:
            raise ValueError(str(err)) from None

    return _bin_op(f, x1, x2)


def tensordot(a, b, axes=2):
    """Sum of products over the given axes."""
    return _bin_op(lambda a, b: tf.tensordot(a, b, axes=axes), a, b)


def inner(a, b):
    """Contraction of the last axes (a * b for scalars)."""

    def f(a, b):
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        return tf.tensordot(a, b, axes=[[-1], [-1]])

    return _bin_op(f, a, b)


def outer(a, b):
    """Outer product of the flattened operands."""
    return _bin_op(lambda a, b: tf.reshape(a, [-1, 1]) * tf.reshape(b, [-1]), a, b)


def vdot(a, b):
    """Dot product of the flattened operands, conjugating the first."""
    a, b = promote(a, b)
    a = tf.reshape(a, [-1])
    b = tf.reshape(b, [-1])
    if a.dtype in (tf.complex64, tf.complex128):
        a = tf.math.conj(a)
    return dot(a, b)


def kron(a, b):
    """Kronecker product."""
    a, b = promote(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra < rb:
        a = tf.reshape(a, tf.concat([tf.ones([rb - ra], tf.int32), tf.shape(a)], 0))
    if rb < ra:
        b = tf.reshape(b, tf.concat([tf.ones([ra - rb], tf.int32), tf.shape(b)], 0))
    sa, sb = tf.shape(a), tf.shape(b)
    # a's axes interleaved with ones, b's ones interleaved with its axes: the product
    # broadcasts to [a0, b0, a1, b1, ...].
    a2 = tf.reshape(a, tf.reshape(tf.stack([sa, tf.ones_like(sa)], axis=1), [-1]))
    b2 = tf.reshape(b, tf.reshape(tf.stack([tf.ones_like(sb), sb], axis=1), [-1]))
    return tf.reshape(a2 * b2, sa * sb)


def _cross3(a, b):
    a0, a1, a2 = tf.unstack(a, 3, axis=-1)
    b0, b1, b2 = tf.unstack(b, 3, axis=-1)
    return tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along the given axes (2-vectors give the z component)."""
    from ferroflow.experimental.numpy._shape import broadcast_arrays, moveaxis

    def f(a, b):
        axis_a, axis_b, axis_c = (axisa, axisb, axisc) if axis is None else (axis,) * 3
        a = moveaxis(a, axis_a, -1)
        b = moveaxis(b, axis_b, -1)
        a_dim, b_dim = a.shape[-1], b.shape[-1]
        if a_dim is None or b_dim is None:
            raise NotImplementedError(
                "tnp.cross of vectors whose length is unknown while tracing is not supported"
            )
        for d in (a_dim, b_dim):
            if d not in (2, 3):
                raise tf.errors.FailedPreconditionError(
                    None, None, "Cross-products are only defined for 3-element vectors."
                )
        if a_dim == 2:
            a = tf.pad(a, [[0, 0]] * (a.shape.rank - 1) + [[0, 1]])
        if b_dim == 2:
            b = tf.pad(b, [[0, 0]] * (b.shape.rank - 1) + [[0, 1]])
        c = _cross3(*broadcast_arrays(a, b))
        if a_dim == 2 and b_dim == 2:
            return c[..., 2]
        return moveaxis(c, -1, axis_c)

    return _bin_op(f, a, b)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation; casting 'safe' promotes the operands, 'no' keeps them."""
    casting = kwargs.get("casting", "safe")
    optimize = kwargs.get("optimize", False)
    if casting == "safe":
        operands = promote(*operands)
    elif casting == "no":
        operands = [asarray(x) for x in operands]
    else:
        raise ValueError(
            'Invalid value for argument `casting`. Expected casting="safe" or casting="no". '
            f"Received: casting={casting}"
        )
    if optimize not in (False, None, True, "greedy", "optimal"):
        raise ValueError(
            'Invalid value for argument `optimize`. Expected one of {True, "greedy", '
            f'"optimal"}}. Received: optimize={optimize}'
        )
    # The contraction order changes only rounding, not the result.
    return tf.einsum(subscripts, *operands)
