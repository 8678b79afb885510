"""`tf.types.experimental.distributed`: TensorFlow's abstract distributed values. ferroflow has
no `tf.distribute` strategies, so nothing is an instance of these."""

import abc as _abc


class _DistributedValues(_abc.ABC):  # noqa: B024 - TensorFlow's base has no abstract methods
    """A value with a component per replica."""


class PerReplica(_DistributedValues):
    """A value holding a different component on each replica."""


class Mirrored(_DistributedValues):
    """A value holding the same component on every replica."""


__all__ = ["Mirrored", "PerReplica"]
