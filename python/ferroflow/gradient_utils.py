"""The gradient names around `tf.GradientTape`: `recompute_grad`, `grad_pass_through`,
`AggregationMethod`, the gradient registry (`RegisterGradient`, `no_gradient`) and the graph-mode
`gradients`/`hessians`.

ferroflow's gradient rules belong to its primitives (Rust, `src/autodiff/rules`), and there are no
user-defined ops, so a registered gradient is never called: the registry exists so that programs
that register gradients for their own op names run, and it refuses the names that already have a
gradient decision (TensorFlow's registered op types, ferroflow's primitives, and every earlier
registration) with TensorFlow's `KeyError`. A Python function gets its own gradient from
`tf.custom_gradient`.
"""

import functools

from ferroflow import _core, _tracing
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


def _graph_gradients_unavailable(name):
    if not _tracing.tracing():
        raise RuntimeError(
            "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
            "instead."
        )
    raise NotImplementedError(
        f"tf.{name} inside a tf.function is not supported by ferroflow, which records gradients "
        "on tapes only: compute them with tf.GradientTape inside the function instead."
    )


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
    """Graph-mode gradients. Eagerly TensorFlow raises ``RuntimeError`` (use
    ``tf.GradientTape``); inside a ``tf.function`` ferroflow raises ``NotImplementedError``."""
    _graph_gradients_unavailable("gradients")


def hessians(
    ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
    aggregation_method=None,
):  # fmt: skip
    """Graph-mode Hessians: as `gradients`, use ``tf.GradientTape`` (its ``jacobian``)."""
    _graph_gradients_unavailable("hessians")


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
