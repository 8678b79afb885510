"""The legacy Keras 2 ``K.ctc_*`` functions: connectionist temporal classification over
softmax outputs ``(batch, time, classes)`` whose last class is the blank."""

import ferroflow as tf
from ferroflow.keras._backend_config import epsilon

__all__ = ["ctc_batch_cost", "ctc_decode", "ctc_label_dense_to_sparse"]


def ctc_label_dense_to_sparse(labels, label_lengths):
    """The first ``label_lengths[i]`` labels of each row of the dense ``labels`` as a
    `tf.SparseTensor` (int64 indices, row-major)."""
    label_shape = tf.shape(labels)
    valid = tf.sequence_mask(label_lengths, maxlen=label_shape[1])
    indices = tf.where(valid)
    values = tf.gather_nd(labels, indices)
    return tf.SparseTensor(indices, values, tf.cast(label_shape, tf.int64))


def _log_time_major(y_pred):
    return tf.math.log(tf.transpose(y_pred, perm=[1, 0, 2]) + epsilon())


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """The CTC loss of each sample, ``(batch, 1)``: ``y_true`` ``(batch, max_label_len)``,
    ``y_pred`` softmax outputs, ``input_length`` and ``label_length`` ``(batch, 1)``."""
    label_length = tf.cast(tf.squeeze(label_length, axis=-1), tf.int32)
    input_length = tf.cast(tf.squeeze(input_length, axis=-1), tf.int32)
    labels = ctc_label_dense_to_sparse(y_true, label_length)
    # ferroflow's `tf.cast` takes no SparseTensor: cast the values (the same result).
    labels = tf.SparseTensor(labels.indices, tf.cast(labels.values, tf.int32), labels.dense_shape)
    loss = tf.nn.ctc_loss(
        labels=labels,
        logits=_log_time_major(y_pred),
        label_length=None,
        logit_length=input_length,
        blank_index=-1,
    )
    return tf.expand_dims(loss, 1)


def _merge_repeated(dense):
    """Each row of ``dense`` (padded with -1) with runs of equal labels kept once, packed
    to the left (TensorFlow 1's beam decoder's ``merge_repeated``)."""
    previous = tf.pad(dense[:, :-1], [[0, 0], [1, 0]], constant_values=-1)
    keep = tf.logical_and(tf.not_equal(dense, -1), tf.not_equal(dense, previous))
    columns = tf.cumsum(tf.cast(keep, tf.int64), axis=1) - 1
    rows = tf.where(keep)[:, :1]
    indices = tf.concat([rows, tf.expand_dims(tf.boolean_mask(columns, keep), 1)], axis=1)
    fill = tf.fill(tf.shape(dense, out_type=tf.int64), tf.constant(-1, dense.dtype))
    return tf.tensor_scatter_nd_update(fill, indices, tf.boolean_mask(dense, keep))


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decodes softmax outputs: a list of ``top_paths`` dense ``(batch, time)`` int64
    label tensors padded with -1, and the log probabilities ``(batch, top_paths)``."""
    shape = tf.shape(y_pred, out_type=tf.int64)
    dense_shape = shape[:2]
    logits = _log_time_major(y_pred)
    input_length = tf.cast(input_length, tf.int32)
    if greedy:
        decoded, log_prob = tf.nn.ctc_greedy_decoder(inputs=logits, sequence_length=input_length)
    else:
        decoded, log_prob = tf.nn.ctc_beam_search_decoder(
            inputs=logits, sequence_length=input_length, beam_width=beam_width, top_paths=top_paths
        )
    dense = []
    for st in decoded:
        st = tf.SparseTensor(st.indices, st.values, dense_shape)
        paths = tf.sparse.to_dense(st, default_value=-1)
        dense.append(paths if greedy else _merge_repeated(paths))
    return dense, log_prob
