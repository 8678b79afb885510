"""Keras's mask propagation: a mask travels as the ``_keras_mask`` attribute of the tensor it
describes (TensorFlow's tensors take attributes, and so do ferroflow's). Around each layer call,
as Keras 3 does it:

- a `call` with a ``mask`` parameter and one tensor argument receives that argument's mask
  when none is passed; with several tensor arguments, ``<name>_mask`` parameters receive the
  mask of argument ``<name>`` (`MultiHeadAttention`'s ``query_mask``...);
- after the call, a layer that `supports_masking` attaches `compute_mask(inputs, mask)` to
  outputs that carry no mask yet; one that does not warns that the mask is dropped."""

import inspect
import warnings

from ferroflow import nest
from ferroflow.array_ops import is_tensor
from ferroflow.keras._tensor_attributes import get_keras_mask, set_keras_mask

__all__ = ["get_keras_mask", "set_keras_mask", "masks_for_call", "attach_output_masks"]


def _mask_map(structure):
    return nest.map_structure(get_keras_mask, structure)


# Per `call` function: its signature and the names of its mask parameters, or None when it
# has none (the common case, which then costs one dictionary lookup).
_mask_signatures = {}


def _mask_signature(layer):
    call = type(layer).call
    if call not in _mask_signatures:
        found = None
        try:
            signature = inspect.signature(layer.call)
        except (TypeError, ValueError):
            signature = None
        if signature is not None:
            names = {n for n in signature.parameters if n == "mask" or n.endswith("_mask")}
            if names:
                found = (signature, names)
        _mask_signatures[call] = found
    return _mask_signatures[call]


def _is_tensor_argument(value):
    """Keras's "tensor argument": a tensor, or a non-empty structure of tensors (or Nones)."""
    if is_tensor(value):
        return True
    if nest.is_nested(value):
        flat = nest.flatten(value)
        return bool(flat) and all(x is None or is_tensor(x) for x in flat)
    return False


def masks_for_call(layer, inputs, args, kwargs):
    """Fills the call's mask parameters from its inputs' masks (editing ``kwargs``, or ``args``
    where a mask was passed positionally as None); returns ``(args, previous_mask)``, the mask
    `compute_mask` will receive."""
    found = _mask_signature(layer)
    if found is not None:
        signature, names = found
        try:
            bound = signature.bind(inputs, *args, **kwargs)
        except TypeError:
            bound = None  # `call` itself reports the bad arguments
        if bound is not None:
            args = _fill_masks(bound, names, args, kwargs)
    explicit = kwargs.get("mask")
    previous_mask = explicit if explicit is not None else _mask_map(inputs)
    return args, previous_mask


def _fill_masks(bound, names, args, kwargs):
    tensors = {k: v for k, v in bound.arguments.items() if _is_tensor_argument(v)}
    wanted = {}
    if len(tensors) == 1 and "mask" in names:
        if bound.arguments.get("mask") is None:
            wanted["mask"] = _mask_map(next(iter(tensors.values())))
    elif len(tensors) > 1:
        for name, value in tensors.items():
            mask_name = f"{name}_mask"
            if mask_name in names and bound.arguments.get(mask_name) is None:
                wanted[mask_name] = _mask_map(value)
    positions = list(bound.signature.parameters)
    for name, mask in wanted.items():
        index = positions.index(name) - 1  # `args` follow `inputs`
        if name in bound.arguments and 0 <= index < len(args):
            args = args[:index] + (mask,) + args[index + 1 :]
        else:
            kwargs[name] = mask
    return args


def attach_output_masks(layer, inputs, outputs, previous_mask):
    """After a call: the output masks of a layer that supports masking, or Keras's warning
    when a mask reaches one that does not."""
    if layer.supports_masking:
        flat_outputs = nest.flatten(outputs)
        if all(get_keras_mask(x) is not None for x in flat_outputs):
            return
        output_masks = layer.compute_mask(inputs, previous_mask)
        if output_masks is None:
            return
        for tensor, mask in zip(flat_outputs, nest.flatten(output_masks)):
            if mask is not None and get_keras_mask(tensor) is None:
                set_keras_mask(tensor, mask)
    elif any(m is not None for m in nest.flatten(previous_mask)):
        warnings.warn(
            f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with "
            "a mask attached to it. However, this layer does not support masking and will "
            "therefore destroy the mask information. Downstream layers will not see the mask.",
            stacklevel=3,
        )
