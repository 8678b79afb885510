"""A helper that parity programs share (passed to `assert_parity(..., helpers=[...])`, which
sends its source to the TensorFlow worker too)."""


def error_classes(calls):
    """For each zero-argument call, "no error" or the class name of what it raised."""
    out = []
    for call in calls:
        try:
            call()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def output_and_gradient(tf, fn, t):
    """``fn(t)`` and the gradient of ``sum(fn(t) ** 2)`` with respect to ``t``."""
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
        loss = tf.reduce_sum(y * y)
    return y, tape.gradient(loss, t)
