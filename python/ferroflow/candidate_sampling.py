"""Candidate samplers (`tf.random.*_candidate_sampler`), `tf.nn.compute_accidental_hits` and the
sampled losses `tf.nn.nce_loss` / `tf.nn.sampled_softmax_loss`.

The samplers follow TensorFlow's range samplers: the same distributions (uniform, log-uniform
``(log(k + 2) - log(k + 1)) / log(range_max + 1)``, fixed unigram with distortion, reserved ids
and shards, a learned unigram that starts from one count per class and adds the true classes
after each draw), the same rejection loop for ``unique=True`` and the same expected counts
(``p * num_sampled``, or ``1 - (1 - p) ** num_tries`` after rejections). *Departure:* the draws
are not TensorFlow's: its kernels read their own Philox stream, which ferroflow does not
reproduce. A call's draws are deterministic under `tf.random.set_seed` and `seed`, fresh on each
call, and run on the host (numpy's Philox generator keyed by a ferroflow random draw)."""

import collections
import math

import numpy as np

import ferroflow as _tf
from ferroflow.array_ops import convert_to_tensor

__all__ = [
    "all_candidate_sampler",
    "compute_accidental_hits",
    "fixed_unigram_candidate_sampler",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "nce_loss",
    "sampled_softmax_loss",
    "uniform_candidate_sampler",
]

_FIELDS = ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
AllCandidateSampler = collections.namedtuple("AllCandidateSampler", _FIELDS)
UniformCandidateSampler = collections.namedtuple("UniformCandidateSampler", _FIELDS)
LogUniformCandidateSampler = collections.namedtuple("LogUniformCandidateSampler", _FIELDS)
FixedUnigramCandidateSampler = collections.namedtuple("FixedUnigramCandidateSampler", _FIELDS)
LearnedUnigramCandidateSampler = collections.namedtuple("LearnedUnigramCandidateSampler", _FIELDS)
ComputeAccidentalHits = collections.namedtuple(
    "ComputeAccidentalHits", ["indices", "ids", "weights"]
)


def _invalid(message):
    return _tf.errors.InvalidArgumentError(None, None, message)


def _true_classes(true_classes, num_true, op):
    classes = convert_to_tensor(true_classes)
    if classes.dtype != _tf.int64:
        raise _invalid(
            f"cannot compute {op} as input #0(zero-based) was expected to be a int64 tensor but "
            f"is a {classes.dtype.name} tensor [Op:{op}]"
        )
    if classes.shape.rank != 2:
        raise _invalid(f"true_classes must be a matrix [Op:{op}]")
    if classes.shape[1] is not None and classes.shape[1] != num_true:
        raise _invalid(
            f"true_classes must have num_true columns, expected: {classes.shape[1]} was: "
            f"{num_true} [Op:{op}]"
        )
    return classes


def _check_counts(num_true, num_sampled, range_max, unique, op):
    for name, value, low in (("num_true", num_true, 1), ("num_sampled", num_sampled, 1)):
        if value < low:
            raise _invalid(f"Value for attr '{name}' of {value} must be at least minimum {low}")
    if range_max is not None:
        if range_max < 1:
            raise _invalid(f"Value for attr 'range_max' of {range_max} must be at least minimum 1")
        if unique and num_sampled > range_max:
            raise _invalid(f"Sampler's range is too small. [Op:{op}]")


def _expected(p, num_sampled, num_tries):
    """TensorFlow's ExpectedCountHelper."""
    p = np.asarray(p, np.float64)
    if num_tries == num_sampled:
        return p * num_sampled
    return -np.expm1(num_tries * np.log1p(-p))


