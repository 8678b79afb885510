"""`Model.compile` / `fit` / `evaluate` / `predict` against TensorFlow 2.21's Keras 3.

The expected numbers come from the TensorFlow oracle, running the same subclassed model with the
same fixed initial weights on the same data (shuffle=False)."""

import re

import ferroflow as tf
import numpy as np
import pytest


def data():
    steps = np.arange(40)
    x = np.stack([np.linspace(-1, 1, 40), np.sin(steps * 0.3), np.cos(steps * 0.7)], axis=1).astype(
        "float32"
    )
    y = (x @ np.array([[1.5], [-2.0], [0.5]], "float32") + 0.3 * x[:, :1] ** 2).astype("float32")
    return x, y


def initial_weights():
    w1 = (np.sin(np.arange(24).reshape(3, 8) * 1.3) * 0.6).astype("float32")
    b1 = (np.cos(np.arange(8) * 0.9) * 0.1).astype("float32")
    w2 = (np.cos(np.arange(8).reshape(8, 1) * 2.1) * 0.5).astype("float32")
    b2 = np.array([0.05], "float32")
    return [w1, b1, w2, b2]


class Net(tf.keras.Model):
    def __init__(self, regularizer=None):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(8, activation="relu", kernel_regularizer=regularizer)
        self.d2 = tf.keras.layers.Dense(1)

    def call(self, x, training=False):
        return self.d2(self.d1(x))


def make(regularizer=None):
    model = Net(regularizer)
    model(tf.constant(data()[0][:1]))
    model.set_weights(initial_weights())
    return model


