"""AutoGraph (`ferroflow.autograph`): converted functions give the original's results when run as
Python, stage `tf.cond`/`tf.while_loop` when conditions are symbolic (simulated here: every
tensor counts as symbolic and fakes of `cond`/`while_loop` run the staged functions eagerly),
keep closures, methods and defaults working, and point tracebacks at the user's lines."""

import functools
import inspect
import traceback

import ferroflow as tf
import pytest
from ferroflow import _tracing, control_flow
from ferroflow.autograph import do_not_convert, experimental, to_code, to_graph

# ---------------------------------------------------------------- functions to convert


def branch(x):
    if x > 0:
        y = x * 2
    else:
        y = -x
    return y


def elif_chain(x):
    if x > 10:
        kind = 3
    elif x > 5:
        kind = 2
    elif x > 0:
        kind = 1
    else:
        kind = 0
    return kind


def nested_ifs(x, y):
    if x > 0:
        if y > 0:
            quadrant = 1
        else:
            quadrant = 4
    else:
        if y > 0:
            quadrant = 2
        else:
            quadrant = 3
    return quadrant


def if_without_else(x):
    y = x
    if x < 0:
        y = -x
    return y


def early_return(x):
    if x > 0:
        return x
    return -x


def early_returns_in_elif(x):
    if x > 10:
        return 3
    elif x > 0:
        return 1
    return 0


def return_after_statements(x):
    y = x + 1
    if y > 3:
        y = y * 10
        return y
    y = y - 1
    return y


def partial_return(a, b):
    if a:
        if b:
            return 1
        x = 2
    else:
        x = 3
    return x


def falls_off_the_end(x):
    if x > 0:
        return x


def countdown(n):
    total = 0
    while n > 0:
        total += n
        n -= 1
    return total


