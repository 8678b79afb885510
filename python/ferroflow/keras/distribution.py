"""`keras.distribution`: Keras 3's device meshes, tensor layouts and distributions as they
behave under the TensorFlow backend. The classes are the same plain objects; a single-process
distribution leaves datasets and variables as they are; the DTensor conversions
(``backend_mesh``, ``backend_layout``) fail as TensorFlow's uninitialised DTensor does, and
`get_device_count`, `initialize` and `distribute_tensor` fail as Keras's TensorFlow backend
does (it has no such functions)."""

import collections
import contextlib
import math
import os
import re
import warnings

import numpy as np

__all__ = [
    "DataParallel",
    "DeviceMesh",
    "LayoutMap",
    "ModelParallel",
    "TensorLayout",
    "distribute_tensor",
    "distribution",
    "get_device_count",
    "initialize",
    "list_devices",
    "set_distribution",
]

DEFAULT_BATCH_DIM_NAME = "batch"
_state = {"distribution": None}


def _missing_backend_function(name):
    return AttributeError(
        f"module 'keras.src.backend.tensorflow.distribution_lib' has no attribute '{name}'"
    )


def list_devices(device_type=None):
    """The devices as ``"cpu:0"``, ``"gpu:0"``...: of ``device_type`` if given, else the
    accelerators if any, else the CPUs."""
    from ferroflow import config

    device_type = device_type.upper() if device_type else None
    devices = config.list_logical_devices(device_type=device_type)
    if device_type is None:
        others = [d for d in devices if d.device_type.lower() != "cpu"]
        devices = others or [d for d in devices if d.device_type.lower() == "cpu"]
    return [f"{d.device_type.lower()}:{d.name.split(':')[-1]}" for d in devices]


def get_device_count(device_type=None):
    """Not in Keras's TensorFlow backend: raises ``AttributeError`` as it does."""
    raise _missing_backend_function("get_device_count")


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Not in Keras's TensorFlow backend: raises ``AttributeError`` as it does (after reading
    the ``KERAS_DISTRIBUTION_*`` environment variables, as Keras does)."""
    if num_processes is None and "KERAS_DISTRIBUTION_NUM_PROCESSES" in os.environ:
        int(os.environ["KERAS_DISTRIBUTION_NUM_PROCESSES"])
    if process_id is None and "KERAS_DISTRIBUTION_PROCESS_ID" in os.environ:
        int(os.environ["KERAS_DISTRIBUTION_PROCESS_ID"])
    raise _missing_backend_function("initialize")


def _dtensor_uninitialized():
    return ValueError(
        "Accelerators are uninitialized, please run dtensor.initialize_accelerator_system() first."
    )


class DeviceMesh:
    """A cluster of devices laid out as an n-d array with named axes."""

    def __init__(self, shape, axis_names, devices=None):
        if not shape or not axis_names:
            raise ValueError(
                "Shape and axis_names cannot be empty. Received: "
                f"shape={shape}, axis_names={axis_names}"
            )
        if len(shape) != len(axis_names):
            raise ValueError(
                "Shape and axis_names should have same size. "
                f"Received: shape={shape}, axis_names={axis_names}"
            )
        if devices is None:
            devices = list_devices()
        devices = np.array(devices)
        if math.prod(shape) != math.prod(devices.shape):
            raise ValueError(
                "Shape does not match the number of devices. "
                f"Received: shape={shape}; devices.shape={devices.shape}"
            )
        self._shape = shape
        self._axis_names = axis_names
        self._devices = np.reshape(devices, shape)

    @property
    def shape(self):
        return self._shape

    @property
    def axis_names(self):
        return self._axis_names

    @property
    def devices(self):
        return self._devices

    @property
    def backend_mesh(self):
        raise _dtensor_uninitialized()

    def __repr__(self):
        return f"<{type(self).__name__} shape={self.shape}, axis_names={self.axis_names}>"

    __str__ = __repr__


class TensorLayout:
    """How a tensor is sharded over a `DeviceMesh`: one mesh axis name (or None) per axis."""

    def __init__(self, axes, device_mesh=None):
        self._axes = tuple(axes)
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def axes(self):
        return self._axes

    @property
    def device_mesh(self):
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh):
        if self._device_mesh is not None:
            raise ValueError(
                f"Cannot override device mesh value. Existing value is {self._device_mesh}"
            )
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def backend_layout(self):
        if self._device_mesh is None:
            raise ValueError("Cannot create sharding when device mesh is not set for TensorLayout.")
        raise _dtensor_uninitialized()

    def _validate_axes(self):
        if self._device_mesh:
            valid = set(self._device_mesh.axis_names)
            names = set(self._axes) - {None}
            if names - valid:
                raise ValueError(
                    f"Invalid axis names for Layout. Valid axis names: {valid}, Got {names}"
                )

    def __repr__(self):
        return f"<{type(self).__name__} axes={self.axes}, device_mesh={self.device_mesh}>"

    __str__ = __repr__


class Distribution:
    """Base class of distributions (one process under ferroflow)."""

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = auto_shard_dataset
        self._num_processes = 1
        self._process_id = 0
        self._is_multi_process = False

    @property
    def num_processes(self):
        return self._num_processes

    @property
    def num_model_replicas(self):
        raise NotImplementedError()

    @property
    def data_shard_id(self):
        replicas = self.num_model_replicas
        if replicas >= self.num_processes:
            return self._process_id
        return self._process_id // (self.num_processes // replicas)

    def get_data_layout(self, data_shape):
        raise NotImplementedError()

    def get_variable_layout(self, variable):
        raise NotImplementedError()

    def get_tensor_layout(self, path):
        raise NotImplementedError()

    @contextlib.contextmanager
    def scope(self):
        """Makes this the current distribution for the duration of the ``with`` block."""
        original = distribution()
        set_distribution(self)
        try:
            yield
        finally:
            set_distribution(original)

    @property
    def device_mesh(self):
        return self._device_mesh

    @property
    def batch_dim_name(self):
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self):
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value):
        self._auto_shard_dataset = value

    def distribute_dataset(self, dataset):
        """The dataset as it is (one process: nothing to shard)."""
        return dataset

    def __repr__(self):
        return f"<{type(self).__name__} device_mesh={self.device_mesh}>"

    __str__ = __repr__


def _batch_layout(distribution_, data_shape):
    spec = [None] * len(data_shape)
    spec[0] = distribution_.batch_dim_name
    return TensorLayout(spec, distribution_.device_mesh)


class DataParallel(Distribution):
    """Data parallelism: variables replicated, batches split along the mesh's first axis."""

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh:
            if not isinstance(device_mesh, DeviceMesh):
                raise ValueError(
                    "Expect `mesh` to be an instance of `DeviceMesh`. "
                    f"Received: mesh={device_mesh} (of type {type(device_mesh)})"
                )
            super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)
            if self.device_mesh.devices.ndim != 1:
                warnings.warn(
                    "Expect the input mesh to be 1D, but received mesh.devices.ndim=%d. "
                    "The first axis will be used for data-parallel sharding.",
                    device_mesh.devices.ndim,
                    stacklevel=2,
                )
            return
        devices = np.array(devices if devices else list_devices())
        mesh = DeviceMesh(shape=devices.shape, axis_names=[DEFAULT_BATCH_DIM_NAME], devices=devices)
        super().__init__(mesh, DEFAULT_BATCH_DIM_NAME, auto_shard_dataset)

    @property
    def num_model_replicas(self):
        return self.device_mesh.devices.size

    def get_data_layout(self, data_shape):
        return _batch_layout(self, data_shape)

    def get_variable_layout(self, variable):
        if getattr(variable, "_layout", None) is not None:
            return variable._layout
        return TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path):
        return None


