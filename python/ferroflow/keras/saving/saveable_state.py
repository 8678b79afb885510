"""The variables of a model as Keras 3's weights files lay them out: a flat mapping from paths
such as ``layers/dense/vars/0`` or ``optimizer/vars/3`` to arrays.

Paths follow Keras's walk of "saveables" (layers and optimizers): a saveable's own variables
are ``<path>/vars/<i>``; its children are the attributes that a plain base-class instance does
not have, in name order with private ones last (Sequential and functional models list their
``layers`` first); a saveable found in a list, tuple or dict is named after its class
(``dense``, ``dense_1``...) and a nested container ``container``, ``container_1``... Each
saveable is saved once, at the first path that reaches it."""

import warnings

import numpy as np

from ferroflow.keras._naming import to_snake_case

__all__ = ["VarsStore", "load_state", "save_state"]


class VarsStore:
    """One saveable's ``vars`` group: ``store["0"] = value`` while saving; ``keys()`` and
    ``store["0"]`` while loading (what `save_own_variables` / `load_own_variables` get)."""

    def __init__(self, arrays, inner_path):
        self._arrays = arrays
        self._prefix = f"{inner_path}/vars/" if inner_path else "vars/"

    def keys(self):
        n = len(self._prefix)
        return [k[n:] for k in self._arrays if k.startswith(self._prefix) and "/" not in k[n:]]

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return self._prefix + key in self._arrays

    def __getitem__(self, key):
        return self._arrays[self._prefix + key]

    def __setitem__(self, key, value):
        self._arrays[self._prefix + str(key)] = np.asarray(value)


# --- which objects, under which names ---------------------------------------------------------


def _types():
    from ferroflow.keras.layers.layer import Layer
    from ferroflow.keras.models.model import Model
    from ferroflow.keras.optimizers.optimizer import Optimizer

    return Layer, Model, Optimizer


def is_saveable(obj):
    layer, _, optimizer = _types()
    return isinstance(obj, (layer, optimizer))


_skipsets = {}


def _skipset(saveable):
    """Attribute names every plain Layer (or Optimizer) has: never children. A Model's
    ``layers`` is walked, as in Keras (whose base Layer has no such attribute)."""
    layer, model, optimizer = _types()
    kind = "optimizer" if isinstance(saveable, optimizer) else "layer"
    if kind not in _skipsets:
        if kind == "optimizer":
            probe = optimizer(learning_rate=1.0, name="saving_probe")
            _skipsets[kind] = frozenset(dir(probe)) - {"variables"}
        else:
            _skipsets[kind] = frozenset(dir(layer(name="saving_probe")))
    skip = _skipsets[kind]
    if isinstance(saveable, model):
        skip = skip - {"layers"}
    # As Keras's skip lists: a Sequential's inner functional graph and a functional model's
    # operations hold the same layers, already saved under ``layers``.
    names = {cls.__name__ for cls in type(saveable).__mro__}
    if "Sequential" in names:
        skip = skip | {"_functional"}
    elif "Functional" in names:
        skip = skip | {"operations", "_operations"}
    return skip


def _lists_layers_first(saveable):
    names = {cls.__name__ for cls in type(saveable).__mro__}
    return bool(names & {"Sequential", "Functional"})


def _children(saveable):
    if _lists_layers_first(saveable):
        yield "layers", saveable.layers
    skip = _skipset(saveable)
    for name in sorted(dir(saveable), key=lambda n: f"~{n}" if n.startswith("_") else n):
        if name.startswith("__") or name in skip:
            continue
        try:
            child = getattr(saveable, name)
        except Exception:  # a property that cannot be computed now holds nothing to save
            continue
        yield name, child


def _container_entries(container):
    """(name, element) for the saveables and nested containers of a list, tuple or dict."""
    used = {}

    def unique(name):
        if name in used:
            used[name] += 1
            return f"{name}_{used[name]}"
        used[name] = 0
        return name

    values = list(container.values()) if isinstance(container, dict) else container
    for value in values:
        if is_saveable(value):
            yield unique(to_snake_case(type(value).__name__)), value
        elif isinstance(value, (list, tuple, dict)):
            yield unique("container"), value


def _join(inner_path, name):
    return f"{inner_path}/{name}" if inner_path else name


