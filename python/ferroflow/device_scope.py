"""`tf.device`: a context manager that places the ops and constants created inside it."""

import threading

from ferroflow import _core, config

_local = threading.local()


def active_scopes():
    """The device strings of the `tf.device` scopes open on this thread (a tf.function traced
    under one scope must not serve calls under another)."""
    return tuple(getattr(_local, "names", ()))


class device:  # noqa: N801 - TensorFlow's name
    """``with tf.device('GPU:0'):`` runs ops on GPU:0; scopes nest, inner fields winning.

    Accepts TensorFlow's spellings: ``'CPU:0'``, ``'/gpu:0'``, ``'/device:GPU:0'``,
    ``'/job:localhost/replica:0/task:0/device:GPU:0'``; ``None`` or ``''`` leaves placement
    unchanged. A malformed string raises ValueError.

    >>> import ferroflow as tf
    >>> with tf.device('CPU:0'):
    ...     x = tf.constant(1.0) + 1.0
    >>> x.device
    '/job:localhost/replica:0/task:0/device:CPU:0'
    """

    def __init__(self, device_name):
        if device_name is None:
            device_name = ""
        if hasattr(device_name, "to_string"):
            device_name = device_name.to_string()
        if not isinstance(device_name, str):
            raise TypeError(f"tf.device expects a device name string, got {device_name!r}")
        self._name = device_name

    def __enter__(self):
        _core.push_device_scope(self._name)
        config._note_initialized()
        _local.names = (*active_scopes(), self._name)
        return self

    def __exit__(self, *exc):
        _core.pop_device_scope()
        _local.names = active_scopes()[:-1]
        return False
