"""`tf.name_scope`: the prefix ("outer/inner/") that variables and modules made inside a
``with tf.name_scope(...)`` block take in their names.

Eagerly the scope is kept per thread and names are never made unique, as in TensorFlow 2.
While a `tf.function` traces, TensorFlow names into a fresh graph instead: the caller's eager
scope does not apply and a scope name used twice becomes ``name_1``; each trace gets that state.
"""

import contextlib
import re
import threading
import weakref

from ferroflow import _core, _function_hooks

__all__ = ["current_name_scope", "name_scope", "name_scope_v2", "scoped_name"]

_NOT_A_STRING = "name for name_scope must be a string."

# TensorFlow's graph checks (tensorflow/python/framework/ops.py), applied while tracing.
_VALID_ROOT_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")

_eager = threading.local()


def _eager_scope():
    return getattr(_eager, "scope", "")


def _set_eager_scope(scope):
    _eager.scope = scope


def _composed(outer, name):
    """The scope `name` opens inside `outer`: "" resets to the root, a trailing "/" is absolute."""
    if not name:
        return ""
    if name[-1] == "/":
        return name
    return outer + name + "/"


class _TraceScopes:
    """The name scopes of one `tf.function` trace, kept like a TensorFlow graph's name stack."""

    def __init__(self):
        self.stack = ""  # "outer/inner": TensorFlow's graph name stack has no trailing slash
        self._names_in_use = {}

    def scope(self):
        return self.stack + "/" if self.stack else ""

    def _unique(self, name):
        # TensorFlow's Graph.unique_name: case-insensitive, the n-th reuse gets "_n".
        if self.stack:
            name = self.stack + "/" + name
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        self._names_in_use[key] = count + 1
        if count == 0:
            return name
        base = key
        while key in self._names_in_use:
            key = f"{base}_{count}"
            count += 1
        self._names_in_use[key] = 1
        return f"{name}_{count - 1}"

    def open(self, name):
        """Enters scope `name`; returns (what ``with`` binds, the stack to restore on exit)."""
        if name:
            pattern = _VALID_SCOPE if self.stack else _VALID_ROOT_SCOPE
            if not pattern.match(name):
                kind = "scope name" if self.stack else "root scope name"
                article = "A scope name" if self.stack else "A root scope name"
                raise ValueError(
                    f"'{name}' is not a valid {kind}. {article} has to match the following "
                    f"pattern: {pattern.pattern}"
                )
        old = self.stack
        if not name:
            self.stack = ""
        elif name[-1] == "/":
            self.stack = name[:-1]
        else:
            self.stack = self._unique(name)
        return self.scope(), old


# Keyed by the trace's context object, so a trace's names die with it.
_by_trace = weakref.WeakKeyDictionary()


def _trace_scopes():
    """The name-scope state of the `tf.function` trace in progress on this thread, or None."""
    if not _core.graph_tracing():
        return None
    traces = _function_hooks._stack()
    if not traces:
        return None
    scopes = _by_trace.get(traces[-1])
    if scopes is None:
        scopes = _by_trace[traces[-1]] = _TraceScopes()
    return scopes


def traced_operation(type_name, name):
    """The `tf.Operation` TensorFlow returns for an op without outputs that a graph keeps for
    its effect (NoOp, PrintV2, an assertion), named uniquely in the trace in progress as
    TensorFlow names it; None when not tracing, as TensorFlow returns eagerly. `name` may
    hold scopes ("Assert/AssertGuard/Identity"): the first part is made unique."""
    scopes = _trace_scopes()
    if scopes is None:
        return None
    from ferroflow.concrete_function import Operation

    first, _, rest = name.partition("/")
    unique = scopes._unique(first)
    return Operation(unique + "/" + rest if rest else unique, type_name, [], [])


def current_name_scope():
    """The prefix names take here: "outer/inner/", or "" outside any scope."""
    scopes = _trace_scopes()
    return _eager_scope() if scopes is None else scopes.scope()


def scoped_name(name, default):
    """The full name TensorFlow gives a variable called `name` (`default` when None) here:
    the current prefix plus `name`, never made unique; a trailing "/" makes `name` absolute."""
    if name is None:
        name = default
    if not isinstance(name, str):
        raise ValueError(_NOT_A_STRING)
    scope = _composed(current_name_scope(), name)
    return scope[:-1] if scope.endswith("/") else scope


class name_scope_v2(contextlib.AbstractContextManager):  # noqa: N801 - TensorFlow's name
    """A context manager that prefixes the names of variables and modules made inside it.

    ``with tf.name_scope("a"):`` nested in ``"outer"`` binds ``"outer/a/"``; a name ending in
    "/" is taken as a full scope, and ``""`` returns to the root. One object may be entered
    again, also while it is already open.

    >>> import ferroflow as tf
    >>> with tf.name_scope("dense") as scope:
    ...     v = tf.Variable(1.0, name="kernel")
    >>> scope, v.name
    ('dense/', 'dense/kernel:0')
    """

    __slots__ = ["_name", "_exit_fns"]

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError(_NOT_A_STRING)
        self._name = name
        self._exit_fns = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        scopes = _trace_scopes()
        if scopes is None:
            old = _eager_scope()
            scope = _composed(old, self._name)
            _set_eager_scope(scope)
            self._exit_fns.append(lambda: _set_eager_scope(old))
        else:
            scope, old = scopes.open(self._name)
            outer_ops = _core.set_name_scope(scope)  # the graph's nodes take the prefix too

            def leave():
                scopes.stack = old
                _core.set_name_scope(outer_ops)

            self._exit_fns.append(leave)
        return scope

    def __exit__(self, exc_type, exc_value, traceback):
        self._exit_fns.pop()()
        return False


name_scope = name_scope_v2
