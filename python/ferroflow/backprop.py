"""`tf.GradientTape`, `tf.custom_gradient`, `tf.stop_gradient`: the Python face of the Rust tape
(`_core.Tape`), which records ops and runs the backward pass."""

import contextlib
import enum
import functools
import inspect
import threading

import numpy as np

from ferroflow import _core, nest
from ferroflow import array_ops as _array_ops
from ferroflow import variables as _variables
from ferroflow.type_spec import CompositeTensor, gradient_components, with_gradient_components

__all__ = ["GradientTape", "UnconnectedGradients", "custom_gradient", "stop_gradient"]


class _Recorders(threading.local):
    """The `GradientTape`s and `ForwardAccumulator`s recording on this thread, in the order they
    were entered (a `ForwardAccumulator` needs to know which were entered before it)."""

    def __init__(self):
        self.stack = []


RECORDERS = _Recorders()


def _enter_recorder(recorder):
    RECORDERS.stack.append(recorder)


def _leave_recorder(recorder):
    stack = RECORDERS.stack
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is recorder:
            del stack[i]
            return


class UnconnectedGradients(enum.Enum):
    NONE = "none"
    ZERO = "zero"


def stop_gradient(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The same values, but no gradient flows through them."""
    return _core.stop_gradient(input)


def _is_watchable(x):
    return isinstance(x, (_core.Tensor, _core.BaseVariable))


def _zeros_for(source):
    value = source._peek() if isinstance(source, _core.BaseVariable) else source
    return _array_ops.zeros_like(value)


def _one_hot_seeds(target, rows, columns):
    """One seed list per column j: ones at column j of every row of `target` viewed as
    (rows, columns), zeros elsewhere (a jacobian's rows, one backward pass each)."""
    seeds = []
    for j in range(columns):
        one_hot = np.zeros((rows, columns), dtype=target.dtype.as_numpy_dtype)
        one_hot[:, j] = 1
        seeds.append([_array_ops.constant(one_hot.reshape(tuple(target.shape)))])
    return seeds


def _for_gradients(values):
    """Flat tensors to differentiate for `values`: a composite (SparseTensor, IndexedSlices)
    stands for its gradient components, its values (as TensorFlow's composite gradients)."""
    if not any(isinstance(v, CompositeTensor) for v in values):
        return values
    return nest.flatten([gradient_components(v) for v in values])


def _from_gradients(values, grads):
    """The gradients for `values` from those of `_for_gradients(values)`: a composite's
    rebuilt around its gradient components' gradients."""
    if not any(isinstance(v, CompositeTensor) for v in values):
        return grads
    structure = [gradient_components(v) for v in values]
    grads = nest.pack_sequence_as(structure, grads)
    return [with_gradient_components(v, g) for v, g in zip(values, grads)]


class GradientTape:
    """Records operations for automatic differentiation.

    >>> import ferroflow as tf
    >>> x = tf.Variable(3.0)
    >>> with tf.GradientTape() as tape:
    ...     y = x * x
    >>> float(tape.gradient(y, x))
    6.0
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._tape = _core.Tape(bool(persistent), bool(watch_accessed_variables))
        self._persistent = bool(persistent)
        self._recording = False

    def __enter__(self):
        self._tape.push()
        self._recording = True
        _enter_recorder(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._recording:
            self._tape.pop()
            self._recording = False
        _leave_recorder(self)

    def watch(self, tensor):
        """Ensures gradients with respect to ``tensor`` (or every tensor in a structure; a
        composite's component tensors)."""
        for t in nest.flatten(tensor, expand_composites=True):
            if not _is_watchable(t):
                raise ValueError(
                    f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                    "tf.Variable or ExtensionType."
                )
            self._tape.watch(t)

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stops recording operations on this tape."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._tape.pause()
        try:
            yield
        finally:
            self._tape.resume()

    def reset(self):
        """Clears everything recorded and watched so far."""
        self._tape.reset()

    def watched_variables(self):
        found = (_variables.lookup(i) for i in self._tape.watched_variable_ids())
        return tuple(v for v in found if v is not None)

    def _prepare(self, sources):
        if self._recording and not self._persistent:
            # As TensorFlow: asking a non-persistent tape for gradients ends its recording.
            self._tape.pop()
            self._recording = False
            _leave_recorder(self)
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if not _is_watchable(s):
                raise ValueError(
                    f"Passed in object {s!r} of type {type(s).__name__!r}, not tf.Tensor or "
                    "tf.Variable or ExtensionType."
                )
        return flat_sources

    @staticmethod
    def _unconnected(grads, flat_sources, unconnected_gradients):
        mode = UnconnectedGradients(unconnected_gradients)
        if mode is UnconnectedGradients.ZERO:
            return [_zeros_for(s) if g is None else g for g, s in zip(grads, flat_sources)]
        return grads

    def gradient(
        self,
        target,
        sources,
        output_gradients=None,
        unconnected_gradients=UnconnectedGradients.NONE,
    ):
        """Gradients of ``target`` (summed when non-scalar or nested) with respect to
        ``sources``, in the structure of ``sources``."""
        return self._gradient(target, sources, output_gradients, unconnected_gradients, None)

    def _gradient(self, target, sources, output_gradients, unconnected_gradients, stops):
        """`gradient`; gradients do not pass back through `stops` (`tf.gradients`')."""
        raw_sources = nest.flatten(sources)
        flat_sources = self._prepare(_for_gradients(raw_sources))
        flat_targets = [
            t if _is_watchable(t) else _array_ops.convert_to_tensor(t)
            for t in _for_gradients(nest.flatten(target))
        ]
        if output_gradients is None:
            seeds = [None] * len(flat_targets)
        else:
            seeds = _for_gradients(nest.flatten(output_gradients))
        (grads,) = self._tape.gradients(flat_targets, flat_sources, [seeds], rows=True, stops=stops)
        # Rows of a gathered tensor (an embedding table's) come back as IndexedSlices, as in
        # TensorFlow: (values, indices, dense_shape).
        grads = [_variables.IndexedSlices(*g) if isinstance(g, tuple) else g for g in grads]
        grads = self._unconnected(grads, flat_sources, unconnected_gradients)
        return nest.pack_sequence_as(sources, _from_gradients(raw_sources, grads))

    def jacobian(
        self,
        target,
        sources,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """d target[i...] / d source[j...], shaped ``target.shape + source.shape``."""
        flat_sources = self._prepare(sources)
        target = _array_ops.convert_to_tensor(target)
        size = int(np.prod(target.shape, dtype=np.int64))
        seeds = _one_hot_seeds(target, 1, size)
        rows = self._tape.gradients([target], flat_sources, seeds) if seeds else []
        out = []
        for k, source in enumerate(flat_sources):
            source_shape = list(source.shape)
            column = [row[k] for row in rows]
            if size and all(g is None for g in column):
                grad = None
            else:
                column = [_zeros_for(source) if g is None else g for g in column]
                shape = list(target.shape) + source_shape
                if column:
                    grad = _array_ops.reshape(_array_ops.stack(column), shape)
                else:
                    grad = _array_ops.zeros(shape, dtype=target.dtype)
            out.append(grad)
        if UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO:
            out = [
                _array_ops.zeros(list(target.shape) + list(s.shape), dtype=target.dtype)
                if g is None
                else g
                for g, s in zip(out, flat_sources)
            ]
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(
        self,
        target,
        source,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """Per-example jacobians: ``target[b]`` against ``source[b]`` for each batch row b."""
        self._prepare(source)
        target = _array_ops.convert_to_tensor(target)
        t_shape, s_shape = list(target.shape), list(source.shape)
        if not t_shape or not s_shape or t_shape[0] != s_shape[0]:
            raise ValueError(
                f"Need first dimension of target shape ({tuple(t_shape)}) and source shape "
                f"({tuple(s_shape)}) to match."
            )
        batch = t_shape[0]
        per_row = int(np.prod(t_shape[1:], dtype=np.int64))
        seeds = _one_hot_seeds(target, batch, per_row)
        rows = [r[0] for r in self._tape.gradients([target], [source], seeds)] if seeds else []
        shape = [batch] + t_shape[1:] + s_shape[1:]
        if per_row and all(g is None for g in rows):
            if UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO:
                return _array_ops.zeros(shape, dtype=target.dtype)
            return None
        rows = [_zeros_for(source) if g is None else g for g in rows]
        if not rows:
            return _array_ops.zeros(shape, dtype=target.dtype)
        return _array_ops.reshape(_array_ops.stack(rows, axis=1), shape)


def _accepts_variables(grad_fn):
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def custom_gradient(f=None):
    """Decorates ``f(*x) -> (y, grad_fn)``: ``y`` is used forward, ``grad_fn(*dy)`` gives the
    gradients of the inputs (and, with a ``variables`` keyword, of the variables ``f`` read)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        inputs = [_array_ops.convert_to_tensor(a) for a in list(args) + list(kwargs.values())]
        result, variable_ids = _core.custom_forward(lambda: f(*args, **kwargs))
        y, grad_fn = result
        variables = [v for v in map(_variables.lookup, variable_ids) if v is not None]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(
                "If using @custom_gradient with a function that uses variables, then grad_fn "
                "must accept a keyword argument 'variables'."
            )
        flat_y = nest.flatten(y)

        def backward(upstream):
            upstream = [
                _array_ops.zeros_like(out) if g is None else g for g, out in zip(upstream, flat_y)
            ]
            if variables:
                input_grads, variable_grads = grad_fn(*upstream, variables=variables)
                variable_grads = list(variable_grads)
            else:
                input_grads, variable_grads = grad_fn(*upstream), []
            input_grads = nest.flatten(input_grads)
            if len(input_grads) != len(inputs):
                raise ValueError(
                    f"custom_gradient function expected to return {len(inputs)} gradients, but "
                    f"returned {len(input_grads)} instead."
                )
            return input_grads + variable_grads

        outputs = _core.record_custom(inputs + variables, flat_y, backward)
        return nest.pack_sequence_as(y, outputs)

    return decorated
