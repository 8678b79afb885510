"""`tf.saved_model.load` of a directory TensorFlow wrote (`saved_model.pb`): the Rust core reads
it and runs its signatures by interpreting their functions (`src/saved_model/tensorflow/`);
this module presents them as TensorFlow's loaded object does, with ``.signatures`` mapping each
key to a function of keyword tensors that returns a dict of tensors.

Only the signatures are restored so far: the saved object tree (methods, nested modules,
variables as attributes) of TensorFlow-written directories is not rebuilt yet."""

from ferroflow import _core
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor
from ferroflow.saved_model.restored import SignatureMap, UserObject
from ferroflow.tensor_spec import TensorSpec
from ferroflow.variables import adopt

__all__ = ["load_tensorflow_format"]


def _spec(key, dtype, dims):
    return TensorSpec(dims, _dtypes.as_dtype(dtype), key)


class InterpretedSignature:
    """One signature of a TensorFlow-written SavedModel, called with keyword arguments."""

    def __init__(self, core, name):
        self._core = core
        self.name = name
        inputs, outputs = core.signature_specs(name)
        self._inputs = {key: _spec(key, dtype, dims) for key, dtype, dims in inputs}
        self._outputs = {key: _spec(key, dtype, dims) for key, dtype, dims in outputs}

    @property
    def structured_input_signature(self):
        return (), dict(self._inputs)

    @property
    def structured_outputs(self):
        return dict(self._outputs)

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(
                f"signature_wrapper_{self.name}(*, {', '.join(self._inputs)}) takes keyword "
                f"arguments only; got {len(args)} positional argument(s)"
            )
        missing = [key for key in self._inputs if key not in kwargs]
        if missing:
            raise TypeError(
                f"signature_wrapper_{self.name}() missing required arguments: {', '.join(missing)}"
            )
        unexpected = [key for key in kwargs if key not in self._inputs]
        if unexpected:
            raise TypeError(
                f"signature_wrapper_{self.name}() got unexpected keyword arguments: "
                f"{', '.join(unexpected)}"
            )
        keys = list(self._inputs)
        values = [convert_to_tensor(kwargs[k], dtype=self._inputs[k].dtype) for k in keys]
        for key, value in zip(keys, values):
            spec = self._inputs[key]
            if not spec.shape.is_compatible_with(value.shape):
                given = TensorSpec(value.shape, value.dtype, key)
                raise TypeError(
                    "Binding inputs to tf.function failed due to `Can not cast "
                    f"{given} to {spec}`. Received args: () and kwargs: "
                    f"{ {k: kwargs[k] for k in keys} } for signature: {self}."
                )
        return dict(self._core.call_signature(self.name, keys, values))

    def __repr__(self):
        return f"<ConcreteFunction signature_wrapper_{self.name}(*, {', '.join(self._inputs)})>"


def load_tensorflow_format(local_dir):
    """The loaded object of a TensorFlow-written SavedModel in ``local_dir``."""
    core = _core.TfSavedModel(local_dir)
    root = UserObject()
    signatures = {name: InterpretedSignature(core, name) for name in core.signature_names()}
    object.__setattr__(root, "signatures", SignatureMap(signatures))
    object.__setattr__(root, "_restored_variables", [adopt(v) for v in core.variables()])
    return root
