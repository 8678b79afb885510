"""`tf.config`: the devices ferroflow can place work on, and the runtime's settings.

GPUs are the wgpu adapters (Vulkan, Metal, DX12) that count as hardware; software rasterisers
count only with ``FERROFLOW_ALLOW_SOFTWARE_GPU=1``. ``FERROFLOW_VISIBLE_DEVICES`` (comma-separated
indices, empty or ``-1`` for none) hides adapters as CUDA_VISIBLE_DEVICES does.

Logical devices: `set_logical_device_configuration` splits the CPU or a GPU into several logical
devices, as TensorFlow's virtual devices. `tf.device('/CPU:1')` places ops, constants and
variables on logical CPU:1 and ``tensor.device`` names it; logical CPUs share the host's memory,
so moving a tensor between them relabels it. Logical GPUs share their adapter (copies between
them stay on it); each counts the bytes its tensors hold (`experimental.get_memory_info`) and
refuses allocations past its ``memory_limit`` with ResourceExhaustedError.

The runtime counts as initialised (TensorFlow's context) once logical devices were listed, a
`tf.device` scope was entered or a GPU has run an op; settings TensorFlow fixes at initialisation
(logical devices, memory growth, thread counts) raise TensorFlow's RuntimeError after that.
*Departure:* ops that ran on the CPU only do not initialise it.
"""

import collections
import os
import re
import types

from ferroflow import _core

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def _all_physical():
    count = len(_core.gpu_adapters())
    return [_CPU, *(PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(count))]


def _matches(device, device_type):
    return device_type is None or device.device_type == device_type.upper()


def list_physical_devices(device_type=None):
    """Every CPU and GPU present, whether visible or not.

    >>> import ferroflow as tf
    >>> tf.config.list_physical_devices('CPU')
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return [d for d in _all_physical() if _matches(d, device_type)]


def get_visible_devices(device_type=None):
    gpus = [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in _core.visible_gpus()]
    return [d for d in [_CPU, *gpus] if _matches(d, device_type)]


def set_visible_devices(devices, device_type=None):
    """Keeps only ``devices`` visible; allowed before the first op runs on a GPU."""
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        if not isinstance(d, PhysicalDevice):
            raise TypeError(f"Expected PhysicalDevice objects, got {type(d).__name__}")
    known = _all_physical()
    for d in devices:
        if d not in known:
            raise ValueError(f"Unrecognized device: {d!r}")
    if device_type is not None and device_type.upper() == "CPU":
        if _CPU not in devices:
            raise ValueError("Cannot hide the CPU: it is always visible")
        return
    if device_type is None and _CPU not in devices:
        raise ValueError("CPU must be visible")
    gpus = [int(d.name.rsplit(":", 1)[1]) for d in devices if d.device_type == "GPU"]
    _core.set_visible_gpus(gpus)


def list_logical_devices(device_type=None):
    """One logical device per visible physical device (or per configured logical device), named
    as TensorFlow names them. Initialises the runtime."""
    _state.initialized = True
    devices = [
        LogicalDevice(f"/device:{kind}:{n}", kind) for kind, n, _physical in _logical_table()
    ]
    return [d for d in devices if _matches(d, device_type)]


def set_soft_device_placement(enabled):
    """With soft placement on (the default) an op asked for on a device that cannot run it
    runs on the CPU; with it off, that is an InvalidArgumentError."""
    _core.set_soft_device_placement(bool(enabled))


def get_soft_device_placement():
    return _core.get_soft_device_placement()


def _get_device_details(device):
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"get_device_details expects a PhysicalDevice, got {device!r}")
    if device.device_type == "CPU":
        return {}
    index = int(device.name.rsplit(":", 1)[1])
    adapters = _core.gpu_adapters()
    if index >= len(adapters):
        raise ValueError(f"Unrecognized device: {device!r}")
    return dict(adapters[index])


# `tf.config.run_functions_eagerly`: `tf.function` calls run their Python body eagerly.
_RUN_EAGERLY = [False]


def run_functions_eagerly(run_eagerly):
    """Makes every `tf.function` run its Python function eagerly (for debugging) instead of a
    traced graph; tracing counts do not grow meanwhile."""
    _RUN_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether `tf.function` calls currently run eagerly."""
    return _RUN_EAGERLY[0]


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


