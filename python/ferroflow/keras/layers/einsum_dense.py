"""`tf.keras.layers.EinsumDense`: ``activation(einsum(equation, inputs, kernel) + bias)``,
the projection `MultiHeadAttention` is built on. The kernel and bias shapes are read off the
equation, the input shape and the partial ``output_shape`` as Keras 3 reads them, so Keras's
weights load (``query/kernel`` of a `MultiHeadAttention` is ``(dim, heads, key_dim)``)."""

import re

from ferroflow.keras import ops, quantizers
from ferroflow.keras.layers import _config, _dense_quantization, _einsum_quantization, _lora
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.layer import Layer
from ferroflow.linalg import einsum

__all__ = ["EinsumDense"]


def analyze_einsum_string(equation, bias_axes, input_shape, output_shape):
    """``(kernel_shape, bias_shape or None, full_output_shape, input_axes, output_axes)`` of an
    ``X,Y->Z`` equation (optionally ``...X,Y->...Z`` or ``X...,Y->Z...``); the axes are the
    kernel's input and output axes, which its VarianceScaling initializer's fans count."""
    replaced = equation.replace("...", "0")
    forms = (
        ("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", False),
        ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", True),
        ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", False),
    )
    for pattern, left_elided in forms:
        match = re.match(pattern, replaced)
        if match:
            return _analyze_split(match.groups(), bias_axes, input_shape, output_shape, left_elided)
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form "
        "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
    )


def _analyze_split(specs, bias_axes, input_shape, output_shape, left_elided):
    input_spec, weight_spec, output_spec = specs
    input_shape = list(input_shape)
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided :])
    if left_elided:
        input_dim_map = {d: (i + elided) - len(input_shape) for i, d in enumerate(input_spec)}
        output_dim_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_dim_map = {d: i for i, d in enumerate(input_spec)}
        output_dim_map = {d: i for i, d in enumerate(output_spec)}
    for dim in input_spec:
        size = input_shape[input_dim_map[dim]]
        if dim in output_dim_map:
            out_size = output_shape[output_dim_map[dim]]
            if out_size is not None and out_size != size:
                raise ValueError(
                    f"Input shape and output shape do not match at shared dimension '{dim}'. "
                    f"Input shape is {size}, and output shape is {out_size}."
                )
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            raise ValueError(
                f"Dimension '{dim}' was specified in the output '{output_spec}' but has no "
                f"corresponding dim in the input spec '{input_spec}' or weight spec "
                f"'{output_spec}'"
            )
    kernel_shape, input_axes, output_axes = [], [], []
    for i, dim in enumerate(weight_spec):
        if dim in output_dim_map:
            kernel_shape.append(output_shape[output_dim_map[dim]])
            output_axes.append(i)
        elif dim in input_dim_map:
            kernel_shape.append(input_shape[input_dim_map[dim]])
            input_axes.append(i)
        else:
            raise ValueError(
                f"Weight dimension '{dim}' did not have a match in either the input spec "
                f"'{input_spec}' or the output spec '{output_spec}'. For this layer, the "
                "weight must be fully specified."
            )
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {c: output_shape[i + offset] for i, c in enumerate(output_spec)}
        for c in bias_axes:
            if c not in output_spec:
                raise ValueError(
                    f"Bias dimension '{c}' was requested, but is not part of the output "
                    f"spec '{output_spec}'"
                )
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [sizes[c] if c in bias_axes else 1 for c in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * max(elided, 0))
    return kernel_shape, bias_shape, output_shape, input_axes, output_axes