def while_with_jumps(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        if i > 7:
            break
        total += i
    return total


def while_else(n, stop):
    i = 0
    while i < n:
        if i == stop:
            break
        i += 1
    else:
        i = -1
    return i


def sum_range(n):
    total = 0
    for i in tf.range(n):
        total += i
    return total


def sum_python_iterable(items):
    total = 0
    for item in items:
        total += item
    return total


def for_with_jumps(items):
    total = 0
    for x in items:
        if x < 0:
            continue
        total += x
        if total > 10:
            break
    return total


def for_else(items, stop):
    found = -1
    for x in items:
        if x == stop:
            found = x
            break
    else:
        found = -2
    return found


def for_unpacking(pairs):
    total = 0
    for key, value in pairs:
        total += key * value
    return total


def loop_returning_inside(items):
    for x in items:
        if x > 2:
            return x  # the loop stays a Python loop; the if after it converts
    if len(items) > 1:
        code = -1
    else:
        code = -2
    return code


def nested_loops(n):
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if j == 2:
                break
            total += j
            j += 1
    return total


def jumps_in_with_and_try(items):
    import contextlib

    total = 0
    for x in items:
        with contextlib.nullcontext():
            if x > 5:
                break
        try:
            if x < 0:
                continue
        finally:
            total += 1
        total += x
    if total > 100:  # converted; the loop above stays Python: a `try` holds a jump
        total = 100
    return total


def jump_in_inner_loop_else(rows):
    # The standard library's idiom (functools._c3_merge): a jump in a nested loop's else block
    # belongs to the outer loop.
    found = None
    for row in rows:
        for value in row:
            if value < 0:
                break
        else:
            found = row
            break
    return found


def temporaries(x):
    if x > 0:
        scratch = x * 3
        y = scratch + 1
    else:
        y = x
    return y


def negation(x):
    if not x > 0:
        return 0
    return 1


def defaults_and_kinds(a, b=2, *rest, scale=3, **options):
    if a > b:
        out = (a - b) * scale
    else:
        out = (b - a) * scale
    return out + len(rest) + len(options)


def walrus_loop(values):
    values = list(values)
    seen = []
    while (item := values.pop()) != 0:
        seen.append(item)
    return seen, item


COUNTER = 0


def bump_global(x):
    global COUNTER
    if x > 0:
        COUNTER += x
    return COUNTER


def statements_inside_branches(x):
    if x > 0:
        try:
            value = 10 // x
        except ZeroDivisionError:
            value = None
        with_value = value
        del value
    else:
        import math as imported

        with_value = imported.floor(-0.5)
    return with_value


def defines_inner_function(x):
    def inner(v):
        if v > 0:
            return "positive"
        return "other"

    if x > 0:
        label = inner(x)
    else:
        label = inner(-x)
    return label, inner


def raises_in_branch(x):
    if x > 0:
        raise ValueError("boom")  # the traceback must point here
    return x


def no_control_flow(x):
    return x + 1


def generator(n):
    for i in range(n):
        if i:
            yield i


def record_decoration(func):
    record_decoration.calls += 1
    return func


record_decoration.calls = 0


@record_decoration
def decorated(x):
    if x > 0:
        x = x + 100
    return x


def logged(func):
    @functools.wraps(func)
    def wrapper(*args):
        if args:
            out = func(*args)
        else:
            out = None
        return out

    return wrapper


@logged
def wrapped_double(x):
    return x * 2


def make_closure(offset):
    calls = 0

    def add(x):
        nonlocal calls
        calls += 1
        if x > 0:
            result = x + offset
        else:
            result = x - offset
        return result, calls

    return add


def guarded_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i > 2:
            if i % 2 == 0:
                continue
            total += 100
        total += 1
    return total


def inside_with_and_try(x):
    import contextlib

    with contextlib.nullcontext():
        if x > 0:
            y = 1
        else:
            y = 2
    try:
        for i in range(3):
            y += i
    finally:
        y = y * 10
    return y


class Shape:
    def __init__(self, size):
        self.__size = size

    def describe(self, x):
        return "shape"


class Square(Shape):
    def __init__(self, size):
        super().__init__(size)
        self.__size = size * size

    def area_function(self):
        def area(flag):
            if flag:
                value = self.__size
            else:
                value = 0
            return value

        return area

    @staticmethod
    def static_sign(x):
        if x < 0:
            return -1
        return 1

    @classmethod
    def build(cls, size):
        if size < 0:
            size = -size
        return cls(size)

    def describe(self, x):
        if x > 0:
            text = super().describe(x) + ":" + str(self.__size)
        else:
            text = "none"
        return text


# ---------------------------------------------------------------- fakes of staging


class FakeStaging:
    """`cond`/`while_loop` that record their calls and run what they would stage eagerly, the
    way a trace would: both branches of a cond run (each from the same state)."""

    def __init__(self):
        self.calls = []

    def cond(self, pred, true_fn, false_fn, name=None):
        self.calls.append("cond")
        assert isinstance(pred, tf.Tensor)
        true_out, false_out = true_fn(), false_fn()
        for value in [*true_out, *false_out]:
            assert isinstance(value, tf.Tensor), value
        return true_out if bool(pred) else false_out

    def while_loop(self, cond, body, loop_vars, **kwargs):
        self.calls.append("while_loop")
        loop_vars = tuple(loop_vars)
        for value in loop_vars:
            assert isinstance(value, tf.Tensor), value
        while bool(cond(*loop_vars)):
            new_vars = tuple(body(*loop_vars))
            assert len(new_vars) == len(loop_vars)
            loop_vars = new_vars
        return loop_vars


@pytest.fixture
def staged(monkeypatch):
    fake = FakeStaging()
    monkeypatch.setattr(_tracing, "is_symbolic", lambda value: isinstance(value, tf.Tensor))
    monkeypatch.setattr(_tracing, "tracing", lambda: True)
    monkeypatch.setattr(control_flow, "cond", fake.cond)
    monkeypatch.setattr(control_flow, "while_loop", fake.while_loop)
    return fake


@pytest.fixture(autouse=True)
def trace_predicates(monkeypatch):
    """The real predicates once the extension has them; until then, what they answer outside a
    trace (nothing is symbolic). `staged` overrides them."""
    from ferroflow import _core

    if not (hasattr(_core, "is_symbolic") and hasattr(_core, "graph_tracing")):
        monkeypatch.setattr(_tracing, "is_symbolic", lambda value: False)
        monkeypatch.setattr(_tracing, "tracing", lambda: False)


def value_of(result):
    if isinstance(result, tf.Tensor):
        return result.numpy().tolist()
    if isinstance(result, (tuple, list)):
        return type(result)(value_of(item) for item in result)
    return result


# ---------------------------------------------------------------- unstaged: same as Python

PYTHON_CASES = [
    (branch, [(3,), (-2,), (0,), (tf.constant(4),), (tf.constant(-1.5),)]),
    (elif_chain, [(11,), (7,), (1,), (-1,), (tf.constant(6),)]),
    (nested_ifs, [(1, 1), (1, -1), (-1, 1), (-1, -1)]),
    (if_without_else, [(3,), (-3,)]),
    (early_return, [(5,), (-5,), (tf.constant(-2),)]),
    (early_returns_in_elif, [(11,), (5,), (-5,)]),
    (return_after_statements, [(1,), (5,)]),
    (partial_return, [(True, True), (True, False), (False, True)]),
    (falls_off_the_end, [(1,), (-1,)]),
    (countdown, [(0,), (4,), (tf.constant(3),)]),
    (while_with_jumps, [(0,), (5,), (20,)]),
    (while_else, [(5, 2), (5, 9)]),
    (sum_range, [(0,), (5,)]),
    (sum_python_iterable, [([],), ([1, 2, 3],), (range(4),), ({1: "a", 5: "b"},)]),
    (for_with_jumps, [([1, -2, 3],), ([5, 4, 3, 2],)]),
    (for_else, [([1, 2, 3], 2), ([1, 2, 3], 7)]),
    (for_unpacking, [([(1, 2), (3, 4)],), ({(5, 6): 0}.keys(),)]),
    (loop_returning_inside, [([1, 2, 3],), ([0],), ([0, 1],)]),
    (nested_loops, [(5,)]),
    (jumps_in_with_and_try, [([1, -1, 2, 9, 3],)]),
    (jump_in_inner_loop_else, [([[1, -1], [2, 3], [4]],), ([[-1]],)]),
    (temporaries, [(2,), (-2,)]),
    (negation, [(1,), (-1,), (tf.constant(2),)]),
    (defaults_and_kinds, [(1,), (5, 1), (1, 2, 3, 4)]),
    (walrus_loop, [([0, 1, 2],), ([0],)]),
    (statements_inside_branches, [(0,), (-1,), (3,)]),
    (guarded_continue, [(0,), (3,), (8,)]),
    (inside_with_and_try, [(1,), (-1,)]),
]


@pytest.mark.parametrize(
    "func, calls", PYTHON_CASES, ids=[func.__name__ for func, _ in PYTHON_CASES]
)
def test_unstaged_results_equal_the_original(func, calls):
    converted = to_graph(func)
    assert converted is not func
    for args in calls:
        kwargs = {}
        if func is defaults_and_kinds and len(args) > 2:
            kwargs = {"scale": 1, "extra": 0}
        assert value_of(converted(*args, **kwargs)) == value_of(func(*args, **kwargs))


def test_unstaged_outside_a_trace():
    assert to_graph(branch)(tf.constant(-3)).numpy() == 3
    assert to_graph(sum_range)(4).numpy() == 6


def test_global_declarations_reach_the_module_variable():
    global COUNTER
    COUNTER = 0
    converted = to_graph(bump_global)
    assert converted(5) == 5
    assert converted(-1) == 5
    assert COUNTER == 5


def test_a_generator_iterable_is_not_advanced_past_a_break():
    numbers = iter([1, 20, 3, 4])
    assert to_graph(for_with_jumps)(numbers) == 21
    assert list(numbers) == [3, 4]


def test_unbound_variables_stay_unbound():
    def one_sided(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(NameError):
        to_graph(one_sided)(-1)
    assert to_graph(one_sided)(1) == 1


# ---------------------------------------------------------------- staged (fake trace)


@pytest.mark.parametrize("x, expected", [(3.0, 6.0), (-2.0, 2.0)])
def test_staged_if_else(staged, x, expected):
    assert to_graph(branch)(tf.constant(x)).numpy() == expected
    assert staged.calls == ["cond"]


@pytest.mark.parametrize("x, expected", [(11, 3), (7, 2), (1, 1), (-1, 0)])
def test_staged_elif_chain(staged, x, expected):
    assert to_graph(elif_chain)(tf.constant(x)).numpy() == expected
    assert staged.calls == ["cond"] * 3


@pytest.mark.parametrize("x, y, expected", [(1, 1, 1), (1, -1, 4), (-1, 1, 2), (-1, -1, 3)])
def test_staged_nested_ifs(staged, x, y, expected):
    result = to_graph(nested_ifs)(tf.constant(x), tf.constant(y))
    assert result.numpy() == expected
    assert staged.calls.count("cond") == 3


@pytest.mark.parametrize(
    "func, x, expected",
    [
        (early_return, 4, 4),
        (early_return, -4, 4),
        (early_returns_in_elif, 12, 3),
        (early_returns_in_elif, 2, 1),
        (early_returns_in_elif, -2, 0),
        (return_after_statements, 5, 60),
        (return_after_statements, 1, 1),
        (negation, -3, 0),
        (negation, 3, 1),
    ],
)
def test_staged_return_inside_if(staged, func, x, expected):
    assert to_graph(func)(tf.constant(x)).numpy() == expected
    assert "cond" in staged.calls


def test_staged_if_keeps_equal_python_values_python(staged):
    def pick(x):
        if x > 0:
            rank = 1
            label = None
            y = x
        else:
            rank = 1
            label = None
            y = -x
        return rank, label, y

    rank, label, y = to_graph(pick)(tf.constant(-2))
    assert (rank, label, y.numpy()) == (1, None, 2)


def test_staged_if_turns_differing_python_numbers_into_tensors(staged):
    def pick(x):
        if x > 0:
            sign = 1
        else:
            sign = -1
        return sign

    result = to_graph(pick)(tf.constant(-5))
    assert isinstance(result, tf.Tensor) and result.numpy() == -1


def test_staged_if_one_sided_variable_raises(staged):
    def one_sided(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        to_graph(one_sided)(tf.constant(1))


def test_staged_if_return_in_one_branch_only_raises(staged):
    with pytest.raises(ValueError, match="The return value is .* in the if branch but None"):
        to_graph(falls_off_the_end)(tf.constant(1))


def test_staged_if_variable_read_after_a_break_must_be_set_in_both_branches(staged):
    def last_before_break(items, flag):
        for item in items:  # a Python loop: `break` under a Python `if`
            if flag:
                value = item
            if item > 1:
                break
            value = 0
        return value

    assert to_graph(last_before_break)([1, 2], True) == 2
    with pytest.raises(ValueError, match="'value' must also be initialized in the else branch"):
        to_graph(last_before_break)([2], tf.constant(True))


def test_staged_if_none_against_tensor_raises(staged):
    def maybe(x):
        y = None
        if x > 0:
            y = x
        return y

    with pytest.raises(ValueError, match="'y' is a Tensor in the if branch but None"):
        to_graph(maybe)(tf.constant(1))


def test_staged_if_branch_temporaries_are_no_outputs(staged):
    assert to_graph(temporaries)(tf.constant(2)).numpy() == 7
    assert to_graph(temporaries)(tf.constant(-2)).numpy() == -2


def test_staged_while(staged):
    assert to_graph(countdown)(tf.constant(4)).numpy() == 10
    assert staged.calls == ["while_loop"]


def test_staged_while_with_break_and_continue(staged):
    for n in [0, 5, 20]:
        assert to_graph(while_with_jumps)(tf.constant(n)).numpy() == while_with_jumps(n)


@pytest.mark.parametrize("stop, expected", [(2, 2), (9, -1)])
def test_staged_while_else(staged, stop, expected):
    assert to_graph(while_else)(tf.constant(5), tf.constant(stop)).numpy() == expected


def test_staged_for_over_tf_range(staged):
    assert to_graph(sum_range)(tf.constant(5)).numpy() == 10
    assert staged.calls == ["while_loop"]


def test_staged_for_with_break_and_continue(staged):
    items = tf.constant([1, -2, 3, 9, 4])
    assert to_graph(for_with_jumps)(items).numpy() == 13
    assert staged.calls[0] == "while_loop"


@pytest.mark.parametrize("stop, expected", [(2, 2), (7, -2)])
def test_staged_for_else(staged, stop, expected):
    items = tf.constant([1, 2, 3])
    assert to_graph(for_else)(items, tf.constant(stop)).numpy() == expected


def test_staged_for_over_matrix_rows(staged):
    def row_sums(matrix):
        total = tf.zeros([2])
        for row in matrix:
            total = total + row
        return total

    result = to_graph(row_sums)(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert result.numpy().tolist() == [9.0, 12.0]


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def triangle(n):
    total = 0
    for i in tf.range(n):
        for j in tf.range(i):
            if j % 2 == 1:
                continue
            total += j
    return total


@pytest.mark.parametrize("func, n", [(collatz_steps, 27), (collatz_steps, 1), (triangle, 7)])
def test_staged_nested_control_flow_matches_python(staged, func, n):
    assert to_graph(func)(tf.constant(n)).numpy() == value_of(func(n))
    assert "while_loop" in staged.calls


def test_python_list_loop_stays_python_while_tracing(staged):
    assert to_graph(sum_python_iterable)([1, 2, 3]) == 6
    assert staged.calls == []


def test_python_loop_with_tensor_break_raises(staged):
    with pytest.raises(NotImplementedError, match="cannot stop on a tensor condition"):
        to_graph(for_with_jumps)([tf.constant(20), tf.constant(1)])


def test_staged_test_of_an_unconvertible_if_names_the_line(staged):
    with pytest.raises(NotImplementedError) as info:
        to_graph(loop_returning_inside)([tf.constant(3)])
    line = _line_of(loop_returning_inside, "if x > 2")
    assert f"The `if` statement at line {line} of {__file__} tests a tensor" in str(info.value)
    assert "holds a `return`" in str(info.value)


def test_staged_test_of_a_loop_with_a_jump_in_try_names_the_line(staged):
    def stop_at_three(n):
        i = 0
        while i < n:
            try:
                if i == 3:
                    break
            finally:
                i += 1
        return i

    assert to_graph(stop_at_three)(10) == 4
    with pytest.raises(NotImplementedError) as info:
        to_graph(stop_at_three)(tf.constant(10))
    message = str(info.value)
    assert f"`while` statement at line {_line_of(stop_at_three, 'while i < n')} of" in message
    assert f"`try` block at line {_line_of(stop_at_three, 'try:')}" in message
    with pytest.raises(NotImplementedError, match="a `break` or `continue` of a loop that stays"):
        to_graph(jumps_in_with_and_try)(tf.constant([1, 2]))


# Loop variables first assigned in a staged loop (or None before it): as TensorFlow's AutoGraph,
# one iteration is traced to learn their types and the loop starts them from zeros; a loop that
# runs zero times then fails when the graph runs.


def test_staged_loop_variable_first_assigned_in_the_body_keeps_the_last_value():
    @tf.function
    def last_values(n):
        for i in tf.range(n):
            square = i * i
            pair = (tf.cast(i, tf.float32) / 2.0, {"count": 7, "flag": True})
        return square, pair

    square, (half, extras) = last_values(tf.constant(4))
    assert square.numpy() == 9 and half.numpy() == 1.5
    assert extras["count"].dtype == tf.int32 and extras["count"].numpy() == 7
    assert extras["flag"].dtype == tf.bool and extras["flag"].numpy()
    assert last_values(tf.constant(1))[0].numpy() == 0
    assert last_values.experimental_get_tracing_count() == 1


def test_staged_loop_variable_undefined_before_while_and_tensor_iteration():
    @tf.function
    def doubled_until(n):
        i = tf.constant(0)
        while i < n:
            doubled = i * 2
            i += 1
        return doubled

    @tf.function
    def last_item(items):
        for item in items:
            doubled = item * 2
        return doubled

    assert doubled_until(tf.constant(4)).numpy() == 6
    assert last_item(tf.constant([1, 2])).numpy() == 4


def test_staged_loop_variable_none_before_the_loop_gets_a_value():
    def accumulate(n):
        total = None
        i = 0
        while i < n:
            total = i
            i += 1
        return total

    assert tf.function(accumulate)(tf.constant(3)).numpy() == 2

    @tf.function
    def unused_after(n):
        scratch = None  # not read after the loop: a temporary of the body, as in TensorFlow
        for i in tf.range(n):
            scratch = i * 2  # noqa: F841 - dead after the loop
        return n

    assert unused_after(tf.constant(2)).numpy() == 2


def test_staged_loop_variable_with_a_dimension_the_trace_does_not_know():
    @tf.function
    def prefix(n):
        for i in tf.range(n):
            items = tf.range(i + 1)
        return items

    assert prefix(tf.constant(3)).numpy().tolist() == [0, 1, 2]
    assert prefix(tf.constant(1)).numpy().tolist() == [0]
    assert prefix.experimental_get_tracing_count() == 1


def test_staged_loop_variable_set_by_nested_loops_and_a_tape():
    @tf.function
    def nested(n):
        for i in tf.range(n):
            for j in tf.range(i + 1):
                inner = i * 10 + j
            outer = inner
        return outer

    w = tf.Variable(3.0)

    @tf.function
    def descend(steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = w * w
            w.assign_sub(0.25 * tape.gradient(loss, w))
        return loss

    assert nested(tf.constant(3)).numpy() == 22
    # The traced iteration that learns `loss`'s type is thrown away: it assigns nothing.
    assert descend(tf.constant(2)).numpy() == pytest.approx(1.5**2)
    assert w.numpy() == pytest.approx(0.75)


def test_staged_loop_that_runs_zero_times_fails_when_the_graph_runs():
    @tf.function
    def last_values(n):
        for i in tf.range(n):
            y = tf.cast(i, tf.float32)
            x = i
        return y, x

    message = r"assertion failed: \[loop must iterate at least once to initialize x, y\]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        last_values(tf.constant(0))
    assert last_values(tf.constant(2))[1].numpy() == 1  # the same graph, when it iterates
    assert last_values.experimental_get_tracing_count() == 1

    @tf.function
    def last_item(items):
        for item in items:
            last = item
        return last

    message = r"assertion failed: \[loop must iterate at least once to initialize last\]"
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        last_item(tf.zeros([0]))


def test_staged_range_loop_target_starts_at_the_range_start():
    @tf.function
    def last_index(n):
        for i in tf.range(2, n):  # noqa: B007 - read after the loop
            pass
        return i

    assert last_index(tf.constant(5)).numpy() == 4
    assert last_index(tf.constant(2)).numpy() == 2  # no iteration: the start, no error


def test_staged_loop_variable_of_an_unsupported_type_raises():
    @tf.function
    def last_name(n):
        for _ in tf.range(n):
            text = "abc"
        return text

    expected = (
        "'text' must be defined before the loop\n"
        "Note: AutoGraph tried to define it automatically, but ran into a TypeError: Found an "
        "unsupported type 'str' while creating placeholder for abc. Supported types include "
        "Tensor, int, float, bool, list, tuple or dict."
    )
    with pytest.raises(ValueError) as info:
        last_name(tf.constant(2))
    assert str(info.value) == expected


def test_staged_loop_variable_left_undefined_or_none_raises():
    @tf.function
    def stays_none(n):
        for _ in tf.range(n):
            value = None
        return value

    @tf.function
    def none_throughout(n):
        value = None
        for _ in tf.range(n):
            value = None
        return value

    with pytest.raises(ValueError) as info:
        stays_none(tf.constant(2))
    assert str(info.value) == "'value' must be defined before the loop"
    with pytest.raises(ValueError) as info:
        none_throughout(tf.constant(2))
    assert str(info.value) == "'value' is not allowed to be None before the loop"


def test_staged_loop_variable_read_before_assignment_raises():
    @tf.function
    def previous(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total = total + seen  # noqa: F821 - the previous iteration's: none in the first
            seen = i  # noqa: F841
        return total

    with pytest.raises(ValueError) as info:
        previous(tf.constant(3))
    assert str(info.value) == (
        "'seen' must be defined before the loop\nNote: AutoGraph tried to define it "
        "automatically, but ran into a UnboundLocalError: 'seen' is used before assignment"
    )


def test_staged_loop_errors_name_the_first_loop_variable_in_tensorflows_order():
    @tf.function
    def two(n):
        for _ in tf.range(n):
            b = "z"
            a = None
        return b, a

    # Variables read after the loop come first, sorted by name; the failure is `b`'s.
    with pytest.raises(ValueError, match="^'a' must be defined before the loop\nNote: .*'str'"):
        two(tf.constant(1))


def test_staged_not_uses_logical_not(staged):
    def flip(x):
        return not x

    assert to_graph(flip)(tf.constant(False)).numpy()
    assert to_graph(flip)(tf.constant(0)).numpy()


# ---------------------------------------------------------------- functions, closures, methods


def test_nonlocal_declared_names_assigned_in_converted_code():
    state = {"calls": 0}
    count = 0

    def bump(x):
        nonlocal count
        if x > 0:
            count += x
        else:
            count = 0
        state["calls"] += 1
        return count

    converted = to_graph(bump)
    assert converted is not bump
    assert converted(2) == 2 and converted(3) == 5 and count == 5
    assert converted(-1) == 0 and count == 0


def test_closures_share_the_original_cells():
    add = make_closure(10)
    converted = to_graph(add)
    assert converted(1) == (11, 1)
    assert add(-1) == (-11, 2)
    assert converted(-1) == (-11, 3)  # the nonlocal counter is the same cell


def test_conversion_is_cached_per_code_object():
    first, second = make_closure(1), make_closure(2)
    assert to_graph(first).__code__ is to_graph(second).__code__
    assert to_graph(second)(1) == (3, 1)


def test_methods_keep_super_and_private_names():
    square = Square(4)
    bound = to_graph(square.describe)
    assert bound.__self__ is square
    assert bound(1) == "shape:16"
    assert bound(-1) == "none"
    assert to_graph(Square.describe)(square, 2) == "shape:16"


def test_static_and_class_methods():
    converted = to_graph(Square.static_sign)
    assert converted is not Square.static_sign and converted(-3) == -1
    assert to_graph(Square.build).__self__ is Square
    assert to_graph(Square.build)(-2).area_function()(True) == 4


def test_function_nested_in_a_method_keeps_private_names():
    area = Square(3).area_function()
    converted = to_graph(area)
    assert converted is not area
    assert converted(True) == 9 and converted(False) == 0


def test_staged_guarded_continue(staged):
    for n in [0, 3, 8]:
        assert to_graph(guarded_continue)(tf.constant(n)).numpy() == guarded_continue(n)


def test_staged_method_with_super(staged):
    def describe(self, x):
        if x > 0:
            text = super(Square, self).describe(x)
        else:
            text = "shape"
        return text

    assert to_graph(describe)(Square(1), tf.constant(-2)) == "shape"
    assert to_graph(describe)(Square(1), tf.constant(2)) == "shape"
    with pytest.raises(ValueError, match="'text' is the str 'shape:1' in the if branch but the"):
        to_graph(Square.describe)(Square(1), tf.constant(2))


def test_defaults_and_keyword_only_arguments_survive():
    converted = to_graph(defaults_and_kinds)
    assert converted.__defaults__ == (2,)
    assert converted.__kwdefaults__ == {"scale": 3}
    assert inspect.signature(converted) == inspect.signature(defaults_and_kinds)
    assert converted.__name__ == "defaults_and_kinds"


def test_a_functools_wraps_wrapper_converts_its_own_source():
    converted = to_graph(wrapped_double)
    assert converted is not wrapped_double and converted.__wrapped__ is wrapped_double.__wrapped__
    assert converted(3) == 6 and converted() is None


def test_decorators_are_not_applied_again():
    calls = record_decoration.calls
    assert to_graph(decorated)(1) == 101
    assert record_decoration.calls == calls


def test_nested_functions_are_left_alone():
    label, inner = to_graph(defines_inner_function)(3)
    assert label == "positive"
    assert "ag__" not in inner.__code__.co_freevars


def test_functions_without_source_are_returned_unchanged():
    namespace = {}
    exec("def made_by_exec(x):\n    if x > 0:\n        return x\n    return -x\n", namespace)
    made_by_exec = namespace["made_by_exec"]
    lam = lambda x: x if x > 0 else -x  # noqa: E731
    assert to_graph(made_by_exec) is made_by_exec
    assert to_graph(lam) is lam
    partial = functools.partial(branch)
    assert to_graph(len) is len
    assert to_graph(partial) is partial


def test_nothing_to_convert_returns_the_function():
    assert to_graph(no_control_flow) is no_control_flow
    assert to_graph(generator) is generator


def test_do_not_convert():
    @do_not_convert
    def keep(x):
        if x > 0:
            return x
        return -x

    def also_kept(x):
        if x > 0:
            x = -x
        return x

    assert to_graph(keep) is keep
    assert experimental.do_not_convert()(also_kept) is also_kept
    assert to_graph(also_kept) is also_kept
    square = Square(2)
    do_not_convert(square.describe)
    assert to_graph(square.describe).__func__ is Square.describe
    del Square.describe.__ag_do_not_convert__


def test_converted_code_keeps_the_file_name():
    assert to_graph(branch).__code__.co_filename == __file__


def test_to_code_shows_the_conversion():
    code = to_code(branch)
    assert code.startswith("def branch(x):") and "ag__.if_stmt(x > 0," in code
    with pytest.raises(ValueError, match="cannot convert"):
        to_code(len)


def test_a_conversion_failure_warns_and_runs_the_function_as_written(monkeypatch):
    from ferroflow.autograph import converter

    def broken(node, filename):
        raise RuntimeError("a converter bug")

    def fresh(x):
        if x > 0:
            x = -x
        return x

    monkeypatch.setattr(converter, "convert_function", broken)
    with pytest.warns(UserWarning, match="could not convert .*fresh.*a converter bug"):
        assert to_graph(fresh) is fresh


def test_converting_twice_is_a_no_op():
    converted = to_graph(branch)
    assert to_graph(converted) is converted


# ---------------------------------------------------------------- tracebacks


def _line_of(func, marker):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if marker in line)


@pytest.mark.parametrize("use_staging", [False, True])
def test_tracebacks_point_at_the_original_line(request, use_staging):
    if use_staging:
        request.getfixturevalue("staged")
    with pytest.raises(ValueError) as info:
        to_graph(raises_in_branch)(tf.constant(1) if use_staging else 1)
    last = traceback.extract_tb(info.tb)[-1]
    assert last.filename == __file__
    assert last.lineno == _line_of(raises_in_branch, "raise ValueError")
    assert last.line.strip().startswith('raise ValueError("boom")')


def test_tracebacks_in_methods_and_loops():
    class Loops:
        def run(self, items):
            for item in items:
                if item > 1:
                    item.missing_attribute  # noqa: B018 - the error under test
            return items

    with pytest.raises(AttributeError) as info:
        to_graph(Loops().run)([1, 2])
    last = traceback.extract_tb(info.tb)[-1]
    assert (last.filename, last.lineno) == (__file__, _line_of(Loops.run, "missing_attribute"))


# ---------------------------------------------------------------- with the real tf.function


def test_tf_function_stages_converted_control_flow():
    staged_branch = tf.function(branch)
    assert staged_branch(tf.constant(3.0)).numpy() == 6.0
    assert staged_branch(tf.constant(-3.0)).numpy() == 3.0  # the other branch, same graph
    assert staged_branch.experimental_get_tracing_count() == 1
    assert tf.function(early_return)(tf.constant(-4)).numpy() == 4
    assert tf.function(collatz_steps)(tf.constant(27)).numpy() == 111
    assert tf.function(while_with_jumps)(tf.constant(20)).numpy() == while_with_jumps(20)
    assert tf.function(for_with_jumps)(tf.constant([1, -2, 3, 9, 4])).numpy() == 13


def test_tf_function_nested_range_loop_over_an_outer_loop_variable():
    assert tf.function(triangle)(tf.constant(6)).numpy() == value_of(triangle(6)) == 10


def test_tf_function_range_loops_with_start_delta_and_float_dtype():
    @tf.function
    def sums(n):
        total = tf.constant(0.0)
        for x in tf.range(1.0, 2.0, 0.25):
            total += x
        count = 0
        for i in tf.range(n):
            for j in tf.range(i, 0, -2):
                count += j
        return total, count

    total, count = sums(tf.constant(5))
    assert total.numpy() == pytest.approx(1.0 + 1.25 + 1.5 + 1.75)
    assert count.numpy() == sum(j for i in range(5) for j in range(i, 0, -2))


def test_names_a_nested_scope_binds_are_not_reads_of_the_function():
    """Liveness: a lambda's or nested function's own parameters and locals are not the
    enclosing function's variables, so a loop whose target shares their name does not carry
    it; a nested function's free read of the target does."""
    import ast

    from ferroflow.autograph import analysis

    source = (
        "f = lambda x: x + y\n"
        "def g(a, *b, c, **d):\n"
        "    z = a + q\n"
        "    return [z, b, c, d, lambda w: w + z + x2]\n"
        "class K:\n"
        "    k = 1\n"
        "    def m(self):\n"
        "        return k\n"
    )
    tree = ast.parse(source)
    counts = analysis.nested_read_counts(tree.body)
    assert set(counts) == {"y", "q", "x2", "k"}, counts
    assert "x" not in analysis.read_names(tree.body[:1])
