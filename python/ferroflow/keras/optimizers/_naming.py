"""Keras's automatic object names: the class name in snake case ("RMSprop" -> "rm_sprop"), made
unique by a process-wide counter ("adam", "adam_1", ...)."""

import collections
import re

__all__ = ["auto_name", "reset_names", "to_snake_case"]

_uids = collections.defaultdict(int)


def to_snake_case(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def auto_name(prefix):
    """The next free name for ``prefix`` (a class name): its first use is bare, then _1, _2..."""
    name = to_snake_case(prefix)
    count = _uids[name]
    _uids[name] += 1
    return name if count == 0 else f"{name}_{count}"


def reset_names():
    """Automatic names start again from the bare one (`clear_session`)."""
    _uids.clear()
