"""`tf.autograph.experimental`."""

from ferroflow.autograph.api import do_not_convert

__all__ = ["do_not_convert"]
