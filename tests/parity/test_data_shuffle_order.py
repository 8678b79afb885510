"""`Dataset.shuffle`'s order against TensorFlow 2.21 for the same seeds: buffer sizes from 1 to
larger than the data (and `UNKNOWN_CARDINALITY`), op seed only, global seed only (whose op
seed depends on the stateful random ops run since `set_seed`), both, the seeds that truncate
to (0, 0); new orders per iteration and per `repeat` epoch, or the same with
``reshuffle_each_iteration=False``; rows of `from_tensor_slices` and computed elements."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _orders(tf, device):
    def seq(ds):
        return [int(x) for x in ds]

    out = []
    tf.random.set_seed(None)
    with tf.device(device):
        for n in (1, 2, 5, 17):
            for buffer_size in (1, 2, 3, 16, 40, -2):
                shuffled = tf.data.Dataset.range(n).shuffle(buffer_size, seed=11)
                # Two iterations, then two epochs of a repeat: four seed pairs in turn.
                out.append((seq(shuffled), seq(shuffled), seq(shuffled.repeat(2))))
                rows = tf.data.Dataset.from_tensor_slices(list(range(n)))
                fixed = rows.shuffle(buffer_size, seed=3, reshuffle_each_iteration=False)
                out.append((seq(fixed), seq(fixed.repeat(2))))
        # Computed elements (not rows), a repeat of the shuffle fused by TensorFlow, a
        # partial iteration (its seeds are drawn when the iterator is made).
        mapped = tf.data.Dataset.range(12).map(lambda x: x * 3).shuffle(5, seed=-7)
        out.append(seq(mapped.repeat(3)))
        partial = iter(mapped)
        out += [int(next(partial)), seq(mapped), seq(mapped.batch(4).unbatch().take(5))]
        # Op seeds as TensorFlow truncates them (2**31 - 1 is 0), large ones, tensors.
        for seed in (0, 2**31 - 1, 2**40 + 3, tf.constant(9, tf.int64)):
            out.append(seq(tf.data.Dataset.range(9).shuffle(4, seed=seed)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_shuffle_order_op_seeds(tf_oracle, device):
    assert_parity(tf_oracle, _orders, (device,))


def _global_seed(tf):
    def seq(ds):
        return [int(x) for x in ds]

    out = []
    # Global seed only: the op seed is the next of the global seed's sequence.
    tf.random.set_seed(5)
    first = tf.data.Dataset.range(10).shuffle(4)
    second = tf.data.Dataset.range(10).shuffle(4)
    out += [seq(first), seq(second), seq(first)]
    # Every stateful random op takes the next op seed, stateless ops and Generators none.
    tf.random.set_seed(3)
    tf.random.uniform([2])
    tf.random.normal([2])
    tf.random.truncated_normal([2])
    tf.random.uniform([2], 0, 5, dtype=tf.int32)
    tf.random.shuffle([1, 2, 3])
    tf.random.categorical([[0.0, 1.0]], 2)
    tf.random.gamma([2], 1.0)
    tf.random.poisson([2], 1.0)
    tf.nn.dropout(tf.ones([4]), 0.5)
    tf.nn.dropout(tf.ones([4]), 0.0)
    tf.random.stateless_uniform([2], seed=[1, 2])
    tf.random.Generator.from_seed(1).normal([2])
    tf.keras.initializers.GlorotUniform()([2, 2])
    tf.keras.layers.Dense(2)(tf.ones([1, 2]))
    tf.keras.layers.Dropout(0.5)(tf.ones([1, 4]), training=True)
    out.append(seq(tf.data.Dataset.range(12).shuffle(5)))
    # Both seeds; the same seeds after set_seed again; global 0 with op seed 0 (TensorFlow
    # runs (0, 0) as (0, 2**31 - 1)).
    tf.random.set_seed(8)
    out.append(seq(tf.data.Dataset.range(12).shuffle(5, seed=2)))
    tf.random.set_seed(8)
    out.append(seq(tf.data.Dataset.range(12).shuffle(5, seed=2).repeat(2)))
    tf.random.set_seed(0)
    out.append(seq(tf.data.Dataset.range(12).shuffle(5, seed=0)))
    tf.random.set_seed(None)
    return out


def test_shuffle_order_global_seed(tf_oracle):
    assert_parity(tf_oracle, _global_seed)


def _arguments(tf):
    import numpy as np

    def seq(ds):
        return [int(x) for x in ds]

    out = []
    # Arguments as TensorFlow converts them (int64 inputs, a bool attribute) and refuses
    # them: the exception classes, in TensorFlow's order of checks.
    cases = [
        {"buffer_size": 0},
        {"buffer_size": -1},
        {"buffer_size": -3},
        {"buffer_size": True},
        {"buffer_size": np.int32(3)},
        {"buffer_size": tf.constant(3, tf.int64)},
        {"buffer_size": tf.constant(3)},
        {"buffer_size": 3.0},
        {"buffer_size": tf.constant([3], tf.int64)},
        {"buffer_size": 3, "seed": np.int64(5)},
        {"buffer_size": 3, "seed": tf.constant(5, tf.int64)},
        {"buffer_size": 3, "seed": tf.constant(5)},
        {"buffer_size": 3, "seed": 5.0},
        {"buffer_size": 3, "seed": tf.constant([5], tf.int64)},
        {"buffer_size": 3, "seed": True},
        {"buffer_size": 3, "seed": 5, "reshuffle_each_iteration": None},
        {"buffer_size": 3, "seed": 5, "reshuffle_each_iteration": 0},
        {"buffer_size": 3, "seed": 5, "reshuffle_each_iteration": np.bool_(False)},
    ]
    tf.random.set_seed(None)
    for kwargs in cases:
        try:
            shuffled = tf.data.Dataset.range(8).shuffle(**{"seed": 7, **kwargs})
            out.append((seq(shuffled), seq(shuffled)))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_shuffle_arguments(tf_oracle):
    assert_parity(tf_oracle, _arguments)


def _keras_pipelines(tf):
    import numpy as np

    tf.random.set_seed(None)
    x = np.arange(24, dtype="float32").reshape(12, 2) / 10
    y = (np.arange(12) % 3).astype("float32")

    def make():
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(5, seed=4).batch(4)

    def labels(ds):
        return [float(v) for batch in ds for v in batch[1]]

    out = []
    # `fit` makes two iterators an epoch (Keras makes the next one at the end of each), as
    # do `evaluate`, `predict` and each validation run: the orders trained on and the next
    # iteration's order show it.
    for epochs, validation in ((1, False), (3, False), (2, True)):
        ds = make()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        validation_data = ds if validation else None
        history = model.fit(
            ds, epochs=epochs, validation_data=validation_data, shuffle=False, verbose=0
        )
        out += [model.get_weights(), history.history, labels(ds)]
        model.evaluate(ds, verbose=0)
        model.predict(ds, verbose=0)
        out.append(labels(ds))
    # Keras's seeded time series shuffle (a NumPy shuffle of the windows, then
    # Dataset.shuffle).
    windows = tf.keras.utils.timeseries_dataset_from_array(
        np.arange(30), None, sequence_length=3, batch_size=4, shuffle=True, seed=2
    )
    out += [list(windows), list(windows)]
    return out


def test_shuffle_order_in_keras(tf_oracle):
    assert_parity(tf_oracle, _keras_pipelines)


def _random_shuffle(tf, device):
    out = []
    tf.random.set_seed(None)
    with tf.device(device):
        # An op seed: one kernel per (seeds, dtype) whose stream later calls continue.
        for n in (10, 7, 1, 33, 2):
            out.append(tf.random.shuffle(tf.range(n), seed=1))
        out += [
            tf.random.shuffle(tf.range(10.0), seed=1),
            tf.random.shuffle(tf.reshape(tf.range(12, dtype=tf.int64), [6, 2]), seed=3),
            tf.random.shuffle(tf.zeros([5, 0]), seed=3),
            tf.random.shuffle(tf.constant(["a", "b", "c", "d"]), seed=3),
            tf.random.shuffle(tf.constant([[True], [False], [True]]), seed=-4),
            tf.random.shuffle(5, seed=3),
        ]
        # The global seed: a new op seed per call; set_seed restarts the kernels' streams.
        tf.random.set_seed(4)
        out += [tf.random.shuffle(tf.range(10)), tf.random.shuffle(tf.range(7))]
        tf.random.set_seed(4)
        out += [tf.random.shuffle(tf.range(10), seed=1), tf.random.shuffle(tf.range(10), seed=1)]

        # Traced: a kernel per node and per trace, continued by each call.
        @tf.function
        def traced(x):
            return (
                tf.random.shuffle(x, seed=2),
                tf.random.shuffle(x, seed=2),
                tf.random.shuffle(tf.zeros([4, 0]), seed=1),
            )

        out += [traced(tf.range(7)) for _ in range(3)] + [traced(tf.range(5.0))]
        # Not differentiable.
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.random.shuffle(x, seed=1) * tf.constant([1.0, 2.0, 3.0])
        out.append(tape.gradient(y, x))
    tf.random.set_seed(None)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_random_shuffle_order(tf_oracle, device):
    assert_parity(tf_oracle, _random_shuffle, (device,))


def _keras_array_shuffles(tf):
    import numpy as np

    n = 10
    x = np.arange(n, dtype="float32").reshape(n, 1)
    y = np.arange(n, dtype="float32")
    seen = []

    class Recording(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

        def train_step(self, data):
            seen.append(data[1].numpy().tolist())
            return {"n": tf.constant(0.0)}

    out = []
    # Under a global seed Keras's `tf.data` shuffle (TensorFlow's kernel, the function
    # graph's seeds) gives each epoch the same order; "batch" shuffles within batches.
    for seed, shuffle in ((7, True), (0, "batch"), (2**31 - 1, True), (123, "batch")):
        tf.random.set_seed(seed)
        tf.random.uniform([1])  # a function graph's seeds ignore the eager op seeds
        seen.clear()
        model = Recording()
        model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        model.fit(x, y, batch_size=4, epochs=2, shuffle=shuffle, verbose=0)
        out.append(list(seen))
    tf.random.set_seed(None)
    return out


def test_shuffle_order_of_keras_arrays(tf_oracle):
    assert_parity(tf_oracle, _keras_array_shuffles)
