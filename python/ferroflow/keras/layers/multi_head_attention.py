"""`tf.keras.layers.MultiHeadAttention`: query, key and value projected per head by
`EinsumDense`s (``query/kernel`` of shape ``(dim, heads, key_dim)``, as Keras 3 lays it out),
scaled dot-product attention over ``attention_axes``, and an output projection.

As in Keras 3 under TensorFlow, two computations give the result: without dropout, without
``return_attention_scores`` and with 4-D projections, the fused ``dot_product_attention`` (a
wholly masked row averages all values); otherwise explicit scores through a masked `Softmax`
(a wholly masked row gives zeros). The query's Keras mask (``query._keras_mask``) masks the
rows and is attached to the output; an explicit ``query_mask`` argument is ignored, as it is
by Keras, and the inputs' masks are taken off them. Value and key masks come as arguments,
which `Layer.__call__` fills from ``value._keras_mask`` and ``key._keras_mask``."""

import math
import string

import ferroflow as _tf
from ferroflow.keras._tensor_attributes import get_keras_mask, set_keras_mask
from ferroflow.keras.layers import _attention_masks as _masks
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.activation_layers import Softmax
from ferroflow.keras.layers.dropout import Dropout
from ferroflow.keras.layers.einsum_dense import EinsumDense
from ferroflow.keras.layers.layer import Layer

__all__ = ["MultiHeadAttention"]


def _positive_int(value, name, allow_none=False):
    if allow_none and value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        expected = "a positive integer or `None`" if allow_none else "a positive integer"
        raise ValueError(
            f"Received an invalid value for argument `{name}`, expected {expected}. "
            f"Received: {name}={value}"
        )


def _check_sliding_window(sliding_window):
    if sliding_window is not None and (
        not isinstance(sliding_window, int)
        or isinstance(sliding_window, bool)
        or sliding_window <= 0
    ):
        raise ValueError(
            "`sliding_window` must be `None` or a positive integer. "
            f"Received: sliding_window={sliding_window}"
        )


def _check_flash_attention(flash_attention, dropout):
    """Keras's TensorFlow backend has no flash attention: a layer asking for it is made
    (unless it also has dropout) and fails where it would run it (`_flash_errors`)."""
    if flash_attention and dropout > 0.0:
        raise ValueError(
            "Dropout is not supported when flash attention is enabled. Please set dropout to "
            "0.0 to use flash attention."
        )
    return bool(flash_attention)


def _flash_errors(flash_attention, return_attention_scores, fused):
    if not flash_attention:
        return
    if return_attention_scores:
        raise ValueError(
            "Returning attention scores is not supported when flash attention is enabled. "
            "Please disable flash attention to access attention scores."
        )
    if fused:
        raise ValueError("Flash attention is not supported in tensorflow backend.")