def _draw(probabilities, num_sampled, unique, rng):
    """(samples, tries): independent draws, or draws until `num_sampled` distinct."""
    cdf = np.cumsum(probabilities)
    cdf /= cdf[-1]

    def one(count):
        return np.minimum(np.searchsorted(cdf, rng.random(count), side="right"), len(cdf) - 1)

    if not unique:
        return one(num_sampled), num_sampled
    seen, order, tries = set(), [], 0
    while len(order) < num_sampled:
        value = int(one(1)[0])
        tries += 1
        if value not in seen:
            seen.add(value)
            order.append(value)
    return np.asarray(order, np.int64), tries


def _sample(name, true_classes, num_true, num_sampled, unique, probabilities, seed, learn=None):
    """Runs one sampler: `probabilities()` gives the class distribution (numpy) when called."""
    classes = _true_classes(true_classes, num_true, name)
    key = _tf.random.uniform([2], 0, 2**31 - 1, dtype=_tf.int64, seed=seed)

    def host(true_np, key_np):
        p = probabilities()
        rng = np.random.Generator(np.random.Philox(key=[int(v) for v in key_np]))
        samples, tries = _draw(p, num_sampled, unique, rng)
        true_np = np.asarray(true_np)
        if np.any(true_np < 0) or np.any(true_np >= len(p)):
            bad = true_np[(true_np < 0) | (true_np >= len(p))][0]
            raise _invalid(f"`true_candidate` out of range [0, {len(p)}), received {bad}")
        true_count = _expected(p[true_np], num_sampled, tries).astype(np.float32)
        sampled_count = _expected(p[samples], num_sampled, tries).astype(np.float32)
        if learn is not None:
            learn(true_np)
        return samples.astype(np.int64), true_count, sampled_count

    out = _tf.numpy_function(host, [classes, key], [_tf.int64, _tf.float32, _tf.float32])
    sampled = _tf.reshape(out[0], [num_sampled])
    true_count = _tf.reshape(out[1], _tf.shape(classes))
    return (
        _tf.stop_gradient(sampled),
        _tf.stop_gradient(true_count),
        _tf.stop_gradient(_tf.reshape(out[2], [num_sampled])),
    )


def uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples `num_sampled` classes uniformly from ``[0, range_max)`` (distinct if `unique`)."""
    _check_counts(num_true, num_sampled, range_max, unique, "UniformCandidateSampler")
    p = np.full(range_max, 1.0 / range_max)
    out = _sample(
        "UniformCandidateSampler", true_classes, num_true, num_sampled, unique, lambda: p, seed
    )
    return UniformCandidateSampler(*out)


def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes from the log-uniform (Zipfian) distribution over ``[0, range_max)``."""
    _check_counts(num_true, num_sampled, range_max, unique, "LogUniformCandidateSampler")
    k = np.arange(range_max, dtype=np.float64)
    p = (np.log(k + 2) - np.log(k + 1)) / math.log(range_max + 1)
    out = _sample(
        "LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, lambda: p, seed
    )
    return LogUniformCandidateSampler(*out)


