"""Connectionist temporal classification: `tf.nn.ctc_loss` (TensorFlow's dense forward-backward
in log space, ctc_ops.ctc_loss_dense: the same states, transitions and per-frame normalisation,
so values and gradients are TensorFlow's), its helpers `collapse_repeated` and
`ctc_unique_labels`, and the decoders `ctc_greedy_decoder` and `ctc_beam_search_decoder`, which
return SparseTensors as TensorFlow's ops do.

The loss's gradient is the one the forward-backward pass computes (softmax minus the state
posteriors), attached with a custom gradient as TensorFlow attaches it."""

import math

import numpy as np

import ferroflow as _tf
from ferroflow import _tracing
from ferroflow.array_ops import convert_to_tensor

__all__ = [
    "collapse_repeated",
    "ctc_beam_search_decoder",
    "ctc_greedy_decoder",
    "ctc_loss",
    "ctc_unique_labels",
]

# TensorFlow's "log 0": log(1e-307) computed in float64, then float32.
_LOG_0 = float(np.float32(math.log(1e-307)))


def _dim(t, i):
    return t.shape[i] if t.shape[i] is not None else _tf.shape(t)[i]


def _state_transitions(labels):
    """[batch, states, states] transition weights (1 or 0) of the CTC alignment model: states
    0..L are "label i emitted" (0 the start), L+1..2L+1 "blank after label i"."""
    length = _dim(labels, 1)
    label_states = length + 1
    states = 2 * label_states
    rows, cols = [1], [0]  # start -> first label
    for i in range(1, label_states):  # blank after label i-1 -> label i
        rows.append(i)
        cols.append(label_states + i - 1)
    for i in range(label_states):  # label i -> blank after it
        rows.append(label_states + i)
        cols.append(i)
    fixed = np.eye(states, dtype=np.float32)
    fixed[rows, cols] += 1.0
    # label i-1 -> label i directly, unless the two labels repeat.
    differ = 1.0 - _tf.cast(_tf.equal(labels[:, :-1], labels[:, 1:]), _tf.float32)
    direct = np.zeros([max(length - 1, 0), states, states], np.float32)
    for j in range(length - 1):
        direct[j, j + 2, j + 1] = 1.0
    skip = _tf.einsum("bj,jst->bst", differ, _tf.constant(direct))
    return _tf.constant(fixed)[None] + skip


def _state_log_probs(label_length, max_label_length):
    """Initial and final state log probabilities, [batch, states] each."""
    batch = _dim(label_length, 0)
    label_states = max_label_length + 1
    states = 2 * label_states
    initial = _tf.one_hot(
        _tf.zeros([batch], _tf.int32), states, on_value=0.0, off_value=_LOG_0, axis=1
    )
    final_mask = _tf.one_hot(label_length, label_states, axis=0)  # [label_states, batch]
    final_mask = _tf.ones([2, 1, batch]) * final_mask
    final = _tf.reshape((1.0 - final_mask) * _LOG_0, [states, batch])
    return initial, _tf.transpose(final)


def _observed_log_probs(labels, num_labels, log_probs):
    """Per frame, the log probability each state emits: [frames, batch, states]."""
    label_states = _dim(labels, 1)
    blank = _tf.tile(log_probs[:, :, :1], [1, 1, label_states + 1])
    one_hot = _tf.one_hot(labels, num_labels)[None]
    emitted = _tf.reduce_sum(log_probs[:, :, None, :] * one_hot, axis=3)
    out = _tf.concat([emitted, blank], axis=2)
    return _tf.pad(out, [[0, 0], [0, 0], [1, 0]], constant_values=float("-inf"))


def _forward_backward(transitions, initial, final, observed, lengths):
    """Normalised forward-backward in log space: ([frames, batch, states] state posteriors in
    log space, [batch] log likelihood)."""
    log_trans = _tf.math.log(transitions)
    back_trans = _tf.transpose(log_trans, [0, 2, 1])

    def forward(state, obs):
        state = _tf.reduce_logsumexp(state[:, None, :] + log_trans, axis=-1) + obs
        return state - _tf.reduce_logsumexp(state, axis=-1, keepdims=True)

    fwd = _tf.scan(forward, observed, initial)
    frames = _dim(observed, 0)
    mask = _tf.transpose(_tf.sequence_mask(lengths, frames, _tf.float32))

    def backward(accs, elems):
        state, cum = accs
        obs, valid = elems
        state = _tf.reduce_logsumexp((state + obs)[:, None, :] + back_trans, axis=-1)
        total = _tf.reduce_logsumexp(state, axis=-1, keepdims=True)
        state -= total
        cum += total[:, 0] * valid
        kept = valid[:, None]
        return state * kept + final * (1.0 - kept), cum

    zero = _tf.zeros([_dim(observed, 1)])
    bwd, cum = _tf.scan(backward, (observed, mask), (final, zero), reverse=True)
    # TensorFlow's inclusive reverse scan: frame t pairs with the state after frame t + 1.
    after = _tf.concat([bwd[1:], final[None]], 0)
    posteriors = fwd + after
    posteriors -= _tf.reduce_logsumexp(posteriors, axis=2, keepdims=True)
    posteriors += _tf.math.log(mask[:, :, None])
    return posteriors, bwd[0, :, 0] + cum[0]


