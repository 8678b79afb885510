"""What a model's exported endpoint takes: Keras 3's ``get_input_signature`` (from a functional
model's inputs, a Sequential model's, or the shapes a subclassed model was first called with,
batch dimension None throughout) and the conversions of specs, KerasTensors and tensors to
`tf.TensorSpec`s that `ExportArchive.add_endpoint` applies to an input signature."""

from ferroflow.keras import tree

__all__ = ["get_input_signature", "make_input_spec", "make_tf_tensor_spec"]


def get_input_signature(model):
    """The input signature `Model.export` uses when none is given (always a list)."""
    from ferroflow.keras.models.functional import Functional
    from ferroflow.keras.models.model import Model
    from ferroflow.keras.models.sequential import Sequential

    if not isinstance(model, Model):
        raise TypeError(
            f"The model must be a `keras.Model`. Received: model={model} of the type {type(model)}"
        )
    if not model.built:
        raise ValueError(
            "The model provided has not yet been built. It must be built before export."
        )
    if isinstance(model, Functional):
        # One positional argument holding the whole input structure, as Keras's functional
        # models are called.
        return [tree.map_structure(make_input_spec, model._inputs_struct)]
    if isinstance(model, Sequential):
        return tree.map_structure(make_input_spec, model.inputs)
    signature = _signature_from_build_shapes(model)
    if not signature or not _was_called(model):
        raise ValueError(
            "The model provided has never called. It must be called at least once before export."
        )
    return signature


def _was_called(model):
    """Keras's ``model._called``: a call on tensors (which records the first call's specs) or
    on KerasTensors (which records a node)."""
    state = vars(model)
    return state.get("_first_call_specs") is not None or bool(state.get("_inbound_nodes"))


def _signature_from_build_shapes(model):
    """One InputSpec structure per argument ``build`` recorded, batch dimension None."""
    from ferroflow.keras.layers.input_spec import InputSpec

    shapes = vars(model).get("_build_shapes_dict")
    if not shapes:
        return None

    def spec(structure):
        if isinstance(structure, dict):
            return {key: spec(value) for key, value in structure.items()}
        if isinstance(structure, (tuple, list)):
            if all(isinstance(d, (int, type(None))) for d in structure):
                batchless = type(structure)([None]) + type(structure)(structure[1:])
                return InputSpec(shape=batchless, dtype=model.input_dtype)
            return type(structure)(spec(value) for value in structure)
        raise ValueError(f"Unsupported type {type(structure)} for {structure}")

    return [spec(value) for value in shapes.values()]


def make_input_spec(x):
    """An `InputSpec` (shape and dtype, batch dimension None) for an InputSpec, a KerasTensor
    (keeping its name) or a tensor."""
    from ferroflow.array_ops import is_tensor
    from ferroflow.keras.layers.input_layer import KerasTensor
    from ferroflow.keras.layers.input_spec import InputSpec

    if isinstance(x, InputSpec):
        if x.shape is None or x.dtype is None:
            raise ValueError(f"The `shape` and `dtype` must be provided. Received: x={x}")
        return x
    if isinstance(x, KerasTensor) or is_tensor(x):
        shape = (None, *tuple(x.shape)[1:])
        dtype = getattr(x.dtype, "name", x.dtype)
        name = x.name if isinstance(x, KerasTensor) else None
        return InputSpec(dtype=dtype, shape=shape, name=name)
    raise TypeError(
        f"Unsupported x={x} of the type ({type(x)}). Supported types are: "
        "`keras.InputSpec`, `keras.KerasTensor` and backend tensor."
    )


def make_tf_tensor_spec(x):
    """A `tf.TensorSpec` for a TensorSpec (as it is), an InputSpec, a KerasTensor or a
    tensor."""
    from ferroflow.tensor_spec import TensorSpec

    if isinstance(x, TensorSpec):
        return x
    spec = make_input_spec(x)
    return TensorSpec(spec.shape, dtype=spec.dtype, name=spec.name)
