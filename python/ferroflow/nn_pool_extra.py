"""The rest of `tf.nn`'s pooling and window ops: 3-D pooling (2-D pooling per depth plane, then
a reduction over depth), `pool` and `with_space_to_batch` (dilated windows, as TensorFlow builds
them from SpaceToBatchND), the morphological `dilation2d`/`erosion2d`, `max_pool_with_argmax`,
and the block rearrangements `depth_to_space`/`space_to_depth`.

Windowed maxima that TensorFlow differentiates to one element (MaxPoolWithArgmax, Dilation2D:
the first maximum of each window) are composed as a selection at the window's argmax, so
their gradients go to that element only, as TensorFlow's."""

import collections
import operator

import numpy as np

import ferroflow as _tf
from ferroflow import nn_windows as _w
from ferroflow.array_ops import convert_to_tensor
from ferroflow.errors import InvalidArgumentError

__all__ = [
    "avg_pool3d",
    "depth_to_space",
    "dilation2d",
    "erosion2d",
    "max_pool3d",
    "max_pool_with_argmax",
    "pool",
    "space_to_depth",
    "with_space_to_batch",
]


def _invalid(message):
    return InvalidArgumentError(None, None, message)


def check_padding(padding):
    """`padding` if it is SAME or VALID, else the attribute error of TensorFlow's op."""
    if padding not in ("SAME", "VALID"):
        raise _invalid(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID"'
        )
    return padding


def _five(value, name, first):
    """[depth, rows, cols] from an int or a list of 1, 3 or 5 (batch and channel entries 1)."""
    values = _w._ints(value, name)
    if len(values) == 1:
        return values * 3
    if len(values) == 3:
        return values
    if len(values) == 5:
        outer = (values[0], values[1]) if first else (values[0], values[4])
        if outer != (1, 1):
            raise _tf.errors.UnimplementedError(
                None,
                None,
                "Pooling is not yet supported on the batch nor channel dimension.",
            )
        return values[2:] if first else values[1:4]
    raise ValueError(f"{name} should be of length 1, 3 or 5. Received: {name}={value}")