def _walk(saveable, inner_path, visited, visit):
    """Calls ``visit(saveable, path)`` for ``saveable`` and each saveable below it, once."""
    if id(saveable) in visited:
        return
    visit(saveable, inner_path)
    visited.add(id(saveable))
    for name, child in _children(saveable):
        path = _join(inner_path, name)
        if is_saveable(child):
            _walk(child, path, visited, visit)
        elif isinstance(child, (list, tuple, dict)):
            _walk_container(child, path, visited, visit, set())


def _walk_container(container, inner_path, visited, visit, seen_containers):
    if id(container) in seen_containers:
        return
    seen_containers.add(id(container))
    for name, value in _container_entries(container):
        path = _join(inner_path, name)
        if is_saveable(value):
            _walk(value, path, visited, visit)
        else:
            _walk_container(value, path, visited, visit, seen_containers)


# --- own variables ----------------------------------------------------------------------------


def _own_variables(layer):
    # `add_weight` keeps Keras's order: weights made trainable first.
    return list(getattr(layer, "_own_weights", []))


def _save_own(saveable, store):
    save = getattr(saveable, "save_own_variables", None)
    if save is not None:
        save(store)
        return
    for i, variable in enumerate(_own_variables(saveable)):
        store[str(i)] = variable.numpy()


def _load_own(saveable, store):
    load = getattr(saveable, "load_own_variables", None)
    if load is not None:
        load(store)
        return
    check_own_count(saveable, store)
    for i, variable in enumerate(_own_variables(saveable)):
        variable.assign(store[str(i)])


def check_own_count(saveable, store):
    """Keras's `_check_load_own_variables`: the file lists as many variables as the layer
    has."""
    own = _own_variables(saveable)
    if len(store) != len(own):
        if not own and not saveable.built:
            raise ValueError(
                f"Layer '{saveable.name}' was never built and thus it doesn't have any "
                f"variables. However the weights file lists {len(store)} variables for this "
                "layer.\nIn most cases, this error indicates that either:\n\n1. The layer is "
                "owned by a parent layer that implements a `build()` method, but calling the "
                "parent's `build()` method did NOT create the state of the child layer "
                f"'{saveable.name}'. A `build()` method must create ALL state for the layer, "
                "including the state of any children layers.\n\n2. You need to implement the "
                "`def build_from_config(self, config)` method on layer "
                f"'{saveable.name}', to specify how to rebuild it during loading."
            )
        raise ValueError(
            f"Layer '{saveable.name}' expected {len(own)} variables, but received {len(store)} "
            f"variables during loading. Expected: {[v.name for v in own]}"
        )


# --- saving and loading -----------------------------------------------------------------------


def save_state(model, include_optimizer=True):
    """({path: array}, {saveable path: saveable name}) for ``model`` and what it holds."""
    _, _, optimizer = _types()
    arrays, names = {}, {}
    visited = set()
    if not include_optimizer:
        visited.update(id(o) for o in vars(model).values() if isinstance(o, optimizer))

    def visit(saveable, path):
        names[path] = saveable.name
        _save_own(saveable, VarsStore(arrays, path))

    _walk(model, "", visited, visit)
    return arrays, names


def load_state(model, arrays, skip_mismatch=False, objects_to_skip=None):
    """Assigns ``arrays`` (as `save_state` made them) to ``model``'s variables, leaving out
    ``objects_to_skip``. Saveables whose variables do not fit are listed in one ValueError at
    the end (a warning with ``skip_mismatch``); paths the model does not have are ignored, as
    in Keras."""
    failures = []

    def visit(saveable, path):
        try:
            _load_own(saveable, VarsStore(arrays, path))
        except Exception as e:
            failures.append((saveable, e))

    _walk(model, "", {id(o) for o in objects_to_skip or ()}, visit)
    if not failures:
        return
    example, error = failures[0]
    message = (
        f"A total of {len(failures)} objects could not be loaded. Example error message for "
        f"object {example}:\n\n{error}\n\nList of objects that could not be loaded:\n"
        f"{[saveable for saveable, _ in failures]}"
    )
    if skip_mismatch:
        warnings.warn(message, stacklevel=3)
    else:
        raise ValueError(message)
