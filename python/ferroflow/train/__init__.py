"""`tf.train`: object-based checkpoints (`Checkpoint`, `CheckpointManager`) and the tools that
find and inspect them. The file format is described in docs/checkpoint-format.md."""

from ferroflow import _proto
from ferroflow.train._example import (  # io-core
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from ferroflow.train.checkpoint import Checkpoint
from ferroflow.train.checkpoint_management import (
    CheckpointManager,
    checkpoints_iterator,
    get_checkpoint_state,
    latest_checkpoint,
)
from ferroflow.train.cluster_spec import ClusterSpec
from ferroflow.train.coordinator import Coordinator
from ferroflow.train.moving_averages import ExponentialMovingAverage
from ferroflow.train.options import CheckpointOptions
from ferroflow.train.reader import list_variables, load_checkpoint, load_variable
from ferroflow.train.views import CheckpointView, TrackableView

# The cluster messages, from TensorFlow's schema (proto/tensorflow/cluster.proto).
ClusterDef = _proto.message_class("tensorflow.ClusterDef")
JobDef = _proto.message_class("tensorflow.JobDef")

__all__ = [
    "BytesList",  # io-core: tf.train.Example's messages
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "Checkpoint",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointView",
    "ClusterDef",
    "ClusterSpec",
    "JobDef",
    "Coordinator",
    "TrackableView",
    "ExponentialMovingAverage",
    "checkpoints_iterator",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
