"""`tf.compat.v1.train`, reduced to what ferroflow implements: `summary_iterator`."""

__all__ = ["summary_iterator"]


def summary_iterator(path):
    """The `tf.compat.v1.Event` protos of an events file, in order (a damaged record raises
    DataLossError).

    >>> import ferroflow as tf, glob, tempfile
    >>> logdir = tempfile.mkdtemp()
    >>> with tf.summary.create_file_writer(logdir).as_default():
    ...     _ = tf.summary.scalar("loss", 0.5, step=1)
    >>> [e.step for e in tf.compat.v1.train.summary_iterator(glob.glob(logdir + "/*")[0])]
    [0, 1]
    """
    from ferroflow import _core, _proto

    event_class = _proto.message_class("tensorflow.Event")
    for record in _core.TFRecordReader(str(path)):
        yield event_class.FromString(record)
