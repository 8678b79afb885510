"""Shape and argument checks shared by `tf.image` (TensorFlow's `_CheckAtLeast3DImage` family).

A check on Python values raises at once (TensorFlow's ValueError); a check on a tensor value
raises InvalidArgumentError when it runs, as TensorFlow's Assert does."""

import ferroflow as tf


def is_tensor(x):
    """Whether `x` is a tensor (a value TensorFlow checks with an Assert, not at once)."""
    return tf.is_tensor(x)


def check(cond, message):
    """TensorFlow's `_assert`: ValueError for a Python condition, an Assert for a tensor."""
    if is_tensor(cond):
        tf.debugging.Assert(cond, [message])
    elif not cond:
        raise ValueError(message)


def at_least_3d(image):
    """`image` as a tensor of rank >= 3 whose inner three sizes are not zero."""
    image = tf.convert_to_tensor(image, name="image")
    shape = image.shape
    if shape.rank is None or shape.rank < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    return image


def rank_3_or_4(image):
    """TensorFlow's check of the functions that take one image or a batch of them."""
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return rank


def as_batch(image):
    """(image as a 4-D batch, whether it was one already) after TensorFlow's rank check."""
    image = tf.convert_to_tensor(image, name="image")
    rank = rank_3_or_4(image)
    return (image if rank == 4 else tf.expand_dims(image, 0)), rank == 4


def dims(image):
    """Static sizes where known, else the dynamic ones (TensorFlow's `_ImageDimensions`)."""
    static = image.shape.as_list()
    if all(d is not None for d in static):
        return static
    dynamic = tf.unstack(tf.shape(image), len(static))
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def compatible_images(img1, img2):
    """TensorFlow's `_verify_compatible_image_shapes` on static shapes."""
    s1, s2 = img1.shape, img2.shape
    for s in (s1, s2):
        if s.rank is not None and s.rank < 3:
            raise ValueError(f"Shape {s} must have rank at least 3")
    s1[-3:].assert_is_compatible_with(s2[-3:])
    for d1, d2 in zip(reversed(s1.as_list()[:-3]), reversed(s2.as_list()[:-3])):
        if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
            raise ValueError(f"Two images are not compatible: {s1} and {s2}")


def without_gradient(op_type, fn, x):
    """`fn(x)`, whose gradient raises LookupError as TensorFlow's for an op it registers none
    for (AdjustHue, AdjustSaturation, AdjustContrastv2)."""

    @tf.custom_gradient
    def kernel(x):
        def grad(upstream):
            raise LookupError(f"gradient registry has no entry for: {op_type}")

        return fn(x), grad

    return kernel(x)


def dtype_refusal(param, dtype, allowed, op):
    """TensorFlow's refusal of a dtype an op's kernel does not take: eagerly InvalidArgumentError
    (the attr check), while tracing TypeError (graph construction)."""
    message = (
        f"Value for attr 'T' of {dtype.name} is not in the list of allowed values: {allowed}"
        f"\n\t; NodeDef: {{{{node {op}}}}}"
    )
    if tf.executing_eagerly():
        return tf.errors.InvalidArgumentError(None, None, message)
    return TypeError(
        f"Value passed to parameter '{param}' has DataType {dtype.name} not in list of "
        f"allowed values: {allowed}"
    )
