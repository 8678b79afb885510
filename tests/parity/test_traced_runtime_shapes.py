"""Ops given a size known only when a traced graph runs, against TensorFlow 2.21: stateless
random draws and `tf.nn.dropout` with a run-time shape tensor, and 3-D convolution, its
transpose and 3-D pooling with unknown depth, height and width."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _stateless_runtime_shapes(tf, device):
    import numpy as np

    R = tf.random
    out = []
    with tf.device(device):

        @tf.function(input_signature=[tf.TensorSpec([None, 3])])
        def draws(x):
            shape = tf.shape(x)
            return [
                R.stateless_uniform(shape, seed=[1, 2]),
                R.stateless_uniform(shape, seed=[1, 2], minval=-2.0, maxval=5.0),
                R.stateless_uniform(shape, seed=[3, 4], minval=0, maxval=9, dtype=tf.int32),
                R.stateless_normal([shape[0], 2], seed=[1, 2], dtype=tf.float64),
                R.stateless_truncated_normal(shape, seed=[5, 6]),
                R.stateless_poisson(shape, seed=[1, 2], lam=[1.0, 2.0, 3.0]),
                R.stateless_gamma(shape, seed=[1, 2], alpha=[1.0, 2.0, 3.0]),
                R.stateless_binomial(shape, seed=[1, 2], counts=[5.0, 6.0, 7.0], probs=0.5),
            ]

        for rows in (2, 5, 0):
            out.append(draws(tf.ones([rows, 3])))

        @tf.function(input_signature=[tf.TensorSpec([None, 4])])
        def dropped(x):
            noise = tf.shape(x) * tf.constant([1, 0]) + tf.constant([0, 1])
            return [
                tf.nn.dropout(x, 0.5, noise_shape=tf.shape(x), seed=1).shape.as_list(),
                tf.nn.dropout(x, 0.5, noise_shape=noise, seed=1).shape.as_list(),
                tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2], noise_shape=noise),
            ]

        x = tf.constant(np.linspace(1, 2, 12, dtype=np.float32).reshape(3, 4))
        result = dropped(x)
        out.append(result[:2])
        out.append(result[2])
        kept = tf.function(
            lambda x: tf.nn.dropout(x, 0.5, noise_shape=tf.shape(x)),
            input_signature=[tf.TensorSpec([None, 4])],
        )(x)
        # The stateful draw's numbers are ferroflow's own: compare what the law fixes.
        values = set(np.round(kept.numpy().ravel(), 4).tolist())
        out.append(values <= set(np.round(x.numpy().ravel() * 2, 4).tolist()) | {0.0})
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_stateless_ops_and_dropout_take_runtime_shapes(tf_oracle, device):
    assert_parity(tf_oracle, _stateless_runtime_shapes, (device,), rtol=1e-5, atol=1e-6)


def _volumes(tf, device):
    import numpy as np

    out = []
    with tf.device(device):
        x = tf.constant(np.arange(5 * 3 * 3 * 2, dtype=np.float32).reshape(1, 5, 3, 3, 2) / 10)
        w = tf.constant(np.arange(2 * 2 * 2 * 2 * 3, dtype=np.float32).reshape(2, 2, 2, 2, 3))
        w = w / 10
        spec = [tf.TensorSpec([None, None, None, None, 2])]
        for padding in ("VALID", "SAME"):
            for strides in ([1] * 5, [1, 2, 2, 2, 1]):

                def conv(x, strides=strides, padding=padding):
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        y = tf.nn.conv3d(x, w, strides, padding)
                        loss = tf.reduce_sum(y * y)
                    return y, tape.gradient(loss, x)

                traced = tf.function(conv, input_signature=spec)
                out += [traced(x), traced(x[:, :4]), conv(x)[0]]
                for pool in (tf.nn.max_pool3d, tf.nn.avg_pool3d):
                    pooled = tf.function(
                        lambda x, pool=pool, s=strides, p=padding: pool(x, 2, s[1:4], p),
                        input_signature=spec,
                    )
                    out += [pooled(x), pooled(x[:, :3, :2])]
        transpose = tf.function(
            lambda x: tf.nn.conv3d_transpose(
                x, w[..., :2], tf.shape(x) * tf.constant([1, 2, 2, 2, 1]), [1, 2, 2, 2, 1]
            ),
            input_signature=[tf.TensorSpec([None, None, None, None, 3])],
        )
        out.append(transpose(tf.ones([1, 3, 2, 2, 3])))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_3d_windows_with_unknown_depth(tf_oracle, device):
    assert_parity(tf_oracle, _volumes, (device,), rtol=1e-4, atol=1e-4)