def projection_equation(free_dims, bound_dims, output_dims):
    """(equation, bias axes, output rank) of a projection: ``free_dims`` axes kept, the next
    ``bound_dims`` contracted with the kernel, ``output_dims`` new axes from the kernel."""
    letters = string.ascii_lowercase
    free = letters[:free_dims]
    bound = letters[free_dims : free_dims + bound_dims]
    out = letters[free_dims + bound_dims : free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def attention_equations(rank, attn_axes):
    """The query-key product and the combination equations of attention over ``attn_axes`` of
    ``(batch dims, attention dims, heads, channels)`` projections, and the scores' rank."""
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch_dims = [i for i in range(rank) if i not in attn_axes and i != rank - 1]
    source, offset = "", rank
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += letters[offset]
            offset += 1
    product = "".join(
        [target[i] for i in batch_dims]
        + [target[i] for i in attn_axes]
        + [source[i] for i in attn_axes]
    )
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


_SHAPE_KEYS = ("query_shape", "value_shape", "key_shape")


def _shape_of(x):
    return None if x is None else tuple(_tf.TensorShape(x.shape).as_list())


class _AttentionBase(Layer):
    """Building from the shapes of all three inputs on the first call, which Keras does by
    matching `build`'s parameters to `call`'s; the sublayer bookkeeping; and the call and
    attention both layers run, set apart by `_attention_spec` and a few hooks."""

    def __call__(self, query, value, key=None, *args, **kwargs):
        from ferroflow.keras import _symbolic

        if not self.built and not _symbolic.any_symbolic([query, value, key]):
            query = self._as_input(query)
            self._build_from_shapes(
                _shape_of(query), _shape_of(self._as_input(value)), _shape_of(key)
            )
        return super().__call__(query, value, key, *args, **kwargs)

    def _build_from_shapes(self, query_shape, value_shape, key_shape):
        """`build`, remembering the shapes for the saved ``build_config``."""
        shapes = {"query_shape": query_shape, "value_shape": value_shape}
        if key_shape is not None:
            shapes["key_shape"] = key_shape
        object.__setattr__(self, "_build_shapes", shapes)
        self.build(query_shape, value_shape, key_shape)
        self.built = True

    def get_build_config(self):
        """Keras 3's ``build_config`` of a layer built from several shapes."""
        shapes = self.__dict__.get("_build_shapes")
        return None if shapes is None else {"shapes_dict": dict(shapes)}

    def build_from_config(self, config):
        shapes = config.get("shapes_dict")
        if shapes:
            self._build_from_shapes(
                *(tuple(shapes[k]) if shapes.get(k) else None for k in _SHAPE_KEYS)
            )

    def compute_output_spec(
        self, query, value, key=None, *args, return_attention_scores=False, **kwargs
    ):
        """The functional API's outputs, as Keras 3 states them (the layer is built from the
        symbolic shapes); the scores' shape is `_scores_shape`'s."""
        from ferroflow.keras.layers.input_layer import KerasTensor

        shapes = [_shape_of(x) for x in (query, value, key)]
        if not self.built:
            self._build_from_shapes(*shapes)
        output = KerasTensor(self.compute_output_shape(*shapes), dtype=self.compute_dtype)
        if not return_attention_scores:
            return output
        return output, KerasTensor(self._scores_shape(*shapes), dtype=self.compute_dtype)

    def _sublayer(self, layer):
        """Tracks ``layer`` (held in a private attribute); built inside this layer's `build`,
        its weights' paths are under this layer's (``multi_head_attention/query/kernel``)."""
        self._layers.append(layer)
        return layer

    def _sublayer_dtype(self):
        """What the sublayers get as ``dtype``: this layer's dtype policy, as in Keras."""
        return getattr(self, "dtype_policy", None) or self.dtype

    def _common_kwargs(self):
        """Each projection's arguments; initializers are fresh copies so that the
        projections do not start from the same values."""
        return dict(
            kernel_initializer=type(self._kernel_initializer).from_config(
                self._kernel_initializer.get_config()
            ),
            bias_initializer=type(self._bias_initializer).from_config(
                self._bias_initializer.get_config()
            ),
            kernel_regularizer=self._kernel_regularizer,
            bias_regularizer=self._bias_regularizer,
            activity_regularizer=self._sub_activity_regularizer,
            kernel_constraint=self._kernel_constraint,
            bias_constraint=self._bias_constraint,
            dtype=self._sublayer_dtype(),
        )

    def _init_weights_config(
        self,
        kernel_initializer,
        bias_initializer,
        kernel_regularizer,
        bias_regularizer,
        activity_regularizer,
        kernel_constraint,
        bias_constraint,
    ):
        from ferroflow.keras import initializers, regularizers

        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        # Keras gives the activity regularizer to each projection, not to this layer's output.
        self._sub_activity_regularizer = regularizers.get(activity_regularizer)
        self._kernel_constraint = _config.get_constraint(kernel_constraint)
        self._bias_constraint = _config.get_constraint(bias_constraint)

    def _weights_config(self):
        return {
            "kernel_initializer": _config.serialize_initializer(self._kernel_initializer),
            "bias_initializer": _config.serialize_initializer(self._bias_initializer),
            "kernel_regularizer": _config.serialize_regularizer(self._kernel_regularizer),
            "bias_regularizer": _config.serialize_regularizer(self._bias_regularizer),
            "activity_regularizer": _config.serialize_regularizer(self._sub_activity_regularizer),
            "kernel_constraint": _config.serialize_constraint(self._kernel_constraint),
            "bias_constraint": _config.serialize_constraint(self._bias_constraint),
        }

    def _masked_softmax(self, scores, mask, n_attention_axes):
        if mask is not None:
            for _ in range(scores.shape.rank - mask.shape.rank):
                mask = _tf.expand_dims(mask, -2 * n_attention_axes - 1)
        return self._softmax(scores, mask=mask)

    # MultiHeadAttention casts an explicit ``attention_mask`` to bool even alone;
    # GroupedQueryAttention only when merging it with another mask.
    _cast_explicit_mask = True
    # MultiHeadAttention gives its output the query's mask.
    _masks_output = True

    def _attention_spec(self):
        """What the two layers' attention differs in: ``(use_gate, sliding_window, scale,
        number of attention axes, scores equation over (key, query), combine equation over
        (scores, value))``."""
        raise NotImplementedError

    def _project_key_value(self, projected):
        """The projected key or value as the attention reads it."""
        return projected

    def _query_mask(self, query, value, key, query_mask):
        """The query mask the attention uses."""
        return query_mask

    def call(
        self,
        query,
        value,
        key=None,
        query_mask=None,
        value_mask=None,
        key_mask=None,
        attention_mask=None,
        return_attention_scores=False,
        training=None,
        use_causal_mask=False,
    ):
        """Both layers' call: the query, value, key, causal, sliding-window and explicit
        masks merged into one attention mask; the projections (and the optional sigmoid gate
        on the query); attention; the output projection."""
        use_gate, sliding_window = self._attention_spec()[:2]
        value = self._as_input(value)
        key = value if key is None else self._as_input(key)
        query_mask = self._query_mask(query, value, key, query_mask)
        if attention_mask is not None:
            attention_mask = _tf.convert_to_tensor(attention_mask)
        attention_mask = _masks.attention_mask_from(
            query,
            value,
            query_mask,
            value_mask,
            key_mask,
            attention_mask,
            use_causal_mask,
            sliding_window,
            cast_explicit_mask=self._cast_explicit_mask,
        )
        if use_gate:
            gate = self._gate_dense(query)
        projected_query = self._query_dense(query)
        projected_key = self._project_key_value(self._key_dense(key))
        projected_value = self._project_key_value(self._value_dense(value))
        output, scores = self._compute_attention(
            projected_query,
            projected_key,
            projected_value,
            attention_mask,
            training,
            return_attention_scores,
        )
        if use_gate:
            output = output * gate
        output = self._output_dense(output)
        if self._masks_output and query_mask is not None:
            set_keras_mask(output, query_mask)
        if return_attention_scores:
            return output, scores
        return output

    def _compute_attention(
        self, query, key, value, attention_mask, training, return_attention_scores
    ):
        """Attention over the projected heads: ``softmax(scale * q.k, masked) . v``, fused
        (as Keras's ``ops.dot_product_attention``) unless dropout, the scores or more than one
        attention axis ask for the explicit path. Returns ``(output, scores or None)``."""
        _, _, scale, n_axes, scores_equation, combine_equation = self._attention_spec()
        fused = not (self.dropout > 0.0 or return_attention_scores or query.shape.rank != 4)
        _flash_errors(self._flash_attention, return_attention_scores, fused)
        if fused:
            if attention_mask is not None:
                for _ in range(4 - attention_mask.shape.rank):
                    attention_mask = _tf.expand_dims(attention_mask, -2 * n_axes - 1)
                attention_mask = _tf.cast(attention_mask, _tf.bool)
            output = _masks.dot_product_attention(query, key, value, attention_mask, scale)
            return output, None
        query = query * _tf.cast(scale, query.dtype)
        scores = _tf.einsum(scores_equation, key, query)
        scores = self._masked_softmax(scores, attention_mask, n_axes)
        dropped = self._dropout_layer(scores, training=training) if self.dropout > 0 else scores
        return _tf.einsum(combine_equation, dropped, value), scores


class MultiHeadAttention(_AttentionBase):
    """Multi-head attention (Vaswani et al., 2017): ``num_heads`` heads of size ``key_dim``
    (``value_dim`` for values) attend from ``query`` to ``key`` (default ``value``); the
    result is projected to the query's last dimension, or to ``output_shape``."""

    def __init__(
        self,
        num_heads,
        key_dim,
        value_dim=None,
        dropout=0.0,
        use_bias=True,
        output_shape=None,
        attention_axes=None,
        sliding_window=None,
        flash_attention=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate=False,
        seed=None,
        **kwargs,
    ):
        _positive_int(num_heads, "num_heads")
        _positive_int(key_dim, "key_dim")
        _positive_int(value_dim, "value_dim", allow_none=True)
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(
                    f"Invalid `output_shape`: {output_shape}. When specified, the "
                    "`output_shape` should be of type tuple, list, or int."
                ) from None
        self._output_shape = output_shape
        self._flash_attention = _check_flash_attention(flash_attention, dropout)
        self._init_weights_config(
            kernel_initializer,
            bias_initializer,
            kernel_regularizer,
            bias_regularizer,
            activity_regularizer,
            kernel_constraint,
            bias_constraint,
        )
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(
                "`attention_axes` must be an int, list, or tuple."
                f"Received: attention_axes={attention_axes}"
            )
        self._attention_axes = attention_axes
        _check_sliding_window(sliding_window)
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)
    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def _projection(self, rank, bound_dims, output_shape, name, input_shape, **extra):
        equation, bias_axes, output_rank = projection_equation(
            rank - 1, bound_dims, len(output_shape)
        )
        layer = EinsumDense(
            equation,
            output_shape=[None] * (output_rank - 1 - len(output_shape)) + list(output_shape),
            bias_axes=bias_axes if self._use_bias else None,
            name=name,
            **extra,
            **self._common_kwargs(),
        )
        layer.build(input_shape)
        return layer

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        query_rank = len(query_shape)
        heads_key = [self._num_heads, self._key_dim]
        heads_value = [self._num_heads, self._value_dim]
        self._query_dense = self._projection(query_rank, 1, heads_key, "query", query_shape)
        self._sublayer(self._query_dense)
        self._key_dense = self._projection(len(key_shape), 1, heads_key, "key", key_shape)
        self._sublayer(self._key_dense)
        if self._use_gate:
            self._gate_dense = self._projection(
                query_rank, 1, heads_value, "gate", query_shape, activation="sigmoid"
            )
            self._sublayer(self._gate_dense)
        self._value_dense = self._projection(len(value_shape), 1, heads_value, "value", value_shape)
        self._sublayer(self._value_dense)
        output_rank = len(value_shape) + 1
        self._build_attention(output_rank)
        output_shape = list(self._output_shape) if self._output_shape else [query_shape[-1]]
        projected = list(self._query_dense.compute_output_shape(query_shape))
        projected[-1] = self._value_dim
        self._output_dense = self._projection(
            query_rank, 2, output_shape, "attention_output", tuple(projected)
        )
        self._sublayer(self._output_dense)
        self.built = True

    def _build_attention(self, rank):
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(
                axis if axis >= 0 else (rank - 1) + axis for axis in self._attention_axes
            )
        self._dot_product_equation, self._combine_equation, scores_rank = attention_equations(
            rank, self._attention_axes
        )
        n = len(self._attention_axes)
        self._softmax = self._sublayer(
            Softmax(axis=tuple(range(scores_rank - n, scores_rank)), dtype=self._sublayer_dtype())
        )
        self._dropout_layer = self._sublayer(
            Dropout(rate=self._dropout, dtype=self._sublayer_dtype(), seed=self.seed)
        )

    def _attention_spec(self):
        return (
            self._use_gate,
            self._sliding_window,
            self._inverse_sqrt_key_dim,
            len(self._attention_axes),
            self._dot_product_equation,
            self._combine_equation,
        )

    def _query_mask(self, query, value, key, query_mask):
        # Keras reads the query's mask from the tensor itself, whatever `query_mask` says,
        # and takes the masks off the inputs: this layer has used them.
        query_mask = get_keras_mask(query)
        for x in (query, value, key):
            set_keras_mask(x, None)
        return query_mask

    def _scores_shape(self, query_shape, value_shape, key_shape):
        # Keras 3 states (B, heads, T, T) whatever the key's length and attention axes.
        return (query_shape[0], self._num_heads, query_shape[1], query_shape[1])

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        if self._output_shape:
            return query_shape[:-1] + self._output_shape
        return query_shape

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {
            **config,
            "num_heads": self._num_heads,
            "key_dim": self._key_dim,
            "value_dim": self._value_dim,
            "dropout": self._dropout,
            "use_bias": self._use_bias,
            "use_gate": self._use_gate,
            "output_shape": self._output_shape,
            "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            **self._weights_config(),
            "seed": self.seed,
        }
