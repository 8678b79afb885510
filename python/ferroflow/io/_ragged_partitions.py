"""A RaggedFeature's output: its value feature nested by its partition features, innermost
partition first, with TensorFlow's semantics (`parsing_config`'s RaggedFeature handling).

The parse ops give each ragged key a Tensor (one Example), a RaggedTensor [batch, (values)] (a
batch of Examples, or one SequenceExample's feature list: its steps are the batch), or a
RaggedTensor [batch, (steps), (values)] (a batch of SequenceExamples). A partition applies to
each batch item (each step) with that item's own partition values; two batch levels are
collapsed while partitioning and restored after. With ``validate`` False, as TensorFlow, nothing
checks that the partitions fit the values: inconsistent ones give what the arithmetic gives.

Written with ordinary ops on the components, so a traced parse composes them in its graph.
"""

from __future__ import annotations

from ._features import RaggedFeature


def build(key, feature, tensors):
    """The RaggedTensor (or Tensor) of RaggedFeature ``feature`` under ``key``, from
    ``tensors`` (the parse op's output of every ragged key)."""
    from ferroflow.ragged.ragged_tensor import RaggedTensor

    rt = tensors[feature.value_key or key]
    if not isinstance(rt, RaggedTensor):  # one Example
        for partition in reversed(feature.partitions):
            rt = _single(rt, partition, tensors, feature.row_splits_dtype, feature.validate)
        return rt
    outer = None
    if rt.ragged_rank > 1:  # a batch of SequenceExamples: batch and steps collapsed
        outer, rt = rt.row_splits, rt.values
    for partition in reversed(feature.partitions):
        rt = _batched(rt, partition, tensors, key, feature.validate, outer)
    if outer is not None:
        rt = RaggedTensor.from_row_splits(rt, outer, validate=feature.validate)
    return rt


def _single(values, partition, tensors, splits_dtype, validate):
    """One Example's values (a Tensor, or a RaggedTensor once partitioned) partitioned by its
    partition feature's values."""
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor as R

    if isinstance(partition, RaggedFeature.UniformRowLength):
        if isinstance(values, R):
            length = tf.constant(partition.length, dtype=splits_dtype)
            return R.from_uniform_row_length(values, length, validate=validate)
        return _reshape_rows(values, partition.length)
    p = tf.cast(tensors[partition.key], splits_dtype)
    build_from = {
        RaggedFeature.RowSplits: R.from_row_splits,
        RaggedFeature.RowLengths: R.from_row_lengths,
        RaggedFeature.RowStarts: R.from_row_starts,
        RaggedFeature.RowLimits: R.from_row_limits,
        RaggedFeature.ValueRowIds: R.from_value_rowids,
    }[type(partition)]
    return build_from(values, p, validate=validate)


def _reshape_rows(values, length):
    """Dense values grouped in rows of ``length``: a new second dimension."""
    import ferroflow as tf

    return tf.reshape(values, tf.concat([[-1, length], tf.shape(values)[1:]], 0))


def _batched(rt, partition, tensors, key, validate, outer):
    """``rt`` [batch, ...] with each item ``rt[i]`` partitioned by the partition feature's
    values of item i; ``outer``: the collapsed outer batch's row splits, which the partition
    feature's own must equal (checked only when ``validate``)."""
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor as R

    if isinstance(partition, RaggedFeature.UniformRowLength):
        length = partition.length
        if rt.ragged_rank > 1:
            uniform = tf.constant(length, dtype=rt.row_splits.dtype)
            inner = R.from_uniform_row_length(rt.values, uniform, validate=validate)
        else:
            inner = _reshape_rows(rt.values, length)
        return R.from_row_splits(inner, rt.row_splits // length, validate=validate)

    splits_dtype = rt.row_splits.dtype
    p = tensors[partition.key]
    if p.dtype != splits_dtype:
        p = tf.cast(p, splits_dtype)
    checks = []
    if outer is not None:
        if validate:
            checks.append(
                tf.debugging.assert_equal(
                    outer,
                    p.row_splits,
                    message=f"Feature {key}: values and partitions are not aligned",
                )
            )
        p = p.values
    with tf.control_dependencies(checks):
        values, p_splits, lengths = p.values, p.row_splits, p.row_lengths()
        if isinstance(partition, RaggedFeature.RowSplits):
            values, p_splits, lengths = _drop_first_of_each_row(values, p_splits, lengths)
        if isinstance(partition, RaggedFeature.ValueRowIds):
            return _batched_value_rowids(rt, values, lengths, validate)
        if isinstance(partition, RaggedFeature.RowLengths):
            inner = R.from_row_lengths(rt.values, values, validate=validate)
            return R.from_row_splits(inner, p_splits, validate=False)
        # Row splits, limits and starts are each item's own: offset by the item's start.
        bounds = values + tf.repeat(rt.row_starts(), lengths)
        if isinstance(partition, RaggedFeature.RowStarts):
            inner = R.from_row_starts(rt.values, bounds, validate=validate)
        else:
            inner = R.from_row_limits(rt.values, bounds, validate=validate)
        _check_rows(values, bounds)
        # The partition feature's rows are the items' new rows (TensorFlow's `with_values`).
        return R.from_row_splits(inner, p_splits, validate=False)


def _check_rows(values, bounds):
    """TensorFlow's `with_values` check: as many new rows (``bounds``) as the partition
    feature has values, where both are known before the graph runs (an item count that
    differs from the partition feature's broadcasts one of them)."""
    known = values.shape[0], bounds.shape[0]
    if None not in known and known[0] != known[1]:
        raise ValueError(f"Dimensions {known[0]} and {known[1]} are not compatible")


def _drop_first_of_each_row(values, splits, lengths):
    """Each row of a ragged [batch, (n)] without its first value: row splits become limits."""
    import ferroflow as tf

    within = tf.range(tf.size(values, out_type=splits.dtype), dtype=splits.dtype)
    keep = within - tf.repeat(splits[:-1], lengths) > 0
    lengths = tf.maximum(lengths - 1, 0)
    zero = tf.zeros([1], splits.dtype)
    return tf.boolean_mask(values, keep), tf.concat([zero, tf.cumsum(lengths)], 0), lengths


def _batched_value_rowids(rt, rowids, lengths, validate):
    """Each item's value row ids offset by the rows of the items before it; an item has its
    largest row id + 1 rows (none when it has no ids)."""
    import ferroflow as tf
    from ferroflow.ragged.ragged_tensor import RaggedTensor as R

    batch = tf.size(lengths, out_type=lengths.dtype)
    item = tf.repeat(tf.range(batch, dtype=lengths.dtype), lengths)
    nrows = tf.maximum(tf.math.unsorted_segment_max(rowids + 1, item, batch), 0)
    adjusted = rowids + tf.repeat(tf.cumsum(nrows, exclusive=True), lengths)
    inner = R.from_value_rowids(rt.values, adjusted, validate=validate)
    return R.from_row_lengths(inner, nrows, validate=validate)
