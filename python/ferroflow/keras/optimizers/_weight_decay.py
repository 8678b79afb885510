"""Keras 3's decoupled weight decay: before each update, ``variable -= variable * wd * lr`` for
every variable not excluded by `Optimizer.exclude_from_weight_decay`."""

import re

from ferroflow import array_ops

__all__ = ["apply_weight_decay", "exclusions", "uses_weight_decay"]


def exclusions(optimizer, var_list=None, var_names=None):
    """Records the variables (by identity) and name patterns to leave undecayed."""
    optimizer._exclude_from_weight_decay = {optimizer._var_key(v) for v in var_list or ()}
    optimizer._exclude_from_weight_decay_pattern = (
        re.compile("|".join(set(var_names))) if var_names else None
    )
    optimizer._exclude_from_weight_decay_cache = {}


def uses_weight_decay(optimizer, variable):
    key = optimizer._var_key(variable)
    cache = optimizer.__dict__.setdefault("_exclude_from_weight_decay_cache", {})
    if key not in cache:
        excluded = key in getattr(optimizer, "_exclude_from_weight_decay", set())
        pattern = getattr(optimizer, "_exclude_from_weight_decay_pattern", None)
        if pattern is not None and re.search(pattern, variable.name) is not None:
            excluded = True
        cache[key] = not excluded
    return cache[key]


def apply_weight_decay(optimizer, variables):
    if optimizer.weight_decay is None:
        return
    for variable in variables:
        if uses_weight_decay(optimizer, variable):
            lr = array_ops.cast(optimizer.learning_rate, variable.dtype)
            wd = array_ops.cast(optimizer.weight_decay, variable.dtype)
            variable.assign_sub(variable * wd * lr)
