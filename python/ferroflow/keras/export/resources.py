"""What an `ExportArchive` keeps beside its endpoints, as Keras does: every variable the
endpoints' traces read (``_all_variables``, so the SavedModel holds whatever they capture even
from layers never tracked) and the lookup tables among the tracked objects' descendants
(``_misc_assets``)."""

__all__ = ["tables_reachable_from", "variables_used_by"]


def variables_used_by(concrete_functions):
    """(trainable, non-trainable) variables the concrete functions read, each once, in order
    of first use (Keras's ``_list_variables_used_by_fns``)."""
    trainable, non_trainable, seen = [], [], set()
    for concrete in concrete_functions:
        for variable in concrete.trainable_variables:
            if id(variable) not in seen:
                seen.add(id(variable))
                trainable.append(variable)
    for concrete in concrete_functions:
        for variable in concrete.variables:
            if id(variable) not in seen:
                seen.add(id(variable))
                non_trainable.append(variable)
    return trainable, non_trainable


def tables_reachable_from(roots):
    """The mutable lookup tables (TensorFlow's ``TrackableResource``s here) among the
    checkpoint descendants of ``roots``, each once."""
    from ferroflow.lookup._mutable import _MutableBase
    from ferroflow.train.trackable import children_of

    found, seen = [], set()
    pending = list(roots)
    while pending:
        obj = pending.pop(0)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, _MutableBase):
            found.append(obj)
        try:
            pending.extend(child for _, child in children_of(obj))
        except (TypeError, ValueError):
            continue  # an object a checkpoint could not walk holds no table either
    return found
