"""`tf.keras.layers.Wrapper` (the base of layers that wrap another layer, whose config carries
the wrapped layer's serialised form) and `tf.keras.layers.SpectralNormalization` (in training,
the wrapped layer's kernel is divided by its largest singular value, estimated by power
iteration, before each call)."""

import ferroflow as _tf
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer

__all__ = ["SpectralNormalization", "Wrapper"]


class Wrapper(Layer):
    """A layer around ``layer``; subclasses write `call`."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure "
                "wrapped layer is a valid Keras layer."
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def call(self, inputs, *args, **kwargs):
        # Keras's Wrapper is a base class: subclasses say what a call does.
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `call` method implemented."
        )

    def get_config(self):
        from ferroflow.keras.layers.serialization import serialize

        return {**super().get_config(), "layer": serialize(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.layers.serialization import deserialize

        # Keras pops the wrapped layer from the caller's dict itself; so do we.
        layer = deserialize(config.pop("layer"), custom_objects=custom_objects)
        config = dict(config)
        return cls(layer, **config)


def _l2_normalize_all(x):
    """Keras's ``normalize(x, axis=None)``: ``x * min(rsqrt(sum(x^2)), 1e7)``."""
    inv_norm = _tf.math.rsqrt(_tf.reduce_sum(_tf.square(x)))
    return x * _tf.minimum(inv_norm, _tf.cast(1.0 / 1e-7, x.dtype))


class SpectralNormalization(Wrapper):
    """Wraps a layer with a ``kernel`` (or ``embeddings``) weight; each training call runs
    ``power_iterations`` steps of power iteration from the non-trainable ``vector_u`` and
    assigns ``kernel / sigma`` to the kernel (a kernel of zeros is left alone)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(
                "`power_iterations` should be greater than zero. Received: "
                f"`power_iterations={power_iterations}`"
            )
        self.power_iterations = power_iterations

    def build(self, input_shape):
        from ferroflow.keras import initializers

        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        if hasattr(self.layer, "kernel"):
            kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            kernel = self.layer.embeddings
        else:
            raise ValueError(
                f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'"
            )
        # Keras tracks the wrapped kernel as this layer's own first weight too: `weights`
        # lists it, then ``vector_u``, then the wrapped layer's others.
        self._kernel = kernel
        self._own_weights.append(kernel)
        self.kernel_shape = tuple(kernel.shape.as_list())
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            name="vector_u",
            dtype=kernel.dtype,
        )
        self.built = True

    @property
    def kernel(self):
        return self._kernel

    @property
    def trainable_weights(self):
        # The kernel is both this layer's and the wrapped layer's: listed once.
        found = []
        for v in super().trainable_weights:
            if not any(v is known for known in found):
                found.append(v)
        return found

    def call(self, inputs, training=False):
        if training:
            new_u, new_kernel = self.normalized_weights()
            # A zero kernel has no direction to normalise: both stay as they are.
            is_zero = _tf.reduce_all(_tf.equal(self._kernel.value(), 0))
            self.vector_u.assign(_tf.where(is_zero, self.vector_u.value(), new_u))
            self._kernel.assign(_tf.where(is_zero, self._kernel.value(), new_kernel))
        output = self.layer(inputs)
        return _tf.cast(output, inputs.dtype)

    def normalized_weights(self):
        """The updated ``vector_u`` and the spectrally normalised kernel."""
        kernel = self._kernel.value()
        weights = _tf.reshape(kernel, [-1, self.kernel_shape[-1]])
        vector_u = self.vector_u.value()
        for _ in range(self.power_iterations):
            vector_v = _l2_normalize_all(_tf.matmul(vector_u, _tf.transpose(weights)))
            vector_u = _l2_normalize_all(_tf.matmul(vector_v, weights))
        vector_u = _tf.stop_gradient(vector_u)
        vector_v = _tf.stop_gradient(vector_v)
        sigma = _tf.matmul(_tf.matmul(vector_v, weights), _tf.transpose(vector_u))
        new_kernel = _tf.reshape(kernel / sigma, self.kernel_shape)
        return _tf.cast(vector_u, self.vector_u.dtype), _tf.cast(new_kernel, kernel.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}
