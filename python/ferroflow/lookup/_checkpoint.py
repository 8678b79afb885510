"""Mutable tables in `tf.train.Checkpoint`: a table's keys and values travel as two variables
(its checkpoint children ``table-keys`` and ``table-values``, TensorFlow's attribute names).
Saving writes the table's contents into them; a restore assigns them, which marks the table
stale, and the table reloads from them before its next operation (TensorFlow's restore imports
the saved keys and values, replacing the contents)."""

from ferroflow.tensor_shape import TensorShape
from ferroflow.variables import Variable

__all__ = ["table_children"]


class _Slot(Variable):
    """A variable holding a table's keys or values; assigning it (a restore) marks the table's
    store stale."""

    def assign(self, value, use_locking=None, name=None, read_value=True):
        out = super().assign(value, use_locking, name, read_value)
        self._lookup_store.stale = True
        return out


def _slot(store, value, dtype, name):
    slot = _Slot(value, dtype=dtype, shape=TensorShape(None), trainable=False, name=name)
    slot._lookup_store = store
    return slot


def table_children(table):
    """The table's checkpoint children, holding its contents now."""
    if not table._checkpoint:
        return []
    store = table._store
    keys, values = store.export()
    if store.slots is None:
        store.slots = (
            _slot(store, keys, store.key_dtype, "table-keys"),
            _slot(store, values, store.value_dtype, "table-values"),
        )
    else:
        for slot, value in zip(store.slots, (keys, values)):
            Variable.assign(slot, value)  # the table's own contents: not a restore
    return [("table-keys", store.slots[0]), ("table-values", store.slots[1])]
