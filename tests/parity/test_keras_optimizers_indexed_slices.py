"""Keras optimizers applying `tf.IndexedSlices` gradients (a gather's, with repeated rows)
against TensorFlow's Keras 3: every optimizer and its variants over several steps, next to a
dense gradient, with weight decay, each kind of clipping, EMA, gradient accumulation, inside a
`tf.function`, the divisor-with-zero-rows path and loss scaling; and `Model.fit` of an
`Embedding` model. Compared: the variables and every optimizer variable, on the CPU and GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

OPTIMIZERS = [
    ("SGD", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.5, "nesterov": True}),
    ("Adam", {"learning_rate": 0.1}),
    ("Adam", {"learning_rate": 0.1, "amsgrad": True}),
    ("AdamW", {"learning_rate": 0.1}),
    ("RMSprop", {"learning_rate": 0.1}),
    ("RMSprop", {"learning_rate": 0.1, "momentum": 0.5}),
    ("RMSprop", {"learning_rate": 0.1, "centered": True}),
    ("RMSprop", {"learning_rate": 0.1, "centered": True, "momentum": 0.3}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.5, "epsilon": 1e-3}),
]

OPTIONS = [
    {"weight_decay": 0.05},
    {"clipnorm": 1.5},
    {"clipvalue": 0.75},
    {"global_clipnorm": 2.0},
    {"use_ema": True, "ema_momentum": 0.5, "ema_overwrite_frequency": 3},
    {"gradient_accumulation_steps": 2},
]


def _train(tf, device, configs, traced=False, steps=4):
    """Each (optimizer name, kwargs) trains a table read by `tf.gather` (an IndexedSlices
    gradient with repeated rows) and a dense bias; returns variables and optimizer variables."""
    batches = [[0, 2, 0], [3], [2, 2, 1], [1, 0, 1, 1], [3, 3]][:steps]
    with tf.device(device):
        out = []
        for name, kwargs in configs:
            optimizer = getattr(tf.keras.optimizers, name)(**kwargs)
            table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32) / 4.0 - 1.0, [4, 3]))
            bias = tf.Variable([0.5, -0.25, 1.0])
            scale = tf.constant([1.0, -2.0, 0.5])

            def step(ids, table=table, bias=bias, scale=scale, optimizer=optimizer):
                with tf.GradientTape() as tape:
                    rows = tf.gather(table, ids)
                    loss = tf.reduce_sum((rows * rows * scale + rows) * bias)
                grads = tape.gradient(loss, [table, bias])
                optimizer.apply_gradients(zip(grads, [table, bias]))

            if traced:
                step = tf.function(step)
            for ids in batches:
                step(tf.constant(ids))
            if getattr(optimizer, "use_ema", False):
                optimizer.finalize_variable_values([table, bias])
            out.append(
                {
                    "config": f"{name} {kwargs}",
                    "table": table.read_value(),
                    "bias": bias.read_value(),
                    "optimizer": [tf.convert_to_tensor(v) for v in optimizer.variables],
                }
            )
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_every_optimizer_applies_indexed_slices(tf_oracle, device):
    assert_parity(tf_oracle, _train, (device, OPTIMIZERS), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: next(iter(o)))
def test_optimizer_options_with_indexed_slices(tf_oracle, device, option):
    configs = [(name, {**kwargs, **option}) for name, kwargs in OPTIMIZERS]
    assert_parity(tf_oracle, _train, (device, configs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_optimizers_apply_indexed_slices_inside_function(tf_oracle, device):
    configs = OPTIMIZERS + [
        ("Adam", {"learning_rate": 0.1, "global_clipnorm": 2.0}),
        ("RMSprop", {"learning_rate": 0.1, "clipnorm": 1.5, "weight_decay": 0.05}),
        ("Adagrad", {"learning_rate": 0.1, "gradient_accumulation_steps": 2}),
    ]
    assert_parity(tf_oracle, _train, (device, configs, True), rtol=1e-5, atol=1e-6)


def _vector_and_float64(tf, device):
    """A gather from a vector (IndexedSlices of scalars) and from a float64 table."""
    with tf.device(device):
        out = {}
        for name, kwargs in [
            ("Adam", {"learning_rate": 0.05}),
            ("RMSprop", {"learning_rate": 0.05, "centered": True}),
            ("Adagrad", {"learning_rate": 0.05}),
            ("SGD", {"learning_rate": 0.05, "momentum": 0.9}),
        ]:
            vector = tf.Variable([0.5, -1.0, 2.0, 0.25, 3.0])
            table = tf.Variable(tf.reshape(tf.range(6, dtype=tf.float64), [3, 2]))
            optimizer = getattr(tf.keras.optimizers, name)(**kwargs)
            for ids in ([4, 0, 4, 4], [1, 1], [0, 2, 3]):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.gather(vector, ids) ** 3) + tf.cast(
                        tf.reduce_sum(tf.gather(table, ids[:2]) ** 2), tf.float32
                    )
                grads = tape.gradient(loss, [vector, table])
                optimizer.apply_gradients(zip(grads, [vector, table]))
            out[name] = [vector.read_value(), table.read_value()]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_indexed_slices_of_a_vector_and_float64(tf_oracle, device):
    assert_parity(tf_oracle, _vector_and_float64, (device,))


def _zero_divisor_rows(tf, device, ids):
    """Adagrad without epsilon or initial accumulator divides the slices by rows of zeros:
    Keras joins those rows to the slices' (NaN there). With repeated indices its union of rows
    reads past the values: an InvalidArgumentError on the CPU."""
    with tf.device(device):
        table = tf.Variable(tf.reshape(tf.range(8, dtype=tf.float32), [4, 2]))
        optimizer = tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.0, epsilon=0.0)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(table, ids) ** 2)
        optimizer.apply_gradients([(tape.gradient(loss, table), table)])
        return table.read_value(), tf.convert_to_tensor(optimizer.variables[-1])


@pytest.mark.parametrize("device", DEVICES)
def test_divisor_with_zero_rows(tf_oracle, device):
    assert_parity(tf_oracle, _zero_divisor_rows, (device, [0, 2]))


def test_divisor_with_zero_rows_and_repeated_indices(tf_oracle):
    assert_parity(tf_oracle, _zero_divisor_rows, ("CPU:0", [0, 2, 0]))


def _loss_scaled(tf):
    """Keras divides each gradient by `loss_scale_factor` with `/`, which IndexedSlices lack."""
    table = tf.Variable(tf.ones([3, 2]))
    optimizer = tf.keras.optimizers.Adam(0.1, loss_scale_factor=4.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0, 0]))
    optimizer.apply_gradients([(tape.gradient(loss, table), table)])


def test_loss_scale_factor_with_indexed_slices(tf_oracle):
    assert_parity(tf_oracle, _loss_scaled)


def _fit_embedding(tf, device, optimizer_config):
    """`Model.fit` of Embedding -> pooling -> Dense: the embedding's gradient reaches the
    optimizer as IndexedSlices (ids repeat within and across batches)."""
    import numpy as np

    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((4,), dtype="int32"),
                tf.keras.layers.Embedding(6, 3),
                tf.keras.layers.GlobalAveragePooling1D(),
                tf.keras.layers.Dense(2),
            ]
        )
        model.set_weights(
            [
                np.linspace(-1.0, 1.0, 18, dtype=np.float32).reshape(6, 3),
                np.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1]], dtype=np.float32),
                np.array([0.05, -0.1], dtype=np.float32),
            ]
        )
        optimizer = tf.keras.optimizers.get(optimizer_config)
        model.compile(optimizer=optimizer, loss="mse")
        x = np.array([[i % 6, (i * 2) % 6, (i * 2) % 6, 1] for i in range(12)], dtype=np.int32)
        y = np.stack([np.sin(np.arange(12.0)), np.cos(np.arange(12.0))], 1).astype(np.float32)
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        return {
            "loss": history.history["loss"],
            "weights": model.get_weights(),
            "optimizer": [np.asarray(v) for v in model.optimizer.variables],
        }


FIT_OPTIMIZERS = [
    {"class_name": "SGD", "config": {"learning_rate": 0.2, "momentum": 0.9}},
    {"class_name": "Adam", "config": {"learning_rate": 0.05}},
    {"class_name": "AdamW", "config": {"learning_rate": 0.05, "weight_decay": 0.1}},
    {"class_name": "RMSprop", "config": {"learning_rate": 0.05, "centered": True}},
    {"class_name": "Adagrad", "config": {"learning_rate": 0.2, "clipnorm": 0.5}},
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("optimizer", FIT_OPTIMIZERS, ids=lambda o: o["class_name"])
def test_fit_embedding_model(tf_oracle, device, optimizer):
    assert_parity(tf_oracle, _fit_embedding, (device, optimizer), rtol=1e-4, atol=1e-5)


def _clip_slices(tf, device, traced):
    """tf.clip_by_norm / tf.linalg.global_norm / tf.clip_by_global_norm on IndexedSlices: the
    norms count each occurrence of a repeated row, and the slices stay IndexedSlices."""

    def described(g):
        if isinstance(g, tf.IndexedSlices):
            return ("IndexedSlices", g.values, g.indices, g.dense_shape)
        return ("dense", g)

    def clip(values):
        s = tf.IndexedSlices(values, tf.constant([2, 0, 2]), tf.constant([4, 2]))
        dense = tf.constant([[0.5, -1.0]])
        clipped, norm = tf.clip_by_global_norm([s, None, dense], 4.0)
        return {
            "by_norm": described(tf.clip_by_norm(s, 3.0)),
            "by_norm_axes": described(tf.clip_by_norm(s, 2.0, axes=[1])),
            "global_norm": tf.linalg.global_norm([s, dense]),
            "by_global_norm": [None if c is None else described(c) for c in clipped],
            "norm": norm,
        }

    with tf.device(device):
        if traced:
            clip = tf.function(clip)
        return clip(tf.constant([[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_clip_ops_keep_indexed_slices(tf_oracle, device, traced):
    assert_parity(tf_oracle, _clip_slices, (device, traced))


def _convert_inside_function(tf, device):
    """`tf.convert_to_tensor` of IndexedSlices made inside a `tf.function`, called twice (the
    optimizers densify through the slices' own conversion; see `_ops.densify`). Under a GPU
    scope the traced result was frozen into the graph as a constant (a silent wrong result)."""
    with tf.device(device):

        @tf.function
        def dense(values):
            slices = tf.IndexedSlices(values, tf.constant([2, 0, 2]), tf.constant([4, 1]))
            return tf.convert_to_tensor(slices)

        return dense(tf.constant([[1.0], [2.0], [3.0]])), dense(tf.constant([[4.0], [5.0], [6.0]]))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_convert_indexed_slices_inside_function(tf_oracle, device):
    assert_parity(tf_oracle, _convert_inside_function, (device,))


def _tf_tensor_protocol_inside_function(tf, device):
    """A traced value converted through `__tf_tensor__` under a device scope stays traced."""

    class Doubled:
        def __init__(self, x):
            self.x = x

        def __tf_tensor__(self, dtype=None, name=None):
            return self.x * 2

    with tf.device(device):

        @tf.function
        def f(x):
            return tf.convert_to_tensor(Doubled(x)) + 1.0

        return f(tf.constant([1.0])), f(tf.constant([2.0])), f(tf.constant([5.0]))


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_tf_tensor_protocol_inside_function(tf_oracle, device):
    assert_parity(tf_oracle, _tf_tensor_protocol_inside_function, (device,))
