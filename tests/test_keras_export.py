"""`Model.export` and `tf.keras.export.ExportArchive`: exported models reload with
`tf.saved_model.load` and serve any batch size through ``serve`` and the ``serving_default``
signature with the model's own results; the reloaded object carries Keras's attributes;
formats ferroflow cannot write say so. (tests/parity/test_keras_export.py compares the same
against TensorFlow.)"""

import ferroflow as tf
import numpy as np
import pytest

k = tf.keras


def _mlp():
    return k.Sequential(
        [
            k.Input((4,), name="features"),
            k.layers.Dense(8, activation="relu"),
            k.layers.BatchNormalization(),
            k.layers.Dense(3),
        ]
    )


def _cnn():
    image = k.Input((10, 10, 1), name="image")
    h = k.layers.Conv2D(4, 3, activation="relu")(image)
    h = k.layers.MaxPooling2D()(h)
    h = k.layers.Flatten()(h)
    return k.Model(image, k.layers.Dense(5)(h))


def _lstm():
    return k.Sequential([k.Input((6, 3), name="series"), k.layers.LSTM(5), k.layers.Dense(2)])


def _embedding():
    tokens = k.Input((7,), dtype="int32", name="tokens")
    h = k.layers.Embedding(20, 4)(tokens)
    h = k.layers.GlobalAveragePooling1D()(h)
    return k.Model(tokens, k.layers.Dense(3)(h))


def _batch(name, size, rng):
    shapes = {"features": (4,), "image": (10, 10, 1), "series": (6, 3)}
    if name == "tokens":
        return rng.integers(0, 20, (size, 7)).astype(np.int32)
    return rng.standard_normal((size, *shapes[name])).astype(np.float32)


# (model, its input's name, TensorFlow's counts: variables, trainable, non-trainable, and the
# variables the serving function reads).
MODELS = {
    "mlp": (_mlp, "features", (8, 6, 2, 8)),
    "cnn": (_cnn, "image", (4, 4, 0, 4)),
    "lstm": (_lstm, "series", (6, 5, 1, 5)),
    "embedding": (_embedding, "tokens", (3, 3, 0, 3)),
}


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_an_exported_model_serves_any_batch_size(kind, tmp_path):
    make, input_name, counts = MODELS[kind]
    rng = np.random.default_rng(0)
    model = make()
    model(_batch(input_name, 2, rng))
    model.export(tmp_path / kind, verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / kind))
    for size in (1, 11):
        x = _batch(input_name, size, rng)
        expected = np.asarray(model(x))
        np.testing.assert_allclose(np.asarray(loaded.serve(x)), expected, rtol=1e-5, atol=1e-6)
        by_signature = loaded.signatures["serving_default"](**{input_name: x})
        assert list(by_signature) == ["output_0"]
        np.testing.assert_allclose(
            np.asarray(by_signature["output_0"]), expected, rtol=1e-5, atol=1e-6
        )
    assert sorted(loaded.signatures) == ["serve", "serving_default"]
    found = (
        len(loaded.variables),
        len(loaded.trainable_variables),
        len(loaded.non_trainable_variables),
        len(loaded._all_variables),
    )
    assert found == counts
    _, specs = loaded.signatures["serving_default"].structured_input_signature
    assert list(specs) == [input_name]
    assert specs[input_name].shape.as_list()[0] is None


def test_the_export_namespace_is_tf_keras_export():
    import ferroflow.keras.export as export

    assert tf.keras.export.ExportArchive is export.ExportArchive
    assert callable(export.export_saved_model)


def test_export_prints_the_endpoints_by_default(tmp_path, capsys):
    inputs = k.Input((3,), name="features")
    model = k.Model(inputs, k.layers.Dense(2)(inputs))
    model.export(str(tmp_path / "model"))
    printed = capsys.readouterr().out
    assert f"Saved artifact at '{tmp_path / 'model'}'." in printed
    assert "* Endpoint 'serve'" in printed
    assert (
        "args_0 (POSITIONAL_ONLY): TensorSpec(shape=(None, 3), dtype=tf.float32, "
        "name='features')" in printed
    )
    assert "Output Type:\n  TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)" in printed
    assert printed.count("TensorSpec(shape=(), dtype=tf.resource, name=None)") == 2


@pytest.mark.parametrize("format", ["onnx", "openvino", "litert"])
def test_formats_ferroflow_cannot_write_name_themselves(format, tmp_path):
    model = _mlp()
    suffix = {"onnx": ".onnx", "openvino": ".xml", "litert": ".tflite"}[format]
    with pytest.raises(NotImplementedError, match=f"format='{format}'"):
        model.export(str(tmp_path / f"model{suffix}"), format=format)
    assert not list(tmp_path.iterdir())


def test_unknown_formats_and_unbuilt_models_raise_kerass_errors(tmp_path):
    with pytest.raises(ValueError, match="Unrecognized format=bogus"):
        _mlp().export(str(tmp_path / "m"), format="bogus")
    with pytest.raises(ValueError, match="has not yet been built"):
        k.Sequential([k.layers.Dense(2)]).export(str(tmp_path / "m"))


def test_a_subclassed_model_exports_the_shapes_of_its_first_call(tmp_path):
    class Scaled(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(2)

        def call(self, x):
            return self.dense(x) * 3.0

    model = Scaled()
    model.build((None, 3))
    with pytest.raises(ValueError, match="never called"):
        model.export(str(tmp_path / "m"))
    model(np.ones((4, 3), np.float32))
    model.export(str(tmp_path / "m"), verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_allclose(np.asarray(loaded.serve(x)), np.asarray(model(x)), rtol=1e-6)
    result = loaded.signatures["serving_default"](args_0=x)
    np.testing.assert_allclose(np.asarray(result["output_0"]), np.asarray(model(x)), rtol=1e-6)


def test_an_archive_serves_a_called_tf_function_and_variable_collections(tmp_path):
    model = _mlp()
    model(np.ones((2, 4), np.float32))

    @tf.function
    def halved(x):
        return model(x) / 2.0

    archive = k.export.ExportArchive()
    archive.track(model)
    with pytest.raises(ValueError, match="has never been called"):
        archive.add_endpoint("halved", halved)
    halved(np.ones((3, 4), np.float32))
    archive.add_endpoint("halved", halved)
    archive.add_variable_collection("kernels", [model.layers[0].kernel])
    assert len(archive.variables) == 8 and len(archive.non_trainable_variables) == 2
    archive.write_out(str(tmp_path / "archive"), verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "archive"))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(loaded.halved(x)), np.asarray(model(x)) / 2, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(loaded.kernels[0]), np.asarray(model.layers[0].kernel))
    assert sorted(loaded.signatures) == ["halved", "serving_default"]


def test_an_endpoint_named_serving_default_is_not_aliased(tmp_path):
    inputs = k.Input((3,), name="features")
    model = k.Model(inputs, k.layers.Dense(2)(inputs))
    archive = k.export.ExportArchive()
    archive.track(model)
    spec = [tf.TensorSpec((None, 3), tf.float32)]
    archive.add_endpoint("first", model.call, input_signature=spec)
    archive.add_endpoint("serving_default", lambda x: model(x) + 1.0, input_signature=spec)
    archive.write_out(str(tmp_path / "archive"), verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "archive"))
    x = np.ones((2, 3), np.float32)
    result = loaded.signatures["serving_default"](x=x)["output_0"]
    np.testing.assert_allclose(np.asarray(result), np.asarray(model(x)) + 1.0, rtol=1e-6)
    assert sorted(loaded.signatures) == ["first", "serving_default"]
