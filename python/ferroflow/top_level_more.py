"""TensorFlow 2.21's remaining top-level op wrappers, composed from ferroflow's ops: `approx_top_k`
(and `tf.math.approx_max_k/approx_min_k`), the generic N-d `conv`, `conv2d_backprop_input_v2` and
`conv2d_backprop_filter_v2` (conv2d's gradients), `extract_volume_patches`,
`ragged_fill_empty_rows(_grad)`, `nondifferentiable_batch_function` and `check_pinned`.

Each follows TensorFlow's CPU kernel, including where that kernel refuses: TensorFlow has an
ApproxTopK CPU kernel only for `reduction_dimension=-1, is_max_k=True` (its CPU result is the exact
top k), a Conv CPU kernel only without groups and, in 3-D, without dilation.
"""

import collections
import functools

from ferroflow import _tracing
from ferroflow import dtypes as _dt
from ferroflow.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    fill,
    gather,
    pad,
    reshape,
    stack,
    top_k,
    transpose,
    zeros,
)
from ferroflow.array_ops import range as _range
from ferroflow.array_ops import shape as _shape
from ferroflow.backprop import GradientTape, custom_gradient
from ferroflow.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    UnimplementedError,
)
from ferroflow.manip_ops import repeat, tensor_scatter_nd_add, tensor_scatter_nd_update
from ferroflow.math import cumsum, reduce_sum
from ferroflow.nn_windows import conv2d, extract_patches

ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"],
)
RaggedFillEmptyRowsGrad = collections.namedtuple(
    "RaggedFillEmptyRowsGrad", ["d_values", "d_default_value"]
)


def _invalid(message):
    return InvalidArgumentError(None, None, message)


# TensorFlow checks an op in three places, and a traced function meets each earlier than an eager
# call does: attribute types when the graph node is built (TypeError; eagerly
# InvalidArgumentError), shapes by the op's shape function (ValueError; eagerly the kernel's
# InvalidArgumentError), and a missing kernel when the graph runs (InvalidArgumentError; eagerly
# NotFoundError).
def _attr_error(message):
    return TypeError(message) if _tracing.tracing() else _invalid(message)


def _shape_error(message):
    return ValueError(message) if _tracing.tracing() else _invalid(message)


def _no_kernel(message):
    return _invalid(message) if _tracing.tracing() else NotFoundError(None, None, message)


# ---------------------------------------------------------------------------------------------
# approx_top_k


