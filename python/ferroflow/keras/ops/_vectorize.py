"""`keras.ops.vectorize` as Keras 3 gives it on TensorFlow: NumPy's generalized-ufunc rules
(``signature`` such as ``"(m,n),(n)->(m)"`` names core dimensions; the others are loop
dimensions), where the TensorFlow backend cannot map over a loop dimension longer than 1 (it
raises ValueError), so ``pyfunc`` runs once on the inputs with their unit loop dimensions
squeezed, and those dimensions are restored on the outputs. As in Keras, ``excluded`` is
ignored; a None argument whose core dimensions are ``()`` (past the first) is passed through."""

import functools
import re

__all__ = ["vectorize"]

_NAME = r"\w+"
_ARGUMENT = rf"\((?:{_NAME}(?:,{_NAME})*)?\)"
_SIGNATURE = re.compile(rf"^{_ARGUMENT}(?:,{_ARGUMENT})*->{_ARGUMENT}(?:,{_ARGUMENT})*$")


def _parse_signature(signature):
    """``(input core dims, output core dims)``: a tuple of dimension names per argument."""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = signature.split("->")
    return tuple(
        [tuple(re.findall(_NAME, arg)) for arg in re.findall(_ARGUMENT, side)]
        for side in (inputs, outputs)
    )


def _note_core_sizes(sizes, shape, core_dims, is_input):
    """Checks ``shape``'s core dimensions against the sizes seen so far, recording new ones."""
    if is_input and len(shape) < len(core_dims):
        raise ValueError(
            f"input with shape {shape} does not have enough dimensions for all core "
            f"dimensions {core_dims}"
        )
    if not is_input and len(shape) != len(core_dims):
        raise ValueError(f"output shape {shape} does not match core dimensions {core_dims}")
    core_shape = tuple(shape)[len(shape) - len(core_dims) :]
    for dim, size in zip(core_dims, core_shape):
        known = sizes.setdefault(dim, size)
        if size != known:
            raise ValueError(f"inconsistent size for core dimension {dim}: {size} vs {known}")


def _broadcast_shapes(shape1, shape2):
    """Keras's static broadcast of two shapes (None for unknown dimensions)."""
    a, b = list(shape1), list(shape2)
    a = [1] * (len(b) - len(a)) + a
    b = [1] * (len(a) - len(b)) + b
    out = []
    for d1, d2 in zip(a, b):
        if d1 == 1:
            out.append(d2)
        elif d1 is None:
            out.append(None if d2 == 1 else d2)
        elif d2 in (1, None, d1):
            out.append(d1)
        else:
            raise ValueError(
                f"Cannot broadcast shape, the failure dim has value {d1}, which cannot be "
                f"broadcasted to {d2}. Input shapes are: {list(shape1)} and {list(shape2)}."
            )
    return out


def _checked_outputs(func, sizes, output_core_dims):
    """``func`` whose outputs are checked against the signature's output core dimensions."""

    def call(*args):
        out = func(*args)
        shapes = [tuple(o.shape) for o in out] if isinstance(out, list | tuple) else [out.shape]
        if output_core_dims is None:
            # Without a signature every output is a scalar.
            return _check_output_shapes(out, shapes, [()] * len(shapes), sizes)
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(
                f"output must be a tuple when multiple outputs are expected, got: {out}"
            )
        if len(shapes) != len(output_core_dims):
            raise TypeError(
                f"wrong number of output arguments: expected {len(output_core_dims)}, got "
                f"{len(shapes)}"
            )
        return _check_output_shapes(out, shapes, output_core_dims, sizes)

    return call


def _check_output_shapes(out, shapes, output_core_dims, sizes):
    seen = dict(sizes)
    for shape, core_dims in zip(shapes, output_core_dims):
        _note_core_sizes(seen, shape, core_dims, is_input=False)
    return out


def _without(func, positions, args):
    """``func`` taking ``args`` minus those at ``positions``, which it puts back."""
    fixed = [(i, args[i]) for i in sorted(positions) if i < len(args)]

    def call(*rest):
        rest = list(rest)
        for i, arg in fixed:
            rest.insert(i, arg)
        return func(*rest)

    return call, [arg for i, arg in enumerate(args) if i not in positions]


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` applied as a generalized ufunc over its inputs' loop dimensions (only unit
    loop dimensions under TensorFlow, as in Keras); ``signature`` names core dimensions."""
    from ferroflow.keras.ops.core import convert_to_tensor
    from ferroflow.keras.ops.numpy import expand_dims, squeeze

    if not callable(pyfunc):
        raise ValueError(f"Expected argument `pyfunc` to be a callable. Received: pyfunc={pyfunc}")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        # Keras's backend drops keyword arguments here: ``pyfunc`` gets only the positional.
        del kwargs
        func = pyfunc
        if signature is None:
            input_core_dims, output_core_dims = [()] * len(args), None
        else:
            input_core_dims, output_core_dims = _parse_signature(signature)
        passed_none = {i for i, arg in enumerate(args) if arg is None}
        # Keras tests the set's truth with `any`, so a None first argument is not passed
        # through (it fails to convert to a tensor), as there.
        if any(passed_none):
            if any(input_core_dims[i] != () for i in passed_none):
                raise ValueError(
                    f"Cannot pass None at locations {passed_none} with signature={signature}"
                )
            func, args = _without(func, passed_none, args)
            input_core_dims = [d for i, d in enumerate(input_core_dims) if i not in passed_none]
        args = [convert_to_tensor(arg) for arg in args]
        if len(args) != len(input_core_dims):
            raise TypeError(
                f"wrong number of positional arguments: expected {len(input_core_dims)}, got "
                f"{len(args)}"
            )
        sizes = {}
        loop_shapes = []
        for arg, core_dims in zip(args, input_core_dims):
            _note_core_sizes(sizes, arg.shape, core_dims, is_input=True)
            loop_shapes.append(list(arg.shape)[: len(arg.shape) - len(core_dims)])
        broadcast = loop_shapes[0]
        for shape in loop_shapes:
            broadcast = _broadcast_shapes(broadcast, shape)
        func = _checked_outputs(func, sizes, output_core_dims)
        squeezed, reversed_shapes = [], []
        for arg, shape in zip(args, loop_shapes):
            reversed_shapes.append(([1] * (len(broadcast) - len(shape)) + shape)[::-1])
            # Keras squeezes with `axis=()` when no loop dimension is 1, which under
            # TensorFlow squeezes every unit dimension, core ones included.
            units = tuple(i for i, size in enumerate(shape) if size == 1)
            squeezed.append(squeeze(arg, axis=units or None))
        restore = []
        for negative, loop_sizes in enumerate(zip(*reversed_shapes)):
            if any(size != 1 for size in loop_sizes):
                raise ValueError("Not supported with `vectorize()` with the TensorFlow backend.")
            restore.append(len(broadcast) - 1 - negative)
        result = func(*squeezed)
        if not restore:
            return result
        if isinstance(result, tuple):
            return tuple(expand_dims(r, axis=restore) for r in result)
        return expand_dims(result, axis=restore)

    return wrapped
