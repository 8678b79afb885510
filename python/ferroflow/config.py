"""`tf.config`: the devices ferroflow can place work on. (The GPU backend arrives with wgpu.)"""

import collections

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def list_physical_devices(device_type=None):
    devices = [_CPU]
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


def list_logical_devices(device_type=None):
    return [
        LogicalDevice(d.name.replace("physical_device", "device"), d.device_type)
        for d in list_physical_devices(device_type)
    ]
