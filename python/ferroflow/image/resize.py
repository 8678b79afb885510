"""`tf.image.resize` and its relatives, as gathers and per-axis weight matrices.

Bilinear (no antialiasing) to a static size on a CPU is TensorFlow's ResizeBilinear kernel
itself (the primitive in src/ops/resize.rs, its gradient ResizeBilinearGrad); elsewhere (a GPU,
a size computed in a graph), bilinear and nearest gather the neighbouring rows and columns and
interpolate (TensorFlow's ResizeBilinear / ResizeNearestNeighbor with half-pixel centres);
bicubic, area and the ScaleAndTranslate kernels apply one [out, in] weight matrix per axis.
Gradients follow from the composition."""

import enum
import json
import re

import numpy as np

import ferroflow as tf
from ferroflow import _core
from ferroflow.device_scope import active_scopes

from . import _kernels
from ._checks import as_batch, at_least_3d, check, dims, dtype_refusal, is_tensor, without_gradient
from .geometry import pad_to_bounding_box

_RESIZABLE = (
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "int64",
    "bfloat16",
    "half",
    "float32",
    "float64",
)


class ResizeMethod(str, enum.Enum):
    """Resampling methods of `tf.image.resize` (string values, as TensorFlow's)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"

    def __str__(self):
        return self.value


def _invalid(message):
    return tf.errors.InvalidArgumentError(None, None, message)


def _check_dtype(images):
    if images.dtype.name not in _RESIZABLE and images.dtype.name != "float16":
        allowed = ", ".join(_RESIZABLE).replace("float32", "float").replace("float64", "double")
        raise dtype_refusal("images", images.dtype, allowed, "ResizeBilinear")


def _check_sizes(images, size):
    static = tf.get_static_value(size)
    if static is not None and (static[0] <= 0 or static[1] <= 0):
        raise _invalid("output dimensions must be positive")
    if images.shape[1] == 0 or images.shape[2] == 0:
        raise _invalid("input image must be of non-zero size")


def _scale(in_size, out_size):
    return tf.cast(in_size, tf.float32) / tf.cast(out_size, tf.float32)


def _bilinear_axis(in_size, out_size):
    pos = (tf.cast(tf.range(out_size), tf.float32) + 0.5) * _scale(in_size, out_size) - 0.5
    base = tf.floor(pos)
    lo = tf.maximum(tf.cast(base, tf.int32), 0)
    hi = tf.minimum(tf.cast(tf.math.ceil(pos), tf.int32), tf.cast(in_size, tf.int32) - 1)
    return lo, hi, pos - base


def _spread(weight, inner):
    """weight [rows] repeated over `inner` trailing elements: [rows * inner]."""
    rows = tf.size(weight)
    return tf.reshape(tf.broadcast_to(tf.reshape(weight, [-1, 1]), [rows, inner]), [-1])


def _flat(a, size):
    return tf.reshape(a, [tf.shape(a)[0], size])


def _lerp_rows(a, b, weight, inner):
    """a + (b - a) * weight, weight varying along axis 1 of [N, rows, inner...]: the weights are
    spread over `inner` first (a small tensor) so the product broadcasts over leading axes only,
    ferroflow's fast broadcast."""
    spread = _spread(weight, inner)
    a, b = _flat(a, tf.size(spread)), _flat(b, tf.size(spread))
    return a + (b - a) * spread


def _adjoint_table(in_size, out_size):
    """For each input position, the output positions that read it and their weights, padded to
    one width ([in, K] indices and weights): the bilinear adjoint as K gathers, no scatter."""
    scale = np.float32(in_size) / np.float32(out_size)
    pos = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    base = np.floor(pos)
    lo = np.maximum(base, 0).astype(np.int64)
    hi = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    lerp = pos - base
    readers = [[] for _ in range(in_size)]
    for o in range(out_size):
        readers[lo[o]].append((o, np.float32(1) - lerp[o]))
        readers[hi[o]].append((o, lerp[o]))
    width = max(1, max(len(r) for r in readers))
    index = np.zeros((in_size, width), np.int32)
    weight = np.zeros((in_size, width), np.float32)
    for i, r in enumerate(readers):
        for k, (o, w) in enumerate(r):
            index[i, k], weight[i, k] = o, w
    return index, weight


def _adjoint(grad, table, axis, lead, inner):
    """Sum over k of grad gathered at table's k-th readers along `axis`, times their weights."""
    index, weight = table
    total = None
    for k in range(index.shape[1]):
        spread = _spread(tf.constant(weight[:, k]), inner)
        part = tf.reshape(tf.gather(grad, index[:, k], axis=axis), [lead, -1]) * spread
        total = part if total is None else total + part
    return total


