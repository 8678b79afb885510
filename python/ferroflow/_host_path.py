"""The ``ram://``-aware path helpers of `ferroflow.io._filesystem`, for modules that the
`ferroflow.io` package imports (and so cannot import it at their top)."""

__all__ = ["host_path", "is_directory", "shown"]


def host_path(path):
    """``path`` as the operating system names it (`ferroflow.io._filesystem.host_path`)."""
    from ferroflow.io import _filesystem

    return _filesystem.host_path(path)


def is_directory(path):
    """`tf.io.gfile.isdir` of ``path`` (a ``ram://`` one by TensorFlow's ram rules)."""
    from ferroflow.io import _filesystem

    return _filesystem.is_directory(path)


def shown(text):
    """``text`` (a message naming local paths) with ``ram://`` files named as such."""
    from ferroflow.io import _filesystem

    return _filesystem.shown(text)
