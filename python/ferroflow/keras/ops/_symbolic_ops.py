"""`keras.ops` on `KerasTensor`s: as in Keras 3, an op called on symbolic inputs records an
operation node in the functional graph (named like Keras's operation class, e.g. ``Relu``)
whose output shapes come from ferroflow's shape inference; on tensors it just computes."""

import functools

from ferroflow.keras._operations import Operation
from ferroflow.keras.ops._encoding_specs import OUTPUT_SPECS

# Ops that take functions or give Python values rather than tensors stay as they are.
VALUE_ONLY = frozenset(
    {
        "associative_scan", "cond", "convert_to_numpy", "custom_gradient", "dtype", "fori_loop",
        "is_tensor", "jvp", "map", "scan", "shape", "switch", "vectorize", "vectorized_map",
        "while_loop",
    }
)  # fmt: skip


def _class_name(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def symbolic_aware(fn, name, keras_module):
    """``fn`` (the op ``name``) recording a node when any argument is a `KerasTensor`."""
    attributes = {
        "call": lambda self, *args, **kwargs: fn(*args, **kwargs),
        "__doc__": f"Keras's `{_class_name(name)}` operation.",
        "__module__": keras_module,
    }
    spec = OUTPUT_SPECS.get(name)
    if spec is not None:
        # Keras's own statement of the outputs, used instead of running the op.
        attributes["compute_output_spec"] = lambda self, *args, **kwargs: spec(*args, **kwargs)
    cls = type(_class_name(name), (Operation,), attributes)

    @functools.wraps(fn)
    def op(*args, **kwargs):  # noqa: D401 - the op's own docstring is kept
        from ferroflow.keras import _symbolic

        if args and _symbolic.any_symbolic([args, kwargs]):
            return cls()(*args, **kwargs)
        return fn(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.operation_class = cls
    return op


def wrap_module(module, keras_module):
    """Replaces each public op of ``module`` by its symbolic-aware form."""
    for name in module.__all__:
        if name not in VALUE_ONLY:
            setattr(module, name, symbolic_aware(getattr(module, name), name, keras_module))
