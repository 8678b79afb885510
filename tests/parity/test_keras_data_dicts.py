"""`tf.data` elements that are dicts, fed to functional models whose `Input`s are named.

The feature widths differ (a: 2, b: 1) and the dict keys come in another order than the
model's inputs, so a feature bound to the wrong input gives different numbers, not an error."""

from .harness import parity


def two_input_model(tf, dict_inputs):
    """A functional model on inputs "a" (2 features) and "b" (1 feature), fixed weights."""
    import numpy as np

    a = tf.keras.Input(shape=(2,), name="a")
    b = tf.keras.Input(shape=(1,), name="b")
    hidden = tf.keras.layers.Dense(3, activation="tanh")(tf.keras.layers.Concatenate()([a, b]))
    out = tf.keras.layers.Dense(1)(hidden)
    inputs = {"a": a, "b": b} if dict_inputs else [a, b]
    model = tf.keras.Model(inputs, out)
    model.set_weights(
        [
            np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5], [-1.0, 0.4, 0.9]], dtype=np.float32),
            np.array([0.1, 0.0, -0.1], dtype=np.float32),
            np.array([[1.0], [-0.5], [0.25]], dtype=np.float32),
            np.array([0.05], dtype=np.float32),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    return model


def data(np):
    a = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(12, 2)
    b = np.linspace(2.0, -2.0, 12, dtype=np.float32).reshape(12, 1)
    y = (a[:, :1] * 2.0 - b * 0.5 + 0.3).astype(np.float32)
    return a, b, y


@parity(rtol=1e-4, atol=1e-5, helpers=[two_input_model, data])
def test_fit_dataset_of_dicts_list_inputs(tf):
    import numpy as np

    a, b, y = data(np)
    model = two_input_model(tf, dict_inputs=False)
    dataset = tf.data.Dataset.from_tensor_slices(({"b": b, "a": a}, y)).batch(4)
    history = model.fit(dataset, epochs=3, shuffle=False, verbose=0)
    return {
        "loss": history.history["loss"],
        "weights": model.get_weights(),
        "predict": model.predict({"b": b, "a": a}, verbose=0),
    }


@parity(rtol=1e-4, atol=1e-5, helpers=[two_input_model, data])
def test_fit_dataset_of_dicts_dict_inputs(tf):
    import numpy as np

    a, b, y = data(np)
    model = two_input_model(tf, dict_inputs=True)
    dataset = tf.data.Dataset.from_tensor_slices(({"b": b, "a": a}, y)).batch(4)
    history = model.fit(dataset, epochs=3, shuffle=False, verbose=0)
    evaluation = model.evaluate(dataset, verbose=0)
    return {
        "loss": history.history["loss"],
        "evaluate": evaluation,
        "weights": model.get_weights(),
        "call": model({"b": tf.constant(b[:3]), "a": tf.constant(a[:3])}),
    }


@parity(rtol=1e-4, atol=1e-5, helpers=[two_input_model, data])
def test_fit_numpy_dict(tf):
    import numpy as np

    a, b, y = data(np)
    model = two_input_model(tf, dict_inputs=True)
    history = model.fit({"b": b, "a": a}, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


@parity(helpers=[data])
def test_dataset_dict_elements(tf):
    import numpy as np

    a, b, y = data(np)
    dataset = tf.data.Dataset.from_tensor_slices(({"b": b, "a": a}, y))
    mapped = dataset.map(
        lambda features, label: ({"sum": features["a"][0] + features["b"][0]}, label)
    )
    element = next(iter(dataset.batch(5)))
    return {
        "spec": str(sorted(dataset.element_spec[0].keys())),
        "first_batch": element,
        "mapped": [m for m, _ in mapped.take(3)],
    }
