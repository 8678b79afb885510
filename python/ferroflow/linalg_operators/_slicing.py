"""Batch slicing of operators (``op[1:, 0]``), as TensorFlow's ``linalg/slicing.py``: each
parameter named in ``_experimental_parameter_ndims_to_matrix_ndims`` is sliced on its batch
dims (a dim it broadcasts along takes index 0), and the operator is rebuilt from its
parameters. Unknown batch dims are handled with tensors; an unknown batch rank is
NotImplementedError."""

import collections.abc

import numpy as np

from ferroflow.array_ops import concat, reshape, shape, where


def _is_operator(x):
    return hasattr(x, "batch_shape_tensor")


def _with_batch_rank(param, matrix_ndims, batch_rank):
    """``param`` with leading 1-dims up to ``batch_rank`` batch dims (recursively for an
    operator parameter)."""
    if _is_operator(param):
        overrides = {
            name: _map(getattr(param, name), nd, lambda p, n: _with_batch_rank(p, n, batch_rank))
            for name, nd in param._experimental_parameter_ndims_to_matrix_ndims.items()
        }
        return type(param)(**dict(param.parameters, **overrides))
    rank = param.shape.rank
    if rank is None:
        raise NotImplementedError("Slicing an operator needs parameters of known rank.")
    missing = batch_rank + matrix_ndims - rank
    if missing <= 0:
        return param
    if param.shape.is_fully_defined():
        return reshape(param, [1] * missing + param.shape.as_list())
    return reshape(param, concat([[1] * missing, shape(param)], 0))


def _dims(static, dynamic):
    """A shape as a list: its static dims, a scalar tensor (from ``dynamic()``) where one is
    unknown."""
    if static.rank is None:
        raise NotImplementedError("Slicing an operator needs batch shapes of known rank.")
    tensor = None if static.is_fully_defined() else dynamic()
    return [tensor[i] if d is None else d for i, d in enumerate(static.dims)]


def _batch_dims(param, matrix_ndims):
    if _is_operator(param):
        return _dims(param.batch_shape, param.batch_shape_tensor)
    rank = param.shape.rank
    return _dims(param.shape[: rank - matrix_ndims], lambda: shape(param))


def _choose(condition, a, b):
    """``a if condition else b`` for a Python or a tensor condition."""
    if isinstance(condition, bool):
        return a if condition else b
    return where(condition, a, b)


def _sanitize(slices, intended, deficient):
    """Slices for a parameter whose batch dims may be 1 where the operator's are not."""
    out = []
    idx = 0
    for position, slc in enumerate(slices):
        if slc is Ellipsis:
            rest = slices[position + 1 :]
            idx = -sum(s is not None for s in rest)
        elif slc is None:
            pass
        else:
            if not -len(intended) <= idx < len(intended):
                from ferroflow.errors import InvalidArgumentError

                # TensorFlow indexes the batch shape tensor: a strided slice out of bounds.
                raise InvalidArgumentError(
                    None, None, f"slice index {idx} of dimension 0 out of bounds."
                )
            broadcast = intended[idx] > deficient[idx]
            if isinstance(broadcast, (bool, np.bool_)):
                broadcast = bool(broadcast)
            if isinstance(slc, slice):
                slc = slice(
                    None if slc.start is None else _choose(broadcast, 0, slc.start),
                    None if slc.stop is None else _choose(broadcast, 1, slc.stop),
                    None if slc.step is None else _choose(broadcast, 1, slc.step),
                )
            else:
                slc = _choose(broadcast, 0, slc)
            idx += 1
        out.append(slc)
    return out


def _slice_param(param, matrix_ndims, slices, batch_shape):
    param = _with_batch_rank(param, matrix_ndims, len(batch_shape))
    param_batch = _batch_dims(param, matrix_ndims)
    if batch_shape and not param_batch:
        return param
    param_slices = _sanitize(slices, batch_shape, param_batch)
    if matrix_ndims > 0:
        if not any(s is Ellipsis for s in slices):
            param_slices.append(Ellipsis)
        param_slices += [slice(None)] * matrix_ndims
    return param[tuple(param_slices)]


def _map(param, ndims, fn):
    if isinstance(param, (list, tuple)):
        return type(param)(fn(p, n) for p, n in zip(param, ndims))
    return fn(param, ndims)


def batch_slice(linop, slices):
    """``linop`` with its batch dims sliced by ``slices``."""
    if not isinstance(slices, collections.abc.Sequence):
        slices = (slices,)
    slices = list(slices)
    overrides = {}
    if not (len(slices) == 1 and slices[0] is Ellipsis):
        batch_shape = _dims(linop.batch_shape, linop.batch_shape_tensor)
        for name, nd in linop._experimental_parameter_ndims_to_matrix_ndims.items():
            param = getattr(linop, name)
            if param is not None:
                overrides[name] = _map(
                    param, nd, lambda p, n: _slice_param(p, n, slices, batch_shape)
                )
    return type(linop)(**dict(linop.parameters, **overrides))
