"""ferroflow: TensorFlow 2's API on a Rust core.

Port a TensorFlow program by changing one line::

    import ferroflow as tf
"""

from ferroflow import (
    autodiff,
    autograph,
    bitwise,
    compat,
    config,
    data,
    debugging,
    dtypes,
    errors,
    experimental,
    graph_util,
    image,
    io,
    keras,
    linalg,
    lookup,
    math,
    nest,
    nn,
    ragged,
    random,
    saved_model,
    sets,
    signal,
    sparse,
    strings,
    summary,
    test,
    train,
    types,
)
from ferroflow._core import Tensor
from ferroflow.array_extra_ops import (
    batch_to_space,
    bitcast,
    case,
    dynamic_partition,
    dynamic_stitch,
    edit_distance,
    guarantee_const,
    histogram_fixed_width_bins,
    parallel_stack,
    random_index_shuffle,
    required_space_to_batch_paddings,
    space_to_batch,
    space_to_batch_nd,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    vectorized_map,
)
from ferroflow.array_ops import (
    argsort,
    boolean_mask,
    broadcast_to,
    cast,
    concat,
    constant,
    convert_to_tensor,
    ensure_shape,
    expand_dims,
    eye,
    fill,
    gather,
    gather_nd,
    identity,
    is_tensor,
    linspace,
    newaxis,
    one_hot,
    ones,
    ones_like,
    pad,
    range,
    rank,
    reshape,
    reverse,
    scatter_nd,
    shape,
    size,
    slice,
    sort,
    split,
    squeeze,
    stack,
    strided_slice,
    tile,
    transpose,
    unique,
    unstack,
    where,
    zeros,
    zeros_like,
)
from ferroflow.backprop import GradientTape, UnconnectedGradients, custom_gradient, stop_gradient
from ferroflow.cast_ops import saturate_cast
from ferroflow.check_ops import Assert, assert_equal, assert_greater, assert_less, assert_rank
from ferroflow.concrete_function import ConcreteFunction
from ferroflow.control_flow import cond, switch_case, while_loop
from ferroflow.device_scope import device
from ferroflow.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from ferroflow.experimental_ops import OptionalSpec
from ferroflow.framework_extra import (
    CriticalSection,
    DeviceSpec,
    Graph,
    Operation,
    control_dependencies,
    get_current_name_scope,
    get_logger,
    import_graph_def,
    init_scope,
    is_symbolic_tensor,
    load_library,
    load_op_library,
    make_ndarray,
    make_tensor_proto,
    numpy_function,
    py_function,
    register_tensor_conversion_function,
    sysconfig,
    timestamp,
    variable_creator_scope,
    version,
)
from ferroflow.framework_ops import (
    executing_eagerly,
    get_static_value,
    group,
    inside_function,
    no_op,
    tuple,
)
from ferroflow.function import Function, function
from ferroflow.functional_ops import foldl, foldr, map_fn, scan
from ferroflow.gradient_utils import (
    AggregationMethod,
    RegisterGradient,
    grad_pass_through,
    gradients,
    hessians,
    no_gradient,
    recompute_grad,
)
from ferroflow.indexed_slices import IndexedSlices, IndexedSlicesSpec
from ferroflow.init_ops_v2 import Constant as constant_initializer
from ferroflow.init_ops_v2 import Ones as ones_initializer
from ferroflow.init_ops_v2 import RandomNormal as random_normal_initializer
from ferroflow.init_ops_v2 import RandomUniform as random_uniform_initializer
from ferroflow.init_ops_v2 import Zeros as zeros_initializer
from ferroflow.keras import initializers, losses, metrics, optimizers
from ferroflow.linalg import einsum, matmul, norm, tensordot
from ferroflow.manip_ops import (
    broadcast_dynamic_shape,
    broadcast_static_shape,
    identity_n,
    meshgrid,
    repeat,
    reverse_sequence,
    roll,
    searchsorted,
    sequence_mask,
    shape_n,
    tensor_scatter_nd_add,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    unravel_index,
)
from ferroflow.math import (
    abs,
    acos,
    acosh,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    clip_by_value,
    complex,
    cos,
    cosh,
    cumsum,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    truediv,
)
from ferroflow.math_extra_ops import (
    clip_by_global_norm,
    clip_by_norm,
    histogram_fixed_width,
    realdiv,
    scalar_mul,
    truncatediv,
    truncatemod,
    unique_with_counts,
)
from ferroflow.matrix_functions import matrix_square_root
from ferroflow.module import Module
from ferroflow.name_scope import name_scope
from ferroflow.printing import print
from ferroflow.ragged.ragged_tensor import RaggedTensor
from ferroflow.ragged.ragged_tensor_spec import RaggedTensorSpec
from ferroflow.sparse_tensor import SparseTensor, SparseTensorSpec
from ferroflow.strings import as_string, fingerprint
from ferroflow.tensor_array_ops import TensorArray, TensorArraySpec
from ferroflow.tensor_shape import TensorShape
from ferroflow.tensor_spec import TensorSpec
from ferroflow.top_level_more import (
    approx_top_k,
    check_pinned,
    conv,
    conv2d_backprop_filter_v2,
    conv2d_backprop_input_v2,
    extract_volume_patches,
    nondifferentiable_batch_function,
    ragged_fill_empty_rows,
    ragged_fill_empty_rows_grad,
)
from ferroflow.type_spec import NoneTensorSpec, TypeSpec, type_spec_from_value
from ferroflow.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
)

# isort: split
# Last: the ragged dispatch handlers that wrap APIs imported above (see ragged_dispatch.py).
from ferroflow.ragged import ragged_dispatch as _ragged_dispatch  # noqa: F401
from ferroflow.ragged import ragged_dispatch_numeric as _ragged_dispatch_numeric  # noqa: F401

# isort: split
# tf.linalg.LinearOperator*: adds the classes to tf.linalg and dispatches its functions on them.
from ferroflow import linalg_operators as _linalg_operators  # noqa: E402, F401

# isort: split
# tf.experimental.numpy needs the whole package; importing it sets Tensor.__round__ as
# TensorFlow's import does.
from ferroflow.experimental import numpy as _experimental_numpy  # noqa: E402, F401

__version__ = "0.1.0"

__all__ = [name for name in dir() if not name.startswith("_")]