_DEVICE_TYPE = re.compile(r"(?:^|/)(?:device:)?(cpu|gpu)(?::|/|$)", re.IGNORECASE)
_HALF_PIXEL = json.dumps({"align_corners": False, "half_pixel_centers": True})


def _placed_on_host():
    """Whether an op made now runs on a CPU: no GPU is visible, or the innermost `tf.device`
    scope that names a device type names the CPU (ops go to GPU:0 by default). A traced
    function is retraced per scope, so a trace may decide this too."""
    if not _core.visible_gpus():
        return True
    for name in reversed(active_scopes()):
        match = _DEVICE_TYPE.search(name or "")
        if match:
            return match.group(1).lower() == "cpu"
    return False


def _resize_bilinear(images, height, width):
    batch, in_h, in_w, channels = dims(images)
    if isinstance(height, int) and isinstance(width, int) and _placed_on_host():
        # TensorFlow's ResizeBilinear kernel, bit for bit, with ResizeBilinearGrad as its
        # gradient (src/ops/resize.rs): one node where the composition below is dozens. It
        # reads every dtype TensorFlow's kernel takes as it is, value by value, and returns a
        # float image's gradient in the image's dtype.
        attrs = f'{{"size": [{height}, {width}], "grid": {_HALF_PIXEL}}}'
        return _core.raw_op("ResizeBilinear", [images], attrs)[0]
    images = tf.cast(images, tf.float32)
    static = all(isinstance(d, int) for d in (batch, in_h, in_w, channels, height, width))
    if static and batch * height * width * channels == 0:
        return _bilinear_forward(images, height, width)

    @tf.custom_gradient
    def bilinear(images):
        def grad(upstream):
            # TensorFlow's gradient is ResizeBilinearGrad, which it declares not
            # differentiable: a second derivative through a resize is None there, so nothing
            # here is recorded for one.
            upstream = tf.stop_gradient(upstream)
            if not static:
                return _dynamic_adjoint(tf.stop_gradient(images), upstream, height, width)
            # ResizeBilinearGrad as gathers: the columns' adjoint, then the rows'.
            rows = _adjoint(upstream, _adjoint_table(in_w, width), 2, batch * height, channels)
            rows = tf.reshape(rows, [batch, height, in_w, channels])
            out = _adjoint(rows, _adjoint_table(in_h, height), 1, batch, in_w * channels)
            return tf.reshape(out, [batch, in_h, in_w, channels])

        return _bilinear_forward(images, height, width), grad

    return bilinear(images)


def _dynamic_adjoint(images, upstream, height, width):
    """The adjoint of `_bilinear_forward` where a size is known only when the graph runs:
    the gathers' own gradient."""
    with tf.GradientTape() as tape:
        tape.watch(images)
        out = _bilinear_forward(images, height, width)
    return tape.gradient(out, images, output_gradients=upstream)


def _bilinear_forward(images, height, width):
    batch, in_h, in_w, channels = dims(images)
    y0, y1, ly = _bilinear_axis(in_h, height)
    x0, x1, lx = _bilinear_axis(in_w, width)
    # Rows first, on the smaller tensor (TensorFlow lerps columns first: the two orders differ
    # by rounding only, about an ulp).
    top, bottom = tf.gather(images, y0, axis=1), tf.gather(images, y1, axis=1)
    rows = tf.reshape(_lerp_rows(top, bottom, ly, in_w * channels), [batch, height, in_w, channels])
    left, right = tf.gather(rows, x0, axis=2), tf.gather(rows, x1, axis=2)
    flat = [batch * height, width, channels]
    out = _lerp_rows(tf.reshape(left, flat), tf.reshape(right, flat), lx, channels)
    return tf.reshape(out, [batch, height, width, channels])


def _nearest_axis(in_size, out_size):
    pos = tf.floor((tf.cast(tf.range(out_size), tf.float32) + 0.5) * _scale(in_size, out_size))
    return tf.clip_by_value(tf.cast(pos, tf.int32), 0, tf.cast(in_size, tf.int32) - 1)


def _resize_nearest(images, height, width):
    _, in_h, in_w, _ = dims(images)
    rows = tf.gather(images, _nearest_axis(in_h, height), axis=1)
    return tf.gather(rows, _nearest_axis(in_w, width), axis=2)


def _apply(images, weights_h, weights_w, factor=None):
    """Rows, then columns (the order of TensorFlow's kernels), in float32."""
    out = tf.einsum("nhwc,oh->nowc", tf.cast(images, tf.float32), weights_h)
    out = tf.einsum("nowc,pw->nopc", out, weights_w)
    return out if factor is None else out * factor


