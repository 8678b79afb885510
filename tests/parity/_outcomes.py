"""A helper that parity programs share (passed to `assert_parity(..., helpers=[...])`, which
sends its source to the TensorFlow worker too)."""


def error_classes(calls, messages=False):
    """For each zero-argument call, "no error" or the class name of what it raised (with
    ``messages``, the class name and the message)."""
    out = []
    for call in calls:
        try:
            call()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the class (and message) is what is compared
            out.append((type(e).__name__, str(e)) if messages else type(e).__name__)
    return out


def raised(call):
    """``(class name, message)`` of what ``call()`` raises, or ``("no error", result)``."""
    try:
        return ("no error", call())
    except Exception as e:  # noqa: BLE001 - class and message are what is compared
        return (type(e).__name__, str(e))


def output_and_gradient(tf, fn, t):
    """``fn(t)`` and the gradient of ``sum(fn(t) ** 2)`` with respect to ``t``."""
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
        loss = tf.reduce_sum(y * y)
    return y, tape.gradient(loss, t)