class ModelParallel(Distribution):
    """Model parallelism: variables laid out by a `LayoutMap`."""

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True, **kwargs):
        kwargs.pop("device_mesh", None)
        if layout_map is None:
            raise ValueError("You must specify a layout_map argument.")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(
                "Argument `layout_map` must be a `LayoutMap` instance. "
                f"Received: layout_map={layout_map}"
            )
        mesh = layout_map.device_mesh
        super().__init__(mesh, batch_dim_name or mesh.axis_names[0], auto_shard_dataset)
        self._layout_map = layout_map

    @property
    def num_model_replicas(self):
        return self.device_mesh.shape[self.device_mesh.axis_names.index(self.batch_dim_name)]

    def get_data_layout(self, data_shape):
        return _batch_layout(self, data_shape)

    def get_variable_layout(self, variable):
        if getattr(variable, "_layout", None) is not None:
            return variable._layout
        layout = self._layout_map[variable.path]
        if layout is not None:
            return layout
        return TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path):
        return self._layout_map[path]


class LayoutMap(collections.abc.MutableMapping):
    """Variable paths (regular expressions) to `TensorLayout`s."""

    def __init__(self, device_mesh):
        self._layout_map = collections.OrderedDict()
        self._device_mesh = device_mesh

    def __getitem__(self, key):
        """The layout of ``key``: its own, else the one whose pattern it fully matches."""
        if key in self._layout_map:
            return self._layout_map[key]
        matching = [p for p in self._layout_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(
                f"Path '{key}' matches multiple layout specification keys: {matching}. Please "
                "make sure each tensor/variable path only matches at most one layout "
                "specification key in the LayoutMap."
            )
        return self._layout_map[matching[0]] if matching else None

    def __setitem__(self, key, layout):
        if key in self._layout_map:
            raise ValueError(
                f"{key} already exist in the LayoutMap with value {self._layout_map[key]}. "
                "Please make sure to not use duplicated keys."
            )
        if isinstance(layout, tuple):
            layout = TensorLayout(axes=layout, device_mesh=None)
        if not isinstance(layout, TensorLayout):
            raise ValueError(f"{layout} should be a TensorLayout type, got {type(layout)}")
        if layout.device_mesh is None and self.device_mesh is not None:
            layout.device_mesh = self.device_mesh
        self._layout_map[key] = layout

    def __delitem__(self, key):
        return self._layout_map.pop(key)

    def __len__(self):
        return len(self._layout_map)

    def __iter__(self):
        return iter(self._layout_map)

    @property
    def device_mesh(self):
        return self._device_mesh


def distribute_tensor(tensor, layout):
    """Not in Keras's TensorFlow backend: raises ``AttributeError`` as it does (a
    `KerasTensor` comes back as it is)."""
    from ferroflow.keras.layers.input_layer import KerasTensor

    if isinstance(tensor, KerasTensor):
        return tensor
    raise _missing_backend_function("distribute_tensor")


def distribution():
    """The current distribution (None by default)."""
    return _state["distribution"]


def set_distribution(value):
    """Sets the current distribution."""
    _state["distribution"] = value
