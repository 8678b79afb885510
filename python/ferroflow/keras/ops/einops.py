"""`keras.ops.rearrange`: einops-style axis reordering, splitting and merging (no repetition
or reduction, as in Keras)."""

import math
import re

from ferroflow.keras.ops.core import shape
from ferroflow.keras.ops.numpy import reshape, transpose

__all__ = ["rearrange"]

_GROUP = re.compile(r"\(([\w\s]+)\)")


def _groups(axes):
    out = []
    for axis in axes:
        m = _GROUP.match(axis)
        out.append(m.group(1).split() if m else [axis])
    return out


def rearrange(tensor, pattern, **axes_lengths):
    """Rearranges ``tensor`` by an einops ``pattern`` such as ``"b (h w) c -> b h w c"``;
    ``axes_lengths`` gives the sizes a split cannot infer."""
    src, dst = re.split(r"\s*->\s*", pattern)
    src_axes = re.findall(r"\w+|\(.*?\)", src)
    dst_axes = re.findall(r"\w+|\(.*?\)", dst)
    sizes = {}
    for axis, dim in zip(src_axes, shape(tensor), strict=False):
        m = _GROUP.match(axis)
        if not m:
            sizes[axis] = dim
            continue
        group = m.group(1).split()
        known = [a for a in group if a in axes_lengths]
        unknown = [a for a in group if a not in axes_lengths]
        if unknown:
            axes_lengths[unknown[0]] = dim // math.prod(axes_lengths[a] for a in known)
        sizes.update({a: axes_lengths[a] for a in group})
    flat_src = [a for g in _groups(src_axes) for a in g]
    decomposed = [sizes[a] for a in flat_src]
    if decomposed != list(tensor.shape):
        tensor = reshape(tensor, decomposed)
    out_groups = _groups(dst_axes)
    tensor = transpose(tensor, [flat_src.index(a) for g in out_groups for a in g])
    return reshape(tensor, tuple(math.prod(sizes[a] for a in g) for g in out_groups))
