"""The runner shared by the `keras.ops` parity tests (sent to both workers with
`helpers=[run_cases]`): each case names an op under `keras.ops` and its arguments; NumPy arrays
become tensors on the device, Python scalars stay Python scalars (Keras's weak types), and
``("np", array)`` stays a NumPy array. The result of each case is its output or the class name
of what it raised."""


def run_cases(tf, device, cases):
    """``[(name, output or exception class name), ...]`` for ``cases`` of
    ``(name, args, kwargs)`` run under ``tf.device(device)``."""
    import numpy as np

    def convert(a):
        if isinstance(a, np.ndarray):
            return tf.constant(a)
        if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str) and a[0] == "np":
            return a[1]
        if isinstance(a, list | tuple):
            return type(a)(convert(v) for v in a)
        return a

    out = []
    with tf.device(device):
        for name, args, kwargs in cases:
            fn = tf.keras.ops
            for part in name.split("."):
                fn = getattr(fn, part)
            try:
                result = fn(*[convert(a) for a in args], **kwargs)
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                result = type(e).__name__
            if isinstance(result, list):
                result = tuple(result)
            out.append((name, result))
    return out
