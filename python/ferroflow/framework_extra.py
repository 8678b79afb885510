"""Top-level framework names: `DeviceSpec`, `get_current_name_scope`, `get_logger`, `init_scope`,
`control_dependencies`, `is_symbolic_tensor`, `timestamp`, `version`, `sysconfig`,
`register_tensor_conversion_function`, `variable_creator_scope`, `make_tensor_proto` /
`make_ndarray`, `CriticalSection`, `py_function` / `numpy_function`, and TensorFlow 1's graph
names (`Graph`, `Operation`, `import_graph_def`, `load_op_library`, `load_library`)."""

import abc
import contextlib
import logging
import os
import platform
import threading
import time

import numpy as np

from ferroflow import _core, _tracing, _variable_creators, nest
from ferroflow import dtypes as _dtypes
from ferroflow import errors as _errors
from ferroflow.array_ops import constant, convert_to_tensor
from ferroflow.concrete_function import FuncGraph, Operation
from ferroflow.name_scope import current_name_scope
from ferroflow.script_ops import numpy_function, py_function

__all__ = [
    "CriticalSection",
    "DeviceSpec",
    "Graph",
    "Operation",
    "control_dependencies",
    "get_current_name_scope",
    "get_logger",
    "import_graph_def",
    "init_scope",
    "is_symbolic_tensor",
    "load_library",
    "load_op_library",
    "make_ndarray",
    "make_tensor_proto",
    "numpy_function",
    "py_function",
    "register_tensor_conversion_function",
    "timestamp",
    "variable_creator_scope",
]

# --- DeviceSpec ------------------------------------------------------------------------------

_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _str_or_none(value):
    return None if value is None else str(value)


def _int_or_none(value):
    return None if value is None else int(value)


class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index.

    >>> import ferroflow as tf
    >>> tf.DeviceSpec(job="ps", device_type="GPU", device_index=0).to_string()
    '/job:ps/device:GPU:0'
    """

    __slots__ = ("_device_index", "_device_type", "_job", "_replica", "_string", "_task")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = _str_or_none(job)
        self._replica = _int_or_none(replica)
        self._task = _int_or_none(task)
        if device_type in ("cpu", "gpu"):
            device_type = device_type.upper()
        self._device_type = _str_or_none(device_type)
        self._device_index = _int_or_none(device_index)
        parts = []
        if self._job is not None:
            parts.append("/job:" + self._job)
        if self._replica is not None:
            parts.append(f"/replica:{self._replica}")
        if self._task is not None:
            parts.append(f"/task:{self._task}")
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            parts.append(f"/device:{self._device_type}:{index}")
        self._string = "".join(parts)

    def to_string(self):
        return self._string

    @classmethod
    def from_string(cls, spec):
        """Parses ``/job:<name>/replica:<n>/task:<n>/device:<type>:<n>`` (every part optional;
        ``cpu:0``/``GPU:1`` short forms too)."""
        job = replica = task = device_type = device_index = None
        for part in (spec or "").split("/"):
            fields = part.split(":")
            n = len(fields)
            if not part:
                continue
            if n == 2 and fields[0] == "job":
                job = fields[1]
            elif n == 2 and fields[0] == "replica":
                replica = fields[1]
            elif n == 2 and fields[0] == "task":
                task = fields[1]
            elif n in (1, 2) and fields[0].upper() in _DEVICE_TYPES:
                if device_type is not None:
                    raise ValueError(
                        "Multiple device types are not allowed while parsing the device spec: "
                        f"{spec}."
                    )
                device_type = fields[0].upper()
                if n == 2 and fields[1] != "*":
                    device_index = int(fields[1])
            elif n == 3 and fields[0] == "device":
                if device_type is not None:
                    raise ValueError(
                        "Multiple device types are not allowed while parsing the device spec: "
                        f"{spec}."
                    )
                device_type = fields[1]
                if fields[2] != "*":
                    device_index = int(fields[2])
            elif fields[0] != "":
                raise ValueError(
                    f"Unknown attribute '{fields[0]}' is encountered while parsing the device "
                    f"spec: '{spec}'."
                )
        return cls(job, replica, task, device_type, device_index)

    def parse_from_string(self, spec):
        return self.from_string(spec)

    def make_merged_spec(self, dev):
        """A new spec: ``dev``'s fields where it has them, this one's elsewhere."""

        names = ("job", "replica", "task", "device_type", "device_index")
        mine, theirs = [getattr(self, n) for n in names], [getattr(dev, n) for n in names]
        return type(self)(*(t if t is not None else m for m, t in zip(mine, theirs)))

    def replace(self, **kwargs):
        fields = {
            "job": self.job,
            "replica": self.replica,
            "task": self.task,
            "device_type": self.device_type,
            "device_index": self.device_index,
        }
        fields.update(kwargs)
        return type(self)(**fields)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def __eq__(self, other):
        return isinstance(other, type(self)) and self._string == other._string

    def __hash__(self):
        return hash(self._string)

    def __repr__(self):
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )


# --- context names ---------------------------------------------------------------------------


def get_current_name_scope():
    """The name scope in force ("outer/inner"; "" at the top)."""
    scope = current_name_scope()
    return scope[:-1] if scope.endswith("/") else scope


def get_logger():
    """ferroflow's logger (named "ferroflow"; TensorFlow's is "tensorflow"): its warnings, such as
    saturate_cast's, go through it."""
    return logging.getLogger("ferroflow")


