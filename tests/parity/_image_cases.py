"""The program every `tf.image` parity case runs: one call eagerly and one traced, on a device;
the exception's class when TensorFlow (or ferroflow) refuses."""


def call_image_op(tf, name, args, kwargs, device, traced=True):
    import numpy as np

    fn = getattr(tf.image, name)
    with tf.device(device):
        tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            eager = fn(*tensors, **kwargs)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__
        if not traced:
            return eager
        positions = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

        def staged(*ts):
            full = list(tensors)
            for i, t in zip(positions, ts):
                full[i] = t
            return fn(*full, **kwargs)

        return eager, tf.function(staged)(*[tensors[i] for i in positions])


def outcomes(*calls):
    """Each call's result, or the class name of what it raised (the class is what is compared)."""
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__name__)
    return out


def run_case(tf_oracle, cases, case, device, rtol=1e-5, atol=1e-6):
    """One (name, args, kwargs) row of a case table, eagerly and traced, on `device`."""
    from .harness import assert_parity

    name, args, kwargs = cases[case]
    assert_parity(tf_oracle, call_image_op, (name, args, kwargs, device), rtol=rtol, atol=atol)
