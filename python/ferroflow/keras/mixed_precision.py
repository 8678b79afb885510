"""`keras.mixed_precision`: Keras 3's legacy names for dtype policies and loss scaling."""

from ferroflow.keras.dtype_policies import DTypePolicy, dtype_policy, set_dtype_policy
from ferroflow.keras.optimizers import LossScaleOptimizer

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy

__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]
