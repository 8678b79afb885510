"""The gradient names around `tf.GradientTape`: `recompute_grad`, `grad_pass_through`,
`AggregationMethod`, the gradient registry (`RegisterGradient`, `no_gradient`) and the graph-mode
`gradients`/`hessians` (asked of the tape a traced function records on, `_graph_tape`).

ferroflow's gradient rules belong to its primitives (Rust, `src/autodiff/rules`), and there are no
user-defined ops, so a registered gradient is never called: the registry exists so that programs
that register gradients for their own op names run, and it refuses the names that already have a
gradient decision (TensorFlow's registered op types, ferroflow's primitives, and every earlier
registration) with TensorFlow's `KeyError`. A Python function gets its own gradient from
`tf.custom_gradient`.
"""

import functools

from ferroflow import _core, _tracing
from ferroflow import _graph_tape as _graph_tape_module
from ferroflow import array_ops as _array_ops
from ferroflow._gradient_op_names import TENSORFLOW_GRADIENT_OPS
from ferroflow.backprop import GradientTape, UnconnectedGradients, custom_gradient

__all__ = [
    "AggregationMethod",
    "RegisterGradient",
    "grad_pass_through",
    "gradients",
    "hessians",
    "no_gradient",
    "recompute_grad",
]


class AggregationMethod:
    """How graph-mode `tf.gradients` sums the gradients of a tensor used several times. ferroflow's
    tapes always add them pairwise as they arrive (TensorFlow's `ADD_N` gives the same sums)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_REGISTERED = {}


def _known_op_names():
    names = set(TENSORFLOW_GRADIENT_OPS)
    for _family, ops in _core.op_registry():
        names.update(ops)
    return names


def _register(op_type, value):
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in _REGISTERED or op_type in _known_op_names():
        raise KeyError(
            f"Registering two gradient with name '{op_type}'! (Previous registration was in "
            "ferroflow's op registry or an earlier RegisterGradient/no_gradient call)"
        )
    _REGISTERED[op_type] = value


class RegisterGradient:
    """Decorator registering a gradient function for an op type (``f(op, *grads)``).

    ferroflow has no user-defined ops, so the function is kept but never called; a name that
    already has a gradient raises ``KeyError`` as in TensorFlow. Use ``tf.custom_gradient`` to give
    a Python function its own gradient.
    """

    __slots__ = ["_op_type"]

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        _register(self._op_type, f)
        return f


def no_gradient(op_type):
    """Declares that ops of type ``op_type`` have no gradient (see `RegisterGradient`)."""
    _register(op_type, None)


def _graph_tape(name):
    """The traced function's tape (`_graph_tape`); eagerly TensorFlow's RuntimeError."""
    tape = _graph_tape_module.innermost() if _tracing.tracing() else None
    if tape is None:
        raise RuntimeError(
            f"tf.{name} is not supported when eager execution is enabled. Use tf.GradientTape "
            "instead."
        )
    view = GradientTape.__new__(GradientTape)
    view._tape, view._persistent, view._recording = tape, True, False
    return view


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=UnconnectedGradients.NONE,
):
    """Graph-mode gradients inside a ``tf.function``: the sum of ``ys``' gradients (seeded by
    ``grad_ys``) with respect to each of ``xs``, as a list. Eagerly TensorFlow raises
    ``RuntimeError`` (use ``tf.GradientTape``). ``stop_gradients`` are values the gradient
    does not pass back through (each still gets its own gradient)."""
    tape = _graph_tape("gradients")
    ys, xs = _as_list(ys), _as_list(xs)
    seeds = None
    if grad_ys is not None:
        seeds = _as_list(grad_ys)
        if len(seeds) != len(ys):
            raise ValueError(f"Passed {len(seeds)} grad_ys for {len(ys)} ys")
    stops = None if stop_gradients is None else _as_list(stop_gradients)
    return tape._gradient(ys, xs, seeds, unconnected_gradients, stops)


def hessians(
    ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
    aggregation_method=None,
):  # fmt: skip
    """Graph-mode Hessians inside a ``tf.function``: for each of ``xs``, the Hessian of the
    sum of ``ys``, shaped ``x.shape + x.shape``."""
    tape = _graph_tape("hessians")
    ys, xs = _as_list(ys), _as_list(xs)
    out = []
    for x, g in zip(xs, tape.gradient(ys, xs)):
        out.append(None if g is None else tape.jacobian(g, x))
    return out


def grad_pass_through(f):
    """``f`` forward, an identity backward: the gradients of ``f(*x)``'s outputs pass to ``x``
    unchanged, and the variables ``f`` uses get none.

    >>> import ferroflow as tf
    >>> z = tf.Variable(3.0)
    >>> with tf.GradientTape() as tape:
    ...     y = tf.grad_pass_through(tf.round)(z**2)
    >>> float(tape.gradient(y, z))
    6.0
    """

    @custom_gradient
    def _grad_pass_through_op(*args, **kwargs):
        def grad(*upstream, variables=None):
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        return f(*args, **kwargs), grad

    return functools.wraps(f)(_grad_pass_through_op)


def recompute_grad(f):
    """``f`` whose intermediate values are not kept for the backward pass: tapes record one entry
    for the call (its inputs and outputs), and the gradient runs ``f`` again under a tape of its
    own. Gradients are ``f``'s; memory falls from every intermediate of ``f`` to its inputs.

    >>> import ferroflow as tf
    >>> y = tf.Variable(2.0)
    >>> step = tf.recompute_grad(lambda x: tf.sin(x * y))
    >>> with tf.GradientTape() as tape:
    ...     r = step(step(tf.constant(1.0)))
    >>> round(float(tape.gradient(r, y)), 6)
    -0.018887
    """

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        @custom_gradient
        def inner(*inputs):
            result = f(*inputs, **kwargs)

            def grad(*upstream, variables=None):
                variables = list(variables or [])
                with GradientTape() as tape:
                    again = [_array_ops.identity(x) for x in inputs]
                    tape.watch(again)
                    tape.watch(variables)
                    recomputed = f(*again, **kwargs)
                grads = tape.gradient(
                    recomputed,
                    again + variables,
                    output_gradients=list(upstream),
                    unconnected_gradients=UnconnectedGradients.ZERO,
                )
                if variables:
                    return grads[: len(again)], grads[len(again) :]
                return grads

            return result, grad

        return inner(*args)

    return wrapped
