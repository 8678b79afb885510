"""Type stubs for `ferroflow._core`, the PyO3 extension built from `src/python/`.

The public, TensorFlow-shaped API (names, defaults, aliases) lives in the Python modules of
`ferroflow`; these functions take already-resolved arguments. Dtypes are TensorFlow's
`DataType` enum numbers (`DType.as_datatype_enum`: float32 = 1, int32 = 3, int64 = 9, ...).
"""

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Literal, overload

import numpy.typing as npt
from typing_extensions import TypeAlias, TypeIs

from ferroflow._presentation import Reference
from ferroflow.dtypes import DType
from ferroflow.tensor_shape import TensorShape

# Anything the core converts to a tensor: a Tensor, a numpy array or scalar, a Python scalar,
# or a (nested) sequence of them.
_TensorLike: TypeAlias = object
# An int or a scalar integer Tensor (anything with `__index__`).
_IntLike: TypeAlias = object
# An int, a sequence of ints, an integer numpy array or an integer Tensor.
_IntsLike: TypeAlias = object

class Tensor:
    """An immutable n-dimensional array (`ferroflow.Tensor`); made by `constant` & co, not
    constructed directly."""

    __array_priority__: ClassVar[int]
    # Tensors are unhashable: `hash(tensor)` raises TypeError.
    __hash__: ClassVar[None]  # type: ignore[assignment]
    @property
    def shape(self) -> TensorShape: ...
    @property
    def dtype(self) -> DType: ...
    @property
    def ndim(self) -> int | None: ...
    def set_shape(self, shape: Any) -> None: ...
    @property
    def device(self) -> str: ...
    @property
    def _dtype_enum(self) -> int:
        """TensorFlow's enum number of the dtype (cheap; used by the Python layer)."""
    @property
    def _dims(self) -> list[int]: ...
    def ref(self) -> Reference:
        """A hashable reference to this tensor."""
    def numpy(self) -> Any:
        """The elements as a new numpy array (a numpy scalar for a rank-0 tensor)."""
    def __array__(self, dtype: npt.DTypeLike = None, copy: bool | None = None) -> npt.NDArray[Any]:
        """The elements as a numpy array, cast to `dtype` when given; `copy` is ignored."""
    def __dlpack__(
        self,
        stream: object = None,
        *,
        max_version: object = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A "dltensor" capsule sharing the tensor's host memory (GPU tensors: a host copy)."""
    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLCPU, 0): exported tensors are on the host."""
    def __add__(self, other: object, /) -> Tensor: ...
    def __radd__(self, other: object, /) -> Tensor: ...
    def __sub__(self, other: object, /) -> Tensor: ...
    def __rsub__(self, other: object, /) -> Tensor: ...
    def __mul__(self, other: object, /) -> Tensor: ...
    def __rmul__(self, other: object, /) -> Tensor: ...
    def __truediv__(self, other: object, /) -> Tensor: ...
    def __rtruediv__(self, other: object, /) -> Tensor: ...
    def __floordiv__(self, other: object, /) -> Tensor: ...
    def __rfloordiv__(self, other: object, /) -> Tensor: ...
    def __mod__(self, other: object, /) -> Tensor: ...
    def __rmod__(self, other: object, /) -> Tensor: ...
    def __matmul__(self, other: object, /) -> Tensor: ...
    def __rmatmul__(self, other: object, /) -> Tensor: ...
    def __pow__(self, other: object, mod: None = None, /) -> Tensor: ...
    def __rpow__(self, other: object, mod: None = None, /) -> Tensor: ...
    def __and__(self, other: object, /) -> Tensor: ...
    def __rand__(self, other: object, /) -> Tensor: ...
    def __or__(self, other: object, /) -> Tensor: ...
    def __ror__(self, other: object, /) -> Tensor: ...
    def __xor__(self, other: object, /) -> Tensor: ...
    def __rxor__(self, other: object, /) -> Tensor: ...
    def __neg__(self) -> Tensor: ...
    def __pos__(self) -> Tensor: ...
    def __abs__(self) -> Tensor: ...
    # Set by tf.experimental.numpy at import, as importing TensorFlow does.
    def __round__(self, decimals: int = 0) -> Tensor: ...
    def __invert__(self) -> Tensor:
        """Logical NOT for bool tensors, bitwise NOT for integer ones."""
    def __lt__(self, other: object, /) -> Tensor: ...
    def __le__(self, other: object, /) -> Tensor: ...
    def __gt__(self, other: object, /) -> Tensor: ...
    def __ge__(self, other: object, /) -> Tensor: ...
    # `==`/`!=` compare element-wise; against None they give a plain bool, and on
    # incompatible shapes a scalar bool tensor.
    @overload
    def __eq__(self, other: None, /) -> bool: ...  # type: ignore[override, overload-overlap]
    @overload
    def __eq__(self, other: object, /) -> Tensor: ...
    @overload
    def __ne__(self, other: None, /) -> bool: ...  # type: ignore[override, overload-overlap]
    @overload
    def __ne__(self, other: object, /) -> Tensor: ...
    def __bool__(self) -> bool:
        """The truth value of a single-element tensor."""
    def __float__(self) -> float: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int:
        """The value of an integer scalar tensor."""
    def __complex__(self) -> complex: ...
    def __len__(self) -> int:
        """The size of the first axis."""
    def __iter__(self) -> Iterator[Tensor]:
        """The slices along the first axis."""
    def __getitem__(self, key: object, /) -> Tensor:
        """NumPy-style indexing: ints, slices, `...`, None, tuples of them, or a bool mask."""
    def __repr__(self) -> str: ...
    def __str__(self) -> str: ...
    def __format__(self, spec: str) -> str: ...
    def __reduce__(self) -> tuple[Callable[..., Tensor], tuple[npt.NDArray[Any]]]: ...

# Creation and conversion.

def convert_to_tensor(
    value: _TensorLike, dtype: int | None = None, dtype_hint: int | None = None
) -> Tensor:
    """`value` as a tensor (itself if already one); `dtype` is required, `dtype_hint` preferred."""

def constant(value: _TensorLike, dtype: int | None = None, shape: _IntsLike = None) -> Tensor:
    """A tensor of `value`, reshaped (or a scalar broadcast) to `shape` when given."""

def is_tensor(value: object) -> TypeIs[Tensor]: ...
def cast(x: _TensorLike, dtype: int) -> Tensor: ...
def fill(dims: _IntsLike, value: _TensorLike) -> Tensor: ...
def zeros(shape: _IntsLike, dtype: int) -> Tensor: ...
def ones(shape: _IntsLike, dtype: int) -> Tensor: ...
def range(start: _TensorLike, limit: _TensorLike, delta: _TensorLike, dtype: int) -> Tensor:
    """Values from `start` up to (excluding) `limit` by `delta`, each cast to `dtype` first."""

def linspace(start: _TensorLike, stop: _TensorLike, num: _IntLike) -> Tensor: ...
def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: _IntsLike = None,
    dtype: int = 1,
) -> Tensor: ...

# Element-wise ops, reductions and scans, selected by name.

def unary_declarations() -> list[tuple[str, str, bool, str]]: ...
def op_registry() -> list[tuple[str, list[str]]]: ...
def unary(name: str, x: _TensorLike) -> Tensor:
    """A unary op by its `tf.math`/`tf.nn` name: "exp", "relu", "logical_not", ..."""

def binary(name: str, x: _TensorLike, y: _TensorLike) -> Tensor:
    """A binary op by its `tf.math` name: "add", "truediv", "equal", "logical_and", ..."""

def reduce(
    name: Literal[
        "sum", "prod", "max", "min", "all", "any", "mean", "variance", "std", "logsumexp"
    ],
    x: _TensorLike,
    axis: _IntsLike = None,
    keepdims: bool = False,
) -> Tensor:
    """A reduction over `axis` (all axes when None)."""

def count_nonzero(
    x: _TensorLike, axis: _IntsLike = None, keepdims: bool = False, dtype: int = 9
) -> Tensor: ...
def arg_reduce(
    name: Literal["argmax", "argmin"], x: _TensorLike, axis: _IntLike, output_type: int
) -> Tensor: ...
def cumulative(
    name: Literal["cumsum", "cumprod"],
    x: _TensorLike,
    axis: _IntLike,
    exclusive: bool,
    reverse: bool,
) -> Tensor: ...
def add_n(inputs: Iterable[_TensorLike]) -> Tensor: ...
def clip_by_value(x: _TensorLike, lo: _TensorLike, hi: _TensorLike) -> Tensor: ...

# Linear algebra.

def matmul(
    a: _TensorLike,
    b: _TensorLike,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
) -> Tensor: ...
def norm(
    x: _TensorLike, ord: float | None = None, axis: _IntsLike = None, keepdims: bool = False
) -> Tensor:
    """The `ord`-norm (Euclidean/Frobenius when None); a matrix norm when `axis` has two axes."""

def tensordot(a: _TensorLike, b: _TensorLike, axes: object) -> Tensor:
    """`axes`: an int N (last N of `a` with first N of `b`) or a pair of axis lists."""

def einsum(equation: str, *inputs: _TensorLike) -> Tensor: ...

# Shapes, joining, slicing and indexing.

def reshape(x: _TensorLike, shape: _IntsLike) -> Tensor: ...
def transpose(x: _TensorLike, perm: _IntsLike = None, conjugate: bool = False) -> Tensor: ...
def broadcast_to(x: _TensorLike, shape: _IntsLike) -> Tensor: ...
def ensure_shape(x: _TensorLike, dims: list[int | None]) -> Tensor: ...
def assert_(condition: _TensorLike, parts: list[object], summarize: int | None = None) -> None: ...
def concat(values: Iterable[_TensorLike], axis: _IntLike) -> Tensor: ...
def stack(values: Iterable[_TensorLike], axis: _IntLike) -> Tensor: ...
def unstack(x: _TensorLike, num: int | None = None, axis: int = 0) -> list[Tensor]: ...
def split(x: _TensorLike, num_or_size_splits: _IntsLike, axis: _IntLike) -> list[Tensor]:
    """Into `num_or_size_splits` equal pieces (an int) or pieces of the listed sizes."""

def tile(x: _TensorLike, multiples: _IntsLike) -> Tensor: ...
def pad(
    x: _TensorLike, paddings: object, mode: str = "CONSTANT", constant_values: object = None
) -> Tensor:
    """`paddings`: [rank, 2] pairs; `mode`: "CONSTANT", "REFLECT" or "SYMMETRIC" (any case);
    `constant_values`: a number, or a string for string tensors (None: zero, b'')."""

def squeeze(x: _TensorLike, axis: _IntsLike = None) -> Tensor: ...
def expand_dims(x: _TensorLike, axis: _IntLike) -> Tensor: ...
def slice(x: _TensorLike, begin: _IntsLike, size: _IntsLike) -> Tensor: ...
def strided_slice(
    x: _TensorLike,
    begin: _IntsLike,
    end: _IntsLike,
    strides: _IntsLike = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> Tensor: ...
def reverse(x: _TensorLike, axis: _IntsLike) -> Tensor: ...
def gather(
    params: _TensorLike, indices: _TensorLike, axis: _IntLike | None = None, batch_dims: int = 0
) -> Tensor:
    """`params` indexed along `axis` (`batch_dims` when None)."""

def gather_nd(params: _TensorLike, indices: _TensorLike) -> Tensor: ...
def scatter_nd(indices: _TensorLike, updates: _TensorLike, shape: _IntsLike) -> Tensor: ...
def where_(
    condition: _TensorLike, x: _TensorLike | None = None, y: _TensorLike | None = None
) -> Tensor:
    """`tf.where`: coordinates of true elements, or an element-wise choice of `x` and `y`."""

def boolean_mask(x: _TensorLike, mask: _TensorLike, axis: int = 0) -> Tensor: ...
def one_hot(
    indices: _TensorLike,
    depth: _IntLike,
    on_value: _TensorLike,
    off_value: _TensorLike,
    axis: int = -1,
) -> Tensor: ...
def sort(x: _TensorLike, axis: int = -1, descending: bool = False, indices: bool = False) -> Tensor:
    """The sorted values, or with `indices=True` the permutation that sorts them (argsort)."""

def top_k(x: _TensorLike, k: _IntLike) -> tuple[Tensor, Tensor]:
    """(values, indices) of the `k` largest entries along the last axis."""

def unique(x: _TensorLike, out_idx: int) -> tuple[Tensor, Tensor]:
    """(y, idx): the unique values in order of appearance, and each element's index into y."""

