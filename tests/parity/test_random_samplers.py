"""Candidate samplers, `compute_accidental_hits`, `nce_loss` and `sampled_softmax_loss`.

Against TensorFlow where TensorFlow is deterministic: `all_candidate_sampler`, the expected
counts of non-unique samplers (they depend on the distribution only), accidental hits, and the
sampled losses given `sampled_values` (values and gradients, CPU and GPU, traced). The draws
themselves come from TensorFlow's own Philox stream in its kernels, which ferroflow does not
reproduce: their distribution, uniqueness, range, dtypes, shapes and seeding are tested on
ferroflow alone."""

import ferroflow as tf
import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _deterministic(tf, device):
    true = tf.constant([[1, 3], [2, 7], [0, 0]], tf.int64)
    with tf.device(device):
        out = {
            "all": tf.random.all_candidate_sampler(true, 2, 8, True),
            "all_nn": tf.nn.all_candidate_sampler(true, 2, 9, False),
            "uniform_counts": tf.random.uniform_candidate_sampler(true, 2, 4, False, 10)[1],
            "log_uniform_counts": tf.random.log_uniform_candidate_sampler(
                true, 2, 5, False, 12, seed=1
            )[1],
            "unigram_counts": tf.random.fixed_unigram_candidate_sampler(
                true, 2, 3, False, 10, unigrams=[1.0, 2, 3, 4, 5, 6, 7, 8], num_reserved_ids=2
            )[1],
            "unigram_distorted": tf.nn.fixed_unigram_candidate_sampler(
                true, 2, 3, False, 10, unigrams=list(range(1, 11)), distortion=0.5
            )[1],
            "hits": tf.nn.compute_accidental_hits(true, tf.constant([7, 1, 3, 1, 0], tf.int64), 2),
            "no_hits": tf.nn.compute_accidental_hits(true, tf.constant([9, 8], tf.int64), 2),
        }
        out["hits_traced"] = tf.function(tf.nn.compute_accidental_hits)(
            true, tf.constant([3, 3, 2], tf.int64), 2
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_deterministic_parts(tf_oracle, device):
    assert_parity(tf_oracle, _deterministic, (device,))


def _sampled_losses(tf, device, num_true, remove_hits, sharded):
    import numpy as np

    rng = np.random.default_rng(8)
    weights = tf.constant(rng.standard_normal([10, 4]).astype("float32"))
    biases = tf.constant(rng.standard_normal([10]).astype("float32"))
    inputs = tf.constant(rng.standard_normal([3, 4]).astype("float32"))
    labels = tf.constant([[1, 3], [2, 7], [0, 9]], tf.int64)[:, :num_true]
    sampled = (
        tf.constant([7, 1, 3, 0, 5], tf.int64),
        tf.constant(rng.uniform(0.1, 0.9, [3, num_true]).astype("float32")),
        tf.constant(rng.uniform(0.1, 0.9, [5]).astype("float32")),
    )

    def losses(weights, biases, inputs):
        table = [weights[:5], weights[5:]] if sharded else weights
        if sharded == "uneven":
            # Not the "div" layout of 12 rows (4, 4, 4): TensorFlow still maps id -> shard by
            # 12 // 3 rows each (id 4 is the second shard's first row, not the first's last).
            rows = tf.concat([weights, weights[:2] * 0.5], 0)
            table = [rows[:5], rows[5:9], rows[9:]]
        common = dict(num_true=num_true, sampled_values=sampled)
        nce = tf.nn.nce_loss(
            table, biases, labels, inputs, 5, 10, remove_accidental_hits=remove_hits, **common
        )
        softmax = tf.nn.sampled_softmax_loss(
            table, biases, labels, inputs, 5, 10, remove_accidental_hits=remove_hits, **common
        )
        return nce, softmax

    with tf.device(device):
        eager = losses(weights, biases, inputs)
        traced = tf.function(losses)(weights, biases, inputs)
        with tf.GradientTape() as tape:
            tape.watch([weights, biases, inputs])
            nce, softmax = losses(weights, biases, inputs)
            total = tf.reduce_sum(nce) + 2.0 * tf.reduce_sum(softmax)
        grads = [tf.convert_to_tensor(g) for g in tape.gradient(total, [weights, biases, inputs])]
    return eager, traced, grads


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "num_true,remove_hits,sharded",
    [(1, False, False), (2, True, False), (1, True, True), (1, False, "uneven")],
)
def test_sampled_losses(tf_oracle, device, num_true, remove_hits, sharded):
    args = (device, num_true, remove_hits, sharded)
    assert_parity(tf_oracle, _sampled_losses, args, rtol=2e-5, atol=2e-5)


def _errors(tf, which):
    true = tf.constant([[1, 3], [2, 7]], tf.int64)
    if which == "int32_classes":
        return tf.random.uniform_candidate_sampler(tf.constant([[1]]), 1, 2, False, 5)
    if which == "range_small_unique":
        return tf.random.uniform_candidate_sampler(true, 2, 6, True, 5)
    if which == "all_out_of_range":
        return tf.random.all_candidate_sampler(true, 2, 5, True)
    if which == "unigram_length":
        return tf.random.fixed_unigram_candidate_sampler(true, 2, 2, False, 10, unigrams=[1.0])
    if which == "hits_int32":
        return tf.nn.compute_accidental_hits(true, tf.constant([1, 2]), 2)
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which",
    ["int32_classes", "range_small_unique", "all_out_of_range", "unigram_length", "hits_int32"],
)
def test_sampler_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))