def approx_top_k(
    input,  # noqa: A002 - TensorFlow's name
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    is_max_k=True,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """The k largest entries along the last axis and their int32 indices, ties by lower index.

    TensorFlow's CPU kernel returns the exact top k (the approximation is the TPU's), so this is
    `tf.math.top_k`. Like that kernel it accepts float32/float16/bfloat16 only and raises
    `NotFoundError` for `reduction_dimension != -1` or `is_max_k=False` (TensorFlow has those
    only under XLA).

    >>> import ferroflow as tf
    >>> tf.approx_top_k(tf.constant([3.0, 1.0, 4.0]), 2).values.numpy()
    array([4., 3.], dtype=float32)
    """
    x = convert_to_tensor(input)
    if x.dtype not in (_dt.float32, _dt.float16, _dt.bfloat16):
        raise _attr_error(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
            "half, bfloat16, float"
        )
    if int(reduction_dimension) != -1 or not is_max_k:
        raise _no_kernel(
            "Could not find device for node: ApproxTopK with "
            f"reduction_dimension={reduction_dimension}, is_max_k={bool(is_max_k)}: TensorFlow "
            "has kernels only for reduction_dimension=-1, is_max_k=True outside XLA",
        )
    k = int(k)
    columns = x.shape[-1] if x.shape.rank else None
    if columns is not None and columns < k:
        raise _shape_error(f"input must have at least k columns. Had {columns}, needed {k}")
    values, indices = top_k(x, k)
    return ApproxTopK(values, indices)


def approx_max_k(
    operand,
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """`tf.math.approx_max_k`: `approx_top_k` with `is_max_k=True`."""
    return approx_top_k(
        operand, k, reduction_dimension, recall_target, True, reduction_input_size_override
    )


def approx_min_k(
    operand,
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """`tf.math.approx_min_k`: raises `NotFoundError` as TensorFlow's CPU kernel does (it has the
    minimum only under XLA)."""
    return approx_top_k(
        operand, k, reduction_dimension, recall_target, False, reduction_input_size_override
    )


# ---------------------------------------------------------------------------------------------
# conv and conv2d's backprops


def _same_pads(size, k, stride, dilation):
    effective = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + effective - size, 0)
    return total // 2, total - total // 2


def _dynamic_same_pads(size, k, stride, dilation):
    """`_same_pads` of a size known only when the graph runs (an int32 scalar tensor)."""
    from ferroflow.math import maximum

    effective = (k - 1) * dilation + 1
    out = (size + stride - 1) // stride
    total = maximum((out - 1) * stride + effective - size, 0)
    return total // 2, total - total // 2


def _conv3d(x, w, strides, padding, pads, dilations=(1, 1, 1)):
    """NDHWC conv3d with filter [KD, KH, KW, C, O]: one conv2d per filter plane over all output
    depths at once (depth folded into the batch), summed. The depth may be known only when a
    traced graph runs (then its padding and output depth are computed there)."""
    kd = int(w.shape[0])
    sd, dd = strides[0], dilations[0]
    depth = x.shape[1]
    effective = (kd - 1) * dd + 1
    if padding == "SAME":
        same_pads = _same_pads if depth is not None else _dynamic_same_pads
        before, after = same_pads(depth if depth is not None else _shape(x)[1], kd, sd, dd)
    elif padding == "EXPLICIT":
        before, after = pads[0]
    else:
        before, after = 0, 0
    if depth is not None:
        depth += before + after
        out_depth = (depth - effective) // sd + 1
        if out_depth <= 0:
            raise _invalid(
                f"Computed output size would be negative: {out_depth} [input_size: {depth}, "
                f"effective_filter_size: {effective}, stride: {sd}]"
            )
    if not isinstance(before, int):
        # Zeros of run-time sizes on either side (a pad takes its amounts as numbers).
        dims = _shape(x)
        sides = [
            zeros(stack([dims[0], n, dims[2], dims[3], dims[4]]), x.dtype) for n in (before, after)
        ]
        x = concat([sides[0], x, sides[1]], 1)
    elif before or after:
        x = pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
    dyn = _shape(x)
    plane_padding = padding if padding != "EXPLICIT" else [[0, 0], pads[1], pads[2], [0, 0]]
    total = None
    for j in range(kd):
        # The output depths' taps of filter plane j: from j * dd to the last window's.
        xs = x[:, j * dd : (j * dd - (effective - 1)) or None : sd]
        if depth is None:
            out_depth = _shape(xs)[1]
        xs = reshape(xs, stack([-1, dyn[2], dyn[3], dyn[4]]))
        y = conv2d(
            xs,
            w[j],
            [1, strides[1], strides[2], 1],
            plane_padding,
            dilations=[1, dilations[1], dilations[2], 1],
        )
        total = y if total is None else total + y
    ys = _shape(total)
    return reshape(total, stack([-1, out_depth, ys[1], ys[2], ys[3]]))


def conv(
    input,  # noqa: A002 - TensorFlow's name
    filter,  # noqa: A002 - TensorFlow's name
    strides,
    padding,
    explicit_paddings=(),
    data_format="CHANNELS_LAST",
    dilations=(),
    batch_dims=1,
    groups=1,
    name=None,
):
    """TensorFlow's generic `Conv` op: a 2-D or 3-D convolution, `batch_dims` leading batch axes,
    `strides`/`dilations` with one entry per spatial axis plus two, `padding` SAME, VALID or
    EXPLICIT (`explicit_paddings` a flat list of pairs per axis), channels last or first.

    >>> import ferroflow as tf
    >>> tf.conv(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype=x.dtype)
    rank = x.shape.rank
    batch_dims = int(batch_dims)
    spatial = rank - batch_dims - 1
    strides = [int(s) for s in strides]
    if len(strides) != spatial + 2:
        raise _shape_error(f"Sliding window strides field must specify {spatial + 2} dimensions")
    if spatial not in (2, 3):
        raise _shape_error(f"The input must have 2 or 3 spatial dimensions but got {spatial}")
    dilations = [int(d) for d in dilations] or [1] * (spatial + 2)
    if len(dilations) != spatial + 2:
        raise _shape_error(f"Sliding window dilations field must specify {spatial + 2} dimensions")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise _invalid(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID", "EXPLICIT"'
        )
    first = data_format == "CHANNELS_FIRST"
    if data_format not in ("CHANNELS_LAST", "CHANNELS_FIRST"):
        raise _invalid(
            f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed "
            'values: "CHANNELS_FIRST", "CHANNELS_LAST"'
        )
    groups = int(groups)
    explicit = [int(p) for p in explicit_paddings]
    pairs = None
    if padding == "EXPLICIT":
        if len(explicit) != 2 * (spatial + 2):
            raise _invalid(
                f"explicit_paddings attribute must contain {2 * (spatial + 2)} values, "
                f"but got: {len(explicit)}"
            )
        pairs = [explicit[2 * i : 2 * i + 2] for i in range(spatial + 2)]
        pairs = pairs[2:] if first else pairs[1:-1]
    elif explicit:
        raise _invalid(
            "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"
        )
    spatial_strides = strides[2:] if first else strides[1:-1]
    spatial_dilations = dilations[2:] if first else dilations[1:-1]
    lead = _shape(x)[:batch_dims]
    dyn = _shape(x)
    x = reshape(x, concat([[-1], dyn[batch_dims:]], 0))
    if first:
        x = transpose(x, [0, *range(2, spatial + 2), 1])
    grouped = UnimplementedError(
        None, None, "Grouped/Depthwise Convolutions are not supported yet."
    )
    if groups != 1 and not _tracing.tracing():
        raise grouped  # the CPU kernel refuses before it looks at shapes
    channels = x.shape[-1]
    if channels is not None and w.shape[-2] is not None and channels != w.shape[-2] * groups:
        raise _shape_error(
            f"Input depth divided by filter input depth does not match with groups parameter "
            f"({groups}): {channels} / {w.shape[-2]}"
            if groups != 1
            else f"Input depth must be equal to filter depth: {channels} vs {w.shape[-2]}"
        )
    if groups != 1:
        # TensorFlow's CPU kernel has no grouped convolution (traced: past the shape function).
        raise grouped
    if spatial == 2:
        pad_arg = padding if pairs is None else [[0, 0], *pairs, [0, 0]]
        y = conv2d(x, w, [1, *spatial_strides, 1], pad_arg, dilations=[1, *spatial_dilations, 1])
    else:
        if spatial_dilations != [1, 1, 1]:
            raise _invalid(
                "CPU implementation of Conv3D currently only supports dilated rates of 1."
            )
        y = _conv3d(x, w, spatial_strides, padding, pairs)
    if first:
        y = transpose(y, [0, spatial + 1, *range(1, spatial + 1)])
    return reshape(y, concat([lead, _shape(y)[1:]], 0))


def _conv2d_padding(padding, explicit_paddings):
    if isinstance(padding, str) and padding.upper() == "EXPLICIT":
        p = [int(v) for v in explicit_paddings]
        if len(p) != 8:
            raise _invalid(f"explicit_paddings attribute must contain 8 values, but got: {len(p)}")
        return [p[0:2], p[2:4], p[4:6], p[6:8]]
    return padding


def _conv2d_backprop(wrt, input, filter, out_backprop, strides, padding, explicit, fmt, dilations):
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype=x.dtype)
    dy = convert_to_tensor(out_backprop, dtype=x.dtype)
    pad_arg = _conv2d_padding(padding, explicit)
    source = x if wrt == "input" else w
    with GradientTape() as tape:
        tape.watch(source)
        y = conv2d(x, w, strides, pad_arg, fmt, list(dilations))
    if y.shape.is_fully_defined() and dy.shape.is_fully_defined() and y.shape != dy.shape:
        raise _shape_error(
            f"Conv2DBackprop: out_backprop has shape {dy.shape.as_list()} but the convolution's "
            f"output has shape {y.shape.as_list()}"
        )
    return tape.gradient(y, source, output_gradients=dy)


def _backprop_op(wrt, doc):
    def op(
        input,  # noqa: A002 - TensorFlow's name
        filter,  # noqa: A002 - TensorFlow's name
        out_backprop,
        strides,
        padding,
        use_cudnn_on_gpu=True,
        explicit_paddings=(),
        data_format="NHWC",
        dilations=(1, 1, 1, 1),
        name=None,
    ):
        args = (strides, padding, explicit_paddings, data_format, dilations)
        return _conv2d_backprop(wrt, input, filter, out_backprop, *args)

    op.__name__ = op.__qualname__ = f"conv2d_backprop_{wrt}_v2"
    op.__doc__ = doc
    return op


conv2d_backprop_input_v2 = _backprop_op(
    "input",
    """The gradient of `tf.nn.conv2d` with respect to its input, given `out_backprop` (the
    gradient of its output); `input` gives the shape only, as in TensorFlow. (TensorFlow 2.21's
    CPU build has no kernel for it; the values are those of its Conv2DBackpropInput.)""",
)
conv2d_backprop_filter_v2 = _backprop_op(
    "filter",
    """The gradient of `tf.nn.conv2d` with respect to its filter, given `out_backprop`; `filter`
    gives the shape only, as in TensorFlow (whose CPU build computes it as Conv2DBackpropFilter
    only).""",
)


# ---------------------------------------------------------------------------------------------
# extract_volume_patches


def _five(value, what):
    value = [int(v) for v in value]
    if len(value) != 5 or value[0] != 1 or value[4] != 1:
        raise _invalid(
            f"{what} input must be a list of length 5 with 1 in the first and last entries, "
            f"got {value}"
        )
    return value


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """3-D patches of an NDHWC tensor, flattened into the last axis in (planes, rows, cols,
    depth) order: `[N, out_planes, out_rows, out_cols, kd * kh * kw * C]`, as TensorFlow.

    >>> import ferroflow as tf
    >>> tf.extract_volume_patches(tf.ones([1, 2, 2, 2, 1]), [1, 2, 2, 2, 1],
    ...                           [1, 1, 1, 1, 1], "VALID").shape
    TensorShape([1, 1, 1, 1, 8])
    """
    x = convert_to_tensor(input)
    if x.shape.rank != 5:
        raise _invalid(f"input must be 5-dimensional, got {x.shape}")
    ks = _five(ksizes, "ksizes")
    st = _five(strides, "strides")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise _invalid(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID"'
        )
    kd, sd = ks[1], st[1]
    depth = int(x.shape[1])
    if padding == "SAME":
        before, after = _same_pads(depth, kd, sd, 1)
        out_depth = -(-depth // sd)
        if before or after:
            x = pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
    else:
        out_depth = (depth - kd) // sd + 1 if depth >= kd else 0
    dyn = _shape(x)
    planes = []
    for j in range(kd):
        xs = x[:, j : j + max(out_depth - 1, 0) * sd + 1 : sd][:, :out_depth]
        xs = reshape(xs, stack([-1, dyn[2], dyn[3], dyn[4]]))
        p = extract_patches(xs, [1, ks[2], ks[3], 1], [1, st[2], st[3], 1], [1, 1, 1, 1], padding)
        planes.append(p)
    y = stack(planes, axis=3)  # [N*Do, Ho, Wo, kd, kh*kw*C]
    ys = _shape(y)
    return reshape(y, stack([dyn[0], out_depth, ys[1], ys[2], kd * ys[4]]))


# ---------------------------------------------------------------------------------------------
# ragged_fill_empty_rows


def _int64(value, what):
    if hasattr(value, "dtype") and not hasattr(value, "tolist"):
        if value.dtype != _dt.int64:
            raise _attr_error(
                f"cannot compute RaggedFillEmptyRows as input {what} was expected to be a int64 "
                f"tensor but is a {value.dtype.name} tensor"
            )
        return value
    return convert_to_tensor(value, dtype=_dt.int64)


def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """Fills each empty row of a ragged tensor (given by sorted `value_rowids` and `nrows`) with
    `default_value`; returns `(output_value_rowids, output_values, empty_row_indicator,
    reverse_index_map)` as TensorFlow's RaggedFillEmptyRows.

    >>> import ferroflow as tf
    >>> tf.ragged_fill_empty_rows([1, 1, 3], [1.0, 2.0, 3.0], 5, 9.0).output_values.numpy()
    array([9., 1., 2., 9., 3., 9.], dtype=float32)
    """
    rowids = _int64(value_rowids, "#0")
    vals = convert_to_tensor(values)
    count = _int64(nrows, "#2")
    if count.shape.rank != 0:
        raise _invalid(f"nrows must be a scalar, saw: {count.shape}")
    default = convert_to_tensor(default_value, dtype=vals.dtype)
    if default.shape.rank != 0:
        raise _invalid(f"Default value must be a scalar, saw: {default.shape}")
    lengths = tensor_scatter_nd_add(
        zeros(reshape(count, [1]), _dt.int64), reshape(rowids, [-1, 1]), rowids * 0 + 1
    )
    empty = lengths == 0
    filled = lengths + cast(empty, _dt.int64)
    out_rowids = repeat(cast(_range64(count), _dt.int64), filled)
    empty_before = cumsum(cast(empty, _dt.int64), exclusive=True)
    reverse = _range64(_shape(rowids, out_type=_dt.int64)[0]) + gather(empty_before, rowids)
    total = reduce_sum(filled)
    base = fill(concat([[total], _shape(vals, out_type=_dt.int64)[1:]], 0), default)
    out_values = tensor_scatter_nd_update(base, reshape(reverse, [-1, 1]), vals)
    return RaggedFillEmptyRows(out_rowids, out_values, empty, reverse)


def _range64(n):
    return _range(cast(n, _dt.int64), dtype=_dt.int64)


def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The gradient of `ragged_fill_empty_rows`: `d_values` gathered from `grad_values` at
    `reverse_index_map`, and `d_default_value`, the sum of the rest."""
    reverse = _int64(reverse_index_map, "#0")
    grads = convert_to_tensor(grad_values)
    d_values = gather(grads, reverse)
    d_default = reduce_sum(grads) - reduce_sum(d_values)
    return RaggedFillEmptyRowsGrad(d_values, d_default)


# ---------------------------------------------------------------------------------------------
# nondifferentiable_batch_function and check_pinned


def nondifferentiable_batch_function(
    num_batch_threads,
    max_batch_size,
    batch_timeout_micros,
    allowed_batch_sizes=None,
    max_enqueued_batches=10,
    autograph=True,
    enable_large_batch_splitting=True,
):
    """Decorator: TensorFlow batches concurrent calls of the function along axis 0 (at most
    `max_batch_size` rows per call). ferroflow runs calls one by one, so a call computes the
    function on its own batch, as a lone TensorFlow caller sees; a batch over `max_batch_size`
    rows or a scalar argument raises `InvalidArgumentError`, and gradients raise `LookupError`,
    as in TensorFlow.

    >>> import ferroflow as tf
    >>> @tf.nondifferentiable_batch_function(1, 4, 10)
    ... def double(x):
    ...     return x * 2
    >>> double(tf.constant([[1.0], [2.0]])).numpy().ravel()
    array([2., 4.], dtype=float32)
    """
    from ferroflow.function import function

    max_batch_size = int(max_batch_size)

    def decorator(fn):
        traced = function(fn, autograph=autograph)

        @functools.wraps(fn)
        def batched(*args):
            tensors = [convert_to_tensor(a) for a in args]
            for t in tensors:
                if t.shape.rank == 0:
                    raise _invalid("Batching input tensors must have at least one dimension.")
                rows = t.shape[0]
                if rows is not None and rows > max_batch_size:
                    raise _invalid(
                        f"Task size {rows} is larger than maximum input batch size {max_batch_size}"
                    )

            @custom_gradient
            def run(*xs):
                def grad(*_):
                    raise LookupError("gradient registry has no entry for: BatchFunction")

                return traced(*xs), grad

            return run(*tensors)

        return batched

    return decorator


def check_pinned(tensor, name=None):
    """TensorFlow's CheckPinned checks that a tensor lives in CUDA-pinned host memory; ferroflow
    has none (and TensorFlow without CUDA refuses the same way): raises
    `FailedPreconditionError`."""
    convert_to_tensor(tensor)
    raise FailedPreconditionError(
        None,
        None,
        "to check pinnedness, must be built with `--config=cuda`: ferroflow has no CUDA-pinned "
        "host memory",
    )


__all__ = [
    "approx_top_k",
    "check_pinned",
    "conv",
    "conv2d_backprop_filter_v2",
    "conv2d_backprop_input_v2",
    "extract_volume_patches",
    "nondifferentiable_batch_function",
    "ragged_fill_empty_rows",
    "ragged_fill_empty_rows_grad",
]
