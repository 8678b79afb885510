"""`tf.train.ExponentialMovingAverage` against TensorFlow: eager and traced updates, decay capped
by num_updates, zero_debias (a no-op for variables), names and errors (tensors are refused,
inside a tf.function too)."""

import pytest

from .harness import assert_parity


def _eager(tf, device):
    out = []
    with tf.device(device):
        # Names unique to this program: TensorFlow numbers averages of same-named variables
        # across its whole process (the second is "<name>/ExponentialMovingAverage_1").
        import uuid

        prefix = f"p{uuid.uuid4().hex[:8]}"
        v = tf.Variable(1.0, name=f"{prefix}v")
        w = tf.Variable([1.0, 2.0], name=f"{prefix}w")
        ema = tf.train.ExponentialMovingAverage(0.9)
        out.append(ema.apply([v, w]))
        a = ema.average(v)
        out += [a.name.replace(prefix, ""), a.trainable, a.numpy(), ema.name]
        out.append(ema.average_name(w).replace(prefix, ""))
        for k in range(3):
            v.assign(3.0 + k)
            w.assign_add([1.0, -1.0])
            ema.apply([v, w])
            out += [ema.average(v).numpy(), ema.average(w).numpy()]
        mine = [k.replace(prefix, "") for k in ema.variables_to_restore() if prefix in k]
        out += [sorted(mine), [k.replace(prefix, "") for k in ema.variables_to_restore([w])]]
        out.append(ema.average(tf.Variable(2.0)))
        capped = tf.train.ExponentialMovingAverage(0.99, num_updates=tf.Variable(2))
        capped.apply([v])
        v.assign(10.0)
        capped.apply([v])
        out += [capped.average(v).numpy(), capped.average_name(v).replace(prefix, "")]
        for bad in (tf.Variable(1), tf.constant(5.0)):
            try:
                ema.apply([bad])
            except TypeError as e:
                out.append(type(e).__name__)
        ema.apply()
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_eager_moving_averages(tf_oracle, device):
    assert_parity(tf_oracle, _eager, (device,))


def _traced(tf):
    v = tf.Variable(3.0, name="v")
    ema = tf.train.ExponentialMovingAverage(0.9)
    debiased = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
    u = tf.Variable(0.0, name="u")
    seen = []

    @tf.function
    def step(x):
        v.assign_add(1.0)
        ema.apply([v])
        u.assign(x * 2.0)
        debiased.apply([u])
        seen.append(1)
        try:
            debiased.apply([x])
        except TypeError as e:
            seen.append(type(e).__name__)
        return ema.average(v).read_value(), debiased.average(u).read_value()

    out = [step(tf.constant(float(k))) for k in range(4)]
    # TensorFlow traces twice when the first trace creates variables (and names the averages
    # made in its graph uniquely); the values and the refusal of tensors are what must match.
    return out, sorted(set(map(str, seen)))


def test_traced_moving_averages(tf_oracle):
    assert_parity(tf_oracle, _traced, ())
