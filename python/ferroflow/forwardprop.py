"""`tf.autodiff.ForwardAccumulator`: Jacobian-vector products (forward-mode autodiff).

TensorFlow computes most ops' JVPs as the transpose of their VJP ("double VJP": for a linear
stand-in `u` of the output's gradient, `vjp(u) = J^H u` is linear in `u`, so the gradient with
respect to `u` of `<vjp(u), tangent>` is `J tangent`). ferroflow applies the same identity to
the whole computation instead of op by op: the accumulator is a persistent tape that records the
ops run in its context, and `jvp(y)` runs one backward pass of it seeded with `u` (recorded on a
tape that watches `u`) and one backward pass of that tape. The values are the JVPs TensorFlow's
per-op rules give.

Nesting follows TensorFlow's order rules: the JVP computation is recorded by the tapes and
accumulators entered before this accumulator (they are re-entered for it when they have been
left, since TensorFlow computed the JVP while they were recording) and never by those entered
after it, nor by the accumulator itself.

*Departures:* a JVP is computed when `jvp()` asks for it, not as the ops run, so the
accumulator keeps the forward values alive until it is dropped (TensorFlow keeps only the
tangents), and each `jvp()` call costs two backward passes.
"""

import contextlib

from ferroflow import _core, nest
from ferroflow import array_ops as _array_ops
from ferroflow import backprop as _backprop
from ferroflow import math as _math

__all__ = ["ForwardAccumulator"]


def _is_floating_or_complex(value):
    dtype = value.dtype
    return dtype.is_floating or dtype.is_complex


def _value_of(x):
    return x._peek() if isinstance(x, _core.BaseVariable) else x


class ForwardAccumulator:
    """Computes Jacobian-vector products of the ops run in its context.

    >>> import ferroflow as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.5])) as acc:
    ...     y = x * x
    >>> acc.jvp(y).numpy().tolist()
    [2.0, 2.0]

    Forward over backward gives Hessian-vector products:

    >>> v = tf.Variable([1.0, 2.0])
    >>> with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0])) as acc:
    ...     with tf.GradientTape() as tape:
    ...         y = tf.reduce_sum(v**3.0)
    ...     backward = tape.gradient(y, v)
    >>> acc.jvp(backward).numpy().tolist()
    [6.0, 0.0]
    """

    def __init__(self, primals, tangents):
        seen = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError(
                    "Tensor {} was specified as a primal multiple times. This may indicate an "
                    "error. If it was intended, please sum the corresponding tangents."
                )
            seen.add(id(primal))
        self._tape = _core.Tape(True, False)
        self._recording = False
        self._primals = []
        self._tangents = []
        # The recorders entered before this accumulator, and which of them still recorded when
        # it was left: they see its JVP computation.
        self._before = []
        # Every primal's own JVP is its tangent, whatever its dtype.
        self._own = []
        nest.assert_same_structure(primals, tangents)
        nest.map_structure(self._watch, primals, tangents)

    def _watch(self, primal, tangent):
        dtype = primal.dtype  # AttributeError for a Python number, as TensorFlow
        tangent = _array_ops.convert_to_tensor(tangent, dtype=dtype)
        self._own.append((primal, tangent))
        if not (dtype.is_floating or dtype.is_complex):
            # TensorFlow warns and gives such primals no JVPs; a tape ignores them likewise.
            return
        self._tape.watch(primal)
        self._primals.append(primal)
        self._tangents.append(tangent)

    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        self._before = [r for r in _backprop.RECORDERS.stack if r is not self]
        self._tape.push()
        self._recording = True
        _backprop._enter_recorder(self)
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._tape.pop()
            self._recording = False
            _backprop._leave_recorder(self)
            # Recorders that stopped recording inside the context (a non-persistent tape asked
            # for its gradient) do not see JVPs asked for later.
            self._before = [r for r in self._before if r._recording]

    @contextlib.contextmanager
    def _jvp_recording(self):
        """Recording as TensorFlow's would be while it computed the JVPs: by the recorders
        entered before this one only."""
        active = _backprop.RECORDERS.stack
        paused = [r for r in active if r is not self and not any(r is b for b in self._before)]
        pushed = [b for b in self._before if not b._recording]
        for r in paused:
            r._tape.pause()
        for b in pushed:
            b._tape.push()
        self._tape.pause()
        try:
            yield
        finally:
            self._tape.resume()
            for b in reversed(pushed):
                b._tape.pop()
            for r in paused:
                r._tape.resume()

    def _jvp_of(self, target):
        for primal, tangent in self._own:
            if primal is target:
                return tangent
        if not isinstance(target, (_core.Tensor, _core.BaseVariable)):
            target = _array_ops.convert_to_tensor(target)
        value = _value_of(target)
        if not _is_floating_or_complex(value) or not self._primals:
            return None
        out_dtype = value.dtype
        seed = _array_ops.zeros_like(value)
        seed_tape = _core.Tape(False, False)
        seed_tape.push()
        try:
            seed_tape.watch(seed)
            (vjps,) = self._tape.gradients([target], self._primals, [[seed]])
            total = None
            for primal, vjp, tangent in zip(self._primals, vjps, self._tangents):
                if vjp is None:
                    continue
                if list(tangent.shape) != list(vjp.shape):
                    # TensorFlow raises this when an op first uses the primal.
                    raise ValueError(
                        f"Tangent {tangent} was expected to be of shape {primal.shape} but is "
                        f"instead of shape {tangent.shape}"
                    )
                if tangent.dtype.is_complex:
                    term = _math.reduce_sum(vjp * _math.conj(tangent))
                    if not out_dtype.is_complex:
                        term = _math.real(term)
                else:
                    term = _math.reduce_sum(vjp * tangent)
                if term.dtype != out_dtype:
                    term = _array_ops.cast(term, out_dtype)
                total = term if total is None else total + term
        finally:
            seed_tape.pop()
        if total is None:
            return None
        (grads,) = seed_tape.gradients([total], [seed], [[None]])
        return grads[0]

    def jvp(self, primals, unconnected_gradients=_backprop.UnconnectedGradients.NONE):
        """The JVPs of ``primals`` (a tensor or a structure of tensors computed in this
        accumulator's context), or None where nothing connects them to the watched primals
        (zeros with ``unconnected_gradients='zero'``)."""
        unconnected_gradients = _backprop.UnconnectedGradients(unconnected_gradients)

        def fetch(tensor):
            with self._jvp_recording():
                result = self._jvp_of(tensor)
            if result is None and unconnected_gradients is _backprop.UnconnectedGradients.ZERO:
                result = _array_ops.zeros_like(_value_of(tensor))
            return result

        return nest.map_structure(fetch, primals)