def _axis_geometry(size, k, stride, rate, padding):
    """(output size, padding before) of one axis, TensorFlow's SAME/VALID rules."""
    effective = (k - 1) * rate + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + effective - size, 0)
        return out, total // 2
    return max((size - effective) // stride + 1, 0), 0


def _pool3d(kind, input, ksize, strides, padding, data_format):  # noqa: A002
    first = data_format == "NCDHW"
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be NDHWC or NCDHW, got {data_format!r}")
    kd, kh, kw = _five(ksize, "ksize", first)
    sd, sh, sw = _five(strides, "strides", first)
    padding = check_padding(padding.upper() if isinstance(padding, str) else padding)
    x = convert_to_tensor(input)
    op = "MaxPool3D" if kind == "MAX" else "AvgPool3D"
    if x.dtype == _tf.float16 or (kind == "AVG" and x.dtype == _tf.float64):
        # Declared types without a CPU kernel in TensorFlow 2.21.
        raise _tf.errors.NotFoundError(
            None,
            None,
            f"Could not find device for node: {{{{node {op}}}}} = {op}[T={x.dtype.name}]",
        )
    if x.dtype not in (_tf.bfloat16, _tf.float32):
        allowed = "half, bfloat16, float" + (", double" if kind == "AVG" else "")
        raise _invalid(
            f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: {allowed}"
        )
    if x.shape.rank != 5:
        raise ValueError(f"Shape {x.shape} must have rank 5")
    if first:
        x = _tf.transpose(x, [0, 2, 3, 4, 1])
    n, depth, height, width, channels = x.shape.as_list()
    if None in (depth, height, width):
        y = _pool3d_dynamic(kind, x, (kd, kh, kw), (sd, sh, sw), padding)
        return _tf.transpose(y, [0, 4, 1, 2, 3]) if first else y
    if kind == "MAX":
        # TensorFlow's kernel starts from the lowest value and takes only greater ones: NaN
        # is skipped and a window of -inf gives lowest.
        lowest = _tf.constant(x.dtype.min, x.dtype)
        x = _tf.where(x > lowest, x, lowest)
    planes = _tf.reshape(x, [-1, height, width, channels])
    pooled = _w._pool2d(kind, planes, [kh, kw], [sh, sw], padding, "NHWC")
    ph, pw = pooled.shape[1], pooled.shape[2]
    pooled = _tf.reshape(pooled, [-1, depth, ph, pw, channels])
    out_depth, before = _axis_geometry(depth, kd, sd, 1, padding)
    if out_depth <= 0:
        raise _invalid(
            f"Computed output size would be negative: {out_depth} [input_size: {depth}, "
            f"effective_filter_size: {kd}, stride: {sd}]"
        )
    outputs = []
    for od in range(out_depth):
        start = od * sd - before
        taps = [d for d in range(start, start + kd) if 0 <= d < depth]
        window = pooled[:, taps[0] : taps[-1] + 1]
        if kind == "MAX":
            outputs.append(_tf.reduce_max(window, axis=1))
        else:
            outputs.append(_tf.reduce_sum(window, axis=1) / _tf.cast(len(taps), x.dtype))
    y = _tf.stack(outputs, axis=1)
    return _tf.transpose(y, [0, 4, 1, 2, 3]) if first else y


def _pool3d_dynamic(kind, x, ksize, strides, padding):
    """3-D pooling of NDHWC ``x`` with sizes known only when a traced graph runs: 2-D pooling
    of each depth plane, then a [kd, 1] pooling along depth (a window's maximum, or the mean
    of its in-volume taps, factorises so)."""
    (kd, kh, kw), (sd, sh, sw) = ksize, strides
    dims = _tf.shape(x)
    if kind == "MAX":
        lowest = _tf.constant(x.dtype.min, x.dtype)
        x = _tf.where(x > lowest, x, lowest)
    planes = _tf.reshape(x, _tf.stack([-1, dims[2], dims[3], dims[4]]))
    pooled = _w._pool2d(kind, planes, [kh, kw], [sh, sw], padding, "NHWC")
    ps = _tf.shape(pooled)
    columns = _tf.reshape(pooled, _tf.stack([dims[0], dims[1], ps[1] * ps[2], ps[3]]))
    y = _w._pool2d(kind, columns, [kd, 1], [sd, 1], padding, "NHWC")
    return _tf.reshape(y, _tf.stack([dims[0], _tf.shape(y)[1], ps[1], ps[2], ps[3]]))


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D max pooling (NDHWC or NCDHW): TensorFlow's MaxPool3D."""
    return _pool3d("MAX", input, ksize, strides, padding, data_format or "NDHWC")


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """3-D average pooling over the in-volume taps only: TensorFlow's AvgPool3D."""
    return _pool3d("AVG", input, ksize, strides, padding, data_format or "NDHWC")


def _rank_pool(kind, x, window, strides, padding, data_format):
    rank = len(window)
    if rank == 1:
        return _w._pool1d(kind, x, window, strides, padding, data_format or "NWC")
    if rank == 2:
        return _w._pool2d(kind, x, window, strides, padding, data_format or "NHWC")
    return _pool3d(kind, x, [1, *window, 1], [1, *strides, 1], padding, data_format or "NDHWC")


def with_space_to_batch(
    input,  # noqa: A002 - TensorFlow's name
    dilation_rate,
    padding,
    op,
    filter_shape=None,
    spatial_dims=None,
    data_format=None,
):
    """Runs ``op(converted, num_spatial_dims, "VALID")`` on `input` rearranged by
    SpaceToBatchND with `dilation_rate` as the block shape (padded as TensorFlow pads for
    SAME, which needs `filter_shape`), then BatchToSpaceND back: a dilated op from an undilated
    one. With every rate 1 it is ``op(input, num_spatial_dims, padding)``."""
    x = convert_to_tensor(input)
    rates = [
        operator.index(r)
        for r in (dilation_rate if hasattr(dilation_rate, "__len__") else [dilation_rate])
    ]
    num = len(rates)
    first = data_format is not None and data_format.startswith("NC")
    start = 2 if first else 1
    if spatial_dims is None:
        spatial_dims = list(range(start, start + num))
    spatial_dims = [int(d) for d in spatial_dims]
    if spatial_dims != sorted(set(spatial_dims)) or any(d < 1 for d in spatial_dims):
        raise ValueError(
            "`spatial_dims` must be a monotonically increasing sequence of positive integers. "
            f"Received: spatial_dims={spatial_dims}"
        )
    expected = spatial_dims[-1] if first else spatial_dims[-1] + 1
    if x.shape.rank is not None and x.shape.rank < expected:
        raise ValueError(
            f"`input.shape.rank` must be at least {expected}. Received: input.shape={x.shape} "
            f"with rank {x.shape.rank}"
        )
    if any(r < 1 for r in rates):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rates}")
    if all(r == 1 for r in rates):
        return op(x, num, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(
                f"`filter_shape` must be specified for `padding='SAME'`. Received: "
                f"filter_shape={filter_shape} and padding={padding}"
            )
        extra = [(int(k) - 1) * r for k, r in zip(list(filter_shape)[:num], rates)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0]] * num
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    sizes = _tf.shape(x)
    spatial = [x.shape[d] if x.shape[d] is not None else sizes[d] for d in spatial_dims]
    paddings, crops = _tf.required_space_to_batch_paddings(spatial, rates, base)
    # Axes between the batch and the first spatial axis take block 1 and no padding.
    lead = spatial_dims[0] - 1
    block = [1] * lead + rates
    paddings = _tf.concat([_tf.zeros([lead, 2], paddings.dtype), paddings], 0)
    crops = _tf.concat([_tf.zeros([lead, 2], crops.dtype), crops], 0)
    converted = _tf.space_to_batch_nd(x, block, paddings)
    result = op(converted, num, "VALID")
    return _tf.batch_to_space(result, block, crops)


