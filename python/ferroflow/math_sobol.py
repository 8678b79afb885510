"""`tf.math.sobol_sample`: the Rust `SobolSample` primitive (TensorFlow's kernel, bit for bit,
with Joe and Kuo's direction numbers for up to 21200 dimensions)."""

import json

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor


def _int32(value):
    return value if _core.is_tensor(value) else convert_to_tensor(value, dtype=_dtypes.int32)


def sobol_sample(dim, num_results, skip=0, dtype=_dtypes.float32, name=None):
    """``num_results`` points of the ``dim``-dimensional Sobol sequence after skipping ``skip``
    (the all-zero first point is never returned), shape ``[num_results, dim]``.

    >>> import ferroflow as tf
    >>> tf.math.sobol_sample(2, 3).numpy()
    array([[0.5 , 0.5 ],
           [0.75, 0.25],
           [0.25, 0.75]], dtype=float32)
    """
    dtype = _dtypes.as_dtype(dtype)
    inputs = [_int32(dim), _int32(num_results), _int32(skip)]
    attrs = json.dumps({"dtype": dtype.name})
    return _core.raw_op("SobolSample", inputs, attrs)[0]
