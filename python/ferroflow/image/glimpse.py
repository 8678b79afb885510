"""`tf.image.extract_glimpse`: windows of a batch of images at per-image offsets (TensorFlow's
ExtractGlimpseV2). Pixels outside the image are zeros (`noise="zero"`) or noise drawn from the
image's range (`"uniform"`) or its per-channel mean and deviation (`"gaussian"`); the noise is
random in TensorFlow too, so only its distribution is shared."""

import ferroflow as tf


def _invalid(message):
    return tf.errors.InvalidArgumentError(None, None, message)


def _origin(offset, input_size, window, centered, normalized):
    """The integer position of the window's first pixel along one axis, as the kernel computes
    it in float32 and truncates toward zero."""
    size = float(input_size)
    if normalized:
        offset = offset * size
        if centered:
            offset = offset / 2.0 + size / 2.0 - window / 2.0
    elif centered:
        offset = offset + size / 2.0
    return tf.cast(offset, tf.int32)


def _noise(input, window_h, window_w, noise):
    batch, _, _, depth = input.shape.as_list()
    shape = [batch, window_h, window_w, depth]
    if noise == "zero":
        return tf.zeros(shape, input.dtype)
    if noise == "uniform":
        low = tf.reduce_min(input, axis=[1, 2, 3], keepdims=True)
        span = tf.reduce_max(input, axis=[1, 2, 3], keepdims=True) - low
        return low + tf.random.uniform(shape) * span
    mean = tf.reduce_mean(input, axis=[1, 2], keepdims=True)
    sigma = tf.sqrt(tf.reduce_mean(tf.square(input - mean), axis=[1, 2], keepdims=True))
    values = mean + tf.random.normal(shape) * sigma
    low = tf.reduce_min(input, axis=[1, 2], keepdims=True)
    high = tf.reduce_max(input, axis=[1, 2], keepdims=True)
    return tf.maximum(tf.minimum(values, high), low)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, noise="uniform",
                    name=None):  # noqa: A002 - TensorFlow's argument names  # fmt: skip
    """Glimpses of `size` = [height, width] from each image at `offsets` ([batch, 2], y then x).

    `centered` offsets are relative to the image centre, `normalized` ones in [-1, 1] (centered)
    or [0, 1]; without either they are pixel positions of the window's top-left corner."""
    if tf.is_tensor(input) and input.dtype != tf.float32:
        raise ValueError(
            f"Tensor conversion requested dtype float32 for Tensor with dtype {input.dtype.name}"
        )
    input = tf.convert_to_tensor(input, dtype=tf.float32, name="input")  # noqa: A001
    size = tf.convert_to_tensor(size, dtype=tf.int32, name="size")
    offsets = tf.convert_to_tensor(offsets, dtype=tf.float32, name="offsets")
    if input.shape.rank != 4:
        raise _invalid(f"input must be 4-dimensional{input.shape}")
    if size.shape.as_list() != [2]:
        raise _invalid(f"input must be a vector of size 2 (height, width){size.shape}")
    if offsets.shape.rank != 2 or offsets.shape[0] != input.shape[0]:
        raise _invalid("input and offsets must have the same batch size")
    if offsets.shape[1] != 2:
        raise _invalid(f"offsets must be of size 2{offsets.shape}")
    if noise not in ("uniform", "gaussian", "zero"):
        raise _invalid(f"noise must be one of 'uniform', 'gaussian', 'zero': {noise}")
    window_h, window_w = (int(v) for v in tf.get_static_value(size))
    _, height, width, _ = input.shape.as_list()
    oy = _origin(offsets[:, 0], height, window_h, centered, normalized)
    ox = _origin(offsets[:, 1], width, window_w, centered, normalized)
    rows = oy[:, None] + tf.range(window_h)[None, :]
    cols = ox[:, None] + tf.range(window_w)[None, :]
    picked = tf.gather(input, tf.clip_by_value(rows, 0, height - 1), axis=1, batch_dims=1)
    picked = tf.gather(picked, tf.clip_by_value(cols, 0, width - 1), axis=2, batch_dims=1)
    inside_r = (rows >= 0) & (rows < height)
    inside_c = (cols >= 0) & (cols < width)
    inside = (inside_r[:, :, None] & inside_c[:, None, :])[..., None]
    return tf.where(inside, picked, _noise(input, window_h, window_w, noise), name=name)
