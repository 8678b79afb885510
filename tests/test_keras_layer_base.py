"""tf.keras.layers.Layer as Keras 3 has it: how a call resolves `training` (explicit, then the
enclosing call's, then `call`'s default), add_loss and the losses of a call, activity and
weight regularizers, configs, count_params, input checks and bad arguments."""

import threading

import ferroflow as tf
import numpy as np
import pytest

layers = tf.keras.layers


class Probe(layers.Layer):
    """Records the `training` value each call received."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, inputs, training=None):
        self.seen.append(training)
        return inputs


class ProbeDefaultTrue(Probe):
    def call(self, inputs, training=True):
        self.seen.append(training)
        return inputs


class Outer(tf.keras.Model):
    """Calls `first` without `training`, `second` with training=False, then `third`."""

    def __init__(self):
        super().__init__()
        self.first, self.second, self.third = Probe(), Probe(), Probe()

    def call(self, inputs):
        x = self.first(inputs)
        x = self.second(x, training=False)
        return self.third(x)


def test_training_explicit_then_default():
    x = tf.ones([1, 2])
    probe = Probe()
    probe(x)
    probe(x, training=True)
    probe(x, False)
    probe(x, training=None)
    assert probe.seen == [None, True, False, None]
    eager_default = ProbeDefaultTrue()
    eager_default(x)
    eager_default(x, training=False)
    assert eager_default.seen == [True, False]


def test_training_flows_from_the_enclosing_call_and_explicit_values_win():
    model = Outer()
    x = tf.ones([1, 2])
    model(x, training=True)  # Outer.call takes no `training`: it still sets the context
    model(x)
    assert model.first.seen == [True, None]
    assert model.second.seen == [False, False]
    # The explicit False applied to `second`'s call only; `third` sees the enclosing value.
    assert model.third.seen == [True, None]


def test_a_call_default_is_what_sublayers_inherit():
    class DefaultsToTraining(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Probe()

        def call(self, inputs, training=True):
            return self.inner(inputs)

    model = DefaultsToTraining()
    model(tf.ones([1, 2]))
    model(tf.ones([1, 2]), training=False)
    assert model.inner.seen == [True, False]


def test_training_is_passed_only_to_calls_that_declare_it():
    class NoTraining(layers.Layer):
        def call(self, inputs):
            return inputs * 2.0

    class OnlyKwargs(layers.Layer):
        def call(self, inputs, **kwargs):
            self.kwargs = kwargs
            return inputs

    class KeywordOnly(Probe):
        def call(self, inputs, *args, training=False):
            self.seen.append(training)
            return inputs

    x = tf.ones([1, 2])
    keyword_only = KeywordOnly()
    keyword_only(x)
    keyword_only(x, training=True)
    assert keyword_only.seen == [False, True]
    np.testing.assert_allclose(NoTraining()(x, training=True).numpy(), [[2.0, 2.0]])
    only_kwargs = OnlyKwargs()
    only_kwargs(x, training=True, extra=1)
    assert only_kwargs.kwargs == {"extra": 1}


def test_the_training_context_is_per_thread():
    inner = Probe()

    class SpawnsThread(layers.Layer):
        def call(self, inputs):
            worker = threading.Thread(target=inner, args=(inputs,))
            worker.start()
            worker.join()
            return inner(inputs)

    SpawnsThread()(tf.ones([1, 2]), training=True)
    assert inner.seen == [None, True]


def test_dropout_inside_a_model_follows_the_model_call():
    class WithDropout(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dropout = layers.Dropout(0.5, seed=3)

        def call(self, inputs):
            return self.dropout(inputs)

    model = WithDropout()
    x = tf.ones([4, 50])
    np.testing.assert_array_equal(model(x).numpy(), x.numpy())
    trained = model(x, training=True).numpy()
    assert set(np.unique(trained)) <= {0.0, 2.0} and 0 < (trained == 0).sum() < trained.size


class AddsLoss(layers.Layer):
    def call(self, inputs):
        self.add_loss(tf.reduce_sum(inputs))
        return inputs


class HoldsLossLayer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = AddsLoss()

    def call(self, inputs):
        return self.inner(inputs)


def test_add_loss_keeps_the_losses_of_the_latest_outermost_call():
    layer = AddsLoss()
    layer(tf.ones([2, 2]))
    assert [float(v) for v in layer.losses] == [4.0]
    layer(tf.ones([1, 2]))
    assert [float(v) for v in layer.losses] == [2.0]
    model = HoldsLossLayer()
    model(tf.ones([3, 1]))
    model(tf.ones([2, 1]))
    assert [float(v) for v in model.losses] == [2.0]
    assert [float(v) for v in model.inner.losses] == [2.0]
    with pytest.raises(ValueError, match="on a tensor input"):
        layer.add_loss(3.0)


def test_losses_inside_tf_function_training_step():
    model = HoldsLossLayer()

    @tf.function
    def step(x):
        model(x)
        return tf.add_n(model.losses)

    assert float(step(tf.ones([2, 3]))) == 6.0
    assert float(step(tf.fill([2, 3], 2.0))) == 12.0


def test_activity_regularizer_is_normalised_by_batch_size():
    layer = layers.Dense(2, kernel_initializer="ones", activity_regularizer="l2")
    y = layer(tf.constant([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]))
    expected = 0.01 * float(tf.reduce_sum(y**2)) / 2
    np.testing.assert_allclose([float(v) for v in layer.losses], [expected], rtol=1e-6)
    assert layer.get_config()["activity_regularizer"]["class_name"] == "L2"


def test_weight_regularizers_count_only_trainable_weights():
    model = HoldsLossLayer()
    model.dense = layers.Dense(1, kernel_initializer="ones", kernel_regularizer="l1")
    model.dense(tf.ones([1, 4]))
    np.testing.assert_allclose([float(v) for v in model.losses], [0.04], rtol=1e-6)
    model.dense.trainable = False
    assert model.losses == []


def test_auto_config_of_a_subclass_with_plain_arguments():
    class Scaled(layers.Layer):
        def __init__(self, factor, mode="mul", **kwargs):
            super().__init__(**kwargs)
            self.factor, self.mode = factor, mode

    layer = Scaled(3.0, name="scaled_x", trainable=False, dtype="float64")
    config = layer.get_config()
    assert config == {
        "name": "scaled_x",
        "factor": 3.0,
        "mode": "mul",
        "trainable": False,
        "dtype": {
            "module": "keras",
            "class_name": "DTypePolicy",
            "config": {"name": "float64"},
            "registered_name": None,
        },
    }
    clone = Scaled.from_config(config)
    assert (clone.factor, clone.mode, clone.name, clone.trainable, clone.dtype) == (
        3.0,
        "mul",
        "scaled_x",
        False,
        "float64",
    )

    class Opaque(layers.Layer):
        def __init__(self, initializer, **kwargs):
            super().__init__(**kwargs)

    with pytest.raises(NotImplementedError, match="must override `get_config"):
        Opaque(tf.keras.initializers.Ones()).get_config()


def test_base_layer_config_matches_keras():
    config = layers.Layer(name="base").get_config()
    assert config == {
        "name": "base",
        "activity_regularizer": None,
        "trainable": True,
        "dtype": {
            "module": "keras",
            "class_name": "DTypePolicy",
            "config": {"name": "float32"},
            "registered_name": None,
        },
        "autocast": True,
    }
    with pytest.raises(TypeError, match="Error when deserializing class 'Dense'"):
        layers.Dense.from_config({"units": 0})


def test_count_params_and_compute_output_shape():
    layer = layers.Dense(4)
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()
    layer(tf.ones([2, 3]))
    assert layer.count_params() == 16
    assert layer.compute_output_shape((None, 5, 3)) == (None, 5, 4)
    with pytest.raises(NotImplementedError, match="compute_output_shape"):
        layers.Layer().compute_output_shape((1, 2))


def test_input_checks_after_build():
    layer = layers.Dense(2)
    layer(tf.ones([1, 3]))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(tf.ones([1, 4]))
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        layers.Dense(2)(tf.ones([3]))
    spec = layers.InputSpec(ndim=3, axes={-1: 2})
    assert repr(spec) == "InputSpec(ndim=3, axes={-1: 2})"


def test_bad_layer_arguments_raise_keras_errors():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(1, bogus=True)
    with pytest.raises(ValueError, match="Expected `trainable` to be a boolean"):
        layers.Dense(1, trainable=1)
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        layers.Dense(1, name="a/b")
    with pytest.raises(ValueError, match="Cannot convert 'foo'"):
        layers.Dense(1, dtype="foo")


def test_inputs_are_converted_and_floats_autocast():
    layer = layers.Dense(2, kernel_initializer="ones")
    out = layer(np.ones([1, 3], dtype="float64"))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [[3.0, 3.0]])
    assert layer(tf.ones([1, 3], dtype=tf.float64)).dtype == tf.float32
    wide = layers.Dense(1, dtype="float64", kernel_initializer="ones")
    assert wide(tf.ones([1, 2])).dtype == tf.float64 and wide.kernel.dtype == tf.float64
    assert layers.Embedding(4, 2)(np.array([[3, 1]])).shape == (1, 2, 2)


def test_clear_session_restarts_automatic_names():
    tf.keras.backend.clear_session()
    first = [layers.Dense(1).name for _ in range(3)]
    optimizer = tf.keras.optimizers.SGD().name
    loss = tf.keras.losses.MeanSquaredError().name
    assert first == ["dense", "dense_1", "dense_2"]
    tf.keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"
    assert tf.keras.optimizers.SGD().name == optimizer == "sgd"
    assert tf.keras.losses.MeanSquaredError().name == loss
    assert tf.keras.Input((2,)).name == "keras_tensor"
    tf.keras.utils.clear_session(free_memory=False)  # Keras 3 exports it here too
    assert layers.Dense(1).name == "dense"
