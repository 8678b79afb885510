"""`tf.debugging`: placement logging, traceback filtering, numeric checks and assertions."""

import types

from ferroflow import _core
from ferroflow.traceback_utils import (  # noqa: F401 - tf.debugging API
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)


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


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on, on this thread, every op's floating-point outputs (float16, bfloat16,
    float32, float64; not complex, as TensorFlow) are checked for NaN and infinity, eagerly
    and when a tf.function's graph runs; the first bad one raises InvalidArgumentError naming
    the op ("!!! Detected Infinity or NaN in output 0 of eagerly-executing op "RealDiv" ...").
    The check runs in ferroflow's Rust dispatcher (on the device for GPU tensors). The limits
    shape TensorFlow's graph-creation stack traces, which ferroflow's messages do not carry.

    >>> import ferroflow as tf
    >>> tf.debugging.enable_check_numerics()
    >>> try:
    ...     tf.constant(1.0) / 0.0
    ... except tf.errors.InvalidArgumentError as e:
    ...     print("RealDiv" in str(e))
    True
    >>> tf.debugging.disable_check_numerics()
    """
    del stack_height_limit, path_length_limit
    from ferroflow import concrete_function

    concrete_function.CHECK_NUMERICS[0] = True
    _core.set_check_numerics(True)


def disable_check_numerics():
    """Turns `enable_check_numerics` off on this thread (idempotent)."""
    _core.set_check_numerics(False)


def _enable_dump_debug_info(
    dump_root,
    tensor_debug_mode="NO_TENSOR",
    circular_buffer_size=1000,
    op_regex=None,
    tensor_dtypes=None,
):
    """TensorFlow writes tfdbg2 event files of every op executed; ferroflow has neither the op
    hook nor the format: NotImplementedError."""
    raise NotImplementedError(
        "enable_dump_debug_info (tfdbg2 event files) is not available in ferroflow"
    )


def _disable_dump_debug_info():
    """Nothing to turn off: dumping cannot be enabled in ferroflow."""


experimental = types.SimpleNamespace(
    disable_dump_debug_info=_disable_dump_debug_info,
    enable_dump_debug_info=_enable_dump_debug_info,
)
