"""Keras 3's variable paths: a layer's build and call run inside a scope named after the
layer, nested in the scopes of the layers whose build or call is in progress, and a variable's
``path`` is those names joined with its own (``sequential/dense/kernel`` for a layer a
`Sequential` model builds, ``dense/kernel`` for one built on its own). A layer already on top
of the stack does not open its scope twice."""

import contextlib
import functools
import inspect
import threading

__all__ = ["layer_scope", "variable_path", "wrap_build"]

_state = threading.local()


def _stack():
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


@contextlib.contextmanager
def layer_scope(layer):
    """The scope of ``layer``'s build or call."""
    stack = _stack()
    if stack and stack[-1] is layer:
        yield
        return
    # Keras fixes a layer's parent path when its scope first opens: weights it makes later
    # outside any scope (`quantize`, `enable_lora`) still get it.
    layer.__dict__.setdefault("_keras_parent_path", [scope.name for scope in stack])
    stack.append(layer)
    try:
        yield
    finally:
        stack.pop()


def variable_path(layer, name):
    """The path of variable ``name`` that ``layer`` makes now."""
    names = [scope.name for scope in _stack()]
    if not names:
        names = list(layer.__dict__.get("_keras_parent_path", ()))
    if not _stack() or _stack()[-1] is not layer:
        names.append(layer.name)
    return "/".join([*names, name] if name else names)


def wrap_build(build):
    """``build`` run inside its layer's scope (applied to every `Layer` subclass's build)."""
    if getattr(build, "_in_layer_scope", False):
        return build

    @functools.wraps(build)
    def scoped_build(self, *args, **kwargs):
        with layer_scope(self):
            result = build(self, *args, **kwargs)
        # As Keras's build wrapper: any completed build leaves the layer built.
        record_build_shapes(self, build, args, kwargs)
        self.built = True
        return result

    scoped_build._in_layer_scope = True
    return scoped_build


def record_build_shapes(layer, build, args, kwargs):
    """Keeps the arguments of ``layer``'s completed ``build`` by parameter name, as Keras 3's
    build wrapper does: what `get_build_config` returns (an outer build, finishing last, wins
    over the `super().build` calls inside it)."""
    try:
        bound = inspect.signature(build).bind(layer, *args, **kwargs).arguments
    except TypeError:
        return
    shapes = {name: value for name, value in bound.items() if name != "self"}
    object.__setattr__(layer, "_build_shapes_dict", shapes)
