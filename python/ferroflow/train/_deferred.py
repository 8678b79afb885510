"""Restore-on-create: checkpoint values that `restore()` found no Python object for wait here,
keyed by the nearest trackable ancestor that exists (the "anchor") and the edge names from it.

`note_attribute(obj, name, value)` is the hook that attribute assignment calls (from
`AutoTrackable.__setattr__`, and `tf.Module.__setattr__` where wired) *before* the value is
stored: a restoration waiting for ``obj.name`` is applied to ``value`` then, so a variable takes
its checkpointed value the moment it is attached, and a mismatched shape refuses the assignment
as in TensorFlow. Edges through lists and dicts cannot be observed (plain containers have no
hook); those waits are retried whenever any attribute is assigned, and before a checkpoint is
saved or a load status is asserted on.

This module imports nothing from the package at import time, so `ferroflow.module` can import it.
"""

import weakref

__all__ = ["note_attribute", "sweep", "wait"]


class _Waits:
    """The restorations waiting under one anchor: {edge path: (restoration, node id)}."""

    __slots__ = ("anchor", "key", "paths")

    def __init__(self, anchor, key):
        self.anchor = anchor  # a callable returning the anchor (a weak reference if possible)
        self.key = key
        self.paths = {}


# id(anchor) -> _Waits. Entries of collected anchors are dropped by the weakref callback.
_waiting = {}
# Keys of the entries with a path through a container (two edges or more): only these need
# retrying on every assignment, so assignments stay cheap however much else waits.
_through_containers = set()


def _drop(waits):
    if _waiting.get(waits.key) is waits:
        del _waiting[waits.key]
        _through_containers.discard(waits.key)


def _collected(key, ref):
    waits = _waiting.get(key)
    if waits is not None and waits.anchor is ref:
        _drop(waits)


def _waits_for(anchor, create):
    key = id(anchor)
    waits = _waiting.get(key)
    if waits is not None and waits.anchor() is anchor:
        return waits
    if not create:
        return None
    try:
        ref = weakref.ref(anchor, lambda r, key=key: _collected(key, r))
    except TypeError:  # not weakly referenceable: kept alive while something waits on it

        def ref(anchor=anchor):
            return anchor

    waits = _waiting[key] = _Waits(ref, key)
    return waits


def wait(anchor, path, restoration, node_id):
    """Holds checkpoint node ``node_id`` of ``restoration`` until ``anchor`` has ``path``. A
    later restore waiting for the same edge replaces an earlier one (the newer values win)."""
    waits = _waits_for(anchor, create=True)
    waits.paths[tuple(path)] = (restoration, node_id)
    if len(path) > 1:
        _through_containers.add(waits.key)


def _resolve(start, anchor, rel, path):
    """(object at ``path`` below ``start``, its nearest anchor, the path from that anchor) where
    ``start`` lies at ``rel`` below ``anchor``; None while an edge is missing."""
    from ferroflow.train.trackable import MISSING, child_named, is_anchor

    obj = start
    if is_anchor(obj):
        anchor, rel = obj, ()
    for name in path:
        obj = child_named(obj, name)
        if obj is MISSING:
            return None
        if is_anchor(obj):
            anchor, rel = obj, ()
        else:
            rel = (*rel, name)
    return obj, anchor, rel


def _apply(waits, path, target):
    restoration, node_id = waits.paths.pop(path)
    if not waits.paths:
        _drop(waits)  # so that assignments are free again once nothing waits
    elif not any(len(p) > 1 for p in waits.paths):
        _through_containers.discard(waits.key)
    obj, anchor, rel = target
    restoration.match(obj, node_id, anchor, rel)


def sweep(containers_only=False, skip=None):
    """Applies every wait whose object now exists. With ``containers_only``, only waits whose
    path crosses a list or dict (those no assignment hook can see) are tried. ``skip`` is an
    (anchor, name) pair being assigned right now, whose stored value is stale."""
    keys = _through_containers if containers_only else _waiting
    for key in list(keys):
        waits = _waiting.get(key)
        anchor = waits.anchor() if waits is not None else None
        if anchor is None:
            continue
        for path in list(waits.paths):
            if containers_only and len(path) < 2:
                continue
            if skip is not None and skip[0] is anchor and path[0] == skip[1]:
                continue
            target = _resolve(anchor, anchor, (), path) if path in waits.paths else None
            if target is not None:
                _apply(waits, path, target)


def note_attribute(obj, name, value):
    """``obj.name = value`` is about to happen: restores what waits for that edge into
    ``value`` (raising, e.g. on a shape mismatch, before the assignment is made)."""
    if not _waiting:
        return
    if _through_containers:
        sweep(containers_only=True, skip=(obj, name))
    waits = _waits_for(obj, create=False)
    if waits is None:
        return
    for path in [p for p in waits.paths if p[0] == name]:
        if path not in waits.paths:
            continue
        target = _resolve(value, obj, (name,), path[1:])
        if target is not None:  # else a container still lacks the element: swept later
            _apply(waits, path, target)
