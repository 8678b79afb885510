"""Recurrent layers in models, against Keras 3 under TensorFlow 2.21: configs and their
round trip, default names, functional output shapes, masks from `Embedding(mask_zero=True)`,
a traced call that holds one graph loop, a short `fit` with fixed weights, dropout, a
`.keras` round trip, and the errors Keras raises."""

from ._outcomes import error_classes
from .harness import parity
from .test_keras_rnn import fix_weights, sequences


def _layers(tf):
    L = tf.keras.layers
    return [
        L.SimpleRNN(3),
        L.LSTM(3, return_sequences=True, dropout=0.25, recurrent_dropout=0.5, seed=4),
        L.GRU(2, reset_after=False, go_backwards=True, activation="relu"),
        L.RNN([L.LSTMCell(2), L.GRUCell(3)], return_state=True),
        L.Bidirectional(L.LSTM(2), merge_mode="sum"),
        L.TimeDistributed(L.Dense(4)),
        L.ConvLSTM2D(2, 3, padding="same", return_sequences=True),
        L.SimpleRNNCell(2),
        L.LSTMCell(2, unit_forget_bias=False),
        L.GRUCell(2),
    ]


@parity(helpers=[_layers])
def test_configs_names_and_round_trips(tf):
    out = []
    for layer in _layers(tf):
        config = layer.get_config()
        again = type(layer).from_config(config)
        out.append((layer.name, config, again.get_config() == config, type(again).__name__))
    return out


@parity(helpers=[fix_weights])
def test_functional_shapes_and_weight_paths(tf):
    L = tf.keras.layers
    out = []
    for shape, layer in [
        ((None, 4), L.LSTM(3, return_sequences=True)),
        ((5, 4), L.GRU(3, return_state=True)),
        ((5, 4), L.SimpleRNN(2, return_sequences=True, return_state=True)),
        ((None, 4), L.Bidirectional(L.GRU(3, return_sequences=True))),
        ((None, 4), L.Bidirectional(L.LSTM(3, return_state=True), merge_mode=None)),
        ((6, 4), L.TimeDistributed(L.Dense(2))),
        ((3, 5, 5, 2), L.ConvLSTM2D(4, 3, return_state=True)),
        ((3, 8, 2), L.ConvLSTM1D(4, 3, strides=2, return_sequences=True)),
    ]:
        inputs = tf.keras.Input(shape)
        outputs = layer(inputs)
        out.append([tuple(t.shape) for t in tf.nest.flatten(outputs)])
        out.append([(w.path, tuple(w.shape)) for w in layer.weights])
    model = tf.keras.Sequential([tf.keras.Input((5, 4)), L.LSTM(3), L.Dense(1)])
    out.append(model.count_params())
    return out


@parity(helpers=[fix_weights, sequences])
def test_masks_from_embedding(tf):
    import numpy as np

    L = tf.keras.layers
    ids = tf.constant(np.array([[3, 1, 4, 0, 0], [5, 9, 2, 6, 5], [7, 0, 0, 0, 0]], "int32"))
    out = []
    for rnn in (
        L.LSTM(3),
        L.GRU(3, return_sequences=True),
        L.Bidirectional(L.SimpleRNN(2, return_sequences=True)),
    ):
        embedding = L.Embedding(10, 4, mask_zero=True)
        embedding.build((None, 5))
        fix_weights(embedding)
        x = embedding(ids)
        rnn.build((3, 5, 4))
        fix_weights(rnn)
        y = rnn(x)
        mask = getattr(y, "_keras_mask", None)
        out.append((y, None if mask is None else mask.numpy()))
        inputs = tf.keras.Input((5,), dtype="int32")
        model = tf.keras.Model(inputs, rnn(embedding(inputs)))
        out.append(model(ids))
    return out


@parity(helpers=[fix_weights, sequences])
def test_traced_call_is_one_graph_loop(tf):
    L = tf.keras.layers
    layer = L.LSTM(3, return_sequences=True)
    layer.build((2, 12, 4))
    fix_weights(layer)
    x = sequences(tf, (2, 12, 4))
    step = tf.function(lambda t: layer(t))
    graph = step.get_concrete_function(x).graph
    types = [op.type for op in graph.get_operations()]
    loops = sum(t in ("While", "StatelessWhile") for t in types)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = step(x)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, [x, *layer.trainable_weights])
    unrolled_layer = L.LSTM(3, unroll=True)
    unrolled_layer.build((2, 12, 4))
    unrolled = tf.function(lambda t: unrolled_layer(t)).get_concrete_function(x).graph
    unrolled_loops = sum(op.type in ("While", "StatelessWhile") for op in unrolled.get_operations())
    return {
        "one_loop": loops == 1,
        "matmuls_outside_loop_fewer_than_steps": types.count("MatMul") < 12,
        "unrolled_has_no_loop": unrolled_loops == 0,
        "output": y,
        "gradients": grads,
    }