def _read_vocab(vocab_file):
    """The counts of a unigram vocabulary file: the last comma-separated field of each line."""
    counts = []
    with open(vocab_file, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                counts.append(float(line.strip().split(",")[-1]))
    return counts


def fixed_unigram_candidate_sampler(
    true_classes,
    num_true,
    num_sampled,
    unique,
    range_max,
    vocab_file="",
    distortion=1.0,
    num_reserved_ids=0,
    num_shards=1,
    shard=0,
    unigrams=(),
    seed=None,
    name=None,
):
    """Samples from a fixed unigram distribution (`unigrams` or a vocabulary file of counts),
    each weight raised to `distortion`; the first `num_reserved_ids` ids get weight 0; with
    shards, only ids with ``id % num_shards == shard`` are kept."""
    _check_counts(num_true, num_sampled, range_max, unique, "FixedUnigramCandidateSampler")
    if vocab_file and unigrams:
        raise _invalid("Must specify only one of vocab_file and unigrams.")
    weights = _read_vocab(vocab_file) if vocab_file else [float(u) for u in unigrams]
    if not vocab_file and not unigrams:
        raise _invalid("Must provide either vocab_file or unigrams.")
    weights = [0.0] * int(num_reserved_ids) + [w**distortion for w in weights]
    if len(weights) != range_max:
        raise _invalid(
            f"Range size {range_max} is not equal to the number of unigrams plus reserved ids "
            f"{len(weights)}"
        )
    p = np.asarray(weights, np.float64)
    keep = (np.arange(range_max) % num_shards) == shard
    p = np.where(keep, p, 0.0)
    p = p / p.sum()
    out = _sample(
        "FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, lambda: p, seed
    )
    return FixedUnigramCandidateSampler(*out)


# The learned samplers' counts, per sampler (TensorFlow keeps them in the op's kernel, which its
# eager runtime caches by the op's attributes).
_LEARNED = {}


def learned_unigram_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples from a unigram distribution learned from the true classes seen so far (one
    count per class to start; each call adds its true classes after drawing)."""
    _check_counts(num_true, num_sampled, range_max, unique, "LearnedUnigramCandidateSampler")
    counts = _LEARNED.setdefault(
        (num_true, num_sampled, bool(unique), range_max, seed), np.ones(range_max, np.float64)
    )

    def learn(true_np):
        np.add.at(counts, true_np.ravel(), 1.0)

    out = _sample(
        "LearnedUnigramCandidateSampler",
        true_classes,
        num_true,
        num_sampled,
        unique,
        lambda: counts / counts.sum(),
        seed,
        learn,
    )
    return LearnedUnigramCandidateSampler(*out)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class of ``[0, num_sampled)``, each expected once."""
    _check_counts(num_true, num_sampled, None, unique, "AllCandidateSampler")
    classes = _true_classes(true_classes, num_true, "AllCandidateSampler")
    if _tf.executing_eagerly():
        values = classes.numpy()
        bad = values[(values < 0) | (values >= num_sampled)]
        if bad.size:
            raise _invalid(
                f"`true_candidate` out of range [0, {num_sampled}), received {bad[0]} "
                "[Op:AllCandidateSampler]"
            )
    return AllCandidateSampler(
        _tf.range(num_sampled, dtype=_tf.int64),
        _tf.ones(_tf.shape(classes), _tf.float32),
        _tf.ones([num_sampled], _tf.float32),
    )


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled candidate equals a true class: (row of the true class, int32; position
    of the sampled candidate, int64 (the last one when it repeats); -FLT_MAX float32), in
    row then true-class order."""
    classes = _true_classes(true_classes, num_true, "ComputeAccidentalHits")
    sampled = convert_to_tensor(sampled_candidates)
    if sampled.dtype != _tf.int64:
        raise _invalid(
            "cannot compute ComputeAccidentalHits as input #1(zero-based) was expected to be a "
            f"int64 tensor but is a {sampled.dtype.name} tensor [Op:ComputeAccidentalHits]"
        )
    if sampled.shape.rank != 1:
        raise _invalid("sampled_candidates must be a vector [Op:ComputeAccidentalHits]")
    equal = _tf.equal(classes[:, :, None], sampled[None, None, :])  # [batch, num_true, S]
    count = _tf.shape(sampled, out_type=_tf.int64)[0]
    last = count - 1 - _tf.math.argmax(_tf.reverse(_tf.cast(equal, _tf.int32), [2]), axis=2)
    hit = _tf.reduce_any(equal, axis=2)
    rows = _tf.broadcast_to(_tf.range(_tf.shape(classes)[0])[:, None], _tf.shape(hit))
    indices = _tf.boolean_mask(rows, hit)
    ids = _tf.boolean_mask(last, hit)
    weights = _tf.fill(_tf.shape(ids), _tf.constant(np.finfo(np.float32).min, _tf.float32))
    return ComputeAccidentalHits(indices, ids, weights)


def _sum_rows(x):
    """Row sums as a matmul with ones (TensorFlow's _sum_rows, for its gradient's sake)."""
    ones = _tf.ones(_tf.stack([_tf.shape(x)[1], 1]), x.dtype)
    return _tf.reshape(_tf.matmul(x, ones), [-1])


def _sampled_logits(
    weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
    subtract_log_q, remove_accidental_hits, seed,
):  # fmt: skip
    """TensorFlow's _compute_sampled_logits ("div" partitions): (logits, soft labels) of the
    true classes followed by the sampled ones."""
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    inputs = convert_to_tensor(inputs)
    labels = convert_to_tensor(labels)
    if labels.dtype != _tf.int64:
        labels = _tf.cast(labels, _tf.int64)
    flat = _tf.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed
        )
    sampled, true_count, sampled_count = (_tf.stop_gradient(s) for s in sampled_values)
    sampled = _tf.cast(sampled, _tf.int64)
    ids = _tf.concat([flat, sampled], 0)
    all_w = _tf.nn.embedding_lookup(list(weights), ids)
    if all_w.dtype != inputs.dtype:
        all_w = _tf.cast(all_w, inputs.dtype)
    n_true = _tf.shape(flat)[0]
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    sampled_logits = _tf.matmul(inputs, sampled_w, transpose_b=True)
    all_b = _tf.nn.embedding_lookup(biases, ids)
    if all_b.dtype != inputs.dtype:
        all_b = _tf.cast(all_b, inputs.dtype)
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    dim = _tf.shape(true_w)[1:2]
    dots = inputs[:, None, :] * _tf.reshape(true_w, _tf.concat([[-1, num_true], dim], 0))
    true_logits = _tf.reshape(
        _sum_rows(_tf.reshape(dots, _tf.concat([[-1], dim], 0))), [-1, num_true]
    )
    true_logits += _tf.reshape(true_b, [-1, num_true])
    sampled_logits += sampled_b
    if remove_accidental_hits:
        hits = compute_accidental_hits(labels, sampled, num_true)
        where = _tf.stack([hits.indices, _tf.cast(hits.ids, _tf.int32)], axis=1)
        shape = _tf.stack([_tf.shape(labels)[0], num_sampled])
        # Every hit adds -FLT_MAX once (repeated positions take the same value).
        mask = _tf.scatter_nd(where, _tf.ones_like(hits.indices), shape) > 0
        low = _tf.constant(np.finfo(np.float32).min, sampled_logits.dtype)
        sampled_logits += _tf.where(mask, low, _tf.zeros([], sampled_logits.dtype))
    if subtract_log_q:
        true_logits -= _tf.math.log(_tf.cast(true_count, true_logits.dtype))
        sampled_logits -= _tf.math.log(_tf.cast(sampled_count, sampled_logits.dtype))
    logits = _tf.concat([true_logits, sampled_logits], 1)
    targets = _tf.concat([_tf.ones_like(true_logits) / num_true, _tf.zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(
    weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
    sampled_values=None, remove_accidental_hits=False, name="nce_loss",
):  # fmt: skip
    """Noise-contrastive estimation loss per example: sigmoid cross-entropy of the true
    classes (target 1 / num_true) and the sampled ones (target 0), logits corrected by the
    log expected counts."""
    logits, targets = _sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, None,
    )  # fmt: skip
    losses = _tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return _sum_rows(losses)


def sampled_softmax_loss(
    weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
    sampled_values=None, remove_accidental_hits=True, seed=None, name="sampled_softmax_loss",
):  # fmt: skip
    """Softmax cross-entropy over the true classes and a sample of the others, logits
    corrected by the log expected counts (accidental hits removed by default)."""
    logits, targets = _sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, seed,
    )  # fmt: skip
    targets = _tf.stop_gradient(targets)
    return _tf.nn.softmax_cross_entropy_with_logits(labels=targets, logits=logits)
