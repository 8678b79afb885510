"""ferroflow's protobuf messages: TensorFlow's schemas (``proto/tensorflow``) loaded into a private
descriptor pool.

``tensorflow.desc`` is the FileDescriptorSet that ``make protos`` compiles from the checked-in
``.proto`` files. A private pool (not protobuf's default one) lets ferroflow and TensorFlow be
imported in one process: both define ``tensorflow.Example``, and the default pool refuses a second
definition of a name. The wire format and text format are TensorFlow's, so bytes and text move
between the two unchanged.
"""

from __future__ import annotations

import functools
import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_DESC_PATH = os.path.join(os.path.dirname(__file__), "tensorflow.desc")


@functools.cache
def pool() -> descriptor_pool.DescriptorPool:
    """The private descriptor pool holding TensorFlow's schemas (built once)."""
    with open(_DESC_PATH, "rb") as f:
        files = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    result = descriptor_pool.DescriptorPool()
    for file_proto in files.file:
        result.Add(file_proto)
    return result


@functools.cache
def message_class(full_name: str) -> type:
    """The Python message class of ``full_name`` (e.g. ``"tensorflow.Example"``).

    Raises KeyError when the schemas define no such message.
    """
    descriptor = pool().FindMessageTypeByName(full_name)
    return message_factory.GetMessageClass(descriptor)


def enum_value(enum_name: str, value_name: str) -> int:
    """The number of ``value_name`` in the enum ``enum_name`` (e.g. ``"tensorflow.DataType"``)."""
    return pool().FindEnumTypeByName(enum_name).values_by_name[value_name].number
