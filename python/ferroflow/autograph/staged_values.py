"""Values crossing a staged `tf.cond`/`tf.while_loop`: Python numbers become tensors, equal
Python values in both branches of an `if` stay Python values, and what cannot cross (None, a
string, a function) raises a ValueError naming the variable instead of failing obscurely."""

import types

from ferroflow.autograph.exits import RETVAL


class _Undefined:
    """The value of a variable that has none yet (an unbound Python local)."""

    __slots__ = ()

    def __repr__(self):
        return "UNDEFINED"


UNDEFINED = _Undefined()

_NUMBERS = (bool, int, float)
_OPAQUE = (
    type(None),
    str,
    bytes,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
)


def describe(name, capital=False):
    if name == RETVAL:
        return "The return value" if capital else "the return value"
    return f"'{name}'"


def branch_outputs(names, outputs, seen, label):
    """What one branch function of a staged `if` returns to `tf.cond`: its state values, Python
    numbers as tensors and opaque values (None, strings, ...) as a placeholder that `merge`
    swaps back. Checks the two branches agree as soon as both have run."""
    from ferroflow.array_ops import convert_to_tensor

    if "if" in seen and "else" in seen:
        for slot, i in enumerate(outputs):
            _check_compatible(names[i], seen["if"][slot], seen["else"][slot])
    out = []
    for value in seen[label]:
        if isinstance(value, _NUMBERS):
            value = convert_to_tensor(value)
        elif isinstance(value, _OPAQUE):
            value = convert_to_tensor(False)
        out.append(value)
    return tuple(out)


def merge(names, outputs, seen, staged):
    """The state values after a staged `if`: the Python value where both branches gave the same
    one, else `tf.cond`'s output."""
    if len(outputs) == 1 and not isinstance(staged, (tuple, list)):
        staged = (staged,)
    merged = []
    for slot, i in enumerate(outputs):
        a, b = seen["if"][slot], seen["else"][slot]
        _check_compatible(names[i], a, b)
        same_python_value = isinstance(a, _NUMBERS + _OPAQUE) and type(a) is type(b) and a == b
        merged.append(a if same_python_value else staged[slot])
    return merged


def loop_value(name, value, when):
    """`value` as a `tf.while_loop` variable: Python numbers become tensors."""
    from ferroflow.array_ops import convert_to_tensor

    if value is UNDEFINED:
        raise ValueError(f"{describe(name, capital=True)} has no value {when} an iteration.")
    if isinstance(value, _NUMBERS):
        return convert_to_tensor(value)
    if isinstance(value, _OPAQUE):
        raise ValueError(
            f"{describe(name, capital=True)} is {_kind(value)} {when} an iteration of a loop "
            "staged over a tensor, which can only carry tensors (and nests of them): give it "
            "a tensor value before the loop."
        )
    return value


def _check_compatible(name, a, b):
    if not (isinstance(a, _OPAQUE) or isinstance(b, _OPAQUE)):
        return
    if type(a) is type(b) and (a is b or a == b):
        return
    raise ValueError(
        f"{describe(name, capital=True)} is {_kind(a)} in the if branch but {_kind(b)} in the "
        "else branch of an `if` on a tensor condition: both branches must give it a tensor, "
        "or the same Python value."
    )


def _kind(value):
    if value is None:
        return "None"
    if isinstance(value, (*_NUMBERS, str, bytes)):
        text = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return f"the {type(value).__name__} {text}"
    return f"a {type(value).__name__}"