def pool(
    input,  # noqa: A002 - TensorFlow's name
    window_shape,
    pooling_type,
    strides=None,
    padding="VALID",
    data_format=None,
    dilations=None,
    name=None,
):
    """N-d (1, 2 or 3 spatial axes) max or average pooling with optional dilation, as
    TensorFlow's `pool`: dilated windows run through `with_space_to_batch`."""
    x = convert_to_tensor(input)
    window = [operator.index(k) for k in window_shape]
    num = len(window)
    if num < 1 or num > 3:
        raise ValueError(
            f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape}"
        )
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(
            f"`pooling_type` must be 'MAX' or 'AVG'. Received: pooling_type={pooling_type}"
        )
    if x.shape.rank is not None and x.shape.rank != num + 2:
        raise ValueError(
            f"`input.shape.rank` must be {num + 2}. Received: input.shape={x.shape} of rank "
            f"{x.shape.rank}"
        )
    strides = [1] * num if strides is None else [operator.index(s) for s in strides]
    dilations = [1] * num if dilations is None else [operator.index(d) for d in dilations]
    if len(strides) != num or len(dilations) != num:
        raise ValueError(
            f"`strides` and `dilations` must have length {num}. Received: strides={strides}, "
            f"dilations={dilations}"
        )
    if any(s < 1 for s in strides):
        raise ValueError(f"`strides` must be positive. Received strides={strides}")
    if any(d < 1 for d in dilations):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={dilations}")
    if any(d > 1 for d in dilations) and any(s > 1 for s in strides):
        raise ValueError(
            "`strides` > 1 not supported in conjunction with `dilation_rate` > 1. Received: "
            f"strides={strides} and dilation_rate={dilations}"
        )
    if padding == "SAME" and any(d > 1 for d in dilations):
        raise ValueError(
            "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
            f"padding={padding} and dilation_rate={dilations}"
        )
    if all(d == 1 for d in dilations):
        return _rank_pool(pooling_type, x, window, strides, padding, data_format)

    def op(converted, _num, converted_padding):
        return _rank_pool(
            pooling_type, converted, window, [1] * num, converted_padding, data_format
        )

    return with_space_to_batch(x, dilations, padding, op, window, None, data_format)


def _four(value, name):
    values = _w._ints(value, name)
    if len(values) != 4:
        raise _invalid(f"{name} field must specify 4 dimensions")
    if values[0] != 1 or values[3] != 1:
        raise _tf.errors.UnimplementedError(
            None,
            None,
            f"Current implementation does not yet support {name} in the batch and depth "
            "dimensions.",
        )
    return values[1:3]


def _require_nhwc(data_format):
    """TensorFlow's Python check (its message, two spaces included)."""
    if data_format != "NHWC":
        raise ValueError(
            "`data_format` values other  than 'NHWC' are not supported. "
            f"Received: data_format={data_format}"
        )


