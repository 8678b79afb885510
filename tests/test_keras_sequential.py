"""tf.keras.Sequential: building up front (an `Input` first, or ``input_shape=``) or on the
first call, add/pop, calls equal to the layers composed by hand, get_config/from_config in
Keras 3's layout, and Keras's errors."""

import json

import ferroflow as tf
import numpy as np
import pytest


class Scale(tf.keras.layers.Layer):
    """Doubles its input when training: shows which `training` value a call received."""

    def call(self, inputs, training=None):
        return inputs * (2.0 if training else 1.0)


def set_fixed_weights(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(size=w.shape) for w in model.weights])


def by_hand(model, x):
    for layer in model.layers:
        kernel, bias = layer.get_weights()
        x = x @ kernel + bias
    return x


def test_an_input_first_builds_the_model_at_once():
    model = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)], name="stack"
    )
    assert model.built and model.name == "stack"
    assert [type(layer).__name__ for layer in model.layers] == ["Dense", "Dense"]
    assert [tuple(w.shape) for w in model.weights] == [(3, 4), (4,), (4, 2), (2,)]
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert len(model.inputs) == 1 and model.inputs[0].shape == (None, 3)
    set_fixed_weights(model, seed=0)
    data = np.random.default_rng(1).normal(size=(5, 3)).astype("float32")
    np.testing.assert_allclose(model(data).numpy(), by_hand(model, data), rtol=1e-5, atol=1e-5)


def test_input_shape_on_the_first_layer_builds_the_model():
    with pytest.warns(UserWarning, match="input_shape"):
        first = tf.keras.layers.Dense(2, input_shape=(5,))
    model = tf.keras.Sequential([first, tf.keras.layers.Dense(1)])
    assert model.built and model.input_shape == (None, 5) and len(model.weights) == 4


def test_without_an_input_shape_the_model_builds_on_its_first_call():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)])
    assert not model.built and model.weights == []
    with pytest.raises(AttributeError, match="has no defined input shape yet"):
        _ = model.input_shape
    out = model(np.ones((8, 3), "float32"))
    assert out.shape == (8, 2) and model.built
    # Keras builds from the first data's shape, batch size included.
    assert model.input_shape == (8, 3)
    set_fixed_weights(model, seed=2)
    data = np.random.default_rng(3).normal(size=(2, 3)).astype("float32")
    np.testing.assert_allclose(model(data).numpy(), by_hand(model, data), rtol=1e-5, atol=1e-5)


def test_build_with_a_shape():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.build((None, 5))
    assert model.input_shape == (None, 5) and len(model.weights) == 2
    with pytest.raises(ValueError, match="cannot be built because it has no layers"):
        tf.keras.Sequential().build((None, 3))


def test_add_and_pop():
    model = tf.keras.Sequential()
    model.add(tf.keras.Input((3,)))
    assert not model.built and model.layers == []
    first = tf.keras.layers.Dense(4)
    model.add(first)
    assert model.built and model.output_shape == (None, 4)
    model.add(tf.keras.layers.Dense(2))
    assert model.output_shape == (None, 2) and len(model.layers) == 2
    popped = model.pop()
    assert popped.name != first.name and model.layers == [first]
    assert model.output_shape == (None, 4)
    assert model(np.ones((1, 3), "float32")).shape == (1, 4)


def test_training_reaches_the_layers():
    model = tf.keras.Sequential([tf.keras.Input((2,)), Scale()])
    data = np.ones((1, 2), "float32")
    np.testing.assert_allclose(model(data).numpy(), [[1.0, 1.0]])
    np.testing.assert_allclose(model(data, training=True).numpy(), [[2.0, 2.0]])
    unbuilt = tf.keras.Sequential([Scale()])
    np.testing.assert_allclose(unbuilt(data, training=True).numpy(), [[2.0, 2.0]])


def test_a_sequential_model_is_a_layer_of_functional_models():
    inner = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    x = tf.keras.Input((3,))
    model = tf.keras.Model(x, inner(x))
    assert inner.built and inner.input_shape == (None, 3)
    set_fixed_weights(model, seed=4)
    data = np.ones((2, 3), "float32")
    np.testing.assert_allclose(model(data).numpy(), by_hand(inner, data), rtol=1e-5)


def test_get_config_uses_keras_3_layout():
    model = tf.keras.Sequential(
        [tf.keras.Input((3,), name="features"), tf.keras.layers.Dense(4, name="hidden")],
        name="stack",
    )
    config = model.get_config()
    # As TensorFlow 2.21's Keras writes it.
    assert config["name"] == "stack" and config["trainable"] is True
    assert config["dtype"] == {
        "module": "keras",
        "class_name": "DTypePolicy",
        "config": {"name": "float32"},
        "registered_name": None,
    }
    assert config["build_input_shape"] == (None, 3)
    assert config["layers"][0] == {
        "module": "keras.layers",
        "class_name": "InputLayer",
        "config": {
            "batch_shape": (None, 3),
            "dtype": "float32",
            "sparse": False,
            "ragged": False,
            "name": "features",
            "optional": False,
        },
        "registered_name": None,
    }
    dense = config["layers"][1]
    assert (dense["module"], dense["class_name"], dense["registered_name"]) == (
        "keras.layers",
        "Dense",
        None,
    )
    assert dense["build_config"] == {"input_shape": (None, 3)}
    assert dense["config"]["name"] == "hidden" and dense["config"]["units"] == 4
    deferred = tf.keras.Sequential([tf.keras.layers.Dense(1)]).get_config()
    assert "build_input_shape" not in deferred and len(deferred["layers"]) == 1


def test_from_config_round_trips_through_json():
    model = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="relu"), Scale(name="x2")],
        name="stack",
    )
    config = json.loads(json.dumps(model.get_config()))
    clone = tf.keras.Sequential.from_config(config, custom_objects={"Scale": Scale})
    assert clone.name == "stack" and clone.built and clone.input_shape == (None, 3)
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    clone.set_weights(model.get_weights())
    data = np.random.default_rng(5).normal(size=(2, 3)).astype("float32")
    np.testing.assert_allclose(clone(data).numpy(), model(data).numpy(), rtol=1e-6)
    deferred = tf.keras.Sequential.from_config(
        tf.keras.Sequential([tf.keras.layers.Dense(1)], name="later").get_config()
    )
    assert not deferred.built and deferred.name == "later"


def test_checkpoints_reach_the_layers_through_the_functional_model(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    names = [name for name, _ in tf.train.list_variables(path)]
    # TensorFlow's Keras files them as model/_functional/_operations/1/...
    assert sum(name.startswith("model/_functional/_operations/1/") for name in names) == 2


def test_errors_match_keras():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="d")])
    # Keras 3 raises ValueError, TF-Keras 2 TypeError: the error is both.
    with pytest.raises(TypeError, match="Only instances of `keras.Layer` can be added"):
        model.add(3)
    with pytest.raises(ValueError, match="Only instances of `keras.Layer` can be added"):
        model.add("dense")
    with pytest.raises(ValueError, match="Name 'd' is already the name of a layer"):
        model.add(tf.keras.layers.Dense(2, name="d"))
    with pytest.raises(ValueError, match=r"already been configured to use input shape \(None, 3\)"):
        model.add(tf.keras.Input((4,)))
    with pytest.raises(AttributeError, match="reserved"):
        model.layers = []
    with pytest.raises(IndexError):
        tf.keras.Sequential().pop()
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        model(np.ones((2, 4), "float32"))
