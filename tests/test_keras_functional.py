"""tf.keras's functional API: `Input` and KerasTensors, layer calls recorded as nodes,
`Model(inputs, outputs)` replaying them, shared layers, several inputs and outputs, operators,
`Lambda`, get_config/from_config in Keras 3's layout, and the errors Keras raises."""

import json

import ferroflow as tf
import numpy as np
import pytest


class Sum(tf.keras.layers.Layer):
    """Adds a list of tensors (defined here so that the tests use only Layer and Dense)."""

    def call(self, inputs):
        return inputs[0] + inputs[1]


class Scale(tf.keras.layers.Layer):
    """Doubles its input when training: shows which `training` value a call received."""

    def call(self, inputs, training=None):
        return inputs * (2.0 if training else 1.0)


def fixed_dense(units, name, inputs, seed):
    """A Dense layer with weights drawn from ``seed`` (built and set before use)."""
    layer = tf.keras.layers.Dense(units, name=name)
    layer.build((None, inputs))
    rng = np.random.default_rng(seed)
    layer.set_weights([rng.normal(size=(inputs, units)), rng.normal(size=(units,))])
    return layer


def affine(x, layer):
    kernel, bias = layer.get_weights()
    return x @ kernel + bias


def siamese():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    shared = fixed_dense(2, "shared", 3, seed=0)
    total = Sum(name="sum")([shared(a), shared(b)])
    head = fixed_dense(1, "head", 2, seed=1)(total)
    return tf.keras.Model([a, b], [head, total], name="siamese"), shared


# --- Input and KerasTensor ------------------------------------------------------------------


def test_input_is_a_symbolic_tensor_with_a_batch_dimension():
    x = tf.keras.Input(shape=(3,), name="features")
    # Keras 3 gives the shape as a tuple and the dtype as its name.
    assert x.shape == (None, 3) and type(x.shape) is tuple
    assert x.dtype == "float32" and x.dtype == tf.float32 and x.name == "features" and x.ndim == 2
    assert repr(x) == (
        "<KerasTensor shape=(None, 3), dtype=float32, sparse=False, ragged=False, name=features>"
    )
    fixed = tf.keras.Input((2, 5), batch_size=8, dtype="int32")
    assert fixed.shape == (8, 2, 5) and fixed.dtype == tf.int32
    assert tf.keras.Input(batch_shape=(4, None)).shape == (4, None)
    layer = fixed._keras_history.operation
    assert isinstance(layer, tf.keras.InputLayer) and layer.batch_shape == (8, 2, 5)


def test_input_rejects_bad_shapes_like_keras():
    with pytest.raises(ValueError, match="Cannot convert '3' to a shape"):
        tf.keras.Input(3)
    with pytest.raises(ValueError, match="both `shape` and `batch_shape`"):
        tf.keras.Input((3,), batch_shape=(None, 3))
    with pytest.raises(ValueError, match="You must pass a `shape` argument"):
        tf.keras.layers.InputLayer()
    with pytest.raises(ValueError, match="Negative dimensions"):
        tf.keras.Input((-1,))


def test_keras_tensors_have_no_values():
    x = tf.keras.Input((3,))
    with pytest.raises(TypeError, match="wrap `tf_fn` in a layer") as info:
        tf.nn.relu(x)
    # Keras raises ValueError: the error is both.
    assert isinstance(info.value, ValueError)
    assert "tf.keras.layers.Lambda(tf_fn)" in str(info.value)
    with pytest.raises(TypeError, match="cannot be used as a boolean"):
        bool(x)
    with pytest.raises(ValueError, match="NumPy array"):
        np.asarray(x)
    with pytest.raises(NotImplementedError, match="Iterating"):
        list(x)


def test_layer_calls_on_keras_tensors_infer_shapes_and_dtypes():
    x = tf.keras.Input((3,))
    y = tf.keras.layers.Dense(5)(x)
    assert isinstance(y, type(x)) and y.shape == (None, 5) and y.dtype == tf.float32
    sequence = tf.keras.layers.Dense(2)(tf.keras.Input((None, 4)))
    assert sequence.shape == (None, None, 2)
    batched = tf.keras.layers.Dense(2)(tf.keras.Input((5,), batch_size=8))
    assert batched.shape == (8, 2)
    # The layer was built from the symbolic shape, unknown batch included.
    layer = y._keras_history.operation
    assert layer.built and [w.shape for w in layer.weights] == [(3, 5), (5,)]