# --- ferroflow alone: the draws ---------------------------------------------------------------

TRUE = tf.constant([[1, 3], [2, 7]], tf.int64)


def _frequencies(sampler, n=400, **kwargs):
    counts = np.zeros(kwargs["range_max"])
    for i in range(n):
        sampled = sampler(TRUE, 2, 8, False, seed=i, **kwargs).sampled_candidates.numpy()
        np.add.at(counts, sampled, 1)
    return counts / counts.sum()


def test_uniform_draws_are_uniform():
    freq = _frequencies(tf.random.uniform_candidate_sampler, range_max=10)
    np.testing.assert_allclose(freq, 0.1, atol=0.02)


def test_log_uniform_draws_follow_zipf():
    freq = _frequencies(tf.random.log_uniform_candidate_sampler, range_max=10)
    k = np.arange(10)
    expected = (np.log(k + 2) - np.log(k + 1)) / np.log(11)
    np.testing.assert_allclose(freq, expected, atol=0.02)


def test_fixed_unigram_draws_follow_weights():
    weights = np.arange(1.0, 9.0)
    freq = _frequencies(
        tf.random.fixed_unigram_candidate_sampler,
        range_max=10,
        unigrams=list(weights),
        num_reserved_ids=2,
    )
    expected = np.concatenate([[0, 0], weights / weights.sum()])
    np.testing.assert_allclose(freq, expected, atol=0.02)
    assert freq[0] == freq[1] == 0


@pytest.mark.parametrize(
    "sampler",
    [
        tf.random.uniform_candidate_sampler,
        tf.random.log_uniform_candidate_sampler,
        tf.random.learned_unigram_candidate_sampler,
    ],
)
def test_unique_draws_structure_and_counts(sampler):
    out = sampler(TRUE, 2, 6, True, 8, seed=5)
    assert type(out).__name__ == sampler.__name__.title().replace("_", "").replace(
        "Candidatesampler", "CandidateSampler"
    ).replace("Loguniform", "LogUniform").replace("Learnedunigram", "LearnedUnigram")
    sampled = out.sampled_candidates.numpy()
    assert out.sampled_candidates.dtype == tf.int64 and sampled.shape == (6,)
    assert len(set(sampled.tolist())) == 6 and sampled.min() >= 0 and sampled.max() < 8
    assert out.true_expected_count.dtype == tf.float32
    assert out.true_expected_count.shape == (2, 2)
    assert out.sampled_expected_count.shape == (6,)
    # 1 - (1 - p) ** tries lies in (0, 1] for distinct draws.
    counts = out.sampled_expected_count.numpy()
    assert np.all(counts > 0) and np.all(counts <= 1.0 + 1e-6)


def test_seeded_draws_repeat_and_fresh_calls_differ():
    tf.random.set_seed(11)
    first = [tf.random.uniform_candidate_sampler(TRUE, 2, 5, False, 1000, seed=3)[0] for _ in "ab"]
    tf.random.set_seed(11)
    again = [tf.random.uniform_candidate_sampler(TRUE, 2, 5, False, 1000, seed=3)[0] for _ in "ab"]
    assert [a.numpy().tolist() for a in first] == [a.numpy().tolist() for a in again]
    assert first[0].numpy().tolist() != first[1].numpy().tolist()


def test_sampler_in_tf_function():
    @tf.function
    def draw(true):
        return tf.random.log_uniform_candidate_sampler(true, 2, 4, True, 20, seed=2)

    out = draw(TRUE)
    assert out.sampled_candidates.shape == (4,)
    assert len(set(out.sampled_candidates.numpy().tolist())) == 4


def test_learned_unigram_learns_true_classes():
    true = tf.constant([[4, 4]], tf.int64)
    sampler = tf.random.learned_unigram_candidate_sampler
    first = sampler(true, 2, 2, False, 5, seed=99)
    second = sampler(true, 2, 2, False, 5, seed=99)
    # One count per class to start (p = 1/5), then class 4 seen twice: p = 3/7.
    np.testing.assert_allclose(first.true_expected_count.numpy(), 2 / 5, rtol=1e-6)
    np.testing.assert_allclose(second.true_expected_count.numpy(), 2 * 3 / 7, rtol=1e-6)


def test_default_sampler_in_losses():
    rng = np.random.default_rng(0)
    weights = tf.constant(rng.standard_normal([50, 4]).astype("float32"))
    biases = tf.zeros([50])
    inputs = tf.constant(rng.standard_normal([3, 4]).astype("float32"))
    labels = tf.constant([[1], [2], [40]], tf.int64)
    nce = tf.nn.nce_loss(weights, biases, labels, inputs, 6, 50)
    softmax = tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, 6, 50, seed=1)
    assert nce.shape == (3,) and softmax.shape == (3,)
    assert np.all(np.isfinite(nce.numpy())) and np.all(softmax.numpy() >= 0)