# --- runtime state ---------------------------------------------------------------------------


class _State:
    """Settings TensorFlow keeps in its context."""

    def __init__(self):
        self.initialized = False
        self.logical = {}  # PhysicalDevice -> the list of LogicalDeviceConfiguration given
        self.memory_growth = {}  # GPU PhysicalDevice -> bool
        # None until set (TensorFlow's getters report 0 then, and setting 0 counts as a change).
        self.intra_op_threads = None
        self.inter_op_threads = None
        self.determinism = False
        self.optimizer_options = {}
        self.jit = False
        self.device_policy = None
        self.synchronous = None
        self.tensor_float_32 = True
        self.mlir_bridge = False


_state = _State()


def _runtime_initialized():
    """TensorFlow's "context initialised": see the module docstring."""
    if not _state.initialized:
        try:
            # Setting the visible GPUs to themselves fails once a GPU context exists.
            _core.set_visible_gpus(_core.visible_gpus())
        except RuntimeError:
            _state.initialized = True
    return _state.initialized


def _note_initialized():
    _state.initialized = True


def _check_physical(device):
    if device not in _all_physical():
        raise ValueError(f"Unrecognized device: {device!r}")


# --- logical devices -------------------------------------------------------------------------

LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
)
LogicalDeviceConfiguration.__new__.__defaults__ = (None, None, None)
LogicalDeviceConfiguration.__doc__ = """One logical device a physical device is split into:
``memory_limit`` in MiB (required for a GPU, whose allocations past it raise
ResourceExhaustedError), TensorFlow's
``experimental_priority`` and ``experimental_device_ordinal`` (GPU only)."""


def _logical_table():
    """(device type, logical index, physical scope) per logical device, in TensorFlow's order."""
    rows = [("CPU", n, "CPU:0") for n in range(len(_state.logical.get(_CPU) or ()) or 1)]
    index = 0
    for visible, physical in enumerate(_core.visible_gpus()):
        device = PhysicalDevice(f"/physical_device:GPU:{physical}", "GPU")
        for _ in range(len(_state.logical.get(device) or ()) or 1):
            rows.append(("GPU", index, f"GPU:{visible}"))
            index += 1
    return rows


def _host_split():
    """Whether the CPU was split into several logical CPUs."""
    return len(_state.logical.get(_CPU) or ()) > 1


def get_logical_device_configuration(device):
    """The logical devices ``device`` (a `PhysicalDevice`) is split into, or None."""
    _check_physical(device)
    return _state.logical.get(device)


def set_logical_device_configuration(device, logical_devices):
    """Splits ``device`` (a `PhysicalDevice`) into ``logical_devices``
    (`LogicalDeviceConfiguration`s); allowed until the runtime is initialised.

    >>> import ferroflow as tf
    >>> cpu = tf.config.list_physical_devices('CPU')[0]
    >>> tf.config.get_logical_device_configuration(cpu) is None
    True
    """
    _check_physical(device)
    if device.device_type == "CPU":
        for logical in logical_devices:
            if logical.memory_limit is not None:
                raise ValueError(
                    "Setting memory limit on CPU virtual devices is currently not supported"
                )
            if logical.experimental_priority is not None:
                raise ValueError(
                    "Setting experimental_priority on CPU virtual  devices is currently not "
                    "supported"
                )
            if logical.experimental_device_ordinal is not None:
                raise ValueError(
                    "Setting experimental_device_ordinal on CPU virtual  devices is currently "
                    "not supported"
                )
    elif device.device_type == "GPU":
        for logical in logical_devices:
            if logical.memory_limit is None:
                raise ValueError("Setting memory limit is required for GPU virtual devices")
    else:
        raise ValueError(f"Virtual devices are not supported for {device.device_type}")
    if _state.logical.get(device) == logical_devices:
        return
    if _runtime_initialized():
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    if device.device_type == "CPU":
        _core.set_logical_cpu_count(len(logical_devices) or 1)
    else:
        limits = [int(c.memory_limit) << 20 for c in logical_devices]
        _core.set_gpu_logical_split(int(device.name.rsplit(":", 1)[1]), limits)
    _state.logical[device] = logical_devices


