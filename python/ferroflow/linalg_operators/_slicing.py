"""Batch slicing of operators (``op[1:, 0]``), as TensorFlow's ``linalg/slicing.py``: each
parameter named in ``_experimental_parameter_ndims_to_matrix_ndims`` is sliced on its batch
dims (a dim it broadcasts along takes index 0), and the operator is rebuilt from its
parameters. Needs static batch shapes (NotImplementedError otherwise)."""

import collections.abc

from ferroflow.array_ops import reshape


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
    missing = batch_rank + matrix_ndims - rank
    if missing <= 0:
        return param
    if not param.shape.is_fully_defined():
        raise NotImplementedError("Slicing an operator needs static parameter shapes.")
    return reshape(param, [1] * missing + param.shape.as_list())


def _batch_dims(param, matrix_ndims):
    if _is_operator(param):
        dims = param.batch_shape
    else:
        dims = param.shape[: param.shape.rank - matrix_ndims]
    if not dims.is_fully_defined():
        raise NotImplementedError("Slicing an operator needs static batch shapes.")
    return dims.as_list()


def _sanitize(slices, intended, deficient):
    """Slices for a parameter whose batch dims may be 1 where the operator's are not."""
    out = []
    idx = 0
    for slc in slices:
        if slc is Ellipsis:
            rest = slices[slices.index(Ellipsis) + 1 :]
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
            if isinstance(slc, slice):
                slc = (
                    slice(
                        None if slc.start is None else 0,
                        None if slc.stop is None else 1,
                        None if slc.step is None else 1,
                    )
                    if broadcast
                    else slc
                )
            elif broadcast:
                slc = 0
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
        if Ellipsis not in slices:
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
        if not linop.batch_shape.is_fully_defined():
            raise NotImplementedError("Slicing an operator needs static batch shapes.")
        batch_shape = linop.batch_shape.as_list()
        for name, nd in linop._experimental_parameter_ndims_to_matrix_ndims.items():
            param = getattr(linop, name)
            if param is not None:
                overrides[name] = _map(
                    param, nd, lambda p, n: _slice_param(p, n, slices, batch_shape)
                )
    return type(linop)(**dict(linop.parameters, **overrides))
