"""`tf.debugging`'s assertions, as TensorFlow's check_ops: eagerly they check at once and raise
InvalidArgumentError; inside a `tf.function` a condition known while tracing is checked then,
and any other becomes an `Assert` node, which raises when the graph runs. Checks of ranks and
dtypes are static: ValueError or TypeError at once."""

import numpy as np

from ferroflow import _core, _dispatch, _tracing
from ferroflow import dtypes as _dtypes
from ferroflow import math as _m
from ferroflow.array_ops import cast, convert_to_tensor, identity
from ferroflow.errors import InvalidArgumentError
from ferroflow.tensor_shape import TensorShape


def _name(t):
    info = _core.symbolic_info(t) if _tracing.tracing() else None
    return info[0] if info is not None else "x"


def _static(t):
    return None if _core.is_symbolic(t) else t.numpy()


def _fail(lines):
    raise InvalidArgumentError(None, None, "\n".join(line for line in lines if line))


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """Raises InvalidArgumentError showing `data` when `condition` is false."""
    condition = convert_to_tensor(condition)
    data = list(data)
    if not _core.is_symbolic(condition) and not _tracing.tracing():
        if not bool(condition.numpy()):
            shown = [_summary(d, summarize) for d in data]
            _fail([f"Expected '{condition}' to be true. Summarized data: " + "\n".join(shown)])
        return None
    parts = [d if isinstance(d, str) else convert_to_tensor(d) for d in data]
    _core.assert_(condition, parts, 3 if summarize is None else summarize)
    from ferroflow.name_scope import traced_operation

    # TensorFlow's traced Assert is a guarded cond; what it returns is the guard's Identity.
    return traced_operation("Identity", f"{name or 'Assert'}/AssertGuard/Identity")


def _summary(value, summarize):
    if isinstance(value, str):
        return repr(value.encode())
    array = np.asarray(convert_to_tensor(value)).reshape(-1)
    limit = array.size if summarize is None or summarize < 0 else summarize
    text = ", ".join(str(v) for v in array[:limit].tolist())
    return text + (", ..." if array.size > limit else "")


def _check(condition, static_condition, lines, graph_data, summarize):
    """Raises eagerly or for a static condition; records an Assert node otherwise."""
    if static_condition is not None:
        if not static_condition:
            _fail(lines)
        from ferroflow.name_scope import traced_operation

        return traced_operation("NoOp", "NoOp")
    return Assert(condition, graph_data, summarize)


def _pair_data(data, message, headline, x, y):
    """What a failed assertion on x and y shows: the caller's data, else TensorFlow's."""
    if data is not None:
        return data
    shown = [headline, f"x ({_name(x)}) = ", x, f"y ({_name(y)}) = ", y]
    return [message, *shown] if message else shown


def _binary_assert(sym, test, x, y, data, summarize, message):
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    holds = test(x, y)
    condition = _m.reduce_all(holds)
    known = _static(condition)
    static = None if known is None else bool(known)
    lines = [message, f"Condition x {sym} y did not hold."]
    if static is False:
        xs, ys, ok = np.asarray(x.numpy()), np.asarray(y.numpy()), np.asarray(holds.numpy())
        xs, ys = np.broadcast_to(xs, ok.shape), np.broadcast_to(ys, ok.shape)
        bad = np.argwhere(~ok)[: 3 if summarize is None else max(summarize, 1)]
        n = 3 if summarize is None else summarize
        lines += [
            f"Indices of first {len(bad)} different values:",
            str(bad),
            "Corresponding x values:",
            str(xs[tuple(bad.T)]),
            "Corresponding y values:",
            str(ys[tuple(bad.T)]),
            f"First {min(n, xs.size)} elements of x:",
            str(xs.reshape(-1)[:n]),
            f"First {min(n, ys.size)} elements of y:",
            str(ys.reshape(-1)[:n]),
        ]
    graph_data = _pair_data(data, message, f"Condition x {sym} y did not hold element-wise:", x, y)
    return _check(condition, static, lines, graph_data, summarize)


def _binary(sym, test, doc):
    def assertion(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, test, x, y, data, summarize, message)

    assertion.__doc__ = doc
    return _dispatch.add_dispatch_support(assertion, kind="binary_assert")


assert_equal = _binary("==", _m.equal, "Asserts x == y element-wise (broadcasting).")
assert_none_equal = _binary("!=", _m.not_equal, "Asserts x != y element-wise.")
assert_less = _binary("<", _m.less, "Asserts x < y element-wise.")
assert_less_equal = _binary("<=", _m.less_equal, "Asserts x <= y element-wise.")
assert_greater = _binary(">", _m.greater, "Asserts x > y element-wise.")
assert_greater_equal = _binary(">=", _m.greater_equal, "Asserts x >= y element-wise.")


def _against_zero(sym, test, doc):
    def assertion(x, data=None, summarize=None, message=None, name=None):
        x = convert_to_tensor(x)
        return _binary_assert(sym, test, x, cast(0, x.dtype), data, summarize, message)

    assertion.__doc__ = doc
    return assertion