def _emission_log_probs(labels, num_labels, posteriors):
    """State posteriors summed per output class: [frames, batch, num_labels]."""
    label_states = _dim(labels, 1) + 1
    label_part = posteriors[:, :, 1:label_states]
    blank_part = posteriors[:, :, label_states:]
    one_hot = _tf.one_hot(labels - 1, num_labels - 1, on_value=0.0, off_value=float("-inf"))
    per_label = _tf.reduce_logsumexp(label_part[:, :, :, None] + one_hot[None], axis=2)
    per_blank = _tf.reduce_logsumexp(blank_part, axis=2, keepdims=True)
    return _tf.concat([per_blank, per_label], axis=-1)


def _loss_and_gradient(logits, labels, label_length, logit_length):
    """TensorFlow's ctc_loss_and_grad (blank 0, time major)."""
    num_labels = _dim(logits, 2)
    log_probs = _tf.nn.log_softmax(logits)
    observed = _observed_log_probs(labels, num_labels, log_probs)
    initial, final = _state_log_probs(label_length, _dim(labels, 1))
    posteriors, likelihood = _forward_backward(
        _state_transitions(labels), initial, final, observed, logit_length
    )
    emissions = _emission_log_probs(labels, num_labels, posteriors)
    grad = _tf.exp(log_probs) - _tf.exp(emissions)
    mask = _tf.sequence_mask(logit_length, _dim(logits, 0), _tf.float32)
    grad *= _tf.transpose(mask)[:, :, None]
    return -likelihood, grad


def _ctc_loss_dense(labels, logits, label_length, logit_length, time_major, unique, blank):
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    label_length = convert_to_tensor(label_length)
    logit_length = convert_to_tensor(logit_length)
    if logits.shape.rank != 3 or labels.shape.rank != 2:
        raise ValueError(
            f"`logits` must have rank 3 and `labels` rank 2, got shapes {logits.shape} and "
            f"{labels.shape}"
        )
    original = logits.dtype
    if original in (_tf.float16, _tf.bfloat16):
        logits = _tf.cast(logits, _tf.float32)
    if logits.dtype != _tf.float32:
        # TensorFlow's composition mixes in float32 constants (AddV2 refuses the mix).
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"cannot compute Mul as input #1(zero-based) was expected to be a "
            f"{'double' if logits.dtype == _tf.float64 else logits.dtype.name} tensor but is a "
            "float tensor [Op:Mul]",
        )
    if not time_major:
        logits = _tf.transpose(logits, [1, 0, 2])
    if blank != 0:
        if blank < 0:
            blank += _dim(logits, 2)
        logits = _tf.concat(
            [logits[:, :, blank : blank + 1], logits[:, :, :blank], logits[:, :, blank + 1 :]],
            axis=2,
        )
        labels = _tf.where(labels < blank, labels + 1, labels)
    # `unique` (ctc_unique_labels) only changes how TensorFlow sums the posteriors on TPUs;
    # the sum is the same.
    del unique

    @_tf.custom_gradient
    def loss(logits_t):
        value, grad = _loss_and_gradient(logits_t, labels, label_length, logit_length)

        def backward(upstream):
            return _tf.reshape(upstream, [1, -1, 1]) * grad

        return value, backward

    result = loss(logits)
    return _tf.cast(result, original) if original != result.dtype else result


