"""`tf.experimental`: TensorFlow's experimental names. So far the narrow dtypes (float8, float4,
int4, int2 and their unsigned forms; DType objects without ferroflow tensors, see `dtypes`),
and the ragged shape classes `RowPartition` and `DynamicRaggedShape`."""

from ferroflow.dtypes import (
    float4_e2m1fn,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    int2,
    int4,
    uint2,
    uint4,
)
from ferroflow.ragged.dynamic_ragged_shape import DynamicRaggedShape
from ferroflow.ragged.row_partition import RowPartition

__all__ = [
    "DynamicRaggedShape",
    "RowPartition",
    "float4_e2m1fn",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "int2",
    "int4",
    "uint2",
    "uint4",
]
