"""What converted code calls in place of `if`, `while`, `for` and `not`.

Each runs the Python statement as written unless its condition (or, for `for`, its iterable) is
a tensor of the trace in progress; then it stages `tf.cond`/`tf.while_loop` over the variables
the statement assigns ("state"), read and written through the `get_state`/`set_state`
functions the converter generates. `names` are those variables' names, in state order;
`required` the ones read after the statement, which must come out of it with a value."""

from ferroflow import _tracing, control_flow
from ferroflow.autograph import staged_values
from ferroflow.autograph.staged_values import UNDEFINED, describe, loop_value

__all__ = [
    "UNDEFINED",
    "for_stmt",
    "if_stmt",
    "not_",
    "python_test",
    "read_names",
    "while_stmt",
]


def read_names(readers):
    """The values of the variables read by `readers` (`lambda: x`), `UNDEFINED` for unbound."""
    values = []
    for read in readers:
        try:
            values.append(read())
        except NameError:  # UnboundLocalError and unbound free variables alike
            values.append(UNDEFINED)
    return tuple(values)


def not_(value):
    """`not value`, or `tf.logical_not` of a symbolic tensor (cast to bool first)."""
    if not _tracing.is_symbolic(value):
        return not value
    from ferroflow import array_ops, dtypes
    from ferroflow import math as ff_math

    if value.dtype != dtypes.bool:
        value = array_ops.cast(value, dtypes.bool)
    return ff_math.logical_not(value)


def python_test(test, message):
    """The test of an `if`/`while` that stays Python: `test`, unless it is symbolic."""
    if _tracing.is_symbolic(test):
        raise NotImplementedError(message)
    return test


def if_stmt(test, body, orelse, get_state, set_state, names, required=()):
    """`if test: body() else: orelse()`; `tf.cond` over the state when `test` is symbolic."""
    if not _tracing.is_symbolic(test):
        if test:
            body()
        else:
            orelse()
        return
    before = get_state()
    outputs = [i for i, name in enumerate(names) if before[i] is not UNDEFINED or name in required]
    seen = {}

    def branch(run, label):
        def staged_branch():
            set_state(before)  # the other branch's trace may have changed the variables
            run()
            after = get_state()
            values = []
            for i in outputs:
                if after[i] is UNDEFINED:
                    raise ValueError(
                        f"{describe(names[i], capital=True)} must also be initialized in the "
                        f"{label} branch: it is used after this `if`, whose condition is a "
                        "tensor, so both branches must give it a value."
                    )
                values.append(after[i])
            seen[label] = values
            return staged_values.branch_outputs(names, outputs, seen, label)

        return staged_branch

    result = control_flow.cond(test, branch(body, "if"), branch(orelse, "else"))
    final = list(before)  # names that are no output keep (or get back) their value before
    merged = staged_values.merge(names, outputs, seen, result)
    for slot, i in enumerate(outputs):
        final[i] = merged[slot]
    set_state(tuple(final))


def while_stmt(test, body, get_state, set_state, names, required=(), extra_test=None):
    """`while extra_test() and test(): body()`; `tf.while_loop` when the first test is
    symbolic. `extra_test` is the `not break_flag` of a loop holding `break`."""
    keep_going = _loop_test(test, extra_test)
    if not _tracing.is_symbolic(keep_going):
        while keep_going:
            body()
            keep_going = _loop_test(test, extra_test)
            _check_python_loop_test(keep_going)
        return

    def step(counter):
        body()
        return counter

    _staged_loop(
        lambda _: _loop_test(test, extra_test), step, get_state, set_state, names, required, 0
    )


def for_stmt(iterable, body, get_state, set_state, names, set_target, required=(), extra_test=None):
    """`for target in iterable: body()`; over a tensor while tracing, a `tf.while_loop` over
    (index, *state) that sets the target to `iterable[index]`."""
    from ferroflow._core import Tensor

    if isinstance(iterable, Tensor) and _tracing.tracing():
        _staged_for(iterable, body, get_state, set_state, names, set_target, required, extra_test)
        return
    for item in iterable:
        set_target(item)
        body()
        if extra_test is not None:
            keep_going = extra_test()
            _check_python_loop_test(keep_going)
            if not keep_going:
                break


def _staged_for(iterable, body, get_state, set_state, names, set_target, required, extra_test):
    from ferroflow import array_ops
    from ferroflow import math as ff_math

    if iterable.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    length = iterable.shape[0] if iterable.shape.rank is not None else None
    if length is None:
        length = array_ops.shape(iterable)[0]

    def test(index):
        in_range = index < length
        if extra_test is None:
            return in_range
        return ff_math.logical_and(in_range, extra_test())

    target = _target_of(iterable)

    def step(index):
        set_target(target(index))
        body()
        return index + 1

    _staged_loop(test, step, get_state, set_state, names, required, 0)


def _target_of(iterable):
    """The loop target at an index: arithmetic for a `tf.range` (its example value may be empty
    while a nested loop is traced), a gather otherwise."""
    from ferroflow import array_ops, dtypes
    from ferroflow import math as ff_math

    bounds = _tracing.range_bounds(iterable)
    if bounds is None:
        return lambda index: array_ops.gather(iterable, index)
    dtype = iterable.dtype
    start, _, delta = (ff_math.cast(array_ops.convert_to_tensor(b), dtype) for b in bounds)
    if dtype == dtypes.int32:
        return lambda index: start + index * delta
    return lambda index: start + ff_math.cast(index, dtype) * delta


def _staged_loop(test, step, get_state, set_state, names, required, counter):
    """`tf.while_loop` over a counter and the state variables that have a value before the loop
    (the others are temporaries of the body). `test(counter)` and `step(counter)` (returning
    the next counter) run the loop; the counter is the for loop's index, and keeps a while loop
    that carries no variable (its body may change only `tf.Variable`s) a valid `while_loop`."""
    from ferroflow.array_ops import convert_to_tensor

    before = get_state()
    for i, name in enumerate(names):
        if before[i] is UNDEFINED and name in required:
            raise ValueError(
                f"{describe(name, capital=True)} must be defined before the loop: it is used "
                "after a loop staged over a tensor, which may run zero times."
            )
    carried = [i for i, value in enumerate(before) if value is not UNDEFINED]
    initial = (convert_to_tensor(counter),)
    initial += tuple(loop_value(names[i], before[i], "before") for i in carried)

    def restore(loop_vars):
        state = list(before)  # temporaries go back to unbound
        for slot, i in enumerate(carried):
            state[i] = loop_vars[slot + 1]
        set_state(tuple(state))

    def loop_test(*loop_vars):
        restore(loop_vars)
        return test(loop_vars[0])

    def loop_body(*loop_vars):
        restore(loop_vars)
        counter = step(loop_vars[0])
        after = get_state()
        return (counter, *(loop_value(names[i], after[i], "after") for i in carried))

    final = control_flow.while_loop(loop_test, loop_body, initial)
    restore(tuple(final))


def _loop_test(test, extra_test):
    if extra_test is None:
        return test()
    keep_going = extra_test()
    if _tracing.is_symbolic(keep_going):
        from ferroflow import math as ff_math

        return ff_math.logical_and(keep_going, test())
    return keep_going and test()


def _check_python_loop_test(keep_going):
    if _tracing.is_symbolic(keep_going):
        raise NotImplementedError(
            "a Python loop (its condition or iterable was not a tensor when it started) cannot "
            "stop on a tensor condition (a `break` under an `if` on a tensor, or a condition "
            "that became a tensor): start the loop with a tensor condition, or iterate over "
            "`tf.range(...)`."
        )
