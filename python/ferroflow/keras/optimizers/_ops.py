"""The `keras.ops` that the optimizers' update steps use, with Keras 3's TensorFlow backend's
handling of `tf.IndexedSlices` (a gather's gradient), so that sparse gradients give
TensorFlow's numbers:

- zero-preserving unary ops (`square`, `sqrt`, `abs`, `negative`) and `cast` map the slices'
  values, so each looked-up row is squared before repeated rows are summed;
- `multiply` with a scalar or a dense tensor stays on the slices' rows (the dense operand is
  gathered at the slices' indices);
- `add`, `subtract` and `maximum` with a dense operand (or a scalar) make the slices dense
  (repeated rows summed);
- `divide` of slices by a scalar stays sparse; by a dense tensor it stays sparse on the slices'
  rows, unless a row of the divisor holds a zero or a NaN: then those rows join the result
  (with a zero dividend), computed as Keras computes the union of rows (which, with repeated
  indices, reads past the values and fails on the CPU, as it does in TensorFlow);
- `clip` clips the slices' values (`tf.clip_by_value`).

Dense operands go to the ordinary ops. Two IndexedSlices operands are not combined anywhere in
the optimizers, so only the same-indices case (same rows, element-wise) is handled."""

from ferroflow import array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import math as tf_math
from ferroflow.control_flow import cond
from ferroflow.indexed_slices import IndexedSlices

__all__ = [
    "IndexedSlices",
    "abs",
    "add",
    "cast",
    "clip",
    "densify",
    "divide",
    "maximum",
    "multiply",
    "negative",
    "sqrt",
    "square",
    "subtract",
]


def _is_slices(x):
    return isinstance(x, IndexedSlices)


def _is_scalar(x):
    shape = getattr(x, "shape", None)
    return shape is None or len(shape) == 0


def _with_values(slices, values):
    return IndexedSlices(values, slices.indices, slices.dense_shape)


def densify(x):
    """A dense tensor for IndexedSlices (repeated rows summed); anything else unchanged.

    Made through the slices' own conversion (`__tf_tensor__`): `tf.convert_to_tensor` of a
    value traced under a GPU device scope currently keeps the value it had when traced."""
    return x.__tf_tensor__() if _is_slices(x) else x


def _same_rows(x1, x2):
    return _is_slices(x1) and _is_slices(x2) and x1.indices is x2.indices


# --- unary ----------------------------------------------------------------------------------


def cast(x, dtype):
    if _is_slices(x):
        return _with_values(x, array_ops.cast(x.values, dtype))
    return array_ops.cast(x, dtype)


def square(x):
    if _is_slices(x):
        return _with_values(x, tf_math.square(x.values))
    return tf_math.square(x)


def sqrt(x):
    if _is_slices(x):
        return _with_values(x, tf_math.sqrt(x.values))
    return tf_math.sqrt(x)


def abs(x):  # noqa: A001 - keras.ops' name
    if _is_slices(x):
        return _with_values(x, tf_math.abs(x.values))
    return tf_math.abs(x)


def negative(x):
    if _is_slices(x):
        return _with_values(x, tf_math.negative(x.values))
    return tf_math.negative(x)


def clip(x, x_min, x_max):
    if _is_slices(x):
        return _with_values(x, tf_math.clip_by_value(x.values, x_min, x_max))
    return tf_math.clip_by_value(x, x_min, x_max)


# --- binary: the rows of the union (dense unless both are slices on the same rows) -----------


def _union(op):
    def apply(x1, x2):
        if _same_rows(x1, x2):
            return _with_values(x1, op(x1.values, x2.values))
        return op(densify(x1), densify(x2))

    return apply


add = _union(lambda a, b: a + b)
subtract = _union(lambda a, b: a - b)
maximum = _union(tf_math.maximum)


# --- multiply: the rows of the intersection ----------------------------------------------------


