"""What converted code calls in place of `if`, `while`, `for` and `not`.

Each runs the Python statement as written unless its condition (or, for `for`, its iterable) is
a tensor of the trace in progress; then it stages `tf.cond`/`tf.while_loop` over the variables
the statement assigns ("state"), read and written through the `get_state`/`set_state`
functions the converter generates. `names` are those variables' names, in state order;
`required` the ones read after the statement, which must come out of it with a value (for a
loop, also those an iteration reads before assigning them: TensorFlow's loop variables)."""

from ferroflow import _tracing, control_flow, nest
from ferroflow.autograph import staged_values
from ferroflow.autograph.calls import converted_call
from ferroflow.autograph.exits import RETVAL
from ferroflow.autograph.staged_values import UNDEFINED, describe, loop_value

__all__ = [
    "UNDEFINED",
    "converted_call",
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
    """`not value`, or `tf.logical_not` of a tensor while tracing (cast to bool first)."""
    if not _tracing.staged(value):
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
    """`if test: body() else: orelse()`; `tf.cond` over the state when `test` is a tensor
    while tracing (as TensorFlow's AutoGraph, even when its value is known)."""
    if not _tracing.staged(test):
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
    if _tracing.staged(keep_going) and keep_going.dtype.name != "bool":
        raise ValueError(
            f"condition of while loop expected to be `tf.bool` scalar, got {keep_going!r}; to "
            "use as boolean Tensor, use `tf.cast`; to check for None, use `is not None`"
        )
    if not _tracing.staged(keep_going):
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
    if _tracing.tracing() and _iterates_a_dataset(iterable):
        from ferroflow.data._in_function import staged_dataset_loop

        def staged_loop(test, step):
            _staged_loop(test, step, get_state, set_state, names, required, 0)

        staged_dataset_loop(iterable, extra_test, set_target, body, staged_loop)
        return
    for item in iterable:
        set_target(item)
        body()
        if extra_test is not None:
            keep_going = extra_test()
            _check_python_loop_test(keep_going)
            if not keep_going:
                break


def _iterates_a_dataset(iterable):
    """A `tf.data.Dataset` or an iterator of one: a loop over it is staged (its elements are
    pulled when the graph runs)."""
    from ferroflow.data.dataset import Dataset, Iterator

    return isinstance(iterable, (Dataset, Iterator))


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

    target, start = _target_of(iterable)
    if start is not None:
        _default_target(get_state, set_state, set_target, start)

    def step(index):
        set_target(target(index))
        body()
        return index + 1

    empty = isinstance(length, int) and length == 0
    _staged_loop(test, step, get_state, set_state, names, required, 0, empty)


def _target_of(iterable):
    """The loop target at an index, and for a `tf.range` its start: arithmetic for a range (its
    example value may be empty while a nested loop is traced), a gather otherwise."""
    from ferroflow import array_ops, dtypes
    from ferroflow import math as ff_math

    bounds = _tracing.range_bounds(iterable)
    if bounds is None:
        return (lambda index: array_ops.gather(iterable, index)), None
    dtype = iterable.dtype
    start, _, delta = (ff_math.cast(array_ops.convert_to_tensor(b), dtype) for b in bounds)
    if dtype == dtypes.int32:
        return (lambda index: start + index * delta), start
    return (lambda index: start + ff_math.cast(index, dtype) * delta), start


def _default_target(get_state, set_state, set_target, start):
    """A loop over a `tf.range` gives its target the range's start before the loop when it has
    no value yet (as TensorFlow's AutoGraph): it is then defined after the loop however many
    times the loop runs."""
    before = get_state()
    if all(value is not UNDEFINED for value in before):
        return
    set_target(start)
    defaulted = get_state()
    set_state(tuple(b if b is not UNDEFINED else d for b, d in zip(before, defaulted)))


def _staged_loop(test, step, get_state, set_state, names, required, counter, empty=False):
    """`tf.while_loop` over a counter and the state variables that have a value before the loop
    or are `required` (the others are temporaries of the body). `test(counter)` and
    `step(counter)` (returning the next counter) run the loop; the counter is the for loop's
    index, and keeps a while loop that carries no variable (its body may change only
    `tf.Variable`s) a valid `while_loop`.

    `required` are TensorFlow's loop variables, in its order. Those with no value (or None)
    before the loop start from zeros of the type one iteration gives them; a flag the loop
    carries then checks, when the graph runs, that it ran at least once to replace them. A
    loop known to be `empty` (over a tensor of static length 0) fails that check at once."""
    from ferroflow.array_ops import convert_to_tensor

    before = get_state()
    nulls = [
        i
        for i, name in enumerate(names)
        if name in required and (before[i] is UNDEFINED or before[i] is None)
    ]
    # A variable that is None before the loop but no loop variable is a temporary too.
    defined = [i for i, value in enumerate(before) if value is not UNDEFINED and value is not None]
    carried = sorted(defined + nulls)
    start, invariants = list(before), {}
    if nulls and empty:  # one iteration's trace would index the empty tensor
        _check_iterated(False, [names[i] for i in nulls], required)
    if nulls:
        start, invariants = _define_nulls(
            step, get_state, set_state, names, required, before, nulls, defined, counter
        )
    initial = (convert_to_tensor(counter),)
    if nulls:
        initial += (convert_to_tensor(False),)
    flag = len(initial)  # where the state starts among the loop variables
    initial += tuple(loop_value(names[i], start[i], "before") for i in carried)
    shape_invariants = None
    if invariants:
        shape_invariants = [None] * flag + [
            invariants.get(i, nest.map_structure(lambda _: None, value))
            for i, value in zip(carried, initial[flag:])
        ]

    def restore(loop_vars):
        state = list(before)  # temporaries go back to unbound
        for slot, i in enumerate(carried):
            state[i] = loop_vars[flag + slot]
        set_state(tuple(state))

    def loop_test(*loop_vars):
        restore(loop_vars)
        return test(loop_vars[0])

    def loop_body(*loop_vars):
        restore(loop_vars)
        counter = step(loop_vars[0])
        after = get_state()
        ran = (convert_to_tensor(True),) if nulls else ()
        return (counter, *ran, *(loop_value(names[i], after[i], "after") for i in carried))

    final = control_flow.while_loop(
        loop_test, loop_body, initial, shape_invariants=shape_invariants
    )
    restore(tuple(final))
    if nulls:
        _check_iterated(final[1], [names[i] for i in nulls], required)


def _define_nulls(step, get_state, set_state, names, required, before, nulls, defined, counter):
    """TensorFlow's way with loop variables that have no value (or None) before a staged loop:
    trace one iteration into a graph that is thrown away, and start each with a zero value of
    the type that iteration gives it. Returns the state to start from, and shape invariants
    (by state index) for those whose zeros stand for a dimension the trace does not know.
    Raises TensorFlow's errors for variables it cannot give a value."""
    from ferroflow import _staging
    from ferroflow.array_ops import convert_to_tensor

    values = (convert_to_tensor(counter),)
    values += tuple(loop_value(names[i], before[i], "before") for i in defined)

    def iteration(counter, *loop_vars):
        state = list(before)
        for slot, i in enumerate(defined):
            state[i] = loop_vars[slot]
        set_state(tuple(state))
        step(counter)
        after = get_state()
        # Read now: the values belong to the trace that is thrown away.
        return {i: _placeholder_spec(after[i]) for i in nulls}

    specs, failure = {}, None
    try:
        specs = _staging.trace_discarded(iteration, values)
    except (NameError, TypeError, ValueError, KeyError) as e:
        failure = _failure_note(e, names)
    finally:
        set_state(before)
    start, invariants = list(before), {}
    for i, spec in specs.items():
        start[i], invariant = _placeholder_value(spec, before[i])
        if invariant is not None:
            invariants[i] = invariant
    for name in required:  # the error names the first of them in TensorFlow's order
        i = names.index(name)
        if i not in nulls:
            continue
        if start[i] is None:
            raise ValueError(f"{describe(name)} is not allowed to be None before the loop")
        if start[i] is UNDEFINED:
            note = "" if failure is None else "\n" + failure
            raise ValueError(f"{describe(name)} must be defined before the loop{note}")
    return start, invariants


def _failure_note(error, names):
    if isinstance(error, NameError) and not isinstance(error, UnboundLocalError):
        if getattr(error, "name", None) not in names:
            raise error  # a name the loop does not assign (TensorFlow lets NameError through)
        # An unbound variable of the converted function, read from the generated body.
        kind, text = "UnboundLocalError", f"'{error.name}' is used before assignment"
    else:
        kind, text = type(error).__name__, str(error)
    return f"Note: AutoGraph tried to define it automatically, but ran into a {kind}: {text}"


class _Zeros:
    """What a loop variable's placeholder is made of: a tensor's dtype and its traced dims."""

    __slots__ = ("dims", "dtype")

    def __init__(self, dtype, dims):
        self.dtype = dtype
        self.dims = dims


_SUPPORTED = "Supported types include Tensor, int, float, bool, list, tuple or dict."


def _placeholder_spec(like):
    """The type of `like`, a variable's value after one iteration, as `_placeholder_value`
    needs it; a TypeError for a value no loop variable can hold."""
    from ferroflow import _core
    from ferroflow._staging import _static_dims

    if like is None or like is UNDEFINED:
        return like
    if isinstance(like, (int, float, bool)):
        return type(like)(0)
    if isinstance(like, _core.Tensor):
        return _Zeros(like.dtype, _static_dims(like))
    if isinstance(like, _core.BaseVariable):
        return _Zeros(like.dtype, list(like.shape.dims))
    if isinstance(like, (list, tuple, dict)):
        return nest.pack_sequence_as(like, [_placeholder_spec(v) for v in nest.flatten(like)])
    raise TypeError(
        f"Found an unsupported type '{type(like).__name__}' while creating placeholder for "
        f"{like}. {_SUPPORTED}"
    )


def _placeholder_value(spec, original):
    """A variable's starting value from its `_placeholder_spec` (zeros; `original`, the value
    before the loop, where one iteration gives it none), and its shape invariant or None."""
    from ferroflow import array_ops
    from ferroflow.tensor_shape import TensorShape

    if spec is None or spec is UNDEFINED:
        return original, None
    if isinstance(spec, _Zeros):
        zeros = array_ops.zeros([0 if d is None else d for d in spec.dims], spec.dtype)
        return zeros, TensorShape(spec.dims) if None in spec.dims else None
    if nest.is_nested(spec):
        pairs = [_placeholder_value(leaf, None) for leaf in nest.flatten(spec)]
        invariants = [inv for _, inv in pairs]
        value = nest.pack_sequence_as(spec, [v for v, _ in pairs])
        if all(inv is None for inv in invariants):
            return value, None
        return value, nest.pack_sequence_as(spec, invariants)
    return spec, None  # a Python number's zero


def _check_iterated(ran, null_names, required):
    """TensorFlow's check that a loop ran to define the variables it started with zeros."""
    from ferroflow import _staging

    names = [n for n in required if n in null_names]
    described = ", ".join("the function return value" if n == RETVAL else n for n in names)
    message = f"loop must iterate at least once to initialize {described}"
    if _tracing.is_symbolic(ran):
        _staging.assert_true(ran, message)
    elif not bool(ran):  # the loop ran as Python, while tracing
        from ferroflow.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, f"assertion failed: [{message}]")


def _loop_test(test, extra_test):
    if extra_test is None:
        return test()
    keep_going = extra_test()
    if _tracing.staged(keep_going):
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
