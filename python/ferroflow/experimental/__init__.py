"""`tf.experimental`: TensorFlow's experimental names. So far the narrow dtypes (float8, float4,
int4, int2 and their unsigned forms; DType objects without ferroflow tensors, see `dtypes`),
the ragged shape classes `RowPartition` and `DynamicRaggedShape`, user-defined composite types
(`ExtensionType`, see `extension_type`), the dispatchers of TensorFlow APIs for them, `Optional`,
`dlpack`, the runtime switches (see `experimental_ops`) and TensorFlow's NumPy API
`tf.experimental.numpy` (the subpackage `numpy`, imported last by `ferroflow/__init__.py`)."""

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
from ferroflow.experimental_ops import (
    Optional,
    async_clear_error,
    async_scope,
    dispatch_for_api,
    dispatch_for_binary_elementwise_apis,
    dispatch_for_binary_elementwise_assert_apis,
    dispatch_for_unary_elementwise_apis,
    dlpack,
    enable_strict_mode,
    extension_type,
    function_executor_type,
    register_filesystem_plugin,
    unregister_dispatch_for,
)
from ferroflow.extension_type import (
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeBatchEncoder,
    ExtensionTypeSpec,
)
from ferroflow.ragged.dynamic_ragged_shape import DynamicRaggedShape
from ferroflow.ragged.row_partition import RowPartition
from ferroflow.structured_tensor import StructuredTensor

__all__ = [
    "BatchableExtensionType",
    "DynamicRaggedShape",
    "ExtensionType",
    "ExtensionTypeBatchEncoder",
    "ExtensionTypeSpec",
    "Optional",
    "RowPartition",
    "StructuredTensor",
    "async_clear_error",
    "async_scope",
    "dispatch_for_api",
    "dispatch_for_binary_elementwise_apis",
    "dispatch_for_binary_elementwise_assert_apis",
    "dispatch_for_unary_elementwise_apis",
    "dlpack",
    "enable_strict_mode",
    "extension_type",
    "float4_e2m1fn",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "function_executor_type",
    "int2",
    "int4",
    "numpy",
    "register_filesystem_plugin",
    "uint2",
    "uint4",
    "unregister_dispatch_for",
]


def __getattr__(name):
    # The `numpy` subpackage imports ferroflow as a whole, so it loads after the package.
    if name == "numpy":
        import importlib

        return importlib.import_module("ferroflow.experimental.numpy")
    raise AttributeError(f"module 'ferroflow.experimental' has no attribute {name!r}")
