"""`tf.debugging`: placement logging."""

from ferroflow import _core


def set_log_device_placement(enabled):
    """Prints ``Executing op <Op> in device <device>`` for every op from now on."""
    _core.set_log_device_placement(bool(enabled))


def get_log_device_placement():
    return _core.get_log_device_placement()
