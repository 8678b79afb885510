"""The file of `Dataset.cache(filename)`: ferroflow's own layout (the elements as numpy arrays,
pickled into ``filename + ".ffcache"``), not TensorFlow's (a tensor bundle,
``filename.index`` and data shards): a cache is written and read back by the same program,
and neither side reads the other's. Reading rebuilds only containers, numpy values and spec
classes: a file naming anything else is DataLossError, never code run."""

import collections
import pickle
import sys

import numpy as np

from ferroflow import errors

__all__ = ["check_element", "load_pickle"]


def load_pickle(file, path):
    """What `cache` pickled into ``file``, rebuilt by `_Unpickler`; DataLossError for a
    damaged or hostile file."""
    try:
        return _Unpickler(file).load()
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        MemoryError,
        OverflowError,
    ) as e:
        raise errors.DataLossError(None, None, f"{path} is not a cached dataset: {e}") from None


# What a cache file may rebuild: containers, numpy arrays and scalars, and the element spec's
# classes. A file is never trusted to name anything else (unpickling a global is calling it,
# so an open unpickler would run whatever a hostile file names).
_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "complex"}


def _numpy_allowed(found):
    """Whether ``found`` is one of what numpy arrays and scalars pickle as: the array class, a
    dtype class, or numpy's two rebuilding functions (nothing else numpy has, which could be a
    module's entry point)."""
    multiarray = sys.modules["numpy"]._core.multiarray
    if found in (np.ndarray, multiarray._reconstruct, multiarray.scalar):
        return True
    return isinstance(found, type) and issubclass(found, np.dtype)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        from ferroflow.dtypes import DType
        from ferroflow.tensor_shape import TensorShape
        from ferroflow.type_spec import TypeSpec

        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module.split(".")[0] == "numpy":
            # Looked up among modules already imported: naming a module must not import it.
            found = getattr(sys.modules.get(module), name, None)
            if _numpy_allowed(found):
                return found
            raise pickle.UnpicklingError(f"a cached dataset does not hold {module}.{name}")
        if (module, name) == ("ferroflow.dtypes", "as_dtype"):  # how a DType pickles
            return super().find_class(module, name)
        # Only classes of modules already imported: naming a module must not import it.
        found = getattr(sys.modules.get(module), name, None)
        if isinstance(found, type) and (
            issubclass(found, (TypeSpec, DType, TensorShape))
            or found is collections.OrderedDict
            or (issubclass(found, tuple) and hasattr(found, "_fields"))
        ):
            return found
        raise pickle.UnpicklingError(f"a cached dataset does not hold {module}.{name}")


def check_element(arrays, spec):
    """Raises TensorFlow's InvalidArgumentError where a cached element does not match the
    reading dataset's element spec (a cache file another pipeline wrote under the same name):
    a component of another dtype or an incompatible shape, as TensorFlow's cache reader checks
    them, instead of converting the values silently."""
    from ferroflow.data import _structure
    from ferroflow.tensor_spec import TensorSpec

    leaves = []
    try:
        _structure.map_element(lambda value, s: leaves.append((value, s)), arrays, spec)
    except (TypeError, ValueError, KeyError, IndexError):
        raise errors.InvalidArgumentError(
            None, None, "The cached element does not have the structure of the dataset's elements."
        ) from None
    for component, (value, s) in enumerate(leaves):
        pairs = [(value, s)] if isinstance(s, TensorSpec) else zip(value, s._flat_tensor_specs)
        for array, want in pairs:
            _check_component(component, np.asarray(array), want)


def _check_component(component, array, want):
    from ferroflow.data._component_check import check_component
    from ferroflow.dtypes import as_dtype, string

    dtype = string if array.dtype.kind in "OSU" else as_dtype(array.dtype)
    check_component(component, dtype, array.shape, want)
