"""`tf.debugging`: placement logging."""

from ferroflow import _core


def set_log_device_placement(enabled):
    """Prints ``Executing op <Op> in device <device>`` for every op from now on."""
    _core.set_log_device_placement(bool(enabled))


def get_log_device_placement():
    return _core.get_log_device_placement()


from ferroflow.check_ops import (  # noqa: E402, F401 - tf.debugging API
    Assert,
    assert_all_finite,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_shapes,
    assert_type,
    check_numerics,
    is_numeric_tensor,
)