def string_op(name: str, inputs: list[_TensorLike], attrs: str) -> list[Tensor]:
    """A tf.strings primitive by TensorFlow name; attrs is a JSON object of its attributes."""

def raw_op(name: str, inputs: list[_TensorLike], attrs: str) -> list[Tensor]:
    """A primitive by TensorFlow name (segment reductions, Bitcast, RandomIndexShuffle,
    EditDistance); attrs is a JSON object of its attributes."""

# Random numbers (counter-based Philox streams).

def set_seed(seed: int | None = None) -> None: ...
def random_uniform(
    shape: _IntsLike,
    minval: _TensorLike,
    maxval: _TensorLike,
    dtype: int,
    seed: int | None = None,
) -> Tensor: ...
def random_normal(
    kind: Literal["normal", "truncated"],
    shape: _IntsLike,
    mean: _TensorLike,
    stddev: _TensorLike,
    dtype: int,
    seed: int | None = None,
) -> Tensor: ...
def shuffle(x: _TensorLike, seed: int | None = None) -> Tensor:
    """`x` shuffled along its first axis."""

# TensorFlow's stateless random kernels (TensorFlow's numbers), driven by a Philox state:
# int64 [counter_low, counter_high, key].

def rng_state(seed: _TensorLike) -> Tensor:
    """The Philox state of a seed pair (int32/int64 [2]): StatelessRandomGetKeyCounter."""

