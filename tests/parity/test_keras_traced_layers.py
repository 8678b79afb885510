"""Keras layers inside traced steps: Dropout's masks, BatchNormalization's moving statistics."""

from .harness import parity


@parity
def test_dropout_layer_twice_in_one_traced_step(tf):
    tf.keras.utils.set_random_seed(1)
    layer = tf.keras.layers.Dropout(0.5)
    x = tf.ones([4, 32])

    @tf.function
    def step(x):
        return layer(x, training=True), layer(x, training=True)

    a, b = step(x)
    c, _ = step(x)
    inference = layer(x, training=False)
    return {
        "masks_in_one_step_differ": bool(tf.reduce_any(a != b)),
        "steps_differ": bool(tf.reduce_any(a != c)),
        "kept_values_scaled": bool(tf.reduce_all((a == 0.0) | (a == 2.0))),
        "inference_is_identity": bool(tf.reduce_all(inference == x)),
        "shape": a.shape,
        "traces": step.experimental_get_tracing_count(),
    }


@parity
def test_dropout_in_custom_train_step_changes_mask(tf):
    tf.keras.utils.set_random_seed(2)
    dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")
    drop = tf.keras.layers.Dropout(0.5)
    optimizer = tf.keras.optimizers.SGD(0.0)
    x = tf.ones([8, 16])
    dense.build(x.shape)

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            y = dense(drop(x, training=True))
            loss = tf.reduce_mean(y)
        grads = tape.gradient(loss, dense.trainable_variables)
        optimizer.apply_gradients(zip(grads, dense.trainable_variables))
        return grads[0]

    g1, g2 = train_step(x), train_step(x)
    return {"gradients_differ": bool(tf.reduce_any(g1 != g2)), "shape": g1.shape}


@parity(rtol=1e-4, atol=1e-5)
def test_batch_normalization_moving_statistics_after_fit(tf):
    import numpy as np

    x = np.linspace(-2.0, 3.0, 48, dtype=np.float32).reshape(16, 3)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], dtype=np.float32) + 0.25).astype(np.float32)

    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4)(inputs)
    norm = tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    outputs = tf.keras.layers.Dense(1)(norm(hidden))
    model = tf.keras.Model(inputs, outputs)
    model.set_weights(
        [
            np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4),
            np.array([0.1, -0.1, 0.2, 0.0], dtype=np.float32),
            np.ones(4, dtype=np.float32),  # gamma
            np.zeros(4, dtype=np.float32),  # beta
            np.zeros(4, dtype=np.float32),  # moving mean
            np.ones(4, dtype=np.float32),  # moving variance
            np.linspace(0.5, -0.5, 4, dtype=np.float32).reshape(4, 1),
            np.zeros(1, dtype=np.float32),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    return {
        "loss": history.history["loss"],
        "moving_mean": norm.moving_mean,
        "moving_variance": norm.moving_variance,
        "gamma": norm.gamma,
        "beta": norm.beta,
        "inference": model(x[:4], training=False),
        "training": model(x[:4], training=True),
    }


@parity(rtol=1e-4, atol=1e-5)
def test_batch_normalization_in_traced_step(tf):
    import numpy as np

    norm = tf.keras.layers.BatchNormalization(momentum=0.5)
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) ** 1.5)

    @tf.function
    def step(x):
        return norm(x, training=True)

    first = step(x)
    second = step(x * 2.0)
    return first, second, norm.moving_mean, norm.moving_variance, norm(x, training=False)
