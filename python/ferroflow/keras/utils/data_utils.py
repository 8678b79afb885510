"""`tf.keras.utils.pack_x_y_sample_weight` and `unpack_x_y_sample_weight`: the
``(x, y, sample_weight)`` tuples that `fit` and the step methods exchange."""

__all__ = ["pack_x_y_sample_weight", "unpack_x_y_sample_weight"]


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``
    (missing parts are None)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
        f"found: {data}"
    )


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The shortest tuple holding the parts given (``x`` alone stays itself unless it is a
    tuple or list, which is wrapped so that it is not read as ``(x, y)``)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)
