"""`tf.keras.Input`, `tf.keras.layers.InputLayer` and `KerasTensor`: the symbolic tensors a
functional model is wired with. A `KerasTensor` has a shape and a dtype but no values; calling
a layer on one records the call (see `keras/_symbolic.py`) instead of computing."""

from ferroflow import dtypes as _dtypes
from ferroflow.keras.layers.layer import Layer, unique_name
from ferroflow.tensor_shape import TensorShape

__all__ = ["Input", "InputLayer", "KerasTensor", "KerasTensorUseError"]


class KerasTensorUseError(TypeError, ValueError):
    """A `KerasTensor` passed where values are needed. Keras raises ValueError here; it is a
    TypeError too, the error Python code expects for an argument of the wrong kind."""


_TF_FUNCTION_MESSAGE = (
    "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a "
    "symbolic placeholder for a shape and dtype, used when constructing Keras Functional "
    "models. You can only use it as input to a Keras layer or with Python operators (`+`, "
    "`*`, `@`, `x[...]`...). You are likely doing something like:\n\n"
    "```\nx = Input(...)\n...\ntf_fn(x)  # Invalid.\n```\n\n"
    "What you should do instead is wrap `tf_fn` in a layer:\n\n"
    "```\nx = tf.keras.layers.Lambda(tf_fn)(x)\n```\n\n"
    "or subclass `tf.keras.layers.Layer` and call `tf_fn` in its `call` method."
)

_NO_VALUE = (
    "A KerasTensor is symbolic: it's a placeholder for a shape and a dtype. It doesn't have any "
    "actual numerical value. You cannot convert it to {}."
)


def _standardize_shape(shape):
    if shape is None:
        raise ValueError("Undefined shapes are not supported.")
    if isinstance(shape, TensorShape):
        if shape.rank is None:
            raise ValueError("Undefined shapes are not supported.")
        shape = shape.as_list()
    if isinstance(shape, str) or not hasattr(shape, "__iter__"):
        raise ValueError(f"Cannot convert '{shape}' to a shape.")
    dims = []
    for d in shape:
        if d is None:
            dims.append(None)
            continue
        if isinstance(d, bool) or not hasattr(d, "__index__"):
            raise ValueError(
                f"Cannot convert '{tuple(shape)}' to a shape. Found invalid entry '{d}' of type "
                f"'{type(d)}'. "
            )
        if int(d) < 0:
            raise ValueError(
                f"Cannot convert '{tuple(shape)}' to a shape. Negative dimensions are not allowed."
            )
        dims.append(int(d))
    return tuple(dims)


class KerasTensor:
    """A symbolic tensor: a shape (a tuple, batch dimension usually None) and a dtype name.
    Layers called on KerasTensors return KerasTensors; `tf.keras.Model(inputs,
    outputs)` turns the recorded calls into a model."""

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, name=None):
        self._shape = TensorShape(_standardize_shape(shape))
        self._dtype = _dtypes.as_dtype(dtype or "float32")
        self._sparse = bool(sparse)
        self._ragged = bool(ragged)
        self.name = name or unique_name("keras_tensor")
        # (operation, node_index, tensor_index) of the call that made this tensor.
        self._keras_history = None

    @property
    def shape(self):
        """The shape as a tuple, ``None`` for unknown dims (Keras 3 prints ``(None, 784)``)."""
        return tuple(self._shape.as_list())

    @property
    def dtype(self):
        """The dtype's name, as Keras 3 gives it (``'float32'``)."""
        return self._dtype.name

    @property
    def ndim(self):
        return self._shape.rank

    @property
    def sparse(self):
        return self._sparse

    @property
    def ragged(self):
        return self._ragged

    def get_shape(self):
        return self._shape  # TensorFlow's form, a TensorShape

    # --- no values ----------------------------------------------------------------------------

    # NumPy arrays then leave ``array + keras_tensor`` to the KerasTensor's reflected operator.
    __array_ufunc__ = None

    def __tf_tensor__(self, dtype=None, name=None):
        raise KerasTensorUseError(_TF_FUNCTION_MESSAGE)

    def __array__(self, dtype=None, copy=None):
        raise KerasTensorUseError(_NO_VALUE.format("a NumPy array"))

    def __int__(self):
        raise ValueError(_NO_VALUE.format("an int"))

    def __float__(self):
        raise ValueError(_NO_VALUE.format("a float"))

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    def numpy(self):
        raise KerasTensorUseError(_NO_VALUE.format("a NumPy array"))

    def __repr__(self):
        return (
            f"<KerasTensor shape={tuple(self._shape)}, dtype={self._dtype.name}, "
            f"sparse={self._sparse}, ragged={self._ragged}, name={self.name}>"
        )

    # --- operators: recorded as operations of the functional graph ---------------------------

    def _apply(self, operation, *args):
        from ferroflow.keras import _operations

        return _operations.OPERATIONS[operation]()(*args)

    def __add__(self, other):
        return self._apply("Add", self, other)

    def __radd__(self, other):
        return self._apply("Add", other, self)

    def __sub__(self, other):
        return self._apply("Subtract", self, other)

    def __rsub__(self, other):
        return self._apply("Subtract", other, self)

    def __mul__(self, other):
        return self._apply("Multiply", self, other)

    def __rmul__(self, other):
        return self._apply("Multiply", other, self)

    def __matmul__(self, other):
        return self._apply("Matmul", self, other)

    def __rmatmul__(self, other):
        return self._apply("Matmul", other, self)

    def __truediv__(self, other):
        return self._apply("TrueDivide", self, other)

    def __rtruediv__(self, other):
        return self._apply("TrueDivide", other, self)

    def __floordiv__(self, other):
        return self._apply("FloorDivide", self, other)

    def __rfloordiv__(self, other):
        return self._apply("FloorDivide", other, self)

    def __mod__(self, other):
        return self._apply("Mod", self, other)

    def __rmod__(self, other):
        return self._apply("Mod", other, self)

    def __pow__(self, other):
        return self._apply("Power", self, other)

    def __rpow__(self, other):
        return self._apply("Power", other, self)

    def __neg__(self):
        return self._apply("Negative", self)

    def __abs__(self):
        return self._apply("Absolute", self)

    def __lt__(self, other):
        return self._apply("Less", self, other)

    def __le__(self, other):
        return self._apply("LessEqual", self, other)

    def __gt__(self, other):
        return self._apply("Greater", self, other)

    def __ge__(self, other):
        return self._apply("GreaterEqual", self, other)

    # As in Keras, `!=` is symbolic while `==` keeps Python's identity (KerasTensors are
    # dictionary keys and list members throughout the graph code).
    def __ne__(self, other):
        return self._apply("NotEqual", self, other)

    __hash__ = object.__hash__

    def __and__(self, other):
        return self._apply("LogicalAnd", self, other)

    def __rand__(self, other):
        return self._apply("LogicalAnd", other, self)

    def __or__(self, other):
        return self._apply("LogicalOr", self, other)

    def __ror__(self, other):
        return self._apply("LogicalOr", other, self)

    def __xor__(self, other):
        return self._apply("LogicalXor", self, other)

    def __rxor__(self, other):
        return self._apply("LogicalXor", other, self)

    def __invert__(self):
        return self._apply("LogicalNot", self)

    def __getitem__(self, key):
        return self._apply("GetItem", self, key)

    def __round__(self, ndigits=None):
        from ferroflow.keras import _operations

        return _operations.Round(decimals=ndigits or 0)(self)


