"""`tf.train.Example` and its parts: protobuf message classes with TensorFlow's schemas (from
ferroflow's private descriptor pool, see ``ferroflow._proto``), so ``SerializeToString`` and
``FromString`` speak TensorFlow's wire format."""

from ferroflow._proto import message_class

Example = message_class("tensorflow.Example")
SequenceExample = message_class("tensorflow.SequenceExample")
Features = message_class("tensorflow.Features")
Feature = message_class("tensorflow.Feature")
FeatureList = message_class("tensorflow.FeatureList")
FeatureLists = message_class("tensorflow.FeatureLists")
BytesList = message_class("tensorflow.BytesList")
FloatList = message_class("tensorflow.FloatList")
Int64List = message_class("tensorflow.Int64List")

__all__ = [
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
]