def is_symbolic_tensor(tensor):
    """True for a value of a `tf.function` being traced (known only when the graph runs)."""
    return isinstance(tensor, _core.Tensor) and _core.is_symbolic(tensor)


def timestamp(name=None):
    """Seconds since the epoch, as a float64 scalar, when the op runs.

    *Departure:* inside a `tf.function` the time is the trace's (ferroflow has no clock op)."""
    return constant(time.time(), dtype=_dtypes.float64)


@contextlib.contextmanager
def init_scope():
    """TensorFlow lifts the ops inside out of any function being traced. Eagerly it changes
    nothing. *Departure:* inside a trace the ops stay in the graph (lifting needs the trace to be
    suspended, which ferroflow's Python cannot ask yet)."""
    yield None


@contextlib.contextmanager
def _no_dependencies():
    yield None


def control_dependencies(control_inputs):
    """Ops inside run after ``control_inputs``. ferroflow runs eager code and traced graphs in
    program order (effects are never pruned or reordered), so the order already holds; as in
    TensorFlow, inputs that are not tensors or operations raise TypeError inside a trace."""
    if control_inputs is not None and _tracing.tracing():
        for c in nest.flatten(control_inputs):
            if c is not None and not isinstance(c, (_core.Tensor, Operation)) and not callable(c):
                raise TypeError(f"Can not convert a {type(c).__name__} into a Tensor or Operation.")
    return _no_dependencies()


# --- version and sysconfig -------------------------------------------------------------------


class _Namespace:
    def __init__(self, **names):
        self.__dict__.update(names)


version = _Namespace(
    VERSION="2.21.0",
    GIT_VERSION="ferroflow",
    COMPILER_VERSION="rustc",
    GRAPH_DEF_VERSION=2474,
    GRAPH_DEF_VERSION_MIN_CONSUMER=0,
    GRAPH_DEF_VERSION_MIN_PRODUCER=0,
)
version.__doc__ = """`tf.version`: the TensorFlow API version ferroflow implements (2.21.0) and the
graph versions of that release; GIT_VERSION and COMPILER_VERSION name ferroflow's build."""

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _get_build_info():
    return {
        "is_cuda_build": False,
        "is_rocm_build": False,
        "is_tensorrt_build": False,
        "cpu_compiler": "rustc",
        "ferroflow_gpu": "wgpu (Vulkan, Metal, DX12)",
        "machine": platform.machine(),
    }


def _no_native_api(name):
    def refuse():
        raise NotImplementedError(
            f"tf.sysconfig.{name}: ferroflow has no C++ headers or libraries for custom ops"
        )

    refuse.__name__ = name
    return refuse


sysconfig = _Namespace(
    CXX11_ABI_FLAG=1,
    CXX_VERSION=201703,
    MONOLITHIC_BUILD=0,
    get_build_info=_get_build_info,
    get_compile_flags=_no_native_api("get_compile_flags"),
    get_include=_no_native_api("get_include"),
    get_lib=lambda: _PACKAGE_DIR,
    get_link_flags=_no_native_api("get_link_flags"),
)


# --- conversion and variable creation -------------------------------------------------------

_NUMERIC_TYPES = (int, float, complex, bool, np.generic, np.ndarray)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Lets ``convert_to_tensor`` (and every op taking tensors) accept ``base_type`` values:
    ``conversion_func(value, dtype=None, name=None, as_ref=False)`` makes the tensor. ferroflow
    gives the type TensorFlow's ``__tf_tensor__`` protocol, which its conversion reads."""
    types_ = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types_):
        raise TypeError(
            f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}"
        )
    if any(issubclass(t, _NUMERIC_TYPES) for t in types_):
        raise TypeError(
            "Cannot register conversions for Python numeric types and NumPy scalars and arrays."
        )
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")

    def __tf_tensor__(self, dtype=None, name=None):  # noqa: N807 - TensorFlow's protocol
        result = conversion_func(self, dtype=dtype, name=name, as_ref=False)
        if result is NotImplemented:
            raise TypeError(f"Could not convert {self!r} to a Tensor")
        return result

    for t in types_:
        t.__tf_tensor__ = __tf_tensor__


def variable_creator_scope(variable_creator):
    """Inside, each `tf.Variable(...)` calls ``variable_creator(next_creator, **kwargs)`` (the
    constructor's arguments); ``next_creator(**kwargs)`` continues to the outer scopes and then
    makes the variable."""
    return _variable_creators.scope(variable_creator)


# --- tensor protos ---------------------------------------------------------------------------


class _Dim:
    def __init__(self, size):
        self.size = size


class _Shape:
    def __init__(self, dims):
        self.dim = [_Dim(d) for d in dims]