@parity(rtol=1e-4, atol=1e-5, helpers=[fix_weights])
def test_fit_loss_history(tf):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (16, 6, 3)).astype("float32")
    y = rng.uniform(-1, 1, (16, 1)).astype("float32")
    out = []
    for rnn in (L.LSTM(4), L.GRU(4, return_sequences=True), L.SimpleRNN(4, go_backwards=True)):
        layers = [tf.keras.Input((6, 3)), rnn]
        if rnn.return_sequences:
            layers.append(L.GlobalAveragePooling1D())
        model = tf.keras.Sequential([*layers, L.Dense(1)])
        fix_weights(model)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        out.append(history.history["loss"])
        out.append(model.predict(x, verbose=0))
    return out


@parity(helpers=[sequences])
def test_dropout_only_in_training(tf):
    L = tf.keras.layers
    x = sequences(tf, (4, 5, 6))
    out = []
    for layer in (
        L.LSTM(8, dropout=0.5, recurrent_dropout=0.5),
        L.GRU(8, dropout=0.5),
        L.SimpleRNN(8, recurrent_dropout=0.5),
    ):
        inference = layer(x)
        again = layer(x, training=False)
        trained = layer(x, training=True)
        out.append(
            (
                bool(tf.reduce_all(inference == again)),
                bool(tf.reduce_any(inference != trained)),
                trained.shape,
            )
        )
    return out


@parity(helpers=[fix_weights, sequences])
def test_keras_file_round_trip(tf):
    import os
    import tempfile

    L = tf.keras.layers
    model = tf.keras.Sequential(
        [tf.keras.Input((5, 3)), L.Bidirectional(L.LSTM(3, return_sequences=True)), L.GRU(2)]
    )
    fix_weights(model)
    x = sequences(tf, (2, 5, 3))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.keras")
        model.save(path)
        loaded = tf.keras.models.load_model(path)
    return model(x), loaded(x), [w.path for w in loaded.weights]


@parity(helpers=[error_classes])
def test_errors(tf):
    L = tf.keras.layers
    x = tf.ones((2, 3, 4))
    return error_classes(
        [
            lambda: L.LSTM(0),
            lambda: L.GRU(2, use_cudnn="yes"),
            lambda: L.LSTM(2, use_cudnn=True)(x),
            lambda: L.SimpleRNN(2)(tf.ones((2, 3))),
            lambda: L.RNN(object()),
            lambda: L.Bidirectional(L.LSTM(2), merge_mode="max"),
            lambda: L.Bidirectional("lstm"),
            lambda: L.Bidirectional(L.LSTM(2), backward_layer=L.LSTM(2)),
            lambda: L.TimeDistributed("dense"),
            lambda: L.TimeDistributed(L.Dense(2))(tf.ones((2, 3))),
            lambda: L.LSTM(2, unroll=True)(tf.keras.Input((None, 4))),
            lambda: L.LSTM(2, stateful=True)(tf.keras.Input((3, 4))),
            lambda: L.ConvLSTM2D(2, 3, strides=2, dilation_rate=2),
            lambda: L.Bidirectional(L.LSTM(2)).reset_states(),
        ]
    )


@parity(helpers=[fix_weights, sequences])
def test_unknown_batch_and_steps_in_traces(tf):
    L = tf.keras.layers
    x = sequences(tf, (3, 7, 4))
    out = []
    for layer in (
        L.LSTM(2, return_sequences=True),
        L.GRU(2, go_backwards=True, return_state=True),
        L.SimpleRNN(2, return_sequences=True, stateful=False, unroll=False),
        # Keras maps over the batch size's range when the steps are unknown: Keras's result.
        L.TimeDistributed(L.Dense(2)),
    ):
        layer.build((3, 7, 4))
        fix_weights(layer)
        step = tf.function(layer.__call__, input_signature=[tf.TensorSpec([None, None, 4])])
        out.append((step(x), step(x[:2, :5])))
        outputs = step.get_concrete_function().structured_outputs
        out.append([tuple(o.shape) for o in tf.nest.flatten(outputs)])
    return out
