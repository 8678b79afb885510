"""`tf.nn.fractional_max_pool` / `fractional_avg_pool`. TensorFlow draws the pooling
sequences from its own Philox stream, which ferroflow does not reproduce; so each framework's
output is checked against a reference pooling over the sequences it returned (same program on
both: the window rule, overlapping windows, dtypes and shapes must agree), the sequences'
properties are compared, and so are the errors."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _program(tf, device, kind, ratio, pseudo_random, overlapping, dtype):
    import numpy as np

    rng = np.random.default_rng(3)
    x = rng.standard_normal([2, 9, 7, 3]) * 10
    x = tf.constant(x.astype(dtype))
    pool = tf.nn.fractional_max_pool if kind == "max" else tf.nn.fractional_avg_pool
    with tf.device(device):
        out = pool(x, ratio, pseudo_random=pseudo_random, overlapping=overlapping, seed=7)
        traced = tf.function(
            lambda v: pool(v, ratio, pseudo_random=pseudo_random, overlapping=overlapping, seed=7)
        )(x)
    y, rows, cols = (t.numpy() for t in out)
    xs = x.numpy()

    def windows(seq, size):
        ends = [min(e, size - 1) if overlapping else e - 1 for e in seq[1:]]
        return [range(s, e + 1) for s, e in zip(seq[:-1], ends)]

    ref = np.zeros(y.shape, y.dtype)
    for i, rw in enumerate(windows(rows, 9)):
        for j, cw in enumerate(windows(cols, 7)):
            block = xs[:, list(rw)][:, :, list(cw)]
            if kind == "max":
                ref[:, i, j] = block.max(axis=(1, 2))
            elif y.dtype.kind == "f":
                ref[:, i, j] = block.mean(axis=(1, 2))
            else:
                total = block.sum(axis=(1, 2))
                ref[:, i, j] = np.trunc(total / (len(rw) * len(cw)))
    diffs = [np.unique(np.diff(s)).tolist() for s in (rows, cols)]
    return {
        "type": type(out).__name__,
        "dtypes": [t.dtype.name for t in out],
        "shapes": [t.shape.as_list() for t in out],
        "traced_shapes": [t.shape.as_list() for t in traced],
        "matches_reference": bool(np.allclose(y, ref, rtol=1e-5, atol=1e-5)),
        "ends": [int(rows[0]), int(rows[-1]), int(cols[0]), int(cols[-1])],
        "increments_within_one": [max(d) - min(d) <= 1 for d in diffs]
        if not pseudo_random
        else None,
    }


CASES = [
    ("max", [1.0, 1.5, 1.5, 1.0], False, False, "float32"),
    ("max", [1.0, 2.0, 1.4, 1.0], True, True, "float32"),
    ("max", 1.7, False, True, "float64"),
    ("max", [1.0, 1.5, 1.5, 1.0], False, False, "int32"),
    ("avg", [1.0, 1.5, 1.5, 1.0], False, False, "float32"),
    ("avg", [1.0, 2.0, 1.4, 1.0], True, True, "float64"),
    ("avg", [1.0, 1.5, 1.5, 1.0], False, True, "int64"),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_fractional_pooling(tf_oracle, device, case):
    assert_parity(tf_oracle, _program, (device, *case))


def _errors(tf, which):
    x = tf.ones([1, 4, 4, 1])
    if which == "ratio_below_one":
        return tf.nn.fractional_max_pool(x, 0.5)
    if which == "batch_ratio":
        return tf.nn.fractional_max_pool(x, [2.0, 1.5, 1.5, 1.0])
    if which == "avg_scalar_ratio":
        return tf.nn.fractional_avg_pool(x, 1.5)
    if which == "too_small":
        return tf.nn.fractional_max_pool(x, [1.0, 5.0, 1.5, 1.0])
    if which == "string_ratio":
        return tf.nn.fractional_max_pool(x, "2")
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which", ["ratio_below_one", "batch_ratio", "avg_scalar_ratio", "too_small", "string_ratio"]
)
def test_fractional_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