# --- functional models ----------------------------------------------------------------------


def test_model_replays_the_layers_as_composed_by_hand():
    x = tf.keras.Input((3,), name="x")
    hidden = fixed_dense(4, "hidden", 3, seed=2)
    logits = fixed_dense(2, "logits", 4, seed=3)
    model = tf.keras.Model(x, logits(hidden(x)), name="m")
    assert type(model).__name__ == "Functional" and isinstance(model, tf.keras.Model)
    assert [layer.name for layer in model.layers] == ["x", "hidden", "logits"]
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert model.inputs == [x] and model.input is x
    data = np.random.default_rng(4).normal(size=(5, 3)).astype("float32")
    expected = affine(affine(data, hidden), logits)
    np.testing.assert_allclose(model(data).numpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        model(tf.constant(data)).numpy(), logits(hidden(data)).numpy(), rtol=1e-6
    )
    # Weights in Keras's order: layer by layer, as listed.
    assert [v.path for v in model.weights] == [
        "hidden/kernel",
        "hidden/bias",
        "logits/kernel",
        "logits/bias",
    ]
    assert model.trainable_weights == model.weights


def test_shared_layers_and_several_inputs_and_outputs():
    model, shared = siamese()
    assert [layer.name for layer in model.layers] == ["a", "b", "shared", "sum", "head"]
    assert len(model.weights) == 4
    assert model.input_shape == [(None, 3), (None, 3)]
    assert model.output_shape == [(None, 1), (None, 2)]
    assert model.output_names == ["head", "sum"]
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 4, 3)).astype("float32")
    head, total = model([a, b])
    expected_total = affine(a, shared) + affine(b, shared)
    np.testing.assert_allclose(total.numpy(), expected_total, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        head.numpy(), affine(expected_total, model.get_layer("head")), rtol=1e-5, atol=1e-5
    )
    # Inputs by name work too.
    by_name = model({"a": a, "b": b})
    np.testing.assert_allclose(by_name[1].numpy(), total.numpy())


def test_a_layer_applied_twice_in_a_chain():
    layer = fixed_dense(3, "twice", 3, seed=6)
    x = tf.keras.Input((3,))
    model = tf.keras.Model(x, layer(layer(x)))
    assert len(model.weights) == 2
    data = np.eye(3, dtype="float32")
    np.testing.assert_allclose(
        model(data).numpy(), affine(affine(data, layer), layer), rtol=1e-5, atol=1e-5
    )


def test_dict_inputs_and_outputs():
    a = tf.keras.Input((2,), name="left")
    b = tf.keras.Input((2,), name="right")
    s = fixed_dense(1, "s", 2, seed=7)
    t = fixed_dense(1, "t", 2, seed=8)
    model = tf.keras.Model({"left": a, "right": b}, {"s": s(a), "t": t(b)})
    assert model.input_shape == [(None, 2), (None, 2)]
    data = {"left": np.ones((1, 2), "float32"), "right": np.full((1, 2), 2.0, "float32")}
    out = model(data)
    assert sorted(out) == ["s", "t"]
    np.testing.assert_allclose(out["t"].numpy(), affine(data["right"], t), rtol=1e-5)
    config = model.get_config()
    assert config["input_layers"] == {"left": ["left", 0, 0], "right": ["right", 0, 0]}
    assert config["output_layers"] == {"s": ["s", 0, 0], "t": ["t", 0, 0]}


def test_training_is_passed_to_the_layers_that_take_it():
    x = tf.keras.Input((2,))
    model = tf.keras.Model(x, Scale()(tf.keras.layers.Dense(2, kernel_initializer="ones")(x)))
    data = np.ones((1, 2), "float32")
    np.testing.assert_allclose(model(data).numpy(), [[2.0, 2.0]])
    np.testing.assert_allclose(model(data, training=True).numpy(), [[4.0, 4.0]])
    np.testing.assert_allclose(model(data, training=False).numpy(), [[2.0, 2.0]])


