"""Recursive conversion: the functions a converted function calls are converted too, as
TensorFlow's AutoGraph does, so that an `if` on a tensor inside a helper the `tf.function` body
calls is staged like one in the body itself.

The converter rewrites each call `f(...)` of the function (and of the lambdas in it) into
`ag__.converted_call(f)(...)`; while a trace runs, `converted_call` gives the converted form of
a user function or method (cached by `to_graph`) and anything else unchanged: builtins,
classes, callable objects, `tf.function`s, and functions of ferroflow, the standard library,
numpy and the other libraries TensorFlow never converts either. Outside a trace the converted
code runs eagerly, where nothing is staged, and every callee is called as it is."""

import ast
import functools
import inspect
import sys
import types

from ferroflow import _tracing
from ferroflow.autograph import templates
from ferroflow.autograph.analysis import SCOPES

# Builtins that read or change the frame they are called from: a wrapper would break them.
_FRAME_BUILTINS = frozenset(
    {"super", "locals", "globals", "vars", "eval", "exec", "dir", "__import__"}
)
# Top-level packages whose functions run as written (TensorFlow's own do-not-convert list holds
# itself, numpy and the standard library; ferroflow stands for TensorFlow here).
_UNCONVERTED_PACKAGES = frozenset(
    {"ferroflow", "tensorflow", "keras", "numpy", "ml_dtypes", "scipy", "pytest", "_pytest"}
)


def wrap_calls(body):
    """Rewrites every call in `body` (in place, not inside nested functions or classes, but
    inside lambdas) into `ag__.converted_call(f)(...)`. Returns whether there was any."""
    wrapper = _WrapCalls()
    body[:] = [wrapper.visit(stmt) for stmt in body]
    return wrapper.changed


class _WrapCalls(ast.NodeTransformer):
    changed = False

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_BUILTINS:
            return node
        self.changed = True
        node.func = templates.expression("ag__.converted_call(ag__f)", node.func, ag__f=node.func)
        return node

    def generic_visit(self, node):
        if isinstance(node, SCOPES) and not isinstance(node, ast.Lambda):
            return node
        return super().generic_visit(node)

    def visit_Lambda(self, node):
        return super().generic_visit(node)


def converted_call(f):
    """What a converted function calls in place of `f`: its converted form while tracing
    when `f` is a user's function or method, else `f`."""
    if not _tracing.tracing():
        return f
    if isinstance(f, types.FunctionType):
        return _to_graph(f) if _convertible(f) else f
    if inspect.ismethod(f) and isinstance(f.__func__, types.FunctionType):
        return _to_graph(f) if _convertible(f.__func__) else f
    if isinstance(f, functools.partial):
        inner = converted_call(f.func)
        return f if inner is f.func else functools.partial(inner, *f.args, **f.keywords)
    return f


def _convertible(function):
    module = (getattr(function, "__module__", None) or "").partition(".")[0]
    if not module or module in _UNCONVERTED_PACKAGES or module == "builtins":
        return False
    return module not in getattr(sys, "stdlib_module_names", ())


def _to_graph(entity):
    from ferroflow.autograph import api

    return api.to_graph(entity)
