"""`tf.compat.v1`, reduced to what ferroflow implements: `nn.fused_batch_norm`,
`train.summary_iterator`, the summary protos (`Event`, `Summary`, `SummaryMetadata`,
`HistogramProto`) that TensorFlow 1's summary code builds, and the graph protos (`GraphDef`,
`NodeDef`, `AttrValue`)."""

from ferroflow.compat.v1 import nn, train

__all__ = [
    "AttrValue",
    "Event",
    "GraphDef",
    "HistogramProto",
    "NodeDef",
    "Summary",
    "SummaryMetadata",
    "nn",
    "train",
]

_PROTOS = (
    "AttrValue",
    "Event",
    "GraphDef",
    "HistogramProto",
    "NodeDef",
    "Summary",
    "SummaryMetadata",
)


def __getattr__(name):
    # The message classes come from the protobuf package, loaded on first use.
    if name in _PROTOS:
        from ferroflow import _proto

        return _proto.message_class("tensorflow." + name)
    raise AttributeError(f"module 'ferroflow.compat.v1' has no attribute {name!r}")
