"""Keras's automatic object names: the class name in snake case ("RMSprop" -> "rm_sprop"), made
unique by a process-wide counter ("adam", "adam_1", ...)."""

import collections

from ferroflow.keras._naming import to_snake_case

__all__ = ["auto_name", "reset_names", "to_snake_case"]

_uids = collections.defaultdict(int)


def auto_name(prefix):
    """The next free name for ``prefix`` (a class name): its first use is bare, then _1, _2..."""
    name = to_snake_case(prefix)
    count = _uids[name]
    _uids[name] += 1
    return name if count == 0 else f"{name}_{count}"


def reset_names():
    """Automatic names start again from the bare one (`clear_session`)."""
    _uids.clear()
