"""`tf.compat`: TensorFlow 1's API kept in TensorFlow 2.

ferroflow's `compat.v1` holds only what ferroflow implements of it (`nn.fused_batch_norm`,
`train.summary_iterator` and the summary protos); every other `tf.compat.v1` name is absent.
"""

from ferroflow.compat import v1

__all__ = ["v1"]
