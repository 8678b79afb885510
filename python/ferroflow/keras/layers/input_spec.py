"""`tf.keras.layers.InputSpec`: the rank, dtype and shape a layer expects of its inputs,
checked on every call with Keras 3's error messages."""

from ferroflow import dtypes as _dtypes
from ferroflow import nest

__all__ = ["InputSpec", "assert_input_compatibility"]


def _shape_tuple(shape):
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    return tuple(None if d is None else int(d) for d in shape)


class InputSpec:
    """Specifies the rank, dtype and shape of every input to a layer.

    A layer sets ``self.input_spec`` (one spec, or a list with one spec per input) and its
    calls then raise ValueError for incompatible inputs. ``None`` in a shape or in ``axes``
    matches any size.
    """

    def __init__(
        self,
        dtype=None,
        shape=None,
        ndim=None,
        max_ndim=None,
        min_ndim=None,
        axes=None,
        allow_last_axis_squeeze=False,
        name=None,
        optional=False,
    ):
        self.dtype = _dtypes.as_dtype(dtype).name if dtype is not None else None
        if shape is not None:
            self.shape = _shape_tuple(shape)
            self.ndim = len(self.shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(
                f"Argument `axes` must be a dict with integer keys. Received: axes={axes}"
            ) from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(
                    f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}"
                )

    def __repr__(self):
        parts = [
            f"dtype={self.dtype}" if self.dtype else "",
            f"shape={self.shape}" if self.shape else "",
            f"ndim={self.ndim}" if self.ndim else "",
            f"max_ndim={self.max_ndim}" if self.max_ndim else "",
            f"min_ndim={self.min_ndim}" if self.min_ndim else "",
            f"axes={self.axes}" if self.axes else "",
        ]
        return f"InputSpec({', '.join(p for p in parts if p)})"

    def get_config(self):
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
            "optional": self.optional,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _incompatible(index, spec, layer_name, detail):
    return ValueError(
        f"Input {index} with name '{spec.name}' of layer '{layer_name}' is incompatible "
        f"with the layer: {detail}"
    )


def _check_one(index, x, spec, layer_name):
    if not hasattr(x, "shape"):
        raise ValueError(
            f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input "
            f"for layer '{layer_name}'."
        )
    shape = _shape_tuple(x.shape)
    ndim = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        raise _incompatible(
            index,
            spec,
            layer_name,
            f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}",
        )
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise _incompatible(
            index, spec, layer_name, f"expected max_ndim={spec.max_ndim}, found ndim={ndim}"
        )
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise _incompatible(
            index,
            spec,
            layer_name,
            f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: {shape}",
        )
    if spec.dtype is not None:
        dtype = _dtypes.as_dtype(x.dtype).name
        if dtype != spec.dtype:
            raise _incompatible(
                index, spec, layer_name, f"expected dtype={spec.dtype}, found dtype={dtype}"
            )
    for axis, value in spec.axes.items():
        if value is not None and shape[axis] not in {value, None}:
            raise _incompatible(
                index,
                spec,
                layer_name,
                f"expected axis {axis} of input shape to have value {value}, but received "
                f"input with shape {shape}",
            )
    if spec.shape is not None:
        spec_shape = spec.shape
        if spec.allow_last_axis_squeeze:
            if shape and shape[-1] == 1:
                shape = shape[:-1]
            if spec_shape and spec_shape[-1] == 1:
                spec_shape = spec_shape[:-1]
        for spec_dim, dim in zip(spec_shape, shape):
            if spec_dim is not None and dim is not None and spec_dim != dim:
                raise _incompatible(
                    index,
                    spec,
                    layer_name,
                    f"expected shape={spec.shape}, found shape={shape}",
                )


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises ValueError unless ``inputs`` (one tensor or a structure of them) match
    ``input_spec`` (one InputSpec or a structure of them, or None for no check)."""
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            missing = [name for name in names if name not in inputs]
            if missing:
                raise ValueError(
                    f'Missing data for input "{missing[0]}". You passed a data dictionary '
                    f"with keys {list(inputs.keys())}. Expected the following keys: {names}"
                )
            inputs = [inputs[name] for name in names]
    flat = nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(flat)} input tensors. Inputs received: {inputs}"
        )
    for index, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        _check_one(index, x, spec, layer_name)