# --- memory ----------------------------------------------------------------------------------

_DEVICE_NAME = re.compile(
    r"(?:/job:[^/]+)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?(CPU|GPU|cpu|gpu):(\d+)"
)


def _named_logical_device(device):
    """(device type, logical index) of the logical device ``device`` names."""
    if not isinstance(device, str):
        raise TypeError(f"device must be a string, got {type(device).__name__}")
    found = _DEVICE_NAME.fullmatch(device.strip())
    if found is None:
        raise ValueError(f"Failed parsing device name: '{device}'")
    kind, index = found.group(1).upper(), int(found.group(2))
    _note_initialized()
    for row_kind, row_index, _physical in _logical_table():
        if (row_kind, row_index) == (kind, index):
            return kind, index
    raise ValueError(f"No matching devices found for '{device}'")


def _get_memory_info(device):
    """``{'current': bytes, 'peak': bytes}`` the live tensors of logical device ``device``
    ("GPU:0", "GPU:1" of a split GPU) hold: buffers as allocated (rounded up to ferroflow's
    size classes); ``peak`` is the most since the start or `reset_memory_stats`. As TensorFlow
    by default, CPU memory is not tracked: zeros.

    >>> import ferroflow as tf
    >>> tf.config.experimental.get_memory_info('CPU:0')
    {'current': 0, 'peak': 0}
    """
    kind, index = _named_logical_device(device)
    if kind == "GPU":
        current, peak = _core.gpu_memory_info(index)
        return {"current": current, "peak": peak}
    return {"current": 0, "peak": 0}


def _reset_memory_stats(device):
    """Starts the peak of `get_memory_info` again from the current use (nothing to do for a
    CPU, whose memory is not tracked)."""
    kind, index = _named_logical_device(device)
    if kind == "GPU":
        _core.reset_gpu_memory_stats(index)


def _get_memory_usage(device):
    """Deprecated in TensorFlow: ``get_memory_info(device)['current']``."""
    return _get_memory_info(device)["current"]


def _set_memory_growth(device, enable):
    """Records memory growth for a GPU. wgpu allocates buffers as tensors need them, so memory
    always grows on demand in ferroflow; TensorFlow's checks apply."""
    _check_physical(device)
    if device in _state.logical:
        raise ValueError("Cannot set memory growth on device when virtual devices configured")
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    if _state.memory_growth.get(device) == enable:
        return
    if _runtime_initialized():
        raise RuntimeError("Physical devices cannot be modified after being initialized")
    _state.memory_growth[device] = enable


def _get_memory_growth(device):
    """What `set_memory_growth` recorded for a GPU (None if nothing); a CPU raises KeyError, as
    in TensorFlow."""
    _check_physical(device)
    if device.device_type != "GPU":
        raise KeyError(device)
    return _state.memory_growth.get(device)


# --- determinism and execution settings ------------------------------------------------------


def _enable_op_determinism():
    """Ops run deterministically. ferroflow's kernels always do (fixed reduction orders, no
    float atomics on GPUs); as in TensorFlow, random ops then need a seed (RuntimeError without
    one) and the non-deterministic random generator cannot be made."""
    _state.determinism = True


def _disable_op_determinism():
    _state.determinism = False


def _op_determinism_enabled():
    return _state.determinism


def _tensor_float_32_execution_enabled():
    """Whether TensorFloat-32 may be used; ferroflow never uses it (float32 matmuls keep full
    precision), whatever the setting."""
    return _state.tensor_float_32


def _enable_tensor_float_32_execution(enabled):
    _state.tensor_float_32 = bool(enabled)


_POLICIES = (None, "silent", "warn", "explicit", "silent_for_int32")


def _get_device_policy():
    """'silent': ferroflow copies an op's inputs to its device without notice."""
    return _state.device_policy or "silent"