def _windows(x, kernel, strides, rates, padding):
    """Each output position's window of `x` (NHWC) as ``[N, OH, OW, KH * KW, C]``, with a mask
    of the taps inside the image (``[1, OH, OW, KH * KW, 1]``) and the padding before."""
    _, height, width, channels = x.shape.as_list()
    oh, top = _axis_geometry(height, kernel[0], strides[0], rates[0], padding)
    ow, left = _axis_geometry(width, kernel[1], strides[1], rates[1], padding)
    eh, ew = (kernel[0] - 1) * rates[0] + 1, (kernel[1] - 1) * rates[1] + 1
    bottom = max((oh - 1) * strides[0] + eh - height - top, 0)
    right = max((ow - 1) * strides[1] + ew - width - left, 0)
    pads = [[0, 0], [top, bottom], [left, right], [0, 0]]
    sizes, steps, dil = [1, *kernel, 1], [1, *strides, 1], [1, *rates, 1]
    taps = kernel[0] * kernel[1]
    patches = _tf.image.extract_patches(_tf.pad(x, pads), sizes, steps, dil, "VALID")
    patches = _tf.reshape(patches, [-1, oh, ow, taps, channels])
    inside = _tf.image.extract_patches(
        _tf.pad(_tf.ones([1, height, width, 1]), pads), sizes, steps, dil, "VALID"
    )
    inside = _tf.reshape(inside, [1, oh, ow, taps, 1]) > 0.5
    return patches, inside, (oh, ow, top, left)


def _pick(values, arg):
    """``values[..., arg, :]`` along axis 3, differentiable to the picked taps only."""
    chosen = _tf.one_hot(arg, values.shape[3], on_value=True, off_value=False, axis=3)
    return _tf.reduce_sum(_tf.where(chosen, values, _tf.zeros([], values.dtype)), axis=3)