def _check_sparse_labels(dense, label_length, logit_length):
    """The CTCLoss kernel's refusals (TensorFlow's sparse-label path): an empty label sequence,
    or one that needs more frames than it has (a repeat needs a blank between)."""
    dense = dense.numpy()
    lengths = label_length.numpy()
    frames = np.broadcast_to(np.asarray(convert_to_tensor(logit_length)), lengths.shape)
    for b, n in enumerate(lengths):
        if n == 0:
            raise _tf.errors.InvalidArgumentError(
                None, None, f"Labels length is zero in batch {b} [Op:CTCLoss]"
            )
        row = dense[b, :n]
        required = n + int(np.sum(row[1:] == row[:-1]))
        if required > frames[b]:
            raise _tf.errors.InvalidArgumentError(
                None,
                None,
                "Not enough time for target transition sequence (required: "
                f"{required}, available: {frames[b]})0You can turn this error into a warning by "
                "using the flag ignore_longer_outputs_than_inputs [Op:CTCLoss]",
            )


def ctc_loss(
    labels,
    logits,
    label_length,
    logit_length,
    logits_time_major=True,
    unique=None,
    blank_index=None,
    name=None,
):
    """The negative log probability of each label sequence under CTC: `logits`
    ``[frames, batch, classes]`` (or batch major), `labels` a dense ``[batch, max_label]``
    tensor with `label_length`, or a SparseTensor (then `blank_index` is required)."""
    if isinstance(labels, _tf.sparse.SparseTensor):
        if blank_index is None:
            raise ValueError(
                "Argument `blank_index` must be provided when `labels` is a `SparseTensor`."
            )
        logits = convert_to_tensor(logits)
        if blank_index < 0:
            blank_index += _dim(logits, 2)
        dense = _tf.sparse.to_dense(labels)
        rows = labels.indices[:, 0]
        batch = _tf.cast(labels.dense_shape[0], _tf.int32)
        label_length = _tf.math.unsorted_segment_sum(
            _tf.ones_like(rows, _tf.int32), _tf.cast(rows, _tf.int32), batch
        )
        if not _tracing.tracing():
            _check_sparse_labels(dense, label_length, logit_length)
        return _ctc_loss_dense(
            dense, logits, label_length, logit_length, logits_time_major, None, blank_index
        )
    return _ctc_loss_dense(
        labels,
        logits,
        label_length,
        logit_length,
        logits_time_major,
        unique,
        0 if blank_index is None else blank_index,
    )


