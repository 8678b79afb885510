"""`tf.compat.v1`, reduced to what ferroflow implements: `nn.fused_batch_norm` alone."""

from ferroflow.compat.v1 import nn

__all__ = ["nn"]
