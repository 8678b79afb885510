"""Keras' default object names: the class name in snake case ("Conv2D" -> "conv2d"), made
unique with ``_1``, ``_2``..."""

import collections
import re

_name_uids = collections.defaultdict(int)


def to_snake_case(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def uniquify(name):
    unique = f"{name}_{_name_uids[name]}" if name in _name_uids else name
    _name_uids[name] += 1
    return unique


def auto_name(prefix):
    return uniquify(to_snake_case(prefix))


def reset_names():
    """Automatic names start again from the bare one (`clear_session`)."""
    _name_uids.clear()