def _set_device_policy(device_policy):
    """``None`` or ``'silent'`` (ferroflow's behaviour). TensorFlow's ``'warn'``,
    ``'explicit'`` and ``'silent_for_int32'`` need a hook in ferroflow's Rust placement that it
    does not have: NotImplementedError."""
    if device_policy not in _POLICIES:
        raise ValueError(
            f"Invalid argument `device_policy`: {device_policy!r}. Please refer to "
            "https://www.tensorflow.org/api_docs/python/tf/config/experimental/set_device_policy "
            "for valid `device_policy` arguments."
        )
    if device_policy not in (None, "silent"):
        raise NotImplementedError(
            f"device policy {device_policy!r}: ferroflow always copies inputs between devices "
            "silently (the 'silent' policy)"
        )
    _state.device_policy = device_policy


def _get_synchronous_execution():
    """True: each eager op returns its result (GPU work is queued in batches, and reading a
    value waits for it, whatever the setting)."""
    return _state.synchronous is not False


def _set_synchronous_execution(enable):
    _state.synchronous = None if enable is None else bool(enable)


def _enable_mlir_bridge():
    """TensorFlow's compiler bridge choice; ferroflow has no XLA bridge, so it changes nothing."""
    _state.mlir_bridge = True


def _disable_mlir_bridge():
    _state.mlir_bridge = False


class ClusterDeviceFilters:
    """Device filters per remote task, for `experimental_connect_to_cluster` (which ferroflow,
    running in one process, refuses)."""

    def __init__(self):
        self._device_filters = {}

    def set_device_filters(self, job_name, task_index, device_filters):
        if not all(isinstance(f, str) for f in device_filters):
            raise AssertionError("device filters must be strings")
        self._device_filters.setdefault(job_name, {})[task_index] = list(device_filters)


experimental = types.SimpleNamespace(
    ClusterDeviceFilters=ClusterDeviceFilters,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    disable_mlir_bridge=_disable_mlir_bridge,
    enable_mlir_bridge=_enable_mlir_bridge,
    enable_op_determinism=_enable_op_determinism,
    enable_tensor_float_32_execution=_enable_tensor_float_32_execution,
    get_device_details=_get_device_details,
    get_device_policy=_get_device_policy,
    get_memory_growth=_get_memory_growth,
    get_memory_info=_get_memory_info,
    get_memory_usage=_get_memory_usage,
    get_synchronous_execution=_get_synchronous_execution,
    get_virtual_device_configuration=get_logical_device_configuration,
    get_visible_devices=get_visible_devices,
    list_logical_devices=list_logical_devices,
    list_physical_devices=list_physical_devices,
    reset_memory_stats=_reset_memory_stats,
    set_device_policy=_set_device_policy,
    set_memory_growth=_set_memory_growth,
    set_synchronous_execution=_set_synchronous_execution,
    set_virtual_device_configuration=set_logical_device_configuration,
    set_visible_devices=set_visible_devices,
    tensor_float_32_execution_enabled=_tensor_float_32_execution_enabled,
)


# --- threads ---------------------------------------------------------------------------------


def _get_intra_op_parallelism_threads():
    """The intra-op thread count set (0: the system's choice)."""
    return _state.intra_op_threads or 0


def _set_intra_op_parallelism_threads(num_threads):
    """Threads one op may use: sizes ferroflow's rayon pool (through ``RAYON_NUM_THREADS``, read
    when the pool starts, at the first op) and TensorFlow's own thread count that
    `tf.random.categorical`'s numbers follow (``TF_NUM_INTRAOP_THREADS``)."""
    if _state.intra_op_threads == num_threads:
        return
    if _runtime_initialized():
        raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
    _state.intra_op_threads = num_threads
    for name in ("RAYON_NUM_THREADS", "TF_NUM_INTRAOP_THREADS"):
        if num_threads:
            os.environ[name] = str(int(num_threads))
        else:
            os.environ.pop(name, None)


def _get_inter_op_parallelism_threads():
    return _state.inter_op_threads or 0


def _set_inter_op_parallelism_threads(num_threads):
    """Threads for independent ops; ferroflow runs a program's ops in order on one thread, so
    the count is recorded only."""
    if _state.inter_op_threads == num_threads:
        return
    if _runtime_initialized():
        raise RuntimeError("Inter op parallelism cannot be modified after initialization.")
    _state.inter_op_threads = num_threads