def _resize_weights(method, antialias, images, height, width):
    _, in_h, in_w, _ = dims(images)
    if method == "bicubic" and not antialias:
        return _apply(
            images, _kernels.bicubic_weights(in_h, height), _kernels.bicubic_weights(in_w, width)
        )
    if method == "area":
        sh, sw = _scale(in_h, height), _scale(in_w, width)
        wh, ww = _kernels.area_weights(in_h, height) * sh, _kernels.area_weights(in_w, width) * sw

        def area(images):
            return _apply(images, wh, ww, 1.0 / (sh * sw))

        # TensorFlow registers no gradient for ResizeArea.
        return without_gradient("ResizeArea", area, tf.cast(images, tf.float32))
    kernel = {"bilinear": "triangle", "bicubic": "keyscubic"}.get(method, method)
    zero = tf.constant(0.0)
    wh = _kernels.scale_and_translate_weights(
        kernel, in_h, height, 1.0 / _scale(in_h, height), zero, antialias
    )
    ww = _kernels.scale_and_translate_weights(
        kernel, in_w, width, 1.0 / _scale(in_w, width), zero, antialias
    )
    return _apply(images, wh, ww)


def _method_name(method):
    name = method.value if isinstance(method, ResizeMethod) else method
    if name not in {m.value for m in ResizeMethod}:
        raise ValueError(f"Resize method is not implemented: {method}")
    return name


def _aspect_size(images, size):
    _, h, w, _ = dims(images)
    fh = tf.cast(size[0], tf.float32) / tf.cast(h, tf.float32)
    fw = tf.cast(size[1], tf.float32) / tf.cast(w, tf.float32)
    factor = tf.minimum(fh, fw)
    scaled_h = tf.cast(tf.round(factor * tf.cast(h, tf.float32)), tf.int32)
    scaled_w = tf.cast(tf.round(factor * tf.cast(w, tf.float32)), tf.int32)
    return tf.stack([scaled_h, scaled_w])


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):  # fmt: skip
    """Resizes images to `size` = [new_height, new_width] with half-pixel centres.

    The result is float32, except for `nearest`, which keeps the images' dtype.

    >>> tf.image.resize(tf.ones([4, 4, 1]), [2, 2]).shape
    TensorShape([2, 2, 1])
    """
    images = tf.convert_to_tensor(images, name="images")
    if images.shape.rank is None:
        raise ValueError("'images' contains no shape.")
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    batched = images.shape.rank == 4
    if not batched:
        images = tf.expand_dims(images, 0)
    try:
        size = tf.convert_to_tensor(size, tf.int32, name="size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if preserve_aspect_ratio:
        size = _aspect_size(images, size)
    method = _method_name(method)
    _check_dtype(images)
    _check_sizes(images, size)
    static = tf.get_static_value(size)
    height, width = (int(static[0]), int(static[1])) if static is not None else tf.unstack(size)
    if method == "nearest":
        out = _resize_nearest(images, height, width)
    elif method == "bilinear" and not antialias:
        out = _resize_bilinear(images, height, width)
    else:
        out = _resize_weights(method, antialias, images, height, width)
    out = out if batched else tf.squeeze(out, axis=[0])
    return tf.identity(out, name=name)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):  # fmt: skip
    """Resizes keeping the aspect ratio, then pads with zeros to the target size."""
    image, batched = as_batch(image)
    at_least_3d(image)
    check(target_width > 0, "target_width must be > 0.")
    check(target_height > 0, "target_height must be > 0.")
    _, height, width, _ = dims(image)
    f_h, f_w = tf.cast(height, tf.float32), tf.cast(width, tf.float32)
    t_h, t_w = tf.cast(target_height, tf.float32), tf.cast(target_width, tf.float32)
    ratio = tf.maximum(f_w / t_w, f_h / t_h)
    new_h, new_w = f_h / ratio, f_w / ratio
    size = [tf.cast(tf.floor(new_h), tf.int32), tf.cast(tf.floor(new_w), tf.int32)]
    pad_h = tf.maximum(0, tf.cast(tf.floor((t_h - new_h) / 2), tf.int32))
    pad_w = tf.maximum(0, tf.cast(tf.floor((t_w - new_w) / 2), tf.int32))
    resized = resize(image, size, method, antialias=antialias)
    if not is_tensor(target_height) and not is_tensor(target_width):
        pad_h, pad_w = int(pad_h), int(pad_w)
    padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return padded if batched else tf.squeeze(padded, axis=[0])