def multiply(x1, x2):
    if _same_rows(x1, x2):
        return _with_values(x1, x1.values * x2.values)
    if _is_slices(x1) and not _is_slices(x2):
        other = x2 if _is_scalar(x2) else array_ops.gather(x2, x1.indices)
        return _with_values(x1, x1.values * other)
    if _is_slices(x2) and not _is_slices(x1):
        other = x1 if _is_scalar(x1) else array_ops.gather(x1, x2.indices)
        return _with_values(x2, other * x2.values)
    return x1 * x2


# --- divide ------------------------------------------------------------------------------------


def divide(x1, x2):
    if _is_slices(x2):
        # Dividing by slices divides by zero off their rows: the result is dense.
        return tf_math.divide(densify(x1), densify(x2))
    if not _is_slices(x1):
        return tf_math.divide(x1, x2)
    if _is_scalar(x2):
        return _with_values(x1, tf_math.divide(x1.values, x2))
    x2 = array_ops.convert_to_tensor(x2)
    bad = tf_math.equal(x2, array_ops.zeros_like(x2))
    if not x2.dtype.is_integer:
        bad = tf_math.logical_or(bad, tf_math.is_nan(x2))
    if x2.shape.rank > 1:
        bad = tf_math.reduce_any(bad, axis=list(range(1, x2.shape.rank)))

    def on_slice_rows():
        values = tf_math.divide(x1.values, array_ops.gather(x2, x1.indices))
        return values, array_ops.cast(x1.indices, _dtypes.int64)

    def on_union_rows():
        bad_rows = array_ops.reshape(array_ops.where(bad), [-1])
        rows, values = _union_rows(x1, bad_rows, _first_dimension(x1, x2))
        return tf_math.divide(values, array_ops.gather(x2, rows)), rows

    values, rows = cond(tf_math.reduce_any(bad), on_union_rows, on_slice_rows)
    return IndexedSlices(values, rows, x1.dense_shape)


def _first_dimension(slices, dense):
    """The slices' first dense dimension as a shape argument: the dense operand's static one
    (the same number) where known, so that it is a Python value inside a `tf.function`."""
    if dense.shape.rank and dense.shape.dims[0] is not None:
        return [int(dense.shape.dims[0])]
    return array_ops.reshape(
        array_ops.cast(array_ops.gather(slices.dense_shape, [0]), _dtypes.int64), [1]
    )


def _union_rows(slices, other_rows, dim_0):
    """The sorted rows in ``slices.indices`` or ``other_rows``, and the slices' values laid out
    on them (zero rows added), found as Keras finds them: a 1-based position per row scattered
    into a table of the first dimension (``dim_0``), then gathered (repeated indices add their
    positions, which then point past the values)."""
    own = array_ops.expand_dims(array_ops.cast(slices.indices, _dtypes.int64), 1)
    other = array_ops.expand_dims(array_ops.cast(other_rows, _dtypes.int64), 1)
    own_count = array_ops.shape(own, out_type=_dtypes.int64)[0]
    marks = array_ops.scatter_nd(
        own, array_ops.ones(array_ops.shape(own)[:1], _dtypes.int32), dim_0
    ) + array_ops.scatter_nd(
        other, array_ops.ones(array_ops.shape(other)[:1], _dtypes.int32), dim_0
    )
    rows = array_ops.reshape(array_ops.where(tf_math.greater(marks, 0)), [-1])

    def regathered():
        positions = array_ops.scatter_nd(
            own, array_ops.range(1, own_count + 1, dtype=_dtypes.int64), dim_0
        )
        padded = array_ops.concat([array_ops.zeros_like(slices.values[0:1]), slices.values], axis=0)
        return array_ops.gather(padded, array_ops.gather(positions, rows))

    row_count = array_ops.shape(rows, out_type=_dtypes.int64)[0]
    values = cond(
        tf_math.equal(own_count, row_count), lambda: array_ops.identity(slices.values), regathered
    )
    return rows, values
