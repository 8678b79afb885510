"""A `tf.function` with an `input_signature` and more parameters than it types: TensorFlow
captures each left-out parameter's default (a call may pass only that value), keeps it in the
concrete function's structured input signature, and a saved and loaded function takes the same
calls (defaults included)."""

import pytest

from .harness import assert_parity


def _calls(tf, f, x):
    """Each call's result, or the class of its error."""
    import numpy as np

    out = []
    for call in (
        lambda: f(x),
        lambda: f(x, 2.0),
        lambda: f(x, 2),
        lambda: f(x, scale=2.0),
        lambda: f(x, 3.0),
        lambda: f(x, np.float32(2.0)),
        lambda: f(x, tf.constant(2.0)),
        lambda: f(x, 2.0, None),
        lambda: f(x, 2.0, 1),
        lambda: f(x, opt=1),
        lambda: f(x, opt=2),
        lambda: f(x, zz=1),
        lambda: f(x, 2.0, None, 5),
    ):
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def _captured_defaults(tf, device):
    import tempfile

    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x, scale=2.0, flag=None, *rest, opt=1, **kw):
            return x * scale + (0.0 if flag is None else 1.0)

    with tf.device(device):
        x = tf.constant([1.0, 2.0])
        model = Model()
        args, kwargs = model.f.get_concrete_function().structured_input_signature
        original = _calls(tf, model.f, x)
        path = tempfile.mkdtemp()
        tf.saved_model.save(model, path)
        loaded = tf.saved_model.load(path)
        restored = [loaded.f(x), loaded.f(x, 2.0), loaded.f(x=x), loaded.f(x, scale=2.0)]
        for call in (lambda: loaded.f(x, 3.0), lambda: loaded.f(x, opt=2)):
            try:
                restored.append(call())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                restored.append(type(e).__name__)
        return [[a.shape for a in args[:1]], list(args[1:]), kwargs], original, restored


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_captured_defaults(tf_oracle, device):
    assert_parity(tf_oracle, _captured_defaults, (device,), helpers=[_calls])