def close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "optimizer, expected",
    [
        (lambda: tf.keras.optimizers.SGD(0.05), [3.7775111198, 2.3736634254, 1.6157451868]),
        (lambda: tf.keras.optimizers.Adam(0.01), [3.7533206939, 3.4062647819, 3.1189234256]),
        (lambda: tf.keras.optimizers.RMSprop(0.01), [3.6213855743, 3.0167622566, 2.6530957221]),
        (
            lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9),
            [3.9244518280, 1.4154490232, 0.4234167933],
        ),
    ],
    ids=["sgd", "adam", "rmsprop", "sgd_momentum"],
)
def test_fit_history_matches_keras(optimizer, expected):
    x, y = data()
    model = make()
    model.compile(optimizer=optimizer(), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    assert list(history.history) == ["loss"]
    close(history.history["loss"], expected)
    assert history.epoch == [0, 1, 2]
    assert history.params == {"verbose": 0, "epochs": 3, "steps": 3}
    assert model.history is history


def test_validation_split_metrics_evaluate_predict():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    history = model.fit(
        x, y, batch_size=16, epochs=2, shuffle=False, verbose=0, validation_split=0.25
    )
    assert list(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    close(history.history["loss"], [2.919936180114746, 2.2544257640838623])
    close(history.history["mae"], [1.370775818824768, 1.202003002166748])
    close(history.history["val_loss"], [6.3344621658325195, 6.173769950866699])
    close(history.history["val_mae"], [2.254140853881836, 2.2702414989471436])
    assert history.params["steps"] == 2  # 30 training samples in batches of 16

    close(model.evaluate(x, y, batch_size=16, verbose=0), [2.8872714042, 1.3867472410])
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "mae"]
    close([logs["loss"], logs["mae"]], [2.8872714042, 1.3867472410])
    prediction = model.predict(x[:5], verbose=0)
    assert prediction.shape == (5, 1) and prediction.dtype == np.float32
    close(
        prediction.ravel(),
        [-0.1768116801, -0.2566018700, -0.3686216473, -0.5333477854, -0.6770809292],
    )
    assert model.metrics_names == ["loss", "compile_metrics"]


def test_validation_data_and_string_optimizer():
    x, y = data()
    model = make()
    model.compile(optimizer="sgd", loss="mae", metrics=["mse"])
    history = model.fit(
        x, y, batch_size=10, epochs=2, shuffle=False, verbose=0, validation_data=(x[:7], y[:7])
    )
    close(history.history["loss"], [1.6102745532989502, 1.5907723903656006])
    close(history.history["mse"], [3.7954678535461426, 3.711648941040039])
    close(history.history["val_loss"], [2.584839105606079, 2.562321186065674])
    close(history.history["val_mse"], [7.692573547363281, 7.564557075500488])


def test_sample_weight_and_regularization_losses():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    weights = np.linspace(0.5, 2.0, 40).astype("float32")
    history = model.fit(
        x, y, sample_weight=weights, batch_size=16, epochs=2, shuffle=False, verbose=0
    )
    close(history.history["loss"], [4.675057411193848, 2.2417092323303223])

    model = make(regularizer=tf.keras.regularizers.L2(0.01))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    close(history.history["loss"], [3.821178436279297, 2.423217296600342])


class Classifier(tf.keras.Model):
    def __init__(self, classes):
        super().__init__()
        self.d = tf.keras.layers.Dense(classes, activation="sigmoid" if classes == 1 else "softmax")

    def call(self, x):
        return self.d(x)


def make_classifier(classes):
    model = Classifier(classes)
    model(tf.constant(data()[0][:1]))
    kernel = np.sin(np.arange(3 * classes).reshape(3, classes)).astype("float32")
    model.set_weights([kernel, np.zeros(classes, "float32")])
    return model


def test_accuracy_kinds_class_weight_and_weighted_metrics():
    x, y = data()
    labels = (y[:, 0] > 0).astype("int64")
    model = make_classifier(1)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss="binary_crossentropy",
        metrics=["accuracy"],
        weighted_metrics=["accuracy", "mse"],
    )
    history = model.fit(
        x,
        labels.astype("float32"),
        batch_size=16,
        epochs=2,
        shuffle=False,
        verbose=0,
        class_weight={0: 1.0, 1: 3.0},
    )
    assert list(history.history) == ["accuracy", "loss", "mse", "weighted_accuracy"]
    close(history.history["accuracy"], [0.25, 0.3499999940395355])
    close(history.history["loss"], [1.9451926946640015, 1.6287046670913696])
    close(history.history["mse"], [0.39724305272102356, 0.32329970598220825])
    close(history.history["weighted_accuracy"], [0.2368421107530594, 0.42105263471603394])

    # "accuracy" and "acc" become sparse categorical accuracy for integer labels...
    model = make_classifier(2)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy", "acc"],
    )
    history = model.fit(x, labels, batch_size=16, epochs=2, shuffle=False, verbose=0)
    close(history.history["loss"], [0.41662225127220154, 0.3935333788394928])
    close(history.history["accuracy"], [0.925000011920929] * 2)
    close(history.history["acc"], [0.925000011920929] * 2)
    # ... and categorical accuracy for one-hot ones.
    one_hot = tf.keras.utils.to_categorical(labels, 2).astype("float32")
    model = make_classifier(2)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss="categorical_crossentropy",
        metrics=["accuracy"],
    )
    history = model.fit(x, one_hot, batch_size=16, epochs=2, shuffle=False, verbose=0)
    close(history.history["loss"], [0.41662225127220154, 0.3935333788394928])
    close(model.evaluate(x, one_hot, verbose=0), [0.37590235471725464, 0.925000011920929])


def test_on_batch_methods():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    close(model.train_on_batch(x[:8], y[:8]), [7.751126289367676, 2.6181578636169434])
    close(model.test_on_batch(x[:8], y[:8]), [4.427704811096191, 1.9487413167953491])
    logs = model.test_on_batch(x[:8], y[:8], return_dict=True)
    close([logs["loss"], logs["mae"]], [4.427704811096191, 1.9487413167953491])
    close(
        np.asarray(model.predict_on_batch(x[:3])).ravel(),
        [-0.3165266513824463, -0.3314893841743469, -0.3813353180885315],
    )


def test_fit_on_dataset_with_dataset_validation():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    history = model.fit(dataset, epochs=2, verbose=0, validation_data=dataset, shuffle=False)
    close(history.history["loss"], [3.7533206939697266, 3.4062647819519043])
    close(history.history["val_loss"], [3.503622531890869, 3.2194976806640625])
    assert history.params["steps"] == 3
    with pytest.raises(ValueError, match="`y` should not be passed"):
        model.fit(dataset, y, verbose=0)