assert_negative = _against_zero("<", _m.less, "Asserts x < 0 element-wise.")
assert_positive = _against_zero(">", _m.greater, "Asserts x > 0 element-wise.")
assert_non_negative = _against_zero(">=", _m.greater_equal, "Asserts x >= 0 element-wise.")
assert_non_positive = _against_zero("<=", _m.less_equal, "Asserts x <= 0 element-wise.")


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """Asserts |x - y| <= atol + rtol * |y| element-wise (10 epsilons of the dtype by default)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    eps = np.finfo(x.dtype.as_numpy_dtype).eps if x.dtype.is_floating else 0
    rtol = cast(10 * eps if rtol is None else rtol, x.dtype)
    atol = cast(10 * eps if atol is None else atol, x.dtype)
    holds = _m.less_equal(_m.abs(x - y), atol + rtol * _m.abs(y))
    condition = _m.reduce_all(holds)
    known = _static(condition)
    lines = [message, "x and y not equal to tolerance"]
    graph_data = _pair_data(data, message, "x and y not equal to tolerance", x, y)
    return _check(condition, None if known is None else bool(known), lines, graph_data, summarize)


def _static_rank(x):
    return convert_to_tensor(x).shape.rank


def assert_rank(x, rank, message=None, name=None):
    """Raises ValueError unless `x` has rank `rank`."""
    actual = _static_rank(x)
    if actual != int(rank):
        raise ValueError(
            f"{message + '  ' if message else ''}Tensor must have rank {int(rank)}.  Received "
            f"rank {actual}, shape {convert_to_tensor(x).shape}"
        )


def assert_rank_at_least(x, rank, message=None, name=None):
    actual = _static_rank(x)
    if actual < int(rank):
        raise ValueError(
            f"{message + '  ' if message else ''}Tensor must have rank at least {int(rank)}.  "
            f"Received rank {actual}, shape {convert_to_tensor(x).shape}"
        )


def assert_rank_in(x, ranks, message=None, name=None):
    actual = _static_rank(x)
    allowed = [int(r) for r in ranks]
    if actual not in allowed:
        raise ValueError(
            f"{message + '  ' if message else ''}Tensor must have rank in {tuple(allowed)}.  "
            f"Received rank {actual}, shape {convert_to_tensor(x).shape}"
        )


def assert_scalar(tensor, message=None, name=None):
    """Raises ValueError unless `tensor` is a scalar (checked statically; returns nothing)."""
    t = convert_to_tensor(tensor)
    if t.shape.rank != 0:
        raise ValueError(f"{message or ''}Expected scalar shape, saw shape: {t.shape}.")


def assert_type(tensor, tf_type, message=None, name=None):
    expected = _dtypes.as_dtype(tf_type)
    t = convert_to_tensor(tensor)
    if t.dtype != expected:
        raise TypeError(
            f"{message + ' ' if message else ''}tensor must be of type {expected!r}; got "
            f"{t.dtype!r}".replace("<dtype: '", "tf.").replace("'>", "")
        )


def assert_integer(x, message=None, name=None):
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(
            f'{message + " " if message else ""}Expected "x" to be integer type.  Found: '
            f"tensor of dtype {t.dtype!r}"
        )


def assert_proper_iterable(values):
    """Raises TypeError for a tensor, an array, a string or a non-iterable."""
    unintentional = (_core.Tensor, np.ndarray, np.generic, str, bytes)
    if isinstance(values, unintentional):
        raise TypeError(
            f"Expected argument 'values' to be a 'proper' iterable.  Found: {type(values)}"
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be iterable.  Found: {type(values)}")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of `tensors` (and `dtype`); ValueError where they differ."""
    found = None if dtype is None else _dtypes.as_dtype(dtype)
    for t in tensors or []:
        d = convert_to_tensor(t).dtype
        if found is None:
            found = d
        elif d != found:
            raise ValueError(f"Expected {found!r} (from the others), got {d!r} for {t!r}")
    if found is None:
        return _dtypes.float32
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found!r}.")
    return found


def check_numerics(tensor, message, name=None):
    """`tensor`, after checking that it holds no NaN or infinity."""
    t = convert_to_tensor(tensor)
    if not (t.dtype.is_floating or t.dtype.is_complex):
        raise TypeError(f"check_numerics needs a floating-point tensor, got {t.dtype!r}")
    values = _m.real(t) if t.dtype.is_complex else t
    has_nan = _m.reduce_any(_m.is_nan(values))
    has_inf = _m.reduce_any(_m.is_inf(values))
    for flag, what in ((has_nan, "NaN"), (has_inf, "Inf")):
        known = _static(flag)
        lines = [f"{message} : Tensor had {what} values"]
        _check(_m.logical_not(flag), None if known is None else not bool(known), lines, lines, 3)
    return identity(t)


def assert_all_finite(t, msg, name=None, x=None, message=None):
    return check_numerics(t if x is None else x, msg if message is None else message)


def is_numeric_tensor(tensor):
    dtype = tensor.dtype if isinstance(tensor, _core.Tensor) else None
    return dtype is not None and (dtype.is_floating or dtype.is_complex or dtype.is_integer)


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks that tensors' shapes fit symbolic shapes: a name stands for one size everywhere
    it appears, an int for itself, `.` or None for any size, a leading `...` for any leading
    dimensions. Sizes known while tracing are checked then (ValueError)."""
    items = list(shapes.items()) if hasattr(shapes, "items") else list(shapes)
    bound = {}
    for tensor, spec in items:
        t = convert_to_tensor(tensor)
        dims = t.shape.as_list()
        spec = list(spec) if not isinstance(spec, str) else [spec]
        if spec and spec[0] == "...":
            spec = spec[1:]
            dims = dims[len(dims) - len(spec) :] if len(dims) >= len(spec) else None
        if dims is None or len(dims) != len(spec):
            raise ValueError(
                f"{message or ''}Specified by tensor {t!r} rank {len(spec)}, but it has shape "
                f"{t.shape}."
            )
        for axis, (size, symbol) in enumerate(zip(dims, spec)):
            if symbol in (None, ".") or size is None:
                continue
            want = symbol if isinstance(symbol, int) else bound.setdefault(symbol, size)
            if size != want:
                raise ValueError(
                    f"{message or ''}Specified by tensor {t!r} dimension {axis}.  Tensor shape="
                    f"{TensorShape(dims)} must have size {want}.  Received size {size}"
                )