def rng_skip(state: _TensorLike, delta: int) -> Tensor:
    """The state `delta` Philox calls further on."""

def stateless_random(
    sampler: Literal[
        "uniform",
        "normal",
        "truncated_normal",
        "uniform_int",
        "uniform_full_int",
        "binomial",
        "poisson",
        "gamma",
    ],
    state: _TensorLike,
    shape: _IntsLike,
    dtype: int,
    params: list[_TensorLike] = ...,
) -> Tensor: ...
def stateless_categorical(
    state: _TensorLike, logits: _TensorLike, num_samples: int, dtype: int
) -> Tensor: ...

# Neural-network ops.

def activation(
    name: Literal["leaky_relu", "gelu"],
    x: _TensorLike,
    alpha: float = 0.2,
    approximate: bool = False,
) -> Tensor:
    """`alpha` is used by leaky_relu, `approximate` by gelu."""

def softmax(x: _TensorLike, axis: int, log: bool) -> Tensor:
    """Softmax along `axis`, or log-softmax when `log` is true."""

def cross_entropy(
    kind: Literal["softmax", "sparse", "sigmoid"],
    labels: _TensorLike,
    logits: _TensorLike,
    axis: int = -1,
) -> Tensor:
    """Softmax, sparse softmax or sigmoid cross-entropy with logits (`axis`: softmax only)."""