def _first_max(values, inside, above_lowest=False):
    """(the maximum over axis 3 among the inside taps, its tap index) as TensorFlow's kernels
    scan a window: a tap replaces the running maximum only when strictly greater, so NaN taps
    are skipped and ties keep the first. MaxPoolWithArgmax starts from the first inside tap
    (kept even when NaN or -inf); Dilation2D (`above_lowest`) starts from the dtype's lowest
    value (a window of -inf gives lowest, with tap 0). Differentiable to the chosen tap only."""
    dtype = values.dtype
    low = _tf.constant(-np.inf if dtype.is_floating else dtype.min, dtype)
    valid = _tf.logical_and(inside, _tf.equal(values, values))  # NaN taps never win
    if above_lowest:
        valid = _tf.logical_and(valid, values > _tf.constant(dtype.min, dtype))
    key = _tf.where(valid, values, low)
    hit = _tf.logical_and(valid, _tf.equal(key, _tf.reduce_max(key, axis=3, keepdims=True)))
    found = _tf.reduce_any(hit, axis=3)
    arg = _tf.math.argmax(_tf.cast(hit, _tf.int32), axis=3, output_type=_tf.int32)
    if not above_lowest:
        first = _tf.math.argmax(
            _tf.cast(_tf.broadcast_to(inside, _tf.shape(values)), _tf.int32),
            axis=3,
            output_type=_tf.int32,
        )
        first_value = _pick(values, first)
        nan_first = _tf.not_equal(first_value, first_value)
        arg = _tf.where(_tf.logical_or(_tf.logical_not(found), nan_first), first, arg)
    picked = _pick(values, arg)
    if above_lowest:
        picked = _tf.where(found, picked, _tf.constant(dtype.min, dtype))
    return picked, arg


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):  # noqa: A002
    """Grayscale morphological dilation: the maximum over each window of ``input + filters``
    (`filters` ``[height, width, depth]``), taps outside the image skipped."""
    _require_nhwc(data_format)
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype=x.dtype)
    step = _four(strides, "strides")
    rates = _four(dilations, "rates")
    check_padding(padding)
    if x.shape.rank != 4:
        raise _invalid(
            f"input must be 4-dimensional{x.shape.as_list() if x.shape.rank is not None else ''}"
        )
    if f.shape.rank != 3:
        raise _invalid(f"filter must be 3-dimensional: {f.shape.as_list()}")
    if x.shape[3] != f.shape[2]:
        raise _invalid(f"input and filter must have the same depth: {x.shape[3]} vs {f.shape[2]}")
    kernel = f.shape.as_list()[:2]
    patches, inside, _ = _windows(x, kernel, step, rates, padding)
    taps = _tf.reshape(f, [1, 1, 1, kernel[0] * kernel[1], f.shape[2]])
    y, _ = _first_max(patches + taps, inside, above_lowest=True)
    return y


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion: ``-dilation2d(-value, reversed filters)``."""
    _require_nhwc(data_format)
    value = convert_to_tensor(value)
    filters = _tf.reverse(convert_to_tensor(filters, dtype=value.dtype), [0, 1])
    return -dilation2d(-value, filters, strides, padding, "NHWC", dilations)


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(
    input,  # noqa: A002 - TensorFlow's name
    ksize,
    strides,
    padding,
    data_format="NHWC",
    output_dtype="int64",
    include_batch_in_index=False,
    name=None,
):
    """2-D max pooling and, per output, the flattened index of its (first) maximum:
    ``(y * width + x) * channels + c``, plus ``b * height * width * channels`` when
    `include_batch_in_index`."""
    _require_nhwc(data_format)
    output_dtype = _tf.as_dtype(output_dtype)
    if output_dtype not in (_tf.int32, _tf.int64):
        raise TypeError(
            f"Value passed to parameter 'Targmax' has DataType {output_dtype.name} not in list "
            "of allowed values: int32, int64"
        )
    kernel = _w._pair(ksize, "ksize")
    step = _w._pair(strides, "strides")
    check_padding(padding)
    x = convert_to_tensor(input)
    if x.shape.rank != 4:
        raise ValueError(f"Shape {x.shape} must have rank 4")
    if x.dtype.is_complex or x.dtype == _tf.bool or x.dtype.name == "string":
        raise _invalid(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values")
    patches, inside, (oh, ow, top, left) = _windows(x, kernel, step, [1, 1], padding)
    values, arg = _first_max(patches, inside)
    _, height, width, channels = x.shape.as_list()
    row = _tf.reshape(_tf.range(oh) * step[0] - top, [1, oh, 1, 1]) + arg // kernel[1]
    col = _tf.reshape(_tf.range(ow) * step[1] - left, [1, 1, ow, 1]) + arg % kernel[1]
    index = _tf.cast((row * width + col) * channels, _tf.int64)
    index += _tf.reshape(_tf.range(channels, dtype=_tf.int64), [1, 1, 1, channels])
    if include_batch_in_index:
        batch = _tf.reshape(_tf.range(_tf.shape(x, out_type=_tf.int64)[0]), [-1, 1, 1, 1])
        index += batch * (height * width * channels)
    return MaxPoolWithArgmax(values, _tf.cast(index, output_dtype))


def _check_block(block_size):
    block = operator.index(block_size)
    if block < 2:
        raise _invalid(f"Value for attr 'block_size' of {block} must be at least minimum 2")
    return block


def _nhwc_only(data_format, op):
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise _invalid(
            f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed "
            'values: "NHWC", "NCHW", "NCHW_VECT_C"'
        )
    if data_format != "NHWC":
        # TensorFlow 2.21's CPU build has no kernel for the other layouts.
        raise _tf.errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[...]"
        )


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves depth into ``block_size x block_size`` spatial blocks (TensorFlow's DCR order)."""
    block = _check_block(block_size)
    _nhwc_only(data_format, "DepthToSpace")
    x = convert_to_tensor(input)
    if x.shape.rank != 4:
        raise _invalid(f"input rank should be: 4 instead of: {x.shape.rank}")
    n, h, w, c = (_tf.shape(x)[i] if d is None else d for i, d in enumerate(x.shape.as_list()))
    if isinstance(c, int) and c % (block * block):
        raise _invalid(f"Input depth dimension {c} should be divisible by: {block * block}")
    y = _tf.reshape(x, [n, h, w, block, block, c // (block * block)])
    y = _tf.transpose(y, [0, 1, 3, 2, 4, 5])
    return _tf.reshape(y, [n, h * block, w * block, c // (block * block)])


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves each ``block_size x block_size`` spatial block into depth."""
    block = _check_block(block_size)
    _nhwc_only(data_format, "SpaceToDepth")
    x = convert_to_tensor(input)
    if x.shape.rank != 4:
        raise _invalid(f"Input rank should be: 4 instead of: {x.shape.rank}")
    n, h, w, c = (_tf.shape(x)[i] if d is None else d for i, d in enumerate(x.shape.as_list()))
    if isinstance(h, int) and isinstance(w, int) and (h % block or w % block):
        raise _invalid(f"Image width {w} and height {h} should be divisible by block_size: {block}")
    y = _tf.reshape(x, [n, h // block, block, w // block, block, c])
    y = _tf.transpose(y, [0, 1, 3, 2, 4, 5])
    return _tf.reshape(y, [n, h // block, w // block, block * block * c])
