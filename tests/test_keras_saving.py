"""`model.save` / `tf.keras.models.load_model` (SavedModel directories and `.keras` archives),
`save_weights` / `load_weights` (TensorFlow checkpoints, `.weights.h5`) and Keras's object
serialization. Weight paths inside files are those Keras 3.15 writes for the same models."""

import io
import json
import logging
import os
import zipfile

import ferroflow as tf
import h5py
import numpy as np
import pytest
from ferroflow.errors import NotFoundError
from ferroflow.keras import saving
from ferroflow.keras.saving.revived_model import RevivedModel

X = np.linspace(-1.0, 1.0, 15, dtype=np.float32).reshape(3, 5)


class TwoDense(tf.keras.Model):
    """Not registered: only `custom_objects` (or a revived model) can load it."""

    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense1 = tf.keras.layers.Dense(4, activation="relu")
        self.out = tf.keras.layers.Dense(units)

    def call(self, x):
        return self.out(self.dense1(x))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@saving.register_keras_serializable(package="tests")
class Blocks(tf.keras.Model):
    """Sublayers in an attribute and in nested lists."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d = tf.keras.layers.Dense(2)
        self.blocks = [tf.keras.layers.Dense(2), [tf.keras.layers.Dense(3)]]

    def call(self, x):
        return self.blocks[1][0](self.blocks[0](self.d(x)))


def called(model):
    model(X)
    return model


def outputs(model, x=X):
    return model(x).numpy()


def weights_of(model):
    return [w.numpy() for w in model.weights]


def assert_same_weights(a, b):
    wa, wb = weights_of(a), weights_of(b)
    assert len(wa) == len(wb)
    for x, y in zip(wa, wb):
        np.testing.assert_array_equal(x, y)


def answer_prompt(monkeypatch, answer):
    prompts = []

    def fake_input(prompt):
        prompts.append(prompt)
        return answer

    monkeypatch.setattr("builtins.input", fake_input)
    return prompts


# --- SavedModel directories ------------------------------------------------------------------


def test_save_without_suffix_writes_a_saved_model(tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    model = called(TwoDense())
    with caplog.at_level(logging.INFO, logger="ferroflow"):
        model.save("./my_model")
    assert "Assets written to: ./my_model/assets" in caplog.messages
    names = set(os.listdir("my_model"))
    assert {"saved_model.json", "assets", "variables", "keras_metadata.json"} <= names
    assert os.path.isfile("my_model/variables/variables.index")
    assert not [n for n in os.listdir(".") if n.startswith(".my_model")]  # no staging leftovers


def test_tf_saved_model_load_calls_the_model_and_exposes_its_variables(tmp_path):
    model = called(TwoDense())
    model.save(str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(loaded(X).numpy(), outputs(model))
    assert len(loaded.variables) == 4
    assert len(loaded.trainable_variables) == 4
    for saved, original in zip(loaded.variables, model.weights):
        np.testing.assert_array_equal(saved.numpy(), original.numpy())
    assert list(loaded.signatures) == ["serving_default"]


def test_load_model_revives_a_subclassed_model_it_cannot_rebuild(tmp_path):
    model = called(TwoDense())
    model.save(str(tmp_path / "m"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m"))
    assert isinstance(loaded, RevivedModel)
    assert isinstance(loaded, tf.keras.Model)
    np.testing.assert_array_equal(outputs(loaded), outputs(model))
    assert_same_weights(loaded, model)
    assert len(loaded.trainable_variables) == 4
    # Its attributes are the saved objects, so its checkpoints have the original keys.
    loaded.save_weights(str(tmp_path / "ckpt" / "w"))
    fresh = TwoDense()
    fresh.load_weights(str(tmp_path / "ckpt" / "w"))
    np.testing.assert_array_equal(outputs(fresh), outputs(model))


def test_a_revived_model_saves_again_but_only_takes_its_saved_input_shape(tmp_path):
    model = called(TwoDense())
    model.save(str(tmp_path / "a"))
    revived = tf.keras.models.load_model(str(tmp_path / "a"))
    revived.save(str(tmp_path / "b"))
    again = tf.keras.models.load_model(str(tmp_path / "b"))
    assert isinstance(again, RevivedModel)
    np.testing.assert_array_equal(outputs(again), outputs(model))
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        again(np.ones((7, 5), np.float32))
    with pytest.raises(NotImplementedError, match="revived from a SavedModel"):
        revived.save(str(tmp_path / "c.keras"))


def test_load_model_refuses_saved_models_that_are_not_keras_models(tmp_path):
    module = tf.Module()
    module.v = tf.Variable(1.0)
    tf.saved_model.save(module, str(tmp_path / "module"))
    with pytest.raises(ValueError, match="has no `__call__` function"):
        tf.keras.models.load_model(str(tmp_path / "module"))
    called(TwoDense()).save(str(tmp_path / "m"))
    (tmp_path / "m" / "keras_metadata.json").write_text("{not json")
    with pytest.raises(ValueError, match="corrupt keras_metadata.json"):
        tf.keras.models.load_model(str(tmp_path / "m"))


def test_load_model_rebuilds_the_class_from_custom_objects(tmp_path):
    model = called(TwoDense(units=3))
    model.save(str(tmp_path / "m"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m"), custom_objects={"TwoDense": TwoDense})
    assert type(loaded) is TwoDense
    assert loaded.units == 3
    assert_same_weights(loaded, model)
    other = np.ones((7, 5), np.float32)  # a real model: any batch size
    np.testing.assert_array_equal(outputs(loaded, other), outputs(model, other))


def test_saving_a_model_never_called_is_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot be saved either because the input shape"):
        TwoDense().save(str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")


def test_load_weights_reads_a_saved_model_directory(tmp_path):
    model = called(TwoDense())
    model.save(str(tmp_path / "m"))
    fresh = called(TwoDense())
    fresh.load_weights(str(tmp_path / "m"))
    assert_same_weights(fresh, model)


def test_saving_again_replaces_the_whole_directory(tmp_path):
    path = str(tmp_path / "m")
    called(TwoDense()).save(path)
    (tmp_path / "m" / "stray.txt").write_text("from before")
    second = called(TwoDense())
    second.save(path)
    assert not (tmp_path / "m" / "stray.txt").exists()
    np.testing.assert_array_equal(tf.saved_model.load(path)(X).numpy(), outputs(second))


def test_overwrite_false_asks_before_replacing_a_saved_model(tmp_path, monkeypatch):
    path = str(tmp_path / "m")
    first = called(TwoDense())
    first.save(path)
    prompts = answer_prompt(monkeypatch, "n")
    called(TwoDense()).save(path, overwrite=False)
    assert prompts == [f"[WARNING] {path} already exists - overwrite? [y/n]"]
    np.testing.assert_array_equal(tf.saved_model.load(path)(X).numpy(), outputs(first))
    answer_prompt(monkeypatch, "y")
    second = called(TwoDense())
    second.save(path, overwrite=False)
    np.testing.assert_array_equal(tf.saved_model.load(path)(X).numpy(), outputs(second))


def test_save_model_rejects_unknown_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"not supported: \['bogus'\]"):
        called(TwoDense()).save(str(tmp_path / "m.keras"), bogus=1)


# --- .keras archives -------------------------------------------------------------------------


def archive_members(path):
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
        metadata = json.loads(archive.read("metadata.json"))
        with h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as weights:
            keys = []
            weights.visititems(
                lambda name, item: keys.append(name) if isinstance(item, h5py.Dataset) else None
            )
        return archive.namelist(), config, metadata, sorted(keys)


def test_keras_archive_layout(tmp_path):
    path = str(tmp_path / "b.keras")
    called(Blocks()).save(path)
    names, config, metadata, keys = archive_members(path)
    assert names == ["metadata.json", "config.json", "model.weights.h5"]
    assert metadata["keras_version"] == "3.15.1"
    assert config["class_name"] == "Blocks"
    assert config["registered_name"] == "tests>Blocks"
    assert config["build_config"] == {"input_shape": [3, 5], "input_dtype": "float32"}
    # The HDF5 dataset paths Keras 3.15 writes for this model.
    assert keys == [
        "blocks/container/dense/vars/0",
        "blocks/container/dense/vars/1",
        "blocks/dense/vars/0",
        "blocks/dense/vars/1",
        "d/vars/0",
        "d/vars/1",
    ]


def test_keras_archive_paths_of_layers_reached_through_model_layers(tmp_path):
    # Keras visits `dense1`, then `layers` ([dense1, out]: out becomes "dense_1"), then `out`.
    path = str(tmp_path / "t.keras")
    called(TwoDense()).save(path)
    keys = archive_members(path)[3]
    assert keys == [
        "dense1/vars/0",
        "dense1/vars/1",
        "layers/dense_1/vars/0",
        "layers/dense_1/vars/1",
    ]


def test_keras_archive_round_trip_of_a_registered_class(tmp_path):
    model = called(Blocks())
    model.save(tmp_path / "b.keras")  # a pathlib.Path works as well as a str
    loaded = tf.keras.models.load_model(tmp_path / "b.keras")
    assert type(loaded) is Blocks
    assert_same_weights(loaded, model)
    np.testing.assert_array_equal(outputs(loaded), outputs(model))


def test_keras_archive_needs_custom_objects_for_an_unregistered_class(tmp_path):
    model = called(TwoDense(units=3))
    path = str(tmp_path / "t.keras")
    model.save(path)
    with pytest.raises(TypeError, match="Could not locate class 'TwoDense'"):
        tf.keras.models.load_model(path)
    loaded = tf.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    assert loaded.units == 3
    assert_same_weights(loaded, model)
    with saving.custom_object_scope({"TwoDense": TwoDense}):
        assert type(tf.keras.models.load_model(path)) is TwoDense


def test_keras_archive_round_trip_of_a_functional_model(tmp_path):
    from ferroflow.keras.layers.input_layer import Input

    inputs = Input((5,))
    hidden = tf.keras.layers.Dense(4, activation="relu")(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(hidden))
    path = str(tmp_path / "f.keras")
    model.save(path)
    _, config, _, keys = archive_members(path)
    assert (config["module"], config["class_name"]) == ("keras.src.models.functional", "Functional")
    assert keys == [
        "layers/dense/vars/0",
        "layers/dense/vars/1",
        "layers/dense_1/vars/0",
        "layers/dense_1/vars/1",
    ]
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(outputs(loaded), outputs(model))


def test_keras_archive_of_a_compiled_sequential_model(tmp_path):
    model = tf.keras.Sequential(
        [tf.keras.Input((5,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    path = str(tmp_path / "s.keras")
    model.save(path)
    _, config, _, keys = archive_members(path)
    assert (config["module"], config["class_name"]) == ("keras", "Sequential")
    assert config["compile_config"]["loss"] == "mse"
    # What Keras 3.15 writes for this model (SGD without momentum: iterations, learning rate).
    assert keys == [
        "layers/dense/vars/0",
        "layers/dense/vars/1",
        "layers/dense_1/vars/0",
        "layers/dense_1/vars/1",
        "optimizer/vars/0",
        "optimizer/vars/1",
    ]
    loaded = tf.keras.models.load_model(path)
    assert type(loaded) is tf.keras.Sequential
    assert type(loaded.optimizer) is tf.keras.optimizers.SGD
    np.testing.assert_array_equal(outputs(loaded), outputs(model))


def fitted_model():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 5)).astype(np.float32)
    y = rng.normal(size=(16, 3)).astype(np.float32)
    model = Blocks()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    return model, x, y


@pytest.mark.parametrize("name", ["m.keras", "saved_model"])
def test_compiled_model_reloads_compiled_with_its_optimizer_state(tmp_path, name):
    model, x, y = fitted_model()
    path = str(tmp_path / name)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert type(loaded) is Blocks
    assert loaded.compiled
    assert type(loaded.optimizer) is tf.keras.optimizers.Adam
    assert int(loaded.optimizer.iterations.numpy()) == 4
    assert len(loaded.optimizer.variables) == len(model.optimizer.variables) == 14
    for a, b in zip(loaded.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # Training goes on exactly as it would have.
    expected = model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False).history
    resumed = loaded.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False).history
    assert resumed == expected
    assert_same_weights(loaded, model)


def test_keras_archive_without_optimizer_or_compile(tmp_path):
    model, _, _ = fitted_model()
    path = str(tmp_path / "m.keras")
    model.save(path, include_optimizer=False)
    _, config, _, keys = archive_members(path)
    assert config["compile_config"] is None
    assert not [k for k in keys if k.startswith("optimizer/")]
    assert not tf.keras.models.load_model(path).compiled
    model.save(path)
    loaded = tf.keras.models.load_model(path, compile=False)
    assert not loaded.compiled
    assert_same_weights(loaded, model)


def test_load_weights_from_a_keras_archive(tmp_path):
    model = called(Blocks())
    model.save(str(tmp_path / "b.keras"))
    other = called(Blocks())
    assert other.load_weights(str(tmp_path / "b.keras")) is None
    assert_same_weights(other, model)


def test_load_into_another_architecture_raises_value_error(tmp_path):
    path = str(tmp_path / "t.keras")
    called(TwoDense(units=2)).save(path)
    wider = called(TwoDense(units=3))
    before = weights_of(wider)
    with pytest.raises(ValueError, match=r"A total of 1 objects could not be loaded"):
        wider.load_weights(path)
    with pytest.warns(UserWarning, match="could not be loaded"):
        wider.load_weights(path, skip_mismatch=True)
    np.testing.assert_array_equal(weights_of(wider)[2], before[2])  # the unfitting layer kept


def test_load_weights_with_fewer_variables_names_the_layer(tmp_path):
    path = str(tmp_path / "t.keras")
    called(TwoDense()).save(path)

    class NoBias(TwoDense):
        def __init__(self):
            super().__init__()
            self.dense1 = tf.keras.layers.Dense(4, use_bias=False)

    with pytest.raises(ValueError, match="expected 1 variables, but received 2 variables"):
        called(NoBias()).load_weights(path)


def test_keras_archive_errors(tmp_path):
    with pytest.raises(ValueError, match="File not found: filepath="):
        tf.keras.models.load_model(str(tmp_path / "missing.keras"))
    (tmp_path / "junk.keras").write_bytes(b"not a zip archive at all")
    with pytest.raises(ValueError, match="is not a `.keras` zip archive"):
        tf.keras.models.load_model(str(tmp_path / "junk.keras"))
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as archive:
        archive.writestr("metadata.json", "{}")
    with pytest.raises(ValueError, match="has no config.json"):
        tf.keras.models.load_model(str(tmp_path / "empty.keras"))

    good = str(tmp_path / "b.keras")
    called(Blocks()).save(good)
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(tmp_path / "bad.keras", "w") as bad:
        bad.writestr("config.json", source.read("config.json"))
        bad.writestr("model.weights.h5", source.read("model.weights.h5")[:40])
    with pytest.raises(ValueError, match="not a readable HDF5 file"):
        tf.keras.models.load_model(str(tmp_path / "bad.keras"))
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(tmp_path / "old.keras", "w") as bad:
        bad.writestr("config.json", source.read("config.json"))
        bad.writestr("model.weights.npz", b"PK\x03\x04 truncated")
    with pytest.raises(ValueError, match="the .npz data is corrupt"):
        tf.keras.models.load_model(str(tmp_path / "old.keras"))
    with zipfile.ZipFile(tmp_path / "noweights.keras", "w") as bad:
        bad.writestr("config.json", json.dumps(saving.serialize_keras_object(Blocks())))
    with pytest.raises(ValueError, match="Expected a model.weights.h5 or model.weights.npz"):
        tf.keras.models.load_model(str(tmp_path / "noweights.keras"))


def test_load_model_errors_for_other_paths(tmp_path):
    with pytest.raises(FileNotFoundError, match="No file or directory found at"):
        tf.keras.models.load_model(str(tmp_path / "nothing"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(ValueError, match="File format not supported"):
        tf.keras.models.load_model(str(tmp_path / "plain"))


def test_overwrite_false_asks_before_replacing_a_keras_file(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "t.keras")
    first = called(TwoDense())
    first.save(path)
    answer_prompt(monkeypatch, "n")
    called(TwoDense()).save(path, overwrite=False)
    kept = tf.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    assert_same_weights(kept, first)
    answer_prompt(monkeypatch, "y")
    second = called(TwoDense())
    second.save(path, overwrite=False)
    assert "[TIP] Next time specify overwrite=True!" in capsys.readouterr().out
    replaced = tf.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    assert_same_weights(replaced, second)


def test_a_failed_save_keeps_the_earlier_file(tmp_path):
    path = str(tmp_path / "t.keras")
    first = called(TwoDense())
    first.save(path)

    class Unserializable(TwoDense):
        def get_config(self):
            raise RuntimeError("no config today")

    with pytest.raises(RuntimeError, match="no config today"):
        called(Unserializable()).save(path)
    kept = tf.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    assert_same_weights(kept, first)
    assert os.listdir(tmp_path) == ["t.keras"]


def test_keras_archives_of_older_ferroflow_releases_load(tmp_path):
    # Before h5py was a dependency, ferroflow stored the weights as `model.weights.npz`, keyed
    # by the HDF5 dataset paths.
    model = called(Blocks())
    path = str(tmp_path / "b.keras")
    model.save(path)
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(tmp_path / "old.keras", "w") as old:
        for name in ("metadata.json", "config.json"):
            old.writestr(name, source.read(name))
        with h5py.File(io.BytesIO(source.read("model.weights.h5")), "r") as f:
            arrays = {}
            f.visititems(
                lambda name, item: (
                    arrays.__setitem__(name, item[()]) if isinstance(item, h5py.Dataset) else None
                )
            )
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        old.writestr("model.weights.npz", buffer.getvalue())
    assert_same_weights(tf.keras.models.load_model(str(tmp_path / "old.keras")), model)


def test_legacy_h5_model_round_trip(tmp_path, caplog):
    model = called(TwoDense())
    model.compile(optimizer="sgd", loss=tf.keras.losses.MeanSquaredError())
    path = str(tmp_path / "m.h5")
    with caplog.at_level(logging.WARNING):
        model.save(path)
    assert "This file format is considered legacy" in caplog.text
    with h5py.File(path, "r") as f:
        assert json.loads(f.attrs["model_config"])["class_name"] == "TwoDense"
        names = [layer.name for layer in model.layers]
        assert list(f["model_weights"].attrs["layer_names"]) == names
    with pytest.raises(TypeError, match="TwoDense"):
        tf.keras.models.load_model(path)
    # As in Keras: a subclassed model rebuilt from its config has no weights yet.
    with pytest.raises(ValueError, match="Model expected 0 layers, found 2 saved layers"):
        tf.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    other = called(TwoDense())
    other.load_weights(path)
    assert_same_weights(other, model)
    with pytest.raises(ValueError, match="Layer count mismatch"):
        called(tf.keras.Sequential([tf.keras.layers.Dense(2)])).load_weights(path)


# --- weights ---------------------------------------------------------------------------------


def test_save_weights_without_suffix_writes_a_checkpoint(tmp_path):
    model = called(TwoDense())
    prefix = str(tmp_path / "ckpt" / "weights")
    model.save_weights(prefix)
    assert sorted(os.listdir(tmp_path / "ckpt")) == [
        "checkpoint",
        "weights.data-00000-of-00001",
        "weights.index",
    ]
    assert tf.train.latest_checkpoint(str(tmp_path / "ckpt")) == prefix
    # tf.keras 2's rule: the model is the checkpoint's root object.
    assert [k for k, _ in tf.train.list_variables(prefix)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        # Keras 3 keeps Dense's kernel variable as `_kernel` (`kernel` is a property).
        "dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "dense1/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "out/_kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "out/bias/.ATTRIBUTES/VARIABLE_VALUE",
    ]


def test_load_weights_from_a_checkpoint_into_built_and_unbuilt_models(tmp_path):
    model = called(TwoDense())
    prefix = str(tmp_path / "weights")
    model.save_weights(prefix)
    built = called(TwoDense())
    built.load_weights(prefix).assert_consumed()
    assert_same_weights(built, model)
    unbuilt = TwoDense()
    status = unbuilt.load_weights(prefix)  # restored when the first call creates them
    np.testing.assert_array_equal(outputs(unbuilt), outputs(model))
    status.assert_consumed()


def test_load_weights_of_a_checkpoint_rooted_elsewhere_matches_nothing(tmp_path):
    model = called(TwoDense())
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        called(TwoDense()).load_weights(path)


def test_load_weights_errors(tmp_path):
    with pytest.raises(NotFoundError, match="no TensorFlow checkpoint there"):
        called(TwoDense()).load_weights(str(tmp_path / "missing"))
    prefix = str(tmp_path / "weights")
    called(TwoDense(units=2)).save_weights(prefix)
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        called(TwoDense(units=3)).load_weights(prefix)
    (tmp_path / "broken.index").write_bytes(b"\x00garbage")
    (tmp_path / "broken.data-00000-of-00001").write_bytes(b"")
    with pytest.raises(tf.errors.OpError):
        called(TwoDense()).load_weights(str(tmp_path / "broken"))


def test_overwrite_false_asks_before_replacing_a_checkpoint(tmp_path, monkeypatch):
    prefix = str(tmp_path / "weights")
    first = called(TwoDense())
    first.save_weights(prefix)
    prompts = answer_prompt(monkeypatch, "n")
    called(TwoDense()).save_weights(prefix, overwrite=False)
    assert len(prompts) == 1
    kept = called(TwoDense())
    kept.load_weights(prefix)
    assert_same_weights(kept, first)


def test_weights_h5_files(tmp_path):
    path = str(tmp_path / "m.weights.h5")
    model = called(Blocks())
    try:
        import h5py  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"h5py.*without the `.h5` suffix"):
            model.save_weights(path)
        assert not os.path.exists(path)
        return
    model.save_weights(path)
    other = called(Blocks())
    other.load_weights(path)
    assert_same_weights(other, model)


def test_save_weights_refuses_other_h5_names(tmp_path):
    for name in ("w.h5", "w.keras"):
        with pytest.raises(ValueError, match=r"must end in `.weights.h5`"):
            called(TwoDense()).save_weights(str(tmp_path / name))
    with pytest.raises(ValueError, match="Invalid keyword arguments"):
        called(TwoDense()).load_weights(str(tmp_path / "w"), bogus=True)


# --- object serialization --------------------------------------------------------------------


def test_registration():
    @saving.register_keras_serializable(package="tests", name="Triple")
    def triple(x):
        return 3 * x

    assert saving.get_registered_name(triple) == "tests>Triple"
    assert saving.get_registered_object("tests>Triple") is triple
    assert saving.get_registered_object("tests>Nothing") is None
    assert saving.get_registered_name(Blocks) == "tests>Blocks"
    assert saving.get_custom_objects()["tests>Blocks"] is Blocks
    with pytest.raises(ValueError, match="does not have a get_config"):
        saving.register_keras_serializable()(type("NoConfig", (), {}))


def test_serialize_and_deserialize_keras_objects():
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.25, beta_1=0.5)
    config = saving.serialize_keras_object(optimizer)
    assert config["module"] == "keras.optimizers"
    assert config["class_name"] == "Adam"
    assert config["registered_name"] is None
    restored = saving.deserialize_keras_object(config)
    assert type(restored) is tf.keras.optimizers.Adam
    assert restored.get_config() == optimizer.get_config()

    relu = saving.serialize_keras_object(tf.keras.activations.relu)
    assert relu == {
        "module": "builtins",
        "class_name": "function",
        "config": "relu",
        "registered_name": "function",
    }
    assert saving.deserialize_keras_object(relu) is tf.keras.activations.relu
    array = saving.serialize_keras_object(np.arange(3, dtype=np.int32))
    assert array == {"class_name": "__numpy__", "config": {"value": [0, 1, 2], "dtype": "int32"}}
    assert saving.deserialize_keras_object(array).dtype == np.int32
    assert saving.serialize_keras_object(tf.TensorShape([2, None])) == [2, None]
    assert saving.serialize_keras_object(tf.TensorShape(None)) is None
    assert saving.serialize_keras_object(tf.float16) == "float16"
    assert saving.serialize_keras_object(np.float32(0.5)) == 0.5
    nested = {"a": [1, 2.5, None, "x"], "b": (True,)}
    assert saving.deserialize_keras_object(saving.serialize_keras_object(nested)) == {
        "a": [1, 2.5, None, "x"],
        "b": [True],
    }


def test_deserializing_unknown_classes_and_lambdas():
    with pytest.raises(TypeError, match="Could not locate class 'Nope'"):
        saving.deserialize_keras_object({"class_name": "Nope", "config": {}, "module": None})
    with pytest.warns(UserWarning, match="includes a `lambda`"):
        config = saving.serialize_keras_object(lambda x: x + 1)
    with pytest.raises(ValueError, match="deserialization of a Python lambda"):
        saving.deserialize_keras_object(config)
    assert saving.deserialize_keras_object(config, safe_mode=False)(1) == 2


def test_legacy_h5_weights_by_name(tmp_path):
    def model(*names):
        layers = [tf.keras.layers.Dense(3, name=n) for n in names]
        return called(tf.keras.Sequential([tf.keras.Input((5,)), *layers]))

    source = model("a", "b")
    path = str(tmp_path / "m.h5")
    source.save(path)
    target = model("a", "c")  # "a" takes the saved a's weights; "c" keeps its own
    kept = target.get_layer("c").get_weights()
    target.load_weights(path, by_name=True)
    for x, y in zip(target.get_layer("a").get_weights(), source.get_layer("a").get_weights()):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(target.get_layer("c").get_weights(), kept):
        np.testing.assert_array_equal(x, y)
    wide = called(tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(4, name="a")]))
    with pytest.raises(ValueError, match="Shape mismatch"):
        wide.load_weights(path, by_name=True)
    with pytest.warns(UserWarning, match="Skipping loading weights"):
        wide.load_weights(path, by_name=True, skip_mismatch=True)