def test_seeds_model_trains_from_tensors_and_traces_once_per_batch_shape():
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = x**2 + 2 * x - 5 + tf.random.normal(shape=[201], seed=1)

    class Model(tf.keras.Model):
        def __init__(self, units):
            super().__init__()
            self.dense1 = tf.keras.layers.Dense(
                units=units,
                activation=tf.nn.relu,
                kernel_initializer=tf.random.normal,
                bias_initializer=tf.random.normal,
            )
            self.dense2 = tf.keras.layers.Dense(1)
            self.traces = 0

        def call(self, x, training=True):
            self.traces += 1
            x = x[:, tf.newaxis]
            x = self.dense1(x)
            x = self.dense2(x)
            return tf.squeeze(x, axis=1)

    model = Model(64)
    model.compile(loss=tf.keras.losses.MSE, optimizer=tf.optimizers.SGD(learning_rate=0.01))
    history = model.fit(x, y, epochs=20, batch_size=32, verbose=0)
    losses = history.history["loss"]
    assert len(losses) == 20 and losses[-1] < losses[0]
    # One eager call builds the model, then one trace per batch shape (32, then the last 9).
    assert model.traces == 3
    assert model.predict(x, verbose=0).shape == (201,)


def test_run_eagerly_gives_the_same_losses():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", run_eagerly=True)
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    close(history.history["loss"], [3.7775111198, 2.3736634254, 1.6157451868])


def test_custom_train_step_and_metrics_property():
    class Custom(Net):
        def __init__(self):
            super().__init__()
            self.loss_tracker = tf.keras.metrics.Mean(name="my_loss")

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            self.loss_tracker.update_state(loss)
            return {"my_loss": self.loss_tracker.result()}

        @property
        def metrics(self):
            return [self.loss_tracker]

    x, y = data()
    model = Custom()
    model(tf.constant(x[:1]))
    model.set_weights(initial_weights())
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05))
    history = model.fit(x, y, batch_size=40, epochs=2, shuffle=False, verbose=0)
    assert list(history.history) == ["my_loss"]
    # One full batch per epoch: the mean of one step's loss (the first is the plain MSE).
    first = float(np.mean((make()(tf.constant(x)).numpy() - y) ** 2))
    close(history.history["my_loss"][0], first)
    assert model.metrics_names == ["my_loss"]


def test_attribute_metrics_are_collected_and_reset():
    class WithMetric(Net):
        def __init__(self):
            super().__init__()
            self.seen = tf.keras.metrics.Sum(name="seen")

        def train_step(self, data):
            self.seen.update_state(tf.cast(tf.shape(data[0])[0], tf.float32))
            return super().train_step(data)

    x, y = data()
    model = WithMetric()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert model.metrics_names == ["loss", "seen"]
    assert history.history["seen"] == [40.0, 40.0]