threading = types.SimpleNamespace(
    get_inter_op_parallelism_threads=_get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads=_get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads=_set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads=_set_intra_op_parallelism_threads,
)


# --- graph optimizer -------------------------------------------------------------------------

_REWRITERS = (
    "layout_optimizer",
    "constant_folding",
    "shape_optimization",
    "remapping",
    "arithmetic_optimization",
    "dependency_optimization",
    "loop_optimization",
    "function_optimization",
    "debug_stripper",
    "scoped_allocator_optimization",
    "pin_to_host_optimization",
    "implementation_selector",
    "auto_mixed_precision",
    "use_plugin_optimizers",
    "auto_mixed_precision_onednn_bfloat16",
    "auto_mixed_precision_mkl",
)


def _get_experimental_options():
    """The optimizer options set, as TensorFlow reports them."""
    options = {}
    for name in _REWRITERS:
        if name in _state.optimizer_options:
            options[name] = bool(_state.optimizer_options[name])
        if name == "debug_stripper":
            options["disable_model_pruning"] = bool(
                _state.optimizer_options.get("disable_model_pruning", False)
            )
    options["disable_meta_optimizer"] = bool(
        _state.optimizer_options.get("disable_meta_optimizer", False)
    )
    if _state.optimizer_options.get("min_graph_nodes"):
        options["min_graph_nodes"] = _state.optimizer_options["min_graph_nodes"]
    return options


def _set_experimental_options(options):
    """Options for the passes that optimise traced functions. ferroflow's passes follow the
    matching TensorFlow options: ``constant_folding`` (folding), ``arithmetic_optimization``
    (common subexpressions), ``remapping`` (elementwise fusion); ``disable_meta_optimizer``
    turns all three off. Dead nodes are always pruned. Other options are recorded only."""
    _state.optimizer_options.update(options)


def _graph_passes():
    """The passes a newly traced function's graph runs through (None: ferroflow's default)."""
    options = _state.optimizer_options
    if not options:
        return None
    if options.get("disable_meta_optimizer"):
        return ["dce"]
    passes = []
    if options.get("constant_folding", True) is not False:
        passes.append("fold")
    if options.get("arithmetic_optimization", True) is not False:
        passes.append("cse")
    passes.append("dce")
    if options.get("remapping", True) is not False:
        passes += ["fuse", "dce"]
    return None if passes == ["fold", "cse", "dce", "fuse", "dce"] else passes


def _get_jit():
    """``'autoclustering'`` after ``set_jit('autoclustering')`` (or True), else ``''``."""
    return "autoclustering" if _state.jit else ""


def _set_jit(enabled):
    """TensorFlow's XLA auto-clustering switch. ferroflow has no XLA: traced functions are
    always optimised by its own passes (elementwise fusion included); the setting is kept for
    `get_jit`."""
    _state.jit = enabled == "autoclustering" or enabled is True


optimizer = types.SimpleNamespace(
    get_experimental_options=_get_experimental_options,
    get_jit=_get_jit,
    set_experimental_options=_set_experimental_options,
    set_jit=_set_jit,
)


# --- clusters --------------------------------------------------------------------------------


def experimental_connect_to_cluster(
    cluster_spec_or_resolver,
    job_name="localhost",
    task_index=0,
    protocol=None,
    make_master_device_default=True,
    cluster_device_filters=None,
):
    """ferroflow runs in one process and has no `ClusterSpec`: TensorFlow's ValueError for
    anything else."""
    from ferroflow import _tracing

    if _tracing.tracing():
        raise ValueError(
            "`tf.config.experimental_connect_to_cluster` can only be called in eager mode."
        )
    raise ValueError("`cluster_spec_or_resolver` must be a `ClusterSpec` or a `ClusterResolver`.")


def experimental_connect_to_host(remote_host=None, job_name="worker"):
    """Without hosts, TensorFlow's ValueError; with hosts, UnimplementedError: ferroflow has no
    remote execution."""
    from ferroflow import errors

    if not remote_host:
        raise ValueError("Must provide at least one remote_host")
    raise errors.UnimplementedError(
        None, None, "ferroflow runs in one process: it cannot connect to remote hosts"
    )