class TensorProto:
    """A serialised tensor as `make_tensor_proto` returns it: dtype (TensorFlow's enum),
    tensor_shape and raw little-endian ``tensor_content`` (ferroflow has no protocol buffers;
    this holds the same fields and prints in their text format)."""

    def __init__(self, dtype, dims, content):
        self.dtype = dtype
        self.tensor_shape = _Shape(dims)
        self.tensor_content = content

    def __str__(self):
        name = _dtypes.as_dtype(self.dtype).name
        lines = [f"dtype: DT_{_PROTO_NAMES.get(name, name.upper())}", "tensor_shape {"]
        for d in self.tensor_shape.dim:
            lines += ["  dim {", f"    size: {d.size}", "  }"]
        lines.append("}")
        escaped = "".join(
            chr(b) if 32 <= b < 127 and chr(b) not in "\"'\\" else f"\\{b:03o}"
            for b in self.tensor_content
        )
        lines.append(f'tensor_content: "{escaped}"')
        return "\n".join(lines) + "\n"

    __repr__ = __str__


_PROTO_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A `TensorProto` of ``values`` (converted as `tf.constant` converts them)."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    value = values.numpy() if hasattr(values, "numpy") else values
    array = np.asarray(convert_to_tensor(value, dtype=dtype).numpy())
    if shape is not None:
        shape = [int(d) for d in shape]
        if verify_shape and list(array.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
        if array.size == 1 or allow_broadcast:
            array = np.broadcast_to(array, shape)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise ValueError(
                f"Too many elements provided. Takes at most {int(np.prod(shape))}, but got "
                f"{array.size}."
            )
    tf_dtype = _dtypes.as_dtype(array.dtype)
    raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return TensorProto(tf_dtype.as_datatype_enum, list(array.shape), raw)


def make_ndarray(tensor):
    """The numpy array a `TensorProto` holds."""
    if not isinstance(tensor, TensorProto):
        raise TypeError(f"Expected a TensorProto, got {type(tensor).__name__}")
    dtype = _dtypes.as_dtype(tensor.dtype)
    dims = [d.size for d in tensor.tensor_shape.dim]
    np_type = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
    values = np.frombuffer(tensor.tensor_content, dtype=np_type)
    return values.astype(np_type.newbyteorder("=")).reshape(dims)


# --- critical sections -----------------------------------------------------------------------


class CriticalSection:
    """Runs functions one at a time: `execute(fn)` holds the section's lock while ``fn`` runs;
    running a section inside itself raises ValueError, as TensorFlow's deadlock check does."""

    _count = 0

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        if critical_section_def is not None:
            raise NotImplementedError("critical_section_def: ferroflow has no graph protos")
        self._lock = threading.Lock()
        self._owner = None
        CriticalSection._count += 1
        count = CriticalSection._count
        self._name = name or ("CriticalSection" if count == 1 else f"CriticalSection_{count - 1}")

    @property
    def name(self):
        return self._name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """``fn()`` run while holding the section; its result."""
        if self._owner == threading.get_ident():
            raise ValueError(
                f"Attempting to lock a CriticalSection (signature={self._name!r}) in which we are "
                "already running. This is illegal and may cause deadlocks."
            )
        with self._lock:
            self._owner = threading.get_ident()
            try:
                return fn()
            finally:
                self._owner = None


# --- TensorFlow 1 graph names ----------------------------------------------------------------


class Graph(abc.ABC):  # noqa: B024 - a type to test against, never subclassed
    """TensorFlow 1's graph-building container. ferroflow builds graphs only by tracing
    `tf.function`s: constructing one raises NotImplementedError naming that way; a concrete
    function's ``.graph`` is an instance (``isinstance(f.graph, tf.Graph)``)."""

    def __init__(self):
        raise NotImplementedError(
            "tf.Graph: ferroflow has no TensorFlow 1 graph-building mode; trace a tf.function "
            "instead (its get_concrete_function().graph lists the traced operations)"
        )


Graph.register(FuncGraph)


def import_graph_def(
    graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None
):
    """Imports a GraphDef protocol buffer; ferroflow has none, so anything given is TensorFlow's
    TypeError for a non-GraphDef (load a SavedModel with `tf.saved_model.load` instead)."""
    raise TypeError("Argument `graph_def` must be a GraphDef proto.")


def load_op_library(library_filename):
    """TensorFlow loads a shared library of custom C++ ops; ferroflow cannot run TensorFlow's
    kernels. A missing file raises NotFoundError as in TensorFlow, an existing one
    UnimplementedError."""
    if not os.path.exists(library_filename):
        raise _errors.NotFoundError(
            None, None, f"{library_filename}: cannot open shared object file: No such file or "
            "directory"
        )  # fmt: skip
    raise _errors.UnimplementedError(
        None, None, "ferroflow cannot load TensorFlow custom-op libraries"
    )


def load_library(library_location):
    """As `load_op_library`, for a file or a directory of libraries (a missing one raises
    FileNotFoundError as in TensorFlow)."""
    if not os.path.exists(library_location):
        raise FileNotFoundError(
            2,
            "The file or folder to load kernel libraries from does not exist.",
            library_location,
        )
    raise _errors.UnimplementedError(
        None, None, "ferroflow cannot load TensorFlow kernel libraries"
    )
