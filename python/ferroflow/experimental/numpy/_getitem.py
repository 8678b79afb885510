"""NumPy-style indexing of Tensors after `experimental_enable_numpy_behavior`: integer and
boolean array indices (advanced indexing) besides TensorFlow's ints, slices, `...` and
`None`. A boolean array alone is `tf.boolean_mask`; other advanced indices gather the flat
positions NumPy's rules select (so the result's layout is NumPy's, as TensorFlow's
`_slice_helper` makes it)."""

import numpy as np

import ferroflow as tf

_SLICE_ERROR = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices"
)


def _is_bool_array(x):
    if isinstance(x, tf.Tensor):
        return x.dtype == tf.bool
    return isinstance(x, np.ndarray) and x.dtype == np.bool_


def _as_spec_tuple(key):
    if isinstance(key, (list, tuple)) and not isinstance(key, np.ndarray):
        for s in key:
            if s is None or s is Ellipsis or isinstance(s, (list, tuple, slice)):
                return tuple(key)
            if isinstance(s, (tf.Tensor, np.ndarray)) and s.ndim != 0:
                return tuple(key)
    return (key,)


def _is_advanced(s):
    if isinstance(s, (list, tuple)):
        return True
    if isinstance(s, (tf.Tensor, np.ndarray)):
        return s.ndim != 0
    return False


def _as_numpy_index(s):
    if isinstance(s, tf.Tensor):
        if tf.is_symbolic_tensor(s):
            raise NotImplementedError(
                "NumPy-style indexing with a traced index tensor is not supported by ferroflow"
            )
        s = s.numpy()
    data = np.asarray(s)
    if data.dtype == np.bool_:
        if data.ndim != 1:
            raise NotImplementedError(f"Need rank 1 for bool index {s}")
        return data
    if data.size and not np.issubdtype(data.dtype, np.integer):
        raise IndexError(f"{_SLICE_ERROR}, got {s!r}")
    return data.astype(np.int64)


def numpy_style_getitem(tensor, key, basic_getitem):
    """`tensor[key]` with NumPy's indexing rules; `basic_getitem` is Tensor's own indexing."""
    if isinstance(key, bool) or _is_bool_array(key):
        return tf.boolean_mask(tensor, key)
    spec = key if isinstance(key, tuple) else _as_spec_tuple(key)
    if not any(_is_advanced(s) for s in spec):
        return basic_getitem(tensor, spec if isinstance(key, tuple) or len(spec) > 1 else key)
    if any(isinstance(s, tf.Tensor) and tf.is_symbolic_tensor(s) for s in spec):
        return _gather_traced(tensor, spec)
    np_key = []
    for s in spec:
        if _is_advanced(s):
            np_key.append(_as_numpy_index(s))
        elif isinstance(s, tf.Tensor):
            np_key.append(int(s.numpy()))
        else:
            np_key.append(s)
    shape = tensor.shape.as_list()
    if None in shape:
        raise NotImplementedError("NumPy-style indexing of a tensor of unknown shape")
    positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        selected = positions[tuple(np_key)]
    except IndexError as err:
        raise tf.errors.InvalidArgumentError(None, None, str(err)) from None
    return tf.gather(tf.reshape(tensor, [-1]), tf.constant(selected))


def _gather_traced(tensor, spec):
    """`tensor[spec]` for an index tensor known only when the graph runs: one integer index
    array with full slices (`:`) or `...` elsewhere, a gather along its axis."""
    advanced = [i for i, s in enumerate(spec) if _is_advanced(s)]
    plain = all(
        s is Ellipsis or (isinstance(s, slice) and s == slice(None))
        for i, s in enumerate(spec)
        if i not in advanced
    )
    if len(advanced) != 1 or not plain or sum(s is Ellipsis for s in spec) > 1:
        raise NotImplementedError(
            "NumPy-style indexing with a traced index tensor supports one integer index array "
            "among full slices and `...`"
        )
    position = advanced[0]
    index = spec[position]
    if not isinstance(index, tf.Tensor):
        index = tf.constant(_as_numpy_index(index))
    if index.dtype == tf.bool or not index.dtype.is_integer:
        raise NotImplementedError("a traced NumPy-style index must be an integer tensor")
    rank = tensor.shape.rank
    if Ellipsis in spec[position + 1 :]:
        axis = position
    elif Ellipsis in spec[:position]:
        axis = rank - (len(spec) - position)
    else:
        axis = position
    size = tf.cast(tf.shape(tensor)[axis], index.dtype)
    index = tf.where(index < tf.zeros_like(index), index + size, index)
    return tf.gather(tensor, index, axis=axis)
