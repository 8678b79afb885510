"""What an `ExportArchive` keeps beside its endpoints, as Keras does: every variable the
endpoints' traces read (``_all_variables``, so the SavedModel holds whatever they capture even
from layers never tracked) and the lookup tables among the tracked objects' descendants
(``_misc_assets``)."""

__all__ = ["tables_reachable_from", "variables_used_by"]


def variables_used_by(fns):
    """(trainable, non-trainable) variables the functions' traces read, each once, in Keras's
    order (``_list_variables_used_by_fns``): function by function, trace by trace. A function
    may be a `tf.function`, a loaded function or a concrete function."""
    trainable, others, seen = [], [], set()
    for fn in fns:
        if hasattr(fn, "concrete_functions"):
            concrete_functions = fn.concrete_functions
        elif hasattr(fn, "get_concrete_function"):
            concrete_functions = [fn.get_concrete_function()]
        else:
            concrete_functions = [getattr(fn, "_concrete", fn)]
        for concrete in concrete_functions:
            for v in concrete.trainable_variables:
                if id(v) not in seen:
                    seen.add(id(v))
                    trainable.append(v)
            for v in concrete.variables:
                if id(v) not in seen:
                    seen.add(id(v))
                    others.append(v)
    return trainable, others


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