def collapse_repeated(labels, seq_length, name=None):
    """Merges repeated labels within each sequence: (labels padded with 0 to the new longest
    length, new lengths in `seq_length`'s dtype)."""
    labels = convert_to_tensor(labels)
    seq_length = convert_to_tensor(seq_length)
    keep = _tf.concat(
        [_tf.ones_like(labels[:, :1], _tf.bool), _tf.not_equal(labels[:, 1:], labels[:, :-1])],
        axis=1,
    )
    keep = _tf.logical_and(keep, _tf.sequence_mask(seq_length, maxlen=_dim(labels, 1)))
    new_length = _tf.reduce_sum(_tf.cast(keep, _tf.int32), axis=1)
    new_max = _tf.reduce_max(new_length)
    # Kept label t of row b goes to slot cumsum(keep)[b, t] - 1 (a one-hot selection, which
    # needs no shape known only at run time).
    slot = _tf.cumsum(_tf.cast(keep, _tf.int32), axis=1) - 1
    chosen = _tf.logical_and(
        _tf.equal(slot[:, :, None], _tf.range(new_max)[None, None, :]), keep[:, :, None]
    )
    zero = _tf.zeros([], labels.dtype)
    collapsed = _tf.reduce_sum(_tf.where(chosen, labels[:, :, None], zero), axis=1)
    return collapsed, _tf.cast(new_length, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """Per row of `labels`, its unique labels in first-seen order padded with 0 (int64) and
    each label's index among them (int32)."""
    labels = convert_to_tensor(labels)

    def row(x):
        u = _tf.unique(x)
        y = _tf.pad(u.y, [[0, _dim(u.idx, 0) - _dim(u.y, 0)]])
        return [_tf.cast(y, _tf.int64), u.idx]

    return _tf.map_fn(row, labels, fn_output_signature=[_tf.int64, _tf.int32])


def _decoder_inputs(inputs, sequence_length, op):
    inputs = convert_to_tensor(inputs)
    if inputs.dtype not in (_tf.float32, _tf.float64):
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {inputs.dtype.name} is not in the list of allowed values: "
            f"float, double [Op:{op}]",
        )
    sequence_length = convert_to_tensor(sequence_length)
    if sequence_length.dtype != _tf.int32:
        raise _tf.errors.InvalidArgumentError(
            None,
            None,
            f"cannot compute {op} as input #1(zero-based) was expected to be a int32 tensor "
            f"but is a {sequence_length.dtype.name} tensor [Op:{op}]",
        )
    if inputs.shape.rank != 3:
        raise _tf.errors.InvalidArgumentError(None, None, "inputs is not a 3-Tensor")
    if sequence_length.shape.rank != 1:
        raise _tf.errors.InvalidArgumentError(None, None, "sequence_length is not a vector")
    frames, batch = inputs.shape[0], inputs.shape[1]
    # The decoders' shared input check refuses these with FailedPreconditionError.
    if batch is not None and sequence_length.shape[0] not in (None, batch):
        raise _tf.errors.FailedPreconditionError(
            None,
            None,
            f"len(sequence_length) != batch_size.  len(sequence_length):  "
            f"{sequence_length.shape[0]} batch_size: {batch} [Op:{op}]",
        )
    if frames is not None and not _tracing.tracing():
        over = np.flatnonzero(sequence_length.numpy() > frames)
        if over.size:
            raise _tf.errors.FailedPreconditionError(
                None, None, f"sequence_length({over[0]}) <= {frames} [Op:{op}]"
            )
    return inputs, sequence_length


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best path decoding: each frame's most likely class (the first on ties), repeats merged
    when `merge_repeated`, blanks dropped. Returns ([SparseTensor of int64 classes
    ``[batch, max_decoded]``], ``[batch, 1]`` negative sums of the frames' largest logits)."""
    inputs, sequence_length = _decoder_inputs(inputs, sequence_length, "CTCGreedyDecoder")
    classes = _dim(inputs, 2)
    blank = classes - 1 if blank_index is None else blank_index
    if blank < 0:
        blank += classes
    frames, batch = _dim(inputs, 0), _dim(inputs, 1)
    best = _tf.transpose(_tf.math.argmax(inputs, axis=2, output_type=_tf.int64))  # [B, T]
    valid = _tf.sequence_mask(sequence_length, frames)
    previous = _tf.concat([_tf.fill([batch, 1], _tf.constant(-1, _tf.int64)), best[:, :-1]], 1)
    keep = _tf.logical_and(valid, _tf.not_equal(best, blank))
    if merge_repeated:
        keep = _tf.logical_and(keep, _tf.not_equal(best, previous))
    counts = _tf.reduce_sum(_tf.cast(keep, _tf.int64), axis=1)
    position = _tf.cumsum(_tf.cast(keep, _tf.int64), axis=1) - 1
    rows = _tf.broadcast_to(_tf.range(_tf.cast(batch, _tf.int64))[:, None], _tf.shape(best))
    indices = _tf.boolean_mask(_tf.stack([rows, position], axis=2), keep)
    values = _tf.boolean_mask(best, keep)
    longest = _tf.reduce_max(_tf.concat([counts, _tf.zeros([1], _tf.int64)], 0))
    shape = _tf.stack([_tf.cast(batch, _tf.int64), longest])
    top = _tf.reduce_max(inputs, axis=2)  # [T, B]
    masked = top * _tf.cast(_tf.transpose(valid), inputs.dtype)
    neg_sum = -_tf.reduce_sum(masked, axis=0)[:, None]
    return [_tf.sparse.SparseTensor(indices, values, shape)], neg_sum


def _log_sum_exp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    high, low = (a, b) if a > b else (b, a)
    return high + math.log1p(math.exp(low - high))


_NONE = (-math.inf, -math.inf, -math.inf)


class _Beam:
    """A node of TensorFlow's beam tree: a labeling with its (blank, label, total) log
    probabilities, new and old. Nodes persist once made, as TensorFlow's do (a node leaving the
    beam loses its new probabilities, not its old ones)."""

    __slots__ = ("parent", "label", "children", "new", "old")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, None
        self.new = self.old = _NONE

    def active(self):
        return self.new[2] != -math.inf


class _TopN:
    """TensorFlow's gtl::TopN of beams by new total probability (the lowest falls out)."""

    def __init__(self, limit):
        self.limit, self.items = limit, []

    def push(self, beam):
        self.items.append(beam)
        if len(self.items) > self.limit:
            self.items.remove(min(self.items, key=lambda b: b.new[2]))

    def bottom(self):
        return min(self.items, key=lambda b: b.new[2])

    def extract(self):
        out = sorted(self.items, key=lambda b: -b.new[2])
        self.items = []
        return out


def _beam_search(logits, length, beam_width, top_paths, dtype):
    """TensorFlow's CTCBeamSearchDecoder (merge_repeated off, blank the last class) on one
    sequence, `logits` [frames, classes]: (labelings, log probabilities) of the top paths."""
    classes = logits.shape[1]
    blank = classes - 1
    root = _Beam(None, -1)
    root.new = (0.0, -math.inf, 0.0)
    leaves = _TopN(beam_width)
    leaves.push(root)
    for t in range(length):
        row = logits[t].astype(dtype)
        top = row.max()
        offset = float(top + np.log(np.exp(row - top).sum()))
        lp = [float(v) - offset for v in row]
        branches = leaves.extract()
        for b in branches:
            b.old = b.new
        for b in branches:
            p_label = b.new[1]
            if b.parent is not None:
                parent = b.parent
                if parent.active():
                    previous = parent.old[0] if b.label == parent.label else parent.old[2]
                    p_label = _log_sum_exp(p_label, previous)
                p_label += lp[b.label]
            p_blank = b.old[2] + lp[blank]
            b.new = (p_blank, p_label, _log_sum_exp(p_blank, p_label))
            leaves.push(b)

        def candidate(total):
            return total > -math.inf and (
                len(leaves.items) < beam_width or total > leaves.bottom().new[2]
            )

        for b in branches:
            if not candidate(b.old[2]):
                continue
            if b.children is None:
                b.children = [_Beam(b, c) for c in range(classes - 1)]
            for c in b.children:
                if c.active():
                    continue
                previous = b.old[0] if c.label == b.label else b.old[2]
                label_p = lp[c.label] + previous
                c.new = (-math.inf, label_p, label_p)
                if candidate(label_p):
                    if len(leaves.items) == beam_width:
                        # The bottom leaves the beam: it is no longer active.
                        leaves.bottom().new = _NONE
                    leaves.push(c)
                else:
                    c.new = c.old = _NONE
    best = leaves.extract()[:top_paths]
    paths = []
    for beam in best:
        labels = []
        while beam.parent is not None:
            labels.append(beam.label)
            beam = beam.parent
        paths.append(labels[::-1])
    return paths, [b.new[2] for b in best]


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search decoding (blank is the last class, repeats not merged): ([top_paths
    SparseTensors of int64 classes], ``[batch, top_paths]`` log probabilities). Runs on the
    host, as TensorFlow's CPU kernel."""
    inputs, sequence_length = _decoder_inputs(inputs, sequence_length, "CTCBeamSearchDecoder")
    beam_width, top_paths = int(beam_width), int(top_paths)
    if beam_width < 1:
        raise _tf.errors.InvalidArgumentError(
            None, None, f"Value for attr 'beam_width' of {beam_width} must be at least minimum 1"
        )
    if top_paths < 1 or top_paths > beam_width:
        raise _tf.errors.InvalidArgumentError(None, None, "top_paths must be <= beam_width and > 0")
    dtype = inputs.dtype.as_numpy_dtype

    def decode(x, lengths):
        x, lengths = np.asarray(x), np.asarray(lengths)
        batch = x.shape[1]
        paths = [[] for _ in range(top_paths)]
        scores = np.zeros([batch, top_paths], dtype)
        for b in range(batch):
            found, logp = _beam_search(x[:, b], int(lengths[b]), beam_width, top_paths, dtype)
            if len(found) < top_paths:
                raise _tf.errors.InvalidArgumentError(
                    None, None, "Less leaves in the beam search than requested."
                )
            for j in range(top_paths):
                paths[j].append(found[j] if j < len(found) else [])
                scores[b, j] = logp[j] if j < len(logp) else -np.inf
        out = []
        for j in range(top_paths):
            idx = [[b, i] for b, p in enumerate(paths[j]) for i in range(len(p))]
            vals = [v for p in paths[j] for v in p]
            longest = max((len(p) for p in paths[j]), default=0)
            out += [
                np.asarray(idx, np.int64).reshape(-1, 2),
                np.asarray(vals, np.int64),
                np.asarray([batch, longest], np.int64),
            ]
        return [*out, scores]

    kinds = [_tf.int64, _tf.int64, _tf.int64] * top_paths + [inputs.dtype]
    results = _tf.numpy_function(decode, [inputs, sequence_length], kinds, stateful=False)
    decoded = []
    for j in range(top_paths):
        idx, vals, shape = results[3 * j : 3 * j + 3]
        idx = _tf.reshape(idx, [-1, 2])
        decoded.append(
            _tf.sparse.SparseTensor(idx, _tf.reshape(vals, [-1]), _tf.reshape(shape, [2]))
        )
    scores = _tf.reshape(results[-1], [_dim(inputs, 1), top_paths])
    return decoded, scores