def test_python_operators_record_operations():
    x = tf.keras.Input((3,), name="x")
    dense = fixed_dense(3, "d", 3, seed=9)
    y = dense(x)
    z = y * 2.0 + x
    outputs = [1.0 - (-z)[:, 1:], abs(z), z**2 / 4.0]
    assert [o.shape for o in outputs] == [(None, 2), (None, 3), (None, 3)]
    model = tf.keras.Model(x, outputs)
    assert [layer.name for layer in model.layers] == ["x", "d"]  # operations are not layers
    data = np.random.default_rng(10).normal(size=(2, 3)).astype("float32")
    zz = affine(data, dense) * 2.0 + data
    for got, want in zip(model(data), [1.0 + zz[:, 1:], np.abs(zz), zz**2 / 4.0]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_lambda_layers_wrap_tensorflow_functions():
    x = tf.keras.Input((3,))
    y = tf.keras.layers.Lambda(lambda t: tf.nn.relu(t) * 2.0)(x)
    assert y.shape == (None, 3)
    model = tf.keras.Model(x, y)
    np.testing.assert_allclose(model(np.array([[-1.0, 0.5, 2.0]], "float32")).numpy(), [[0, 1, 4]])
    config = model.get_config()
    with pytest.raises(ValueError, match="safe_mode=False"):
        tf.keras.Model.from_config(config)


def test_lambda_configs_name_functions_and_dump_lambdas():
    x = tf.keras.Input((2,))
    offset = 3.0
    shifted = tf.keras.layers.Lambda(lambda t, k=2.0: t * k + offset, name="shift")(x)
    model = tf.keras.Model(x, tf.keras.layers.Lambda(tf.nn.relu, name="named")(shifted))
    config = json.loads(json.dumps(model.get_config()))
    named = config["layers"][2]["config"]["function"]
    assert named["class_name"] == "function" and named["config"] == "relu"
    dumped = config["layers"][1]["config"]
    assert dumped["function"]["class_name"] == "__lambda__"
    layer = tf.keras.layers.Lambda.from_config(dumped, safe_mode=False)
    np.testing.assert_allclose(layer(tf.constant([[1.0, -4.0]])).numpy(), [[5.0, -5.0]])
    relu = tf.keras.layers.Lambda.from_config(config["layers"][2]["config"])
    np.testing.assert_allclose(relu(tf.constant([[-1.0, 2.0]])).numpy(), [[0.0, 2.0]])


def test_submodel_from_intermediate_tensors_shares_layers():
    x = tf.keras.Input((3,))
    hidden = fixed_dense(4, "h", 3, seed=11)
    head = fixed_dense(2, "o", 4, seed=12)
    h = hidden(x)
    full = tf.keras.Model(x, head(h))
    top = tf.keras.Model(h, full.outputs[0])
    assert top.input_shape == (None, 4) and top.layers[1] is head
    data = np.ones((2, 4), "float32")
    np.testing.assert_allclose(top(data).numpy(), affine(data, head), rtol=1e-5)
    # The full model still works on its own inputs.
    assert full(np.ones((1, 3), "float32")).shape == (1, 2)


def test_functional_models_nest_as_layers():
    a = tf.keras.Input((3,))
    inner = tf.keras.Model(a, fixed_dense(2, "inner_dense", 3, seed=13)(a), name="inner")
    x = tf.keras.Input((3,))
    outer = tf.keras.Model(x, fixed_dense(1, "outer_dense", 2, seed=14)(inner(x)))
    assert [layer.name for layer in outer.layers][1:] == ["inner", "outer_dense"]
    assert len(outer.weights) == 4
    data = np.ones((2, 3), "float32")
    expected = affine(affine(data, inner.layers[1]), outer.layers[2])
    np.testing.assert_allclose(outer(data).numpy(), expected, rtol=1e-5)


def test_subclass_with_a_functional_constructor():
    class TwoLayers(tf.keras.Model):
        def __init__(self, units, **kwargs):
            inputs = tf.keras.Input((3,))
            outputs = tf.keras.layers.Dense(units)(inputs)
            super().__init__(inputs, outputs, **kwargs)

    model = TwoLayers(5, name="two")
    assert model.name == "two" and model.output_shape == (None, 5)
    assert model(np.ones((2, 3), "float32")).shape == (2, 5)
    # Its config holds its own constructor's arguments, as in Keras.
    config = model.get_config()
    assert config["units"] == 5 and config["name"] == "two" and "layers" not in config
    assert TwoLayers.from_config(config).output_shape == (None, 5)


def test_subclassed_models_stay_subclassed():
    class Plain(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, inputs):
            return self.dense(inputs)

    model = Plain()
    assert type(model) is Plain and not model.built
    assert model(np.ones((1, 3), "float32")).shape == (1, 2)
    assert type(tf.keras.Model()).__name__ == "Model"


def test_get_layer_by_name_or_index():
    model, shared = siamese()
    assert model.get_layer("shared") is shared and model.get_layer(index=2) is shared
    with pytest.raises(ValueError, match=r"No such layer: nope. Existing layers are: \['a', 'b'"):
        model.get_layer("nope")
    with pytest.raises(ValueError, match="only has 5 layers"):
        model.get_layer(index=9)
    with pytest.raises(ValueError, match="Provide either a layer name or layer index"):
        model.get_layer()
    with pytest.raises(ValueError, match="Provide only a layer name or a layer index"):
        model.get_layer("a", 0)


# --- configs --------------------------------------------------------------------------------


def test_get_config_uses_keras_3_functional_layout():
    model, _ = siamese()
    config = model.get_config()
    # Expected values from TensorFlow 2.21's Keras for the same model.
    assert config["name"] == "siamese" and config["trainable"] is True
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    assert config["output_layers"] == [["head", 0, 0], ["sum", 0, 0]]
    layers = config["layers"]
    assert [layer["name"] for layer in layers] == ["a", "b", "shared", "sum", "head"]
    assert layers[0] == {
        "module": "keras.layers",
        "class_name": "InputLayer",
        "config": {
            "batch_shape": (None, 3),
            "dtype": "float32",
            "sparse": False,
            "ragged": False,
            "name": "a",
            "optional": False,
        },
        "registered_name": None,
        "name": "a",
        "inbound_nodes": [],
    }

    def keras_tensor(shape, history):
        return {
            "class_name": "__keras_tensor__",
            "config": {"shape": shape, "dtype": "float32", "keras_history": history},
        }

    shared = layers[2]
    assert (shared["module"], shared["class_name"], shared["registered_name"]) == (
        "keras.layers",
        "Dense",
        None,
    )
    assert shared["build_config"] == {"input_shape": (None, 3)}
    assert shared["inbound_nodes"] == [
        {"args": (keras_tensor((None, 3), ["a", 0, 0]),), "kwargs": {}},
        {"args": (keras_tensor((None, 3), ["b", 0, 0]),), "kwargs": {}},
    ]
    summed = layers[3]
    assert summed["class_name"] == "Sum" and summed["registered_name"] == "Sum"
    assert summed["build_config"] == {"input_shape": [(None, 2), (None, 2)]}
    assert summed["inbound_nodes"] == [
        {
            "args": (
                [
                    keras_tensor((None, 2), ["shared", 0, 0]),
                    keras_tensor((None, 2), ["shared", 1, 0]),
                ],
            ),
            "kwargs": {},
        }
    ]


def test_from_config_round_trips_through_json():
    model, _ = siamese()
    config = json.loads(json.dumps(model.get_config()))
    with pytest.raises(TypeError, match="Could not locate class 'Sum'"):
        tf.keras.Model.from_config(config)
    clone = tf.keras.Model.from_config(config, custom_objects={"Sum": Sum})
    assert type(clone).__name__ == "Functional" and clone.name == "siamese"
    assert [layer.name for layer in clone.layers] == ["a", "b", "shared", "sum", "head"]
    assert clone.get_layer("shared") is not model.get_layer("shared")
    clone.set_weights(model.get_weights())
    data = [np.ones((2, 3), "float32"), np.arange(6, dtype="float32").reshape(2, 3)]
    for got, want in zip(clone(data), model(data)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    again = clone.get_config()
    assert json.loads(json.dumps(again)) == config


def test_operations_serialize_as_keras_ops():
    x = tf.keras.Input((3,), name="x")
    z = (tf.keras.layers.Dense(2, name="d")(x) * 2.0)[:, 1:]
    model = tf.keras.Model(x, z)
    multiply, get_item = model.get_config()["layers"][2:]
    # Keras 3 records the same operations in these forms.
    assert multiply["module"] == "keras.src.ops.numpy" and multiply["class_name"] == "Multiply"
    assert multiply["registered_name"] == "Multiply"
    assert multiply["inbound_nodes"][0]["args"][1] == 2.0
    assert get_item["class_name"] == "GetItem"
    assert get_item["inbound_nodes"][0]["args"][1] == (
        {"class_name": "__slice__", "config": {"start": None, "stop": None, "step": None}},
        {"class_name": "__slice__", "config": {"start": 1, "stop": None, "step": None}},
    )
    clone = tf.keras.Model.from_config(json.loads(json.dumps(model.get_config())))
    clone.set_weights(model.get_weights())
    data = np.ones((2, 3), "float32")
    np.testing.assert_allclose(clone(data).numpy(), model(data).numpy())


def test_nested_models_round_trip():
    a = tf.keras.Input((3,))
    inner = tf.keras.Model(a, tf.keras.layers.Dense(2)(a), name="inner_model")
    stack = tf.keras.Sequential([tf.keras.layers.Dense(2)], name="stack")
    x = tf.keras.Input((3,))
    model = tf.keras.Model(x, [stack(inner(x)), inner(x)])
    config = model.get_config()
    modules = {layer["name"]: layer["module"] for layer in config["layers"]}
    assert modules["inner_model"] == "keras.src.models.functional" and modules["stack"] == "keras"
    # A nested functional model's node 0 is its own graph, as in Keras.
    assert config["output_layers"][1] == ["inner_model", 2, 0]
    clone = tf.keras.Model.from_config(json.loads(json.dumps(config)))
    clone.set_weights(model.get_weights())
    data = np.ones((1, 3), "float32")
    for got, want in zip(clone(data), model(data)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_checkpoints_reach_the_layers_through_operations(tmp_path):
    model, _ = siamese()
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    names = [name for name, _ in tf.train.list_variables(path)]
    # TensorFlow's Keras files them under the model's `_operations` list too.
    assert any(name.startswith("model/_operations/2/") for name in names)
    clone, _ = siamese()
    for v in clone.weights:
        v.assign(tf.zeros_like(v))
    tf.train.Checkpoint(model=clone).restore(path)
    for got, want in zip(clone.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)


# --- errors ---------------------------------------------------------------------------------


def test_construction_errors_match_keras():
    x = tf.keras.Input((3,), name="x")
    with pytest.raises(ValueError, match="All `outputs` values must be KerasTensors"):
        tf.keras.Model(x, 3)
    with pytest.raises(ValueError, match="All `inputs` values must be KerasTensors"):
        tf.keras.Model(np.ones((1, 3)), tf.keras.layers.Dense(1)(x))
    other = tf.keras.Input((4,))
    with pytest.raises(ValueError, match="Output with path `` is not connected to `inputs`"):
        tf.keras.Model(x, tf.keras.layers.Dense(1)(other))
    with pytest.raises(ValueError, match='The name "dup" is used 2 times in the model'):
        tf.keras.Model(
            x, [tf.keras.layers.Dense(1, name="dup")(x), tf.keras.layers.Dense(1, name="dup")(x)]
        )
    layer = tf.keras.layers.Dense(1)
    layer(x)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(other)


def test_call_errors_match_keras():
    x = tf.keras.Input((3,), name="x")
    model = tf.keras.Model(x, tf.keras.layers.Dense(1)(x), name="single")
    with pytest.raises(ValueError, match="expected shape=\\(None, 3\\), found shape=\\(2, 4\\)"):
        model(np.ones((2, 4), "float32"))
    with pytest.raises(ValueError, match="expects 1 input"):
        model([np.ones((2, 3), "float32"), np.ones((2, 3), "float32")])
    # A trailing axis of 1 is squeezed, as in Keras.
    assert model(np.ones((2, 3, 1), "float32")).shape == (2, 1)
