"""Merge layers: `Add` sums a list of tensors element-wise, `Concatenate` joins them along an
axis; `add` and `concatenate` are their functional forms."""

from ferroflow.array_ops import concat, expand_dims, ones_like, zeros_like
from ferroflow.keras.layers.layer import Layer
from ferroflow.math import logical_or, reduce_any

__all__ = ["Add", "Concatenate", "Merge", "add", "concatenate"]


def _checked_masks(inputs, mask):
    """``mask`` as a list of one mask per input (None when no mask at all), or Keras's
    ValueError."""
    if mask is None:
        return None
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError(
            "The lists `inputs` and `mask` should have the same length. Received: "
            f"inputs={inputs} of length {len(inputs)}, and mask={mask} of length {len(mask)}"
        )
    return list(mask)


def _is_shape(value):
    return isinstance(value, (tuple, list)) or hasattr(value, "as_list")


def _tuple(shape):
    return None if shape is None else tuple(shape)


class Merge(Layer):
    """Base of the element-wise merge layers: inputs of different ranks are broadcast by
    inserting axes after the batch axis; subclasses write ``_merge_function``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._reshape_required = False

    def _merge_function(self, inputs):
        raise NotImplementedError

    def compute_mask(self, inputs, mask=None):
        """A position is kept where any input keeps it; unmasked inputs make no mask."""
        mask = _checked_masks(inputs, mask)
        if mask is None or any(m is None for m in mask):
            return None
        output = mask[0]
        for m in mask[1:]:
            output = logical_or(output, m)
        return output

    @staticmethod
    def _elementwise_output_shape(shape1, shape2):
        """The broadcast shape of two (batch-less) shapes; ValueError if incompatible."""
        if shape1 is None or shape2 is None:
            return None
        if len(shape1) < len(shape2):
            shape1, shape2 = shape2, shape1
        if not shape2:
            return shape1
        output = list(shape1[: -len(shape2)])
        for i, j in zip(shape1[-len(shape2) :], shape2):
            if i is None or j is None:
                output.append(None)
            elif i == 1:
                output.append(j)
            elif j == 1 or i == j:
                output.append(i)
            else:
                raise ValueError(
                    f"Inputs have incompatible shapes. Received shapes {shape1} and {shape2}"
                )
        return tuple(output)

    def _merged_shape(self, shapes):
        output = None if shapes[0] is None else shapes[0][1:]
        for shape in shapes[1:]:
            output = self._elementwise_output_shape(output, None if shape is None else shape[1:])
        return output

    def build(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or not _is_shape(input_shape[0]):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: input_shape={input_shape} (not a list of shapes)"
            )
        shapes = [_tuple(s) for s in input_shape]
        batch_sizes = {s[0] for s in shapes if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(
                f"Cannot merge tensors with different batch sizes. Received tensors with "
                f"shapes {shapes}"
            )
        self._merged_shape(shapes)
        self._reshape_required = None in shapes or len({len(s) for s in shapes}) != 1
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                "A merge layer should be called on a list of inputs. "
                f"Received: inputs={inputs} (not a list of tensors)"
            )
        if self._reshape_required:
            max_rank = max(len(x.shape) for x in inputs)
            expanded = []
            for x in inputs:
                for _ in range(max_rank - len(x.shape)):
                    x = expand_dims(x, 1)
                expanded.append(x)
            inputs = expanded
        return self._merge_function(inputs)

    def compute_output_shape(self, input_shape):
        shapes = [_tuple(s) for s in input_shape]
        output = self._merged_shape(shapes)
        batch_sizes = {s[0] for s in shapes if s is not None} - {None}
        batch = next(iter(batch_sizes)) if len(batch_sizes) == 1 else None
        return (batch, *output)


class Add(Merge):
    """Sums a list of tensors of the same shape element-wise."""

    def _merge_function(self, inputs):
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output


class Concatenate(Merge):
    """Concatenates a list of tensors along ``axis``; the other axes must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        if len(input_shape) < 1 or not _is_shape(input_shape[0]):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of at least 1 input. "
                f"Received: input_shape={input_shape}"
            )
        shapes = [_tuple(s) for s in input_shape]
        if any(s is not None for s in shapes):
            # Every axis but the concatenation axis must agree (None matches anything).
            reduced = []
            for shape in shapes:
                dims = list(shape)
                if len(dims) > self.axis:
                    del dims[self.axis]
                reduced.append(tuple(dims))
            error = ValueError(
                "A `Concatenate` layer requires inputs with matching shapes except for the "
                f"concatenation axis. Received: input_shape={shapes}"
            )
            if len({len(s) for s in reduced}) != 1:
                raise error
            for dims in zip(*reduced):
                if len({d for d in dims if d is not None}) > 1:
                    raise error
        self.built = True

    def _merge_function(self, inputs):
        return concat(list(inputs), self.axis)

    def compute_mask(self, inputs, mask=None):
        """Each input's mask widened to the input's shape (all true for an unmasked one),
        joined along ``axis`` and reduced over the last axis, as Keras 3 does."""
        mask = _checked_masks(inputs, mask)
        if mask is None or all(m is None for m in mask):
            return None
        widened = []
        for x, m in zip(inputs, mask):
            if m is None:
                widened.append(ones_like(x, dtype="bool"))
            elif len(m.shape) < len(x.shape):
                widened.append(logical_or(expand_dims(m, -1), zeros_like(x, dtype="bool")))
            else:
                widened.append(m)
        return reduce_any(concat(widened, self.axis), axis=-1)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or not _is_shape(input_shape[0]):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of inputs. "
                f"Received: input_shape={input_shape}"
            )
        output = list(input_shape[0])
        for shape in input_shape[1:]:
            if output[self.axis] is None or shape[self.axis] is None:
                output[self.axis] = None
                break
            output[self.axis] += shape[self.axis]
        return tuple(output)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def add(inputs, **kwargs):
    """The element-wise sum of ``inputs`` through an `Add` layer."""
    return Add(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``inputs`` joined along ``axis`` through a `Concatenate` layer."""
    return Concatenate(axis=axis, **kwargs)(inputs)
