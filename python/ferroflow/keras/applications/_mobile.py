"""What the MobileNet family shares: the default input size picked from ``input_shape``,
the ImageNet checks on ``alpha`` and the input size, and ``_make_divisible``."""

import warnings

from ferroflow.keras.applications._common import spatial


def default_size(input_shape, sizes):
    """The square input size Keras assumes: the given one when it is square and in
    ``sizes``, else 224."""
    if input_shape is None:
        return 224
    rows, cols = spatial(input_shape)
    return rows if rows == cols and rows in sizes else 224


def weight_rows(shape, weights, alpha, alphas, sizes, alpha_message):
    """The input size whose ImageNet weights load (224 with a warning when the input size
    has none); raises for an ``alpha`` with no weights."""
    rows, cols = spatial(shape)
    if weights == "imagenet":
        if alpha not in alphas:
            raise ValueError(alpha_message)
        if rows != cols or rows not in sizes:
            rows = 224
            warnings.warn(
                "`input_shape` is undefined or non-square, or `rows` is not in "
                f"{list(sizes)}. Weights for input shape (224, 224) will be loaded as the "
                "default.",
                stacklevel=3,
            )
    return rows


def make_divisible(v, divisor=8, min_value=None):
    """``v`` rounded to a multiple of ``divisor``, never more than 10% below it."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