def test_errors():
    x, y = data()
    model = make()
    with pytest.raises(ValueError, match="You must call `compile\\(\\)`"):
        model.fit(x, y, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(x, y[:10], verbose=0)
    with pytest.raises(ValueError, match="not sufficient to split"):
        model.fit(x[:1], y[:1], validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match="validation_freq"):
        model.fit(x, y, validation_data=(x, y), validation_freq="1", verbose=0)


def test_predict_without_compile_and_multiple_outputs():
    class TwoHeads(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.a = tf.keras.layers.Dense(2)
            self.b = tf.keras.layers.Dense(1)

        def call(self, x):
            return {"a": self.a(x), "b": self.b(x)}

    x, y = data()
    model = TwoHeads()
    out = model.predict(x, batch_size=7, verbose=0)
    assert sorted(out) == ["a", "b"] and out["a"].shape == (40, 2) and out["b"].shape == (40, 1)
    np.testing.assert_allclose(out["b"], model(tf.constant(x))["b"].numpy(), rtol=1e-6)

    model.compile(
        optimizer="sgd",
        loss={"a": "mse", "b": "mae"},
        loss_weights={"a": 0.5, "b": 2.0},
        metrics={"b": ["mse"]},
    )
    targets = {"a": np.zeros((40, 2), "float32"), "b": y}
    history = model.fit(x, targets, batch_size=40, epochs=1, shuffle=False, verbose=0)
    assert sorted(history.history) == ["a_loss", "b_loss", "b_mse", "loss"]
    logs = {k: v[0] for k, v in history.history.items()}
    close(logs["loss"], 0.5 * logs["a_loss"] + 2.0 * logs["b_loss"])
    close(logs["b_mse"], float(np.mean((out["b"] - y) ** 2)))


def test_steps_per_epoch_and_steps_per_execution():
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", steps_per_execution=2)
    seen = []
    callback = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(batch)
    )
    history = model.fit(
        x, y, batch_size=16, epochs=3, shuffle=False, verbose=0, callbacks=[callback]
    )
    # Batch hooks run once per execution of two steps (the last one runs the third batch).
    assert seen == [1, 3] * 3
    close(history.history["loss"], [3.7775111198, 2.3736634254, 1.6157451868])

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    model = make()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(dataset, epochs=2, steps_per_epoch=3, verbose=0, shuffle=False)
    assert history.params["steps"] == 3 and len(history.history["loss"]) == 2


def test_compile_config_round_trip():
    model = make()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    config = model.get_compile_config()
    assert config["optimizer"]["class_name"] == "Adam" and config["loss"] == "mse"
    other = make()
    other.compile_from_config(config)
    assert isinstance(other.optimizer, tf.keras.optimizers.Adam)
    assert other.optimizer.built
    np.testing.assert_allclose(float(other.optimizer.learning_rate), 0.01, rtol=1e-6)


def _normalise(text):
    """Progress text with the timings (which vary from run to run) replaced by T."""
    return re.sub(r"\d+(ms|us|s)(/step)?", "T", text)


def test_progress_bar_text(capsys):
    x, y = data()
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=2, validation_split=0.25)
    model.evaluate(x, y, verbose=2)
    assert _normalise(capsys.readouterr().out) == (
        "Epoch 1/2\n"
        "2/2 - T - T - loss: 2.9199 - mae: 1.3708 - val_loss: 6.3345 - val_mae: 2.2541\n"
        "Epoch 2/2\n"
        "2/2 - T - T - loss: 2.2544 - mae: 1.2020 - val_loss: 6.1738 - val_mae: 2.2702\n"
        "2/2 - T - T - loss: 2.8873 - mae: 1.3867\n"
    )

    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=1)
    out = capsys.readouterr().out
    # Not a terminal: each drawing of the bar starts a line (no "Epoch" line for one epoch).
    # As in Keras, a drawing shorter than the one before is padded with spaces, and how much
    # depends on how wide the timings printed: those trailing spaces are not compared.
    final = out.split("\n")[-2].rstrip(" ")
    bar = "\x1b[32m" + "━" * 20 + "\x1b[0m\x1b[37m\x1b[0m"
    assert _normalise(final) == f"\x1b[1m3/3\x1b[0m {bar} \x1b[1mT\x1b[0m T - loss: 3.7775"
    assert "\r" not in out

    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    model.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


def test_progbar_redraws_in_place_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    bar = tf.keras.utils.Progbar(3, interval=0)
    bar.update(1, [("loss", 2.0)])
    first = "\r\x1b[1m1/3\x1b[0m \x1b[32m" + "━" * 6 + "\x1b[0m\x1b[37m" + "━" * 14 + "\x1b[0m"
    assert _normalise(capsys.readouterr().out) == first + " \x1b[1mT\x1b[0m T - loss: 2.0000"
    # Values are averaged over the steps, until the final update (shown as given).
    bar.update(2, [("loss", 4.0)])
    out = capsys.readouterr().out
    assert re.match("\b+\r", out) and out.endswith(" - loss: 3.0000")
    bar.update(3, [("loss", 1.0)])
    assert capsys.readouterr().out.endswith(" - loss: 1.0000\n")


def test_keras_utils():
    one_hot = tf.keras.utils.to_categorical([0, 2, 1])
    assert one_hot.dtype == np.float64 and one_hot.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert tf.keras.utils.to_categorical(np.array([[1], [0]]), 3).shape == (2, 3)
    as_tensor = tf.keras.utils.to_categorical(tf.constant([1, 0]), 2)
    assert isinstance(as_tensor, tf.Tensor) and as_tensor.numpy().tolist() == [[0, 1], [1, 0]]
    assert tf.keras.utils.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert tf.keras.utils.unpack_x_y_sample_weight(5) == (5, None, None)
    assert tf.keras.utils.pack_x_y_sample_weight([1, 2]) == ([1, 2],)
    assert tf.keras.utils.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)

    # `set_random_seed` fixes the shuffling of `fit`.
    x, y = data()
    runs = []
    for _ in range(2):
        tf.keras.utils.set_random_seed(3)
        model = make()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
        runs.append(model.fit(x, y, batch_size=8, epochs=2, verbose=0).history["loss"])
    assert runs[0] == runs[1]
    model = make()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    unshuffled = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert unshuffled.history["loss"] != runs[0]
