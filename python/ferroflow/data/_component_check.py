"""TensorFlow's check of a stored component against the element spec it is read as (its cache
and snapshot readers): another dtype or an incompatible shape is InvalidArgumentError naming
the component, never a silent conversion."""

from ferroflow import errors

__all__ = ["check_component", "check_dtype", "check_shape", "kernel_name"]


def check_component(component, dtype, shape, want):
    """Raises TensorFlow's error where a component of ``dtype`` and ``shape`` (a tuple) does
    not match the `TensorSpec` ``want``."""
    check_dtype(component, dtype, want)
    check_shape(component, shape, want)


def check_dtype(component, dtype, want):
    if dtype != want.dtype:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Data type mismatch at component {component}: expected {kernel_name(want.dtype)} "
            f"but got {kernel_name(dtype)}.",
        )


def check_shape(component, shape, want):
    if not want.shape.is_compatible_with(shape):
        dims = ",".join("?" if d is None else str(d) for d in want.shape.as_list())
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes at component {component}: expected [{dims}] but got "
            f"[{','.join(str(d) for d in shape)}].",
        )


def kernel_name(dtype):
    """A dtype as TensorFlow's kernels name it in messages (float, double, half...)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)
