"""The harness itself: conversion and comparison catch what they must, without TensorFlow."""

import collections

import numpy as np
import pytest

from ._convert import HarnessError, run_program, to_comparable
from .harness import compare, make_request


def differences(a, b, rtol=1e-6, atol=1e-6):
    return compare(to_comparable(a), to_comparable(b), rtol, atol)


def test_equal_structures_agree():
    value = {"b": [np.float32(1.5), (np.arange(3), None)], "a": True}
    assert differences(value, value) == []


def test_values_within_tolerance_agree_and_outside_differ():
    assert differences(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9])) == []
    found = differences(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    assert len(found) == 1 and "first at (1,)" in found[0]


def test_integers_compare_exactly():
    assert differences(np.array([3], np.int32), np.array([4], np.int32))


def test_dtype_shape_and_type_differences_are_reported():
    assert "dtype" in differences(np.zeros(2, np.float32), np.zeros(2, np.float64))[0]
    assert "shape" in differences(np.zeros((1, 2)), np.zeros((2, 1)))[0]
    assert "Python type" in differences(1, 1.0)[0]
    assert differences([1], (1,))


def test_dict_key_order_and_namedtuple_fields_are_reported():
    assert "key order" in differences({"a": 1, "b": 2}, {"b": 2, "a": 1})[0]
    first = collections.namedtuple("P", "x y")
    second = collections.namedtuple("P", "x z")
    assert differences(first(1, 2), second(1, 2))


def test_exceptions_compare_by_class():
    assert differences(ValueError("a"), ValueError("b")) == []
    assert differences(ValueError("a"), TypeError("a"))


def test_nan_positions_must_agree():
    assert differences(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])) == []
    assert differences(np.array([np.nan, 1.0]), np.array([0.0, 1.0]))


def _program(tf, value):
    if value < 0:
        raise ValueError("negative")
    return {"twice": value * 2}


def test_run_program_converts_results_and_exceptions():
    request = make_request(_program, args=(3,))
    result = run_program(None, request["sources"], request["entry"], (3,))
    assert result == ("dict", "dict", [(("py", "str", "twice"), ("py", "int", 6))])
    raised = run_program(None, request["sources"], request["entry"], (-1,))
    assert raised == ("raised", "ValueError", "negative")


LIMIT = 3


def _reads_module_constant(tf):
    try:
        return LIMIT
    except NameError:  # caught, the two workers would agree on it
        return "NameError"


def _reads_numpy_unimported(tf):
    return np.zeros(2)


def _imports_numpy(tf, limit):
    import numpy as np

    counter = 0

    def bump():
        nonlocal counter
        counter += limit
        return counter

    class Box:
        size = len("ab")

    return np.zeros(bump() + Box.size), _program(tf, limit)


def test_programs_reading_module_names_are_refused():
    for program, name in ((_reads_module_constant, "LIMIT"), (_reads_numpy_unimported, "np")):
        with pytest.raises(HarnessError, match=f"reads {name} from its test module"):
            make_request(program)
    # Without `_program` among its helpers, `_imports_numpy` reads a name it does not define.
    with pytest.raises(HarnessError, match="reads _program from"):
        make_request(_imports_numpy, (LIMIT,))
    request = make_request(_imports_numpy, (LIMIT,), helpers=(_program,))
    zeros, twice = run_program(None, request["sources"], request["entry"], request["args"])[1]
    assert zeros[3] == (5,) and twice[2][0][1] == ("py", "int", 6)
    source = "def outer(tf):\n    global seen\n    seen = 1\n    return seen\n"
    assert make_request(source, entry="outer")["entry"] == "outer"
