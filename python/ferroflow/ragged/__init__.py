"""`tf.ragged`: ragged tensors (rows of different lengths) and their operations.

The classes live beside: `tf.RaggedTensor` (`ragged_tensor.py`), `tf.RaggedTensorSpec`
(`ragged_tensor_spec.py`), `tf.experimental.RowPartition` (`row_partition.py`) and
`tf.experimental.DynamicRaggedShape` (`dynamic_ragged_shape.py`); `ragged_ops.py` registers the
TensorFlow APIs that accept RaggedTensors with `ferroflow._dispatch`.
"""

from ferroflow.ragged import dynamic_ragged_shape as _dynamic_ragged_shape  # noqa: F401
from ferroflow.ragged.ragged_factory import constant
from ferroflow.ragged.ragged_ops import (
    cross,
    cross_hashed,
    map_flat_values,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
    stack_dynamic_partitions,
)
from ferroflow.ragged.ragged_ops import (
    ragged_boolean_mask as boolean_mask,
)
from ferroflow.ragged.ragged_ops import (
    ragged_range as range,  # noqa: A004 - TensorFlow's name
)

__all__ = [
    "boolean_mask",
    "constant",
    "cross",
    "cross_hashed",
    "map_flat_values",
    "range",
    "row_splits_to_segment_ids",
    "segment_ids_to_row_splits",
    "stack",
    "stack_dynamic_partitions",
]
