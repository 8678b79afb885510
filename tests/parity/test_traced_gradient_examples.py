"""Gradients taken inside a `tf.function` whose trace cannot run every example: a `tf.cond`
branch not taken while tracing (a TensorArray's append branch, whose zero padding has a
negative size there), and values behind a `tf.numpy_function` (a TextVectorization layer),
whose examples are stand-ins of their static shapes. Eager, traced and TensorFlow agree."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _tensor_array_in_loop(tf, device):
    """A TensorArray of one slot written on every iteration, differentiated in a trace."""
    with tf.device(device):
        v = tf.Variable([1.0, 2.0])

        def gradient(dynamic):
            with tf.GradientTape() as tape:
                ta = tf.TensorArray(tf.float32, size=1, dynamic_size=dynamic)

                def body(i, ta):
                    return i + 1, ta.write(0, v * tf.cast(i + 1, tf.float32))

                _, ta = tf.while_loop(lambda i, ta: i < 3, body, [tf.constant(0), ta])
                y = tf.reduce_sum(ta.stack() * [[1.0, 3.0]])
            return y, tape.gradient(y, v)

        out = []
        for dynamic in (False, True):
            out.append(gradient(dynamic))
            out.append(tf.function(lambda d=dynamic: gradient(d))())
        return out


def _untaken_branch(tf, device):
    """A branch whose zeros have a negative size for the examples of the other branch."""
    with tf.device(device):

        @tf.function(input_signature=[tf.TensorSpec([None])])
        def grad(x):
            n = tf.shape(x)[0]
            with tf.GradientTape() as tape:
                tape.watch(x)

                def taken():
                    z = tf.zeros(tf.stack([n - 1, 2]))
                    return tf.reduce_sum(z, axis=0) + tf.reduce_sum(x * x)

                y = tf.cond(n > 0, taken, lambda: tf.zeros([2]))
            return tape.gradient(y, x)

        return [grad(tf.zeros([0])), grad(tf.constant([1.0, 2.0, 3.0]))]


def _loop_behind_numpy_function(tf, device):
    """A loop whose state's batch size comes from a numpy_function's result."""
    import numpy as np

    with tf.device(device):
        w = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32) / 12.0, [4, 3]))

        @tf.function
        def grad(s):
            t = tf.numpy_function(
                lambda a: np.ones((a.shape[0], 4), np.float32) * 0.1, [s], tf.float32
            )
            t.set_shape([None, 4])
            with tf.GradientTape() as tape:
                h0 = tf.zeros(tf.stack([tf.shape(t)[0], 3]))
                _, h = tf.while_loop(
                    lambda i, h: i < 2,
                    lambda i, h: (i + 1, tf.tanh(h + tf.matmul(t, w))),
                    [0, h0],
                )
                loss = tf.reduce_sum(h)
            return loss, tape.gradient(loss, w)

        return grad(tf.constant(["a", "b"]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "program", [_tensor_array_in_loop, _untaken_branch, _loop_behind_numpy_function]
)
def test_traced_gradient(tf_oracle, program, device):
    assert_parity(tf_oracle, program, (device,))


def _text_lstm_fit(tf, device):
    """keras.Sequential([TextVectorization, Embedding, LSTM, Dense]).fit on strings."""
    import numpy as np

    keras = tf.keras
    texts = np.array(["the cat sat", "a dog ran far away", "the bird", "cats and dogs play"])
    y = np.array([[1.0], [0.0], [1.0], [0.0]], dtype="float32")
    with tf.device(device):
        tv = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=5)
        tv.adapt(texts)
        model = keras.Sequential(
            [tv, keras.layers.Embedding(20, 4), keras.layers.LSTM(3), keras.layers.Dense(1)]
        )
        model.build((None,))
        model.set_weights(
            [
                np.full(w.shape, 0.05, "float32") * (1 + np.arange(w.size) % 7).reshape(w.shape)
                for w in model.get_weights()
            ]
        )
        model.compile(optimizer="sgd", loss="mse")
        history = model.fit(tf.constant(texts), y, epochs=2, batch_size=2, shuffle=False, verbose=0)
        return history.history["loss"], model.predict(tf.constant(texts[:2]), verbose=0)


@pytest.mark.parametrize("device", DEVICES)
def test_text_vectorization_lstm_fit(tf_oracle, device):
    assert_parity(tf_oracle, _text_lstm_fit, (device,), rtol=1e-4, atol=1e-5)
