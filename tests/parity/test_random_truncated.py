"""`tf.random.stateless_parameterized_truncated_normal`: structure, bounds, seeding and errors
against TensorFlow; its numbers are not TensorFlow's (TensorFlow's kernel samples by rejection
from its own Philox stream), so the distribution is tested on ferroflow alone."""

import math

import ferroflow as tf
import numpy as np
import pytest

from .harness import assert_parity


def _structure(tf, device):
    import numpy as np

    with tf.device(device):
        draw = tf.random.stateless_parameterized_truncated_normal
        cases = [
            draw([2, 3], [1, 2], means=[0.0, 1, 2], stddevs=1.0, minvals=-1.0, maxvals=[1.0, 2, 3]),
            draw(
                [4],
                [1, 2],
                means=tf.constant(0.0, tf.float64),
                stddevs=tf.constant(2.0, tf.float64),
                minvals=tf.constant(-1.0, tf.float64),
                maxvals=tf.constant(1.0, tf.float64),
            ),
            draw([3, 1], [5, 6]),
            draw([0], [1, 1]),
        ]
        traced = tf.function(lambda s: draw([5], s, minvals=0.5, maxvals=0.75))(tf.constant([7, 8]))
        same = draw([6], [3, 4]) - draw([6], [3, 4])
    out = []
    for t, lo, hi in zip(cases, [-1.0, -1.0, -2.0, -2.0], [3.0, 1.0, 2.0, 2.0]):
        values = t.numpy()
        out.append((t.shape.as_list(), t.dtype.name, bool(np.all((values >= lo) & (values <= hi)))))
    values = traced.numpy()
    out.append((traced.shape.as_list(), bool(np.all((values >= 0.5) & (values <= 0.75)))))
    out.append(same)
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_structure(tf_oracle, device):
    assert_parity(tf_oracle, _structure, (device,))


def _errors(tf, which):
    draw = tf.random.stateless_parameterized_truncated_normal
    if which == "mixed_dtypes":
        return draw([4], [1, 2], means=tf.constant(0.0, tf.float64))
    if which == "int_means":
        return draw([4], [1, 2], means=tf.constant(0), stddevs=1, minvals=-2, maxvals=2)
    raise AssertionError(which)


@pytest.mark.parametrize("which", ["mixed_dtypes", "int_means"])
def test_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))


def _truncated_mean(a, b):
    def phi(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def big_phi(x):
        return 0.5 * (1 + math.erf(x / math.sqrt(2)))

    return (phi(a) - phi(b)) / (big_phi(b) - big_phi(a))


@pytest.mark.parametrize(
    "mean,std,low,high", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 5.0), (0.0, 1.0, 4.0, 9.0)]
)
def test_distribution(mean, std, low, high):
    draw = tf.random.stateless_parameterized_truncated_normal(
        [40000], [1, 2], means=mean, stddevs=std, minvals=low, maxvals=high
    ).numpy()
    assert draw.min() >= low and draw.max() <= high
    expected = mean + std * _truncated_mean((low - mean) / std, (high - mean) / std)
    assert abs(draw.mean() - expected) < 0.02 * std
    # Kolmogorov-Smirnov distance to the truncated normal's CDF.
    xs = np.sort(draw)
    cdf = np.vectorize(lambda x: 0.5 * (1 + math.erf((x - mean) / std / math.sqrt(2))))
    lo_c, hi_c = cdf(low), cdf(high)
    model = (cdf(xs) - lo_c) / (hi_c - lo_c)
    empirical = np.arange(1, len(xs) + 1) / len(xs)
    assert np.max(np.abs(model - empirical)) < 0.01


@pytest.mark.parametrize("low,high", [(-10.0, -9.0), (9.0, 10.0), (-30.0, -29.0)])
def test_far_tail_intervals(low, high):
    """Intervals many deviations from the mean: the draws spread over the interval with the
    truncated normal's mean (1 + erf underflowed there and put every draw on a bound)."""
    draw = tf.random.stateless_parameterized_truncated_normal(
        [20000], [1, 2], means=0.0, stddevs=1.0, minvals=low, maxvals=high
    ).numpy()
    assert draw.min() >= low and draw.max() <= high
    grid = np.linspace(low, high, 200001)
    weight = np.exp(-0.5 * (grid**2 - np.min(grid**2)))
    expected = float((grid * weight).sum() / weight.sum())
    assert abs(draw.mean() - expected) < 0.01
    assert np.std(draw) > 0.01


def test_seeds_change_draws():
    draw = tf.random.stateless_parameterized_truncated_normal
    assert not np.array_equal(draw([8], [1, 2]).numpy(), draw([8], [1, 3]).numpy())