class EinsumDense(Layer):
    """A dense layer of any rank: ``einsum(equation, inputs, kernel)`` plus an optional bias
    over the output axes named in ``bias_axes``, then ``activation``. ``output_shape`` gives
    the output's non-batch sizes (None where the input decides)."""

    def __init__(
        self,
        equation,
        output_shape,
        activation=None,
        bias_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        lora_alpha=None,
        gptq_unpacked_column_size=None,
        quantization_config=None,
        **kwargs,
    ):
        from ferroflow.keras import activations, initializers, regularizers

        if gptq_unpacked_column_size:
            raise NotImplementedError(
                "ferroflow's EinsumDense has no GPTQ quantization; leave "
                "`gptq_unpacked_column_size` None."
            )
        super().__init__(**kwargs)
        self.equation = equation
        if isinstance(output_shape, int):
            self.partial_output_shape = (output_shape,)
        else:
            self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = _config.get_constraint(kernel_constraint)
        self.bias_constraint = _config.get_constraint(bias_constraint)
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False
        self.quantization_config = quantization_config
        self.gptq_unpacked_column_size = gptq_unpacked_column_size

    def _kernel_initializer_with_axes(self, input_axes, output_axes):
        """Keras gives a VarianceScaling initializer without axes the kernel's input and output
        axes, so its fans are those of the projection, not of a convolution kernel."""
        from ferroflow.keras.initializers import VarianceScaling

        initializer = self.kernel_initializer
        if not isinstance(initializer, VarianceScaling) or (
            initializer.input_axes is not None and initializer.output_axes is not None
        ):
            return initializer
        config = initializer.get_config()
        config.update(seed=initializer.seed, input_axes=input_axes, output_axes=output_axes)
        return type(initializer).from_config(config)

    def build(self, input_shape):
        kernel_shape, bias_shape, _, input_axes, output_axes = analyze_einsum_string(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape
        )
        self.input_spec = InputSpec(ndim=len(input_shape))
        if self.quantization_mode is not None:
            self.quantized_build(
                tuple(kernel_shape), self.quantization_mode, self.quantization_config
            )
        if self.quantization_mode not in ("int8", "int4"):
            self._kernel = self.add_weight(
                name="kernel",
                shape=tuple(kernel_shape),
                initializer=self._kernel_initializer_with_axes(input_axes, output_axes),
                regularizer=self.kernel_regularizer,
                constraint=self.kernel_constraint,
            )
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight(
                name="bias",
                shape=tuple(bias_shape),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True
        if self.lora_rank:
            self.enable_lora(self.lora_rank, lora_alpha=self.lora_alpha)

    @property
    def kernel(self):
        """The kernel the call uses: the variable, plus the LoRA delta (cast to the compute
        dtype) when LoRA is enabled."""
        if not self.built:
            raise AttributeError("You must build the layer before accessing `kernel`.")
        kernel = self._kernel
        if self.quantization_mode == "int4":
            unpacked = quantizers.unpack_int4(kernel, self._int4_unpacked_column_size, axis=-1)
            kernel = ops.reshape(unpacked, self.original_kernel_shape)
        if self.lora_enabled:
            delta = _lora.lora_delta(self, self.lora_kernel_a, self.lora_kernel_b)
            kernel = ops.cast(ops.add(kernel, delta), self.compute_dtype)
        return kernel

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform", b_initializer="zeros"):
        """Freezes the kernel and adds the trainable low-rank delta
        ``(lora_alpha / rank) * lora_kernel_a @ lora_kernel_b`` (``a`` has the kernel's
        shape with ``rank`` last)."""
        _lora.check_enable_lora(self, self.kernel_constraint)
        if self.quantization_mode == "int4":
            shape = list(self.original_kernel_shape)
        else:
            shape = self._kernel.shape.as_list()
        _lora.add_lora_weights(
            self,
            ("lora_kernel_a", "lora_kernel_b"),
            ((*shape[:-1], rank), (rank, shape[-1])),
            (a_initializer, b_initializer),
            self.kernel_regularizer,
            self._kernel,
            rank,
            lora_alpha,
        )

    @property
    def variable_serialization_spec(self):
        """The variables each quantization mode saves, in Keras's order."""
        return _lora.KERNEL_SPEC

    def save_own_variables(self, store):
        if self.quantization_mode in (None, "float8"):
            merged = (self.kernel, None, None)
        else:
            merged = _einsum_quantization.merged_kernel(self)
        _lora.save_by_spec(self, store, "kernel", merged)

    def load_own_variables(self, store):
        _lora.load_by_spec(self, store, "kernel", ("lora_kernel_a", "lora_kernel_b"))

    def quantized_build(self, kernel_shape, mode, config=None):
        _einsum_quantization.build(self, kernel_shape, mode, config)
        self._is_quantized = True

    def quantize(self, mode=None, type_check=True, config=None):
        """Replaces the float kernel by its int8 or packed int4 form, or adds float8
        training's scales, and sets the layer's policy to ``"<mode>_from_<policy>"``."""
        if type_check and type(self) is not EinsumDense:
            raise self._not_implemented_error(self.quantize)
        _einsum_quantization.quantize(self, mode, config)

    def _int8_call(self, inputs, training=None):
        return self._finish(_einsum_quantization.int8_einsum(self, inputs))

    def _int4_call(self, inputs, training=None):
        return self._finish(_einsum_quantization.int4_einsum(self, inputs))

    def _float8_call(self, inputs, training=None):
        def contract(x, kernel):
            return ops.einsum(self.equation, x, kernel)

        outputs = _dense_quantization.float8_matmul(self, inputs, training, contract)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def _finish(self, outputs):
        if self.bias is not None:
            outputs = outputs + self.bias
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def call(self, inputs, training=None):
        outputs = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        _, _, output_shape, _, _ = analyze_einsum_string(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape
        )
        return tuple(output_shape)

    def compute_output_spec(self, inputs, training=None):
        """The functional API's output: `compute_output_shape`'s, None sizes kept."""
        from ferroflow.keras.layers.input_layer import KerasTensor

        return KerasTensor(self.compute_output_shape(tuple(inputs.shape)), dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {
            **config,
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": _config.serialize_activation(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": _config.serialize_initializer(self.kernel_initializer),
            "bias_initializer": _config.serialize_initializer(self.bias_initializer),
            "kernel_regularizer": _config.serialize_regularizer(self.kernel_regularizer),
            "bias_regularizer": _config.serialize_regularizer(self.bias_regularizer),
            "activity_regularizer": _config.serialize_regularizer(self.activity_regularizer),
            "kernel_constraint": _config.serialize_constraint(self.kernel_constraint),
            "bias_constraint": _config.serialize_constraint(self.bias_constraint),
            **_lora.config_entries(self),
        }

    @classmethod
    def from_config(cls, config):
        return super().from_config(_lora.revived_config(config))
