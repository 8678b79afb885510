"""`ops.associative_scan` over an axis whose length is known only when the graph runs (inside a
`tf.function` traced with an unknown dimension): the same odd/even recursion as with a static
length, hence the same applications of ``f`` and the same rounding, with each level's choice
(length 2, 3, or recurse; even or odd length) made at run time by `tf.cond`, as Keras's
TensorFlow backend does. The recursion is unrolled to 48 levels (lengths up to 2**48).

ferroflow evaluates the ops of a `tf.cond` branch not taken while it traces the branch, so
every branch here is written to be valid for any length: indices are clamped, and operands are
cut to a common length before they are paired. In the branch taken the lengths already agree,
so neither changes a value."""

import ferroflow as tf

__all__ = ["dynamic_associative_scan"]

_MAX_LEVELS = 48


def dynamic_associative_scan(combine, flat, axis):
    """The inclusive scan of the flat tensors ``flat`` along ``axis`` (non-negative);
    ``combine(a, b)`` applies ``f`` to two flat lists."""

    def length(x):
        return tf.shape(x)[axis]

    def take(x, start, stop=None, step=1):
        # Indices resolved against the run-time length (and clamped into it).
        n = length(x)
        # ``start`` is a Python int; ``stop`` one too, None or a length tensor.
        start = start + n if start < 0 else start
        if stop is None:
            stop = n
        elif isinstance(stop, int) and stop < 0:
            stop = stop + n
        start = tf.clip_by_value(start, 0, n)
        stop = tf.clip_by_value(stop, start, n)
        return tf.gather(x, tf.range(start, stop, delta=step), axis=axis)

    def common(a, b):
        # ``a`` and ``b`` (flat lists) cut to the shortest length among them.
        n = tf.reduce_min(tf.stack([length(x) for x in [*a, *b]]))
        return [take(x, 0, n) for x in a], [take(x, 0, n) for x in b]

    def pair(a, b):
        return combine(*common(a, b))

    def first_then(x, *rest):
        return tf.concat([take(x, 0, 1), *rest], axis=axis)

    def interleave_equal(a, b):
        # a0 b0 a1 b1 ... for a and b of the same length.
        (a,), (b,) = common([a], [b])
        dims = tf.shape(a)
        shape = tf.concat([dims[:axis], [2 * length(b)], dims[axis + 1 :]], axis=0)
        return tf.reshape(tf.stack([a, b], axis=axis + 1), shape)

    def interleave(a, b):
        # ``a`` holds as many elements as ``b``, or one more (then last).
        return tf.cond(
            tf.equal(length(a), length(b) + 1),
            lambda: tf.concat([interleave_equal(take(a, 0, -1), b), take(a, -1)], axis=axis),
            lambda: interleave_equal(a, b),
        )

    def rest_of_level(odd, level, n):
        """The even positions from the scanned odd ones, interleaved with them."""
        following = [take(e, 2, None, 2) for e in level]
        results = tf.cond(
            tf.equal(n % 2, 0),
            lambda: pair([take(o, 0, -1) for o in odd], following),
            lambda: pair(odd, following),
        )
        even = [first_then(e, r) for e, r in zip(level, results, strict=True)]
        return [interleave(e, o) for e, o in zip(even, odd, strict=True)]

    def scan(levels_left, level):
        n = length(level[0])
        reduced = pair([take(e, 0, -1, 2) for e in level], [take(e, 1, None, 2) for e in level])

        def of_two():
            return [first_then(e, r) for e, r in zip(level, reduced, strict=True)]

        def of_three():
            again = pair(reduced, [take(e, 2, 3) for e in level])
            return [first_then(e, r, q) for e, r, q in zip(level, reduced, again, strict=True)]

        def base():
            return tf.cond(tf.equal(n, 2), of_two, of_three)

        if levels_left <= 0:
            return base()
        return tf.cond(
            tf.logical_or(tf.equal(n, 2), tf.equal(n, 3)),
            base,
            lambda: rest_of_level(scan(levels_left - 1, reduced), level, n),
        )

    return tf.cond(tf.less(length(flat[0]), 2), lambda: list(flat), lambda: scan(_MAX_LEVELS, flat))
