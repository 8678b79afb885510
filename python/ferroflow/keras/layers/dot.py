"""`tf.keras.layers.Dot` and `tf.keras.layers.dot`: the dot product of two batched tensors
along one axis of each (Keras's ``batch_dot``), optionally of their L2-normalised forms
(cosine proximity)."""

import ferroflow as _tf
from ferroflow.keras.layers._shapes import dims_of
from ferroflow.keras.layers.merging import Merge

__all__ = ["Dot", "batch_dot", "dot"]


def _reshape(x, dims):
    if any(not isinstance(d, int) for d in dims):
        dims = _tf.stack([_tf.cast(d, _tf.int32) for d in dims])
    return _tf.reshape(x, dims)


def _check_batch_dot(x_shape, y_shape, axes):
    if len(x_shape) < 2 or len(y_shape) < 2:
        raise ValueError(
            "Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes "
            f"{x_shape} and {y_shape}."
        )
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(
            "Cannot do batch_dot on inputs with different batch sizes. Received inputs with "
            f"shapes {x_shape} and {y_shape}."
        )
    if any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(
            "Multiple target dimensions are not supported. Expected: None, int, (int, int), "
            f"Provided: {axes} "
        )


def batch_dot(x, y, axes=None):
    """Keras's ``batch_dot``: for each example, the contraction of ``x``'s axis ``axes[0]``
    with ``y``'s axis ``axes[1]``; the result keeps ``x``'s other axes, then ``y``'s."""
    x_shape, y_shape = tuple(x.shape.as_list()), tuple(y.shape.as_list())
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 1] if y_ndim == 2 else [x_ndim - 1, y_ndim - 2]
    _check_batch_dot(x_shape, y_shape, axes)
    a0, a1 = axes
    a0 += x_ndim if a0 < 0 else 0
    a1 += y_ndim if a1 < 0 else 0
    if 0 in (a0, a1):
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy "
            "batch dimension to your inputs using keras.ops.expand_dims(x, 0)"
        )
    d1, d2 = x_shape[a0], y_shape[a1]
    if d1 is not None and d2 is not None and d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} with "
            f"axes={[a0, a1]}. x.shape[{a0}] != y.shape[{a1}] ({d1} != {d2})."
        )
    if x_ndim == 2:
        x, a0 = _tf.expand_dims(x, 1), a0 + 1
    if y_ndim == 2:
        y = _tf.expand_dims(y, 2)
    # x's contracted axis goes last, y's second; the others keep their order.
    x_rank, y_rank = len(x.shape), len(y.shape)
    if a0 != x_rank - 1:
        x = _tf.transpose(x, [i for i in range(x_rank) if i != a0] + [a0])
    if a1 != 1:
        y = _tf.transpose(y, [0, a1] + [i for i in range(1, y_rank) if i != a1])
    x_dims, y_dims = dims_of(x), dims_of(y)
    if x_rank > 3:
        x = _reshape(x, [x_dims[0], -1, x_dims[-1]])
    if y_rank > 3:
        y = _reshape(y, [y_dims[0], y_dims[1], -1])
    result = _tf.matmul(x, y)
    if x_rank > 3 or y_rank > 3:
        out_dims = dims_of(result)
        out_dims = out_dims[:1] + (x_dims[1:-1] if x_rank > 3 else out_dims[1:2])
        out_dims += y_dims[2:] if y_rank > 3 else dims_of(result)[-1:]
        result = _reshape(result, out_dims)
    if x_ndim == 2:
        result = _tf.squeeze(result, 1)
    elif y_ndim == 2:
        result = _tf.squeeze(result, -1)
    return result


def _l2_normalize(x, axis):
    """Keras's ``normalize``: ``x * min(rsqrt(sum(x^2)), 1 / epsilon)`` with epsilon 1e-7."""
    square_sum = _tf.reduce_sum(_tf.square(x), axis=axis, keepdims=True)
    return x * _tf.minimum(_tf.math.rsqrt(square_sum), _tf.cast(1.0 / 1e-7, x.dtype))


class Dot(Merge):
    """The dot product of two inputs along ``axes`` (an int, or one axis per input); with
    ``normalize`` both are L2-normalised along those axes first."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    "Invalid type for argument `axes`: it should be a list or an int. "
                    f"Received: axes={axes}"
                )
            if len(axes) != 2:
                raise ValueError(
                    "Invalid format for argument `axes`: it should contain two elements. "
                    f"Received: axes={axes}"
                )
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(
                    "Invalid format for argument `axes`: list elements should be integers. "
                    f"Received: axes={axes}"
                )
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _axes_for(self, rank1, rank2):
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % rank1, self.axes % rank2]
            return [self.axes] * 2
        return list(self.axes)

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(
                "A `Dot` layer should be called on a list of 2 inputs. "
                f"Received: input_shape={input_shape}"
            )
        shape1, shape2 = input_shape
        if shape1 is not None and shape2 is not None:
            axes = self._axes_for(len(shape1), len(shape2))
            if shape1[axes[0]] != shape2[axes[1]]:
                raise ValueError(
                    f"Incompatible input shapes: axis values {shape1[axes[0]]} (at axis "
                    f"{axes[0]}) != {shape2[axes[1]]} (at axis {axes[1]}). Full input shapes: "
                    f"{shape1}, {shape2}"
                )
        self.built = True

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}"
            )
        x1, x2 = inputs
        if isinstance(self.axes, int):
            axes = self._axes_for(len(x1.shape), len(x2.shape))
        else:
            axes = [a % len(x.shape) if a < 0 else a for a, x in zip(self.axes, inputs)]
        if self.normalize:
            x1, x2 = _l2_normalize(x1, axes[0]), _l2_normalize(x2, axes[1])
        return batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != 2:
            raise ValueError(
                "A `Dot` layer should be called on a list of 2 inputs. "
                f"Received: input_shape={input_shape}"
            )
        shape1, shape2 = list(input_shape[0]), list(input_shape[1])
        axes = self._axes_for(len(shape1), len(shape2))
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        shape2.pop(0)
        output_shape = shape1 + shape2
        if len(output_shape) == 1:
            output_shape += [1]
        return tuple(output_shape)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs, axes=-1, **kwargs):
    """The functional form of `Dot`: ``Dot(axes=axes, **kwargs)(inputs)``."""
    return Dot(axes=axes, **kwargs)(inputs)
