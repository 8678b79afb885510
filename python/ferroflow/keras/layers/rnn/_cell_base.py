"""What Keras 3's SimpleRNN, LSTM and GRU cells (and their layers) share: the arguments of
their three weights (kernel, recurrent kernel, bias), dropout rates, and configs."""

from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers import _config
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.rnn.dropout_rnn_cell import DropoutRNNCell

__all__ = [
    "CELL_ATTRIBUTES",
    "RecurrentCell",
    "build_cell_and_rnn",
    "forward_to_cell",
    "recurrent_layer_config",
]

# The weight arguments every cell takes, in Keras's config order.
_WEIGHT_ARGS = ("kernel", "recurrent", "bias")


class RecurrentCell(Layer, DropoutRNNCell):
    """Base of the built-in cells: validates ``units``, resolves initializers, regularizers
    and constraints, clips the dropout rates into [0, 1]."""

    gates = 1

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        from ferroflow.keras import activations, initializers, regularizers

        if units <= 0:
            raise ValueError(
                "Received an invalid value for argument `units`, expected a positive integer, "
                f"got {units}."
            )
        super().__init__(**kwargs)
        self.units = units
        self.seed = seed
        self.seed_generator = SeedGenerator(seed)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = _config.get_constraint(kernel_constraint)
        self.recurrent_constraint = _config.get_constraint(recurrent_constraint)
        self.bias_constraint = _config.get_constraint(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))

    def _add_cell_weights(self, kernel_shape, recurrent_shape, bias_shape, bias_initializer=None):
        """Adds ``kernel``, ``recurrent_kernel`` and (with ``use_bias``) ``bias``."""
        self.kernel = self.add_weight(
            shape=kernel_shape,
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=recurrent_shape,
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=bias_shape,
                name="bias",
                initializer=bias_initializer or self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def get_initial_state(self, batch_size=None):
        """Zeros of ``(batch_size, size)`` for each state."""
        from ferroflow.array_ops import zeros

        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [zeros((batch_size, d), dtype=self.compute_dtype) for d in sizes]

    def get_config(self):
        return {**super().get_config(), **_arguments_config(self), "seed": self.seed}


def _arguments_config(source, with_activity=False):
    """The shared arguments of ``source`` (a cell, or a layer forwarding to one), in the
    order Keras writes them; ``units``, ``recurrent_activation`` and ``unit_forget_bias``
    where present."""
    config = {"units": source.units} if hasattr(source, "units") else {}
    config["activation"] = _config.serialize_activation(source.activation)
    if hasattr(source, "recurrent_activation"):
        config["recurrent_activation"] = _config.serialize_activation(source.recurrent_activation)
    config["use_bias"] = source.use_bias
    for name in _WEIGHT_ARGS:
        config[f"{name}_initializer"] = _config.serialize_initializer(
            getattr(source, f"{name}_initializer")
        )
    if hasattr(source, "unit_forget_bias"):
        config["unit_forget_bias"] = source.unit_forget_bias
    for name in _WEIGHT_ARGS:
        config[f"{name}_regularizer"] = _config.serialize_regularizer(
            getattr(source, f"{name}_regularizer")
        )
    if with_activity:
        config["activity_regularizer"] = _config.serialize_regularizer(source.activity_regularizer)
    for name in _WEIGHT_ARGS:
        config[f"{name}_constraint"] = _config.serialize_constraint(
            getattr(source, f"{name}_constraint")
        )
    config["dropout"] = source.dropout
    config["recurrent_dropout"] = source.recurrent_dropout
    return config


def recurrent_layer_config(layer, base_config):
    """A SimpleRNN/LSTM/GRU layer's config: the RNN arguments without ``cell``, then the
    cell's arguments (with ``activity_regularizer``)."""
    base_config = dict(base_config)
    base_config.pop("cell", None)
    base_config.pop("activity_regularizer", None)
    return {**base_config, **_arguments_config(layer, with_activity=True)}


def forward_to_cell(cls, names):
    """Read-only properties of ``cls`` that return the cell's attribute of the same name."""
    for name in names:
        setattr(cls, name, property(lambda self, n=name: getattr(self.cell, n)))
    return cls


CELL_ATTRIBUTES = (
    "units",
    "activation",
    "use_bias",
    "kernel_initializer",
    "recurrent_initializer",
    "bias_initializer",
    "kernel_regularizer",
    "recurrent_regularizer",
    "bias_regularizer",
    "kernel_constraint",
    "recurrent_constraint",
    "bias_constraint",
    "dropout",
    "recurrent_dropout",
)


_RNN_ARGUMENTS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


def build_cell_and_rnn(layer, cell_class, cell_name, arguments, extra_cell_arguments=()):
    """The body of a SimpleRNN/LSTM/GRU constructor: makes the cell from the layer's own
    arguments (``arguments`` is the constructor's ``locals()``) and initialises the `RNN`.
    Gated cells also take Keras's ``implementation`` keyword."""
    from ferroflow.keras.layers.rnn.rnn import RNN

    kwargs = dict(arguments["kwargs"])
    cell_kwargs = {name: arguments[name] for name in (*CELL_ATTRIBUTES[1:], "seed")}
    cell_kwargs.update({name: arguments[name] for name in extra_cell_arguments})
    if cell_class.gates > 1:
        cell_kwargs["implementation"] = kwargs.pop("implementation", 2)
    cell = cell_class(
        arguments["units"],
        **cell_kwargs,
        dtype=kwargs.get("dtype"),
        trainable=kwargs.get("trainable", True),
        name=cell_name,
    )
    RNN.__init__(
        layer,
        cell,
        **{name: arguments[name] for name in _RNN_ARGUMENTS},
        activity_regularizer=arguments["activity_regularizer"],
        **kwargs,
    )