class InputLayer(Layer):
    """The layer behind `tf.keras.Input`: it holds the input `KerasTensor` of a functional or
    Sequential model and has no weights."""

    _no_dependency_attributes = Layer._no_dependency_attributes | frozenset(
        {"_batch_shape", "_input_tensor", "_inbound_nodes", "sparse", "ragged", "optional"}
    )

    def __init__(
        self,
        shape=None,
        batch_size=None,
        dtype=None,
        sparse=None,
        ragged=None,
        batch_shape=None,
        input_tensor=None,
        optional=False,
        name=None,
        **kwargs,
    ):
        from ferroflow.keras._symbolic import Node

        if "input_shape" in kwargs:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments passed to InputLayer: {kwargs}")
        if input_tensor is not None:
            if not isinstance(input_tensor, KerasTensor):
                raise ValueError(
                    "Argument `input_tensor` must be a KerasTensor. Received invalid type: "
                    f"input_tensor={input_tensor} (of type {type(input_tensor)})"
                )
            batch_shape = tuple(input_tensor.shape)
            dtype = input_tensor.dtype
            sparse = input_tensor.sparse
        else:
            if shape is not None and batch_shape is not None:
                raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
            if batch_size is not None and batch_shape is not None:
                raise ValueError(
                    "You cannot pass both `batch_size` and `batch_shape` at the same time."
                )
            if shape is None and batch_shape is None:
                raise ValueError("You must pass a `shape` argument.")
            if shape is not None:
                batch_shape = (batch_size, *_standardize_shape(shape))
        super().__init__(name=name, dtype=dtype)
        self._batch_shape = _standardize_shape(batch_shape)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.optional = bool(optional)
        if input_tensor is None:
            input_tensor = KerasTensor(
                self._batch_shape, dtype=self._dtype, sparse=sparse, ragged=ragged, name=name
            )
        self._input_tensor = input_tensor
        Node(self, outputs=input_tensor)
        self.built = True

    def call(self, inputs=None):
        return inputs

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def output(self):
        return self._input_tensor

    def get_config(self):
        return {
            "batch_shape": self._batch_shape,
            "dtype": self.dtype,
            "sparse": self.sparse,
            "ragged": self.ragged,
            "name": self.name,
            "optional": self.optional,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def Input(  # noqa: N802 - Keras's name
    shape=None,
    batch_size=None,
    dtype=None,
    sparse=None,
    ragged=None,
    batch_shape=None,
    name=None,
    tensor=None,
    optional=False,
):
    """A symbolic input of a functional model: a `KerasTensor` of shape
    ``(batch_size, *shape)`` (batch_size None unless given).

    >>> import ferroflow as tf
    >>> x = tf.keras.Input(shape=(3,), name="features")
    >>> x.shape, x.dtype, x.name
    ((None, 3), 'float32', 'features')
    """
    layer = InputLayer(
        shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        sparse=sparse,
        ragged=ragged,
        batch_shape=batch_shape,
        name=name,
        input_tensor=tensor,
        optional=optional,
    )
    return layer.output
