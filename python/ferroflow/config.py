"""`tf.config`: the devices ferroflow can place work on.

GPUs are the wgpu adapters (Vulkan, Metal, DX12) that count as hardware; software rasterisers
count only with ``FERROFLOW_ALLOW_SOFTWARE_GPU=1``. ``FERROFLOW_VISIBLE_DEVICES`` (comma-separated
indices, empty or ``-1`` for none) hides adapters as CUDA_VISIBLE_DEVICES does.
"""

import collections
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
    """One logical device per visible physical device, named as ops report them."""
    cpu = LogicalDevice("/device:CPU:0", "CPU")
    gpus = [LogicalDevice(f"/device:GPU:{n}", "GPU") for n, _ in enumerate(_core.visible_gpus())]
    return [d for d in [cpu, *gpus] if _matches(d, device_type)]


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


_memory_growth = {}


def _set_memory_growth(device, enable):
    # wgpu allocates buffers on demand, so memory always grows as needed; the flag is recorded
    # so that programs written for TensorFlow's GPU set-up run unchanged.
    _memory_growth[device] = bool(enable)


def _get_memory_growth(device):
    return _memory_growth.get(device, True)


experimental = types.SimpleNamespace(
    get_device_details=_get_device_details,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    set_memory_growth=_set_memory_growth,
    get_memory_growth=_get_memory_growth,
)


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
