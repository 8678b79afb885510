"""What Keras 3's convolution layers share (`BaseConv`, `BaseConvTranspose`,
`BaseDepthwiseConv`, `BaseSeparableConv`): the window arguments, the activation and bias, the
initializers, regularizers and constraints of each weight, and the config in Keras's key
order."""

from ferroflow.array_ops import reshape
from ferroflow.keras.layers import _config
from ferroflow.keras.layers._shapes import (
    standardize_data_format,
    standardize_padding,
    standardize_tuple,
)
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["ConvLayerBase", "check_positive", "subclass_arguments"]


def subclass_arguments(arguments, *own):
    """A layer's ``__init__`` arguments (its ``locals()``) as keywords for its base class:
    the extra ``**kwargs`` merged in, the names in ``own`` (those it keeps) left out."""
    dropped = {"self", "__class__", "kwargs", *own}
    kept = {k: v for k, v in arguments.items() if k not in dropped}
    return {**kept, **arguments["kwargs"]}


_WEIGHT_PARTS = ("initializer", "regularizer", "constraint")


def check_positive(value, name):
    if value is not None and value <= 0:
        raise ValueError(
            f"Invalid value for argument `{name}`. Expected a strictly positive value. "
            f"Received {name}={value}."
        )


class ConvLayerBase(Layer):
    """A ``rank``-D window layer with learned weights, a bias and an activation. Subclasses
    name their weights' argument prefixes in ``_weight_names`` (``kernel``, or ``depthwise``
    and ``pointwise``): ``<name>_initializer``, ``<name>_regularizer`` and
    ``<name>_constraint`` arrive as keywords for each, and for ``bias``. ``_config_keys`` are
    the config keys that come before ``activation``."""

    _weight_names = ("kernel",)
    _config_keys = ()

    def __init__(
        self,
        rank,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        activation,
        use_bias,
        activity_regularizer=None,
        allow_causal=False,
        **kwargs,
    ):
        from ferroflow.keras import activations, initializers, regularizers

        weight_options = {
            name: [kwargs.pop(f"{name}_{part}") for part in _WEIGHT_PARTS]
            for name in (*self._weight_names, "bias")
        }
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.kernel_size = standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = standardize_tuple(strides, rank, "strides")
        self.dilation_rate = standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = standardize_padding(padding, allow_causal=allow_causal)
        self.data_format = standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        for name, (initializer, regularizer, constraint) in weight_options.items():
            setattr(self, f"{name}_initializer", initializers.get(initializer))
            setattr(self, f"{name}_regularizer", regularizers.get(regularizer))
            setattr(self, f"{name}_constraint", _config.get_constraint(constraint))
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _check_strides_and_dilation(self):
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )

    @property
    def _channel_axis(self):
        return -1 if self.data_format == "channels_last" else 1

    def _input_channels(self, input_shape):
        """The input's channel count, pinned in the input spec from now on."""
        channels = input_shape[self._channel_axis]
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        return channels

    def _add_layer_weight(self, name, shape, options):
        """A weight named ``name`` set up by the ``options`` prefix's initializer,
        regularizer and constraint."""
        return self.add_weight(
            name=name,
            shape=shape,
            initializer=getattr(self, f"{options}_initializer"),
            regularizer=getattr(self, f"{options}_regularizer"),
            constraint=getattr(self, f"{options}_constraint"),
        )

    def _add_bias(self, size):
        self.bias = self._add_layer_weight("bias", (size,), "bias") if self.use_bias else None

    def _finish(self, outputs):
        """Adds the bias and applies the activation."""
        if self.use_bias:
            bias = self.bias
            if self.data_format == "channels_first":
                bias = reshape(bias, (1, -1) + (1,) * self.rank)
            outputs = outputs + bias
        return self.activation(outputs)

    def get_config(self):
        names = (*self._weight_names, "bias")

        def serialized(part, serialize):
            return {f"{n}_{part}": serialize(getattr(self, f"{n}_{part}")) for n in names}

        return {
            **super().get_config(),
            **{key: getattr(self, key) for key in self._config_keys},
            "activation": _config.serialize_activation(self.activation),
            "use_bias": self.use_bias,
            **serialized("initializer", _config.serialize_initializer),
            **serialized("regularizer", _config.serialize_regularizer),
            "activity_regularizer": _config.serialize_regularizer(self.activity_regularizer),
            **serialized("constraint", _config.serialize_constraint),
        }
