"""`tf.keras.utils.FeatureSpace` against Keras under TensorFlow 2.21: every feature type and
crosses adapted on a `tf.data` dataset of dicts, concat and dict outputs (batches and one
example), the encoded features of the functional inputs and a model over them, configs,
`.keras` files read by the other side, and the errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity


def _data():
    import numpy as np

    return {
        "f": np.array([0.5, 1.5, -2.0, 3.0, 0.0, 7.0], "float32"),
        "fn": np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "float32"),
        "fr": np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0], "float32"),
        "fd": np.array([0.1, 0.4, 0.2, 0.9, 0.5, 0.7], "float32"),
        "ic": np.array([3, 1, 3, 2, 7, 3], "int32"),
        "sc": np.array(["a", "b", "a", "c", "b", "a"], object),
        "ih": np.array([5, 6, 7, 8, 9, 10], "int32"),
        "sh": np.array(["x", "y", "z", "x", "y", "w"], object),
    }


def _full_space(tf):
    FS = tf.keras.utils.FeatureSpace
    return FS(
        features={
            "f": "float",
            "fn": "float_normalized",
            "fr": FS.float_rescaled(scale=0.1, offset=1.0),
            "fd": FS.float_discretized(num_bins=3),
            "ic": "integer_categorical",
            "sc": FS.string_categorical(num_oov_indices=2),
            "ih": FS.integer_hashed(num_bins=8),
            "sh": "string_hashed",
        },
        crosses=[("sc", "ic"), FS.cross(("sh", "ih"), crossing_dim=5)],
        hashing_dim=6,
        crossing_dim=7,
    )


def _feature_space(tf, directory, device):
    import os

    with tf.device(device):
        return _feature_space_outputs(tf, os.path.join(directory, device[:3]))


def _feature_space_outputs(tf, directory):
    import os

    os.makedirs(directory, exist_ok=True)
    data = _data()
    fs = _full_space(tf)
    fs.adapt(tf.data.Dataset.from_tensor_slices(data))
    batch = {k: tf.constant(v[:4]) for k, v in data.items()}
    out = [fs(batch), fs({k: v[0] for k, v in data.items()})]
    encoded = fs.get_encoded_features()
    out.append((tuple(encoded.shape), str(encoded.dtype)))
    model = tf.keras.Model(
        fs.get_inputs(), tf.keras.layers.Dense(1, kernel_initializer="ones")(encoded)
    )
    out.append(model({k: tf.constant(v[:, None]) for k, v in data.items()}))
    config = fs.get_config()
    out.append((sorted(config), config["crosses"], config["hashing_dim"], config["output_mode"]))
    out.append(
        {
            name: (
                f["class_name"],
                f["config"]["dtype"],
                f["config"]["output_mode"],
                f["config"]["preprocessor"]["class_name"],
                f["config"]["preprocessor"]["config"]["name"],
            )
            for name, f in config["features"].items()
        }
    )
    fs.save(os.path.join(directory, tf.__name__ + ".keras"))
    # Inside a dataset map (TensorFlow traces it) and a tf.function.
    mapped = tf.data.Dataset.from_tensor_slices(data).batch(4).map(lambda x: (fs(x), x["fn"]))
    out.append((str(mapped.element_spec), list(mapped)))
    out.append(tf.function(lambda x: fs(x))(batch))

    FS = tf.keras.utils.FeatureSpace
    fsd = FS(
        features={
            "sc": "string_categorical",
            "fn": "float_normalized",
            "ic": FS.integer_categorical(output_mode="int"),
            "fd": FS.float_discretized(num_bins=2, output_mode="int"),
        },
        output_mode="dict",
    )
    fsd.adapt(tf.data.Dataset.from_tensor_slices(data).batch(2))
    out.append(fsd({k: data[k] for k in ("sc", "fn", "ic", "fd")}))
    out.append(fsd({k: data[k][1] for k in ("sc", "fn", "ic", "fd")}))
    out.append({k: (tuple(v.shape), str(v.dtype)) for k, v in fsd.get_encoded_features().items()})
    # Nothing to adapt: usable at once; a dict of arrays adapts too.
    plain = FS({"a": "float", "b": FS.float_rescaled(scale=2.0)})
    out.append(plain({"a": [1.0, 2.0], "b": [-1.0, 0.5]}))
    hashed = FS({"h": "integer_hashed", "s": "float_normalized"}, hashing_dim=4)
    hashed.adapt({"h": data["ic"], "s": data["fn"]})
    out.append(hashed({"h": data["ic"], "s": data["fn"]}))
    return out


def _reload(tf, directory):
    """The FeatureSpace the other side saved."""
    import os

    directory = os.path.join(directory, "CPU")
    other = "ferroflow" if tf.__name__ == "tensorflow" else "tensorflow"
    data = _data()
    restored = tf.keras.models.load_model(os.path.join(directory, other + ".keras"))
    return [type(restored).__name__, restored({k: tf.constant(v[:3]) for k, v in data.items()})]


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_feature_space(tf_oracle, tmp_path, device):
    helpers = [_data, _full_space, _feature_space_outputs]
    assert_parity(tf_oracle, _feature_space, (str(tmp_path), device), helpers=helpers, rtol=1e-5)
    if device == "CPU:0":  # the files each side wrote, read by the other
        assert_parity(tf_oracle, _reload, (str(tmp_path),), helpers=[_data], rtol=1e-5)


def _errors(tf):
    import numpy as np

    FS = tf.keras.utils.FeatureSpace
    L = tf.keras.layers

    def concat_of_int():
        fs = FS({"i": FS.integer_categorical(output_mode="int")})
        fs.adapt({"i": np.array([1, 2], "int32")})

    def one_hot_float():
        fs = FS({"x": FS.feature("float32", L.Rescaling(2.0), "one_hot")}, output_mode="dict")
        fs({"x": [1.0]})

    def one_hot_unknown():
        fs = FS({"x": FS.feature("int32", L.Identity(), "one_hot")}, output_mode="dict")
        fs({"x": np.array([1], "int32")})

    return error_classes(
        [
            lambda: FS({}),
            lambda: FS({"a": "float"}, output_mode="list"),
            lambda: FS({"a": "floats"}),
            lambda: FS({"a": "float"}, crosses=[("a", "b")]),
            lambda: FS({"a": "float", "b": "float"}, crosses=[("a", "b")], crossing_dim=0),
            lambda: FS.cross(("a", "b"), 4, output_mode="float"),
            lambda: FS.feature("float32", L.Rescaling(1.0), "multi_hot"),
            lambda: FS({"a": "float_normalized"})({"a": [1.0]}),
            lambda: FS({"a": "float"})([1.0]),
            lambda: FS({"a": "float_normalized"}).adapt([1.0, 2.0]),
            concat_of_int,
            one_hot_float,
            one_hot_unknown,
        ]
    )


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, (), helpers=[error_classes])