def bias_add(x: _TensorLike, bias: _TensorLike, channels_first: bool = False) -> Tensor: ...
def dropout(
    x: _TensorLike, rate: float, noise_shape: _IntsLike = None, seed: int | None = None
) -> Tensor: ...
def moments(x: _TensorLike, axes: _IntsLike, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(mean, variance) over `axes`."""

def fused_batch_norm(
    x: _TensorLike,
    scale: _TensorLike,
    offset: _TensorLike,
    mean: _TensorLike | None = None,
    variance: _TensorLike | None = None,
    epsilon: float = 0.001,
    exponential_avg_factor: float = 1.0,
    data_format: str = "NHWC",
    is_training: bool = True,
) -> list[Tensor]:
    """FusedBatchNormV3's six outputs: y, running mean and variance, reserve_space_1..3
    (absent statistics are empty float32 vectors)."""

# Convolution and pooling (src/python/windows.rs).
def conv2d(
    x: _TensorLike,
    filters: _TensorLike,
    strides: _IntsLike,
    dilations: _IntsLike,
    padding_name: str,
    explicit: _IntsLike | None = None,
) -> Tensor:
    """NHWC convolution; `padding_name` is SAME, VALID or EXPLICIT (with four pads)."""

def conv2d_backprop_input(
    input_sizes: _IntsLike,
    filters: _TensorLike,
    out_backprop: _TensorLike,
    strides: _IntsLike,
    dilations: _IntsLike,
    padding_name: str,
    explicit: _IntsLike | None = None,
) -> Tensor:
    """NHWC Conv2DBackpropInput: the input gradient of a convolution of an image of
    `input_sizes`, without running the convolution."""

def depthwise_conv2d(
    x: _TensorLike,
    filter: _TensorLike,
    strides: _IntsLike,
    dilations: _IntsLike,
    padding_name: str,
    explicit: _IntsLike | None = None,
) -> Tensor:
    """NHWC depthwise convolution (`filter` is `[KH, KW, C, M]`); `strides` and `dilations`
    are `[rows, cols]`, padding as `conv2d`'s."""

def pool2d(
    kind: Literal["MAX", "AVG"],
    x: _TensorLike,
    ksize: _IntsLike,
    strides: _IntsLike,
    padding_name: str,
) -> Tensor: ...
def extract_patches(
    x: _TensorLike, sizes: _IntsLike, strides: _IntsLike, rates: _IntsLike, padding_name: str
) -> Tensor: ...

# Devices and placement (src/python/devices.rs).
def gpu_adapters() -> list[dict[str, object]]: ...
def visible_gpus() -> list[int]: ...
def set_visible_gpus(indices: list[int]) -> None: ...
def push_device_scope(spec: str) -> str: ...
def pop_device_scope() -> None: ...
def set_soft_device_placement(enabled: bool) -> None: ...
def get_soft_device_placement() -> bool: ...
def set_log_device_placement(enabled: bool) -> None: ...
def get_log_device_placement() -> bool: ...
def set_check_numerics(enabled: bool) -> None: ...
def check_numerics_enabled() -> bool: ...
def set_check_numerics_graph(name: str | None = None) -> str | None: ...
def to_dlpack(tensor: Tensor) -> Any: ...
def from_dlpack(capsule: object) -> Tensor: ...
def copy_to_device(t: Tensor, spec: str) -> Tensor: ...
def gpu_synchronize() -> None: ...
def set_logical_cpu_count(count: int) -> None: ...
def set_gpu_logical_split(physical: int, limits: list[int | None]) -> None: ...
def gpu_memory_info(index: int) -> tuple[int, int]: ...
def reset_gpu_memory_stats(index: int) -> None: ...
def simulate_gpu_loss(index: int) -> None: ...

# Variables (src/python/variable.rs).
class BaseVariable:
    """The Rust half of `tf.Variable`: storage, reads that tapes see, in-place writes.
    `ferroflow.variables.Variable` subclasses it."""

    def __new__(
        cls,
        initial: _TensorLike,
        name: str,
        trainable: bool,
        declared: list[int | None] | None,
        share: BaseVariable | None = None,
    ) -> BaseVariable: ...
    def value(self) -> Tensor:
        """The current value as an op input (recorded on tapes watching the variable)."""
    def _peek(self) -> Tensor: ...
    def _update(self, kind: str, value: _TensorLike) -> None: ...
    def _storage_address(self) -> int: ...
    @property
    def _unique_id(self) -> int: ...
    @property
    def _base_name(self) -> str: ...
    @property
    def trainable(self) -> bool: ...
    @property
    def _declared(self) -> list[int | None] | None: ...
    @property
    def device(self) -> str: ...

# Gradient tapes and custom gradients (src/python/autodiff.rs).
class Tape:
    def __new__(cls, persistent: bool, watch_accessed_variables: bool) -> Tape: ...
    def push(self) -> None: ...
    def pop(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def reset(self) -> None: ...
    def watch(self, obj: Tensor | BaseVariable) -> None: ...
    def watched_variable_ids(self) -> list[int]: ...
    def gradients(
        self,
        targets: Iterable[Tensor | BaseVariable],
        sources: Iterable[Tensor | BaseVariable],
        seed_lists: Iterable[Iterable[_TensorLike | None]],
    ) -> list[list[Tensor | None]]:
        """One backward pass per list of seeds."""

def custom_forward(forward: Callable[[], object]) -> tuple[object, list[int]]: ...
def record_custom(
    inputs: Iterable[Tensor | BaseVariable],
    outputs: Iterable[_TensorLike],
    grad_fn: Callable[[list[Tensor | None]], Iterable[_TensorLike | None]],
) -> list[Tensor]: ...
def stop_gradient(x: _TensorLike) -> Tensor: ...

# --- tf.function graphs -------------------------------------------------------------------

_Operation = tuple[str, str, list[str], list[tuple[list[int | None] | None, int]]]

class Graph:
    def call(self, inputs: list[Tensor]) -> list[Tensor]: ...
    def outputs(self) -> list[tuple[str, list[int | None] | None, int]]: ...
    def operations(self) -> list[_Operation]: ...
    def optimized_operations(self) -> list[_Operation]: ...
    def with_passes(self, names: list[str]) -> Graph: ...
    @property
    def specialised(self) -> bool: ...
    @property
    def draws_random(self) -> bool: ...
    def fresh_instance(self) -> Graph: ...
    def variable_ids(self) -> list[int]: ...

class Subgraph:
    def output_dims(self) -> list[list[int | None] | None]: ...

def graph_tracing() -> bool: ...
def set_name_scope(prefix: str) -> str: ...
def checkpoint_write(
    prefix: str | os.PathLike[str], keys: list[str], values: list[_TensorLike], object_graph: str
) -> None: ...
def write_file_atomic(path: str | os.PathLike[str], data: bytes) -> None: ...

class CheckpointReader:
    def __init__(self, prefix: str | os.PathLike[str]) -> None: ...
    @property
    def object_graph(self) -> str: ...
    @property
    def object_graph_bytes(self) -> bytes: ...
    @property
    def is_tensorflow_format(self) -> bool: ...
    def entries(self) -> list[tuple[str, int, list[int]]]: ...
    def tensor(self, key: str) -> Tensor: ...

def saved_model_write(
    dir: str | os.PathLike[str],
    meta: str,
    graphs: list[Graph],
    variables: list[BaseVariable],
    object_graph: str,
) -> None: ...

class SavedModel:
    def __init__(self, dir: str | os.PathLike[str]) -> None: ...
    def metadata(self) -> str: ...
    def variables(self) -> list[BaseVariable]: ...
    def graph(self, index: int) -> Graph: ...

def is_symbolic(value: object) -> bool: ...
def symbolic_info(value: Tensor) -> tuple[str, list[int | None] | None] | None: ...
def has_unknown_rank(value: object) -> bool: ...
def host_call(
    kind_name: str,
    forward: Callable[[list[Tensor], bool], tuple[list[Tensor], Callable[..., Any] | None]],
    differentiable: bool,
    inputs: Iterable[Any],
    dtypes: list[int],
) -> list[Tensor]: ...
def trace_begin() -> None: ...
def trace_abandon() -> None: ...
def trace_placeholder(example: _TensorLike, name: str, dims: list[int | None]) -> Tensor: ...
def trace_finish(outputs: Sequence[_TensorLike]) -> Graph: ...
def trace_finish_subgraph(outputs: Sequence[_TensorLike]) -> Subgraph: ...
def record_cond(selector: _TensorLike, branches: list[Subgraph]) -> list[Tensor]: ...
def record_while(vars: Sequence[_TensorLike], cond: Subgraph, body: Subgraph) -> list[Tensor]: ...
def print_tensors(
    pieces: list[str | int],
    values: Sequence[_TensorLike],
    summarize: int,
    stream: object,
    stream_name: str = "stderr",
) -> None: ...
def shape_op(x: _TensorLike, dtype: int) -> Tensor: ...

# --- TFRecord files, tf.train.Example parsing, TensorProto (src/python/io.rs) ---------------

class TFRecordWriter:
    def __init__(
        self,
        path: str,
        compression_type: str = "",
        compression_level: int = -1,
        append: bool = False,
    ) -> None: ...
    def write(self, record: bytes) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...

class TFRecordReader:
    def __init__(
        self, path: str, compression_type: str = "", buffer_size: int = 262144
    ) -> None: ...
    def __iter__(self) -> TFRecordReader: ...
    def __next__(self) -> bytes: ...
    def read_many(self, n: int) -> list[bytes]: ...

# (key, dtype name, fixed size, shape text, stride, required, dense) of one requested feature.
_FeatureRequest = tuple[str, str, int | None, str, int | None, bool, bool]

def parse_sequence_example_flat(
    serialized: Tensor,
    names: list[str],
    context: list[_FeatureRequest],
    lists: list[_FeatureRequest],
) -> tuple[list[tuple[Tensor, Tensor]], list[tuple[Tensor, Tensor, Tensor]]]: ...
def serialize_tensor(tensor: Tensor) -> bytes: ...
def parse_tensor(serialized: bytes, out_type: int) -> Tensor: ...
def snappy_compress_blocks(data: bytes) -> bytes: ...
def snappy_decompress_blocks(data: bytes, path: str) -> bytes: ...
def set_ram_root(root: str) -> None: ...
def set_ram_implicit(names: list[str]) -> None: ...
