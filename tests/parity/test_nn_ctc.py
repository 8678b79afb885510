"""`tf.nn.ctc_loss` (dense and sparse labels, blank index, batch-major logits, unique labels),
its gradients, `collapse_repeated`, `ctc_unique_labels` and the greedy and beam search decoders
against TensorFlow: values, dtypes, shapes, SparseTensor outputs, a traced call, CPU and GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _loss(tf, device, blank_index, time_major, sparse, unique):
    import numpy as np

    rng = np.random.default_rng(2)
    frames, batch, classes = 7, 4, 6
    logits = tf.constant(rng.standard_normal([frames, batch, classes]).astype("float32") * 2)
    if not time_major:
        logits = tf.transpose(logits, [1, 0, 2])
    top = classes - 1 if blank_index in (None, 0) else classes - 2
    labels = rng.integers(1, top + 1, [batch, 4]).astype("int32")
    labels[0, 1] = labels[0, 0]  # a repeat
    # The CTCLoss kernel behind sparse labels refuses an empty sequence; the dense path takes it.
    lengths = [4, 2, 3, 1] if sparse else [4, 2, 3, 0]
    label_length = tf.constant(lengths)
    logit_length = tf.constant([7, 5, 6, 3])
    labels = labels * (np.arange(4)[None] < np.array(lengths)[:, None])
    labels = tf.constant(labels)
    if sparse:
        labels = tf.sparse.from_dense(labels)
        label_length = None
    kwargs = {"logits_time_major": time_major, "blank_index": blank_index}
    if unique:
        kwargs["unique"] = tf.nn.ctc_unique_labels(labels)

    def fn(logits):
        return tf.nn.ctc_loss(labels, logits, label_length, logit_length, **kwargs)

    with tf.device(device):
        value = fn(logits)
        traced = tf.function(fn)(logits)
        with tf.GradientTape() as tape:
            tape.watch(logits)
            total = tf.reduce_sum(fn(logits) * tf.constant([1.0, -2.0, 0.5, 3.0]))
        grad = tape.gradient(total, logits)
    return value, traced, grad


LOSS_CASES = [
    (None, True, False, False),
    (0, True, False, False),
    (2, True, False, False),
    (-1, False, False, False),
    (5, True, True, False),
    (-1, False, True, False),
    (None, True, False, True),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("blank_index,time_major,sparse,unique", LOSS_CASES)
def test_ctc_loss(tf_oracle, device, blank_index, time_major, sparse, unique):
    if sparse and device == "GPU:0":
        pytest.skip("TensorFlow picks its cuDNN CTCLossV2 under a GPU scope (absent on the CPU)")
    args = (device, blank_index, time_major, sparse, unique)
    assert_parity(tf_oracle, _loss, args, rtol=2e-5, atol=2e-5)


def _helpers(tf, device):
    with tf.device(device):
        labels = tf.constant([[1, 1, 2, 2, 1], [1, 2, 3, 4, 5], [3, 3, 3, 0, 0]])
        collapsed = tf.nn.collapse_repeated(labels, tf.constant([5, 3, 2]))
        collapsed64 = tf.nn.collapse_repeated(labels, tf.constant([5, 5, 5], tf.int64))
        unique = tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 2, 0]]))
        traced = tf.function(tf.nn.collapse_repeated)(labels, tf.constant([4, 1, 5]))
    return collapsed, collapsed64, unique, traced


@pytest.mark.parametrize("device", DEVICES)
def test_ctc_label_helpers(tf_oracle, device):
    assert_parity(tf_oracle, _helpers, (device,))


def _decoders(tf, device, dtype):
    import numpy as np

    rng = np.random.default_rng(4)
    logits = tf.constant(rng.standard_normal([6, 3, 5]).astype(dtype) * 2)
    lengths = tf.constant([6, 4, 2])
    with tf.device(device):
        return (
            tf.nn.ctc_greedy_decoder(logits, lengths),
            tf.nn.ctc_greedy_decoder(logits, lengths, merge_repeated=False, blank_index=0),
            tf.nn.ctc_greedy_decoder(logits, lengths, blank_index=-3),
            tf.function(tf.nn.ctc_greedy_decoder)(logits, lengths),
            tf.nn.ctc_beam_search_decoder(logits, lengths, beam_width=4, top_paths=3),
            tf.nn.ctc_beam_search_decoder(logits, lengths),
            tf.function(tf.nn.ctc_beam_search_decoder)(logits, lengths, 2, 2),
        )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_decoders(tf_oracle, device, dtype):
    assert_parity(tf_oracle, _decoders, (device, dtype), rtol=1e-5, atol=1e-5)


def _errors(tf, which):
    logits = tf.zeros([4, 2, 3])
    labels = tf.constant([[1, 2], [1, 0]])
    if which == "sparse_without_blank":
        return tf.nn.ctc_loss(tf.sparse.from_dense(labels), logits, None, [4, 4])
    if which == "sparse_empty_row":
        return tf.nn.ctc_loss(tf.sparse.from_dense(labels * [[1], [0]]), logits, None, [4, 4], 0)
    if which == "sparse_too_long":
        return tf.nn.ctc_loss(tf.sparse.from_dense([[1, 1, 2], [1, 0, 0]]), logits, None, [4, 4], 0)
    if which == "beam_too_few_leaves":
        return tf.nn.ctc_beam_search_decoder(logits, [4, 0], beam_width=4, top_paths=3)
    if which == "loss_float64":
        return tf.nn.ctc_loss(labels, tf.cast(logits, tf.float64), [2, 1], [4, 4])
    if which == "greedy_int_lengths64":
        return tf.nn.ctc_greedy_decoder(logits, tf.constant([4, 4], tf.int64))
    if which == "greedy_rank":
        return tf.nn.ctc_greedy_decoder(tf.zeros([4, 3]), [4])
    if which == "greedy_batch":
        return tf.nn.ctc_greedy_decoder(logits, [4, 4, 4])
    if which == "greedy_too_long":
        return tf.nn.ctc_greedy_decoder(logits, [5, 4])
    if which == "beam_top_paths":
        return tf.nn.ctc_beam_search_decoder(logits, [4, 4], beam_width=2, top_paths=3)
    if which == "beam_int":
        return tf.nn.ctc_beam_search_decoder(tf.zeros([4, 2, 3], tf.int32), [4, 4])
    raise AssertionError(which)


@pytest.mark.parametrize(
    "which",
    [
        "sparse_without_blank",
        "sparse_empty_row",
        "sparse_too_long",
        "beam_too_few_leaves",
        "loss_float64",
        "greedy_int_lengths64",
        "greedy_rank",
        "greedy_batch",
        "greedy_too_long",
        "beam_top_paths",
        "beam_int",
    ],
)
def test_ctc_errors(tf_oracle, which):
    assert_parity(tf_oracle, _errors, (which,))
