"""Fan-in / fan-out of a weight shape, as Keras computes them for variance scaling."""


def compute_fans(shape, input_axes=None, output_axes=None):
    """(fan_in, fan_out) for a weight of ``shape``.

    Rank 0: (1, 1); rank 1: (n, n); rank 2: (rows, cols); higher ranks are convolution kernels
    ``(*spatial, in_channels, out_channels)`` whose fans are multiplied by the receptive field
    size ``prod(spatial)``. With both ``input_axes`` and ``output_axes``, the fans are the
    products of those axes' sizes.
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        fan_in = 1
        for axis in input_axes:
            fan_in *= shape[axis]
        fan_out = 1
        for axis in output_axes:
            fan_out *= shape[axis]
        return int(fan_in), int(fan_out)
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field_size = 1
        for dim in shape[:-2]:
            receptive_field_size *= dim
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)
