"""`Model.export` and `keras.export.ExportArchive` against Keras 3 in TensorFlow 2.21: each
program exports models with the same weights under both frameworks, reloads the SavedModel
with `tf.saved_model.load` and compares what the reloaded object offers (attributes, variable
counts, the signature's input keys and output keys, the results of ``serve`` and of
``serving_default`` at a batch size never used before) and Keras's errors."""

import pytest

from ._outcomes import raised
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _set_weights(tf, model):
    """The same float weights under both frameworks (the seed-generator state left as is)."""
    import numpy as np

    for i, variable in enumerate(model.variables):
        if "float" in str(variable.dtype):
            size = int(np.prod(variable.shape))
            # Positive for the non-trainable ones: a BatchNormalization's moving variance.
            low = -0.5 if variable.trainable else 0.5
            values = np.linspace(low, 0.5 + i / 10 + (not variable.trainable), size)
            variable.assign(values.astype(np.float32).reshape(tuple(variable.shape)))


def _spec_text(spec):
    """A loaded spec as comparable Python values (an automatic KerasTensor name loses the
    counter that differs between processes)."""
    import re

    name = (
        spec.name
        if spec.name is None
        else re.sub(r"^keras_tensor_\d+$", "keras_tensor_N", spec.name)
    )
    return (spec.dtype.name, spec.shape.as_list(), name)


def _export_and_reload(tf, model, directory, x, **export_kwargs):
    import numpy as np

    model.export(directory, verbose=False, **export_kwargs)
    loaded = tf.saved_model.load(directory)
    signature = loaded.signatures["serving_default"]
    args, specs = signature.structured_input_signature
    keys = sorted(specs)
    results = signature(**(x if isinstance(x, dict) else {keys[0]: x}))
    outputs = signature.structured_outputs
    mine = model(x)
    served = loaded.serve(x)
    if isinstance(mine, dict):
        mine = {key: np.asarray(mine[key]) for key in sorted(mine)}
        served = {key: np.asarray(served[key]) for key in sorted(served)}
    return {
        "model": np.asarray(mine) if not isinstance(mine, dict) else mine,
        "serve": np.asarray(served) if not isinstance(served, dict) else served,
        "signature_args": list(args),
        "signature_inputs": [(_auto(key), _spec_text(specs[key])) for key in keys],
        "signature_outputs": [(key, _spec_text(outputs[key])) for key in sorted(outputs)],
        "signature_results": {key: np.asarray(results[key]) for key in sorted(results)},
        "signatures": sorted(loaded.signatures),
        "attributes": [
            hasattr(loaded, name)
            for name in (
                "serve",
                "variables",
                "trainable_variables",
                "non_trainable_variables",
                "_all_variables",
                "_misc_assets",
            )
        ],
        "counts": [
            len(loaded.variables),
            len(loaded.trainable_variables),
            len(loaded.non_trainable_variables),
            len(loaded._all_variables),
            len(loaded._misc_assets),
        ],
        "trainable": [v.trainable for v in loaded.variables],
        # A seed generator's state is random: its dtype only.
        "values": [
            np.asarray(v) if v.dtype.is_floating else v.dtype.name for v in loaded.variables
        ],
    }


def _auto(key):
    import re

    return re.sub(r"^keras_tensor_\d+$", "keras_tensor_N", key)


_HELPERS = [_set_weights, _spec_text, _export_and_reload, _auto]


def mlp_and_cnn(tf, root, device):
    import os

    import numpy as np

    k = tf.keras
    with tf.device(device):
        mlp = k.Sequential(
            [
                k.Input((4,), name="features"),
                k.layers.Dense(6, activation="relu"),
                k.layers.BatchNormalization(),
                k.layers.Dense(3, activation="softmax"),
            ]
        )
        _set_weights(tf, mlp)
        mlp(np.ones((2, 4), np.float32))
        image = k.Input((8, 8, 2), name="image")
        h = k.layers.Conv2D(3, 3, activation="relu")(image)
        h = k.layers.MaxPooling2D()(h)
        h = k.layers.Flatten()(h)
        cnn = k.Model(image, k.layers.Dense(4)(h))
        _set_weights(tf, cnn)
        x_mlp = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
        x_cnn = np.linspace(-1, 1, 7 * 8 * 8 * 2, dtype=np.float32).reshape(7, 8, 8, 2)
        return {
            "mlp": _export_and_reload(tf, mlp, os.path.join(root, "mlp"), x_mlp),
            "cnn": _export_and_reload(tf, cnn, os.path.join(root, "cnn"), x_cnn),
        }


def lstm_and_embedding(tf, root, device):
    import os

    import numpy as np

    k = tf.keras
    with tf.device(device):
        lstm = k.Sequential([k.Input((5, 3), name="series"), k.layers.LSTM(4), k.layers.Dense(2)])
        _set_weights(tf, lstm)
        tokens = k.Input((6,), dtype="int32", name="tokens")
        h = k.layers.Embedding(11, 4)(tokens)
        h = k.layers.GlobalAveragePooling1D()(h)
        embedding = k.Model(tokens, k.layers.Dense(3)(h))
        _set_weights(tf, embedding)
        x_lstm = np.linspace(-1, 1, 9 * 5 * 3, dtype=np.float32).reshape(9, 5, 3)
        x_tokens = (np.arange(3 * 6, dtype=np.int32) * 7 % 11).reshape(3, 6)
        return {
            "lstm": _export_and_reload(tf, lstm, os.path.join(root, "lstm"), x_lstm),
            "embedding": _export_and_reload(
                tf, embedding, os.path.join(root, "embedding"), x_tokens
            ),
        }


def input_signature_rules(tf, root, device):
    """Keras's default signatures beyond one named input: a Sequential model built by a call
    (an automatic input name), a subclassed model called once (``args_0``), dict inputs and
    dict outputs, and an explicit unnamed signature."""
    import os

    import numpy as np

    k = tf.keras

    class Subclassed(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(2)

        def call(self, x):
            return self.dense(x) * 2.0

    with tf.device(device):
        called = k.Sequential([k.layers.Dense(3), k.layers.Dense(2)])
        called(np.ones((2, 4), np.float32))
        _set_weights(tf, called)
        subclassed = Subclassed()
        subclassed(np.ones((1, 3), np.float32))
        _set_weights(tf, subclassed)
        a, b = k.Input((3,), name="a"), k.Input((2,), name="b")
        joined = k.layers.Concatenate()([a, b])
        two_in = k.Model({"a": a, "b": b}, {"sum": k.layers.Dense(1)(joined), "a2": a * 2.0})
        _set_weights(tf, two_in)
        x4 = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
        x3 = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
        pair = {"a": x3, "b": np.ones((5, 2), np.float32)}
        explicit = [tf.TensorSpec((None, 4), tf.float32)]
        return {
            "called": _export_and_reload(tf, called, os.path.join(root, "called"), x4),
            "subclassed": _export_and_reload(tf, subclassed, os.path.join(root, "sub"), x3),
            "dicts": _export_and_reload(tf, two_in, os.path.join(root, "dicts"), pair),
            "explicit": _export_and_reload(
                tf, called, os.path.join(root, "explicit"), x4, input_signature=explicit
            ),
        }


@pytest.mark.parametrize("program", [mlp_and_cnn, lstm_and_embedding, input_signature_rules])
@pytest.mark.parametrize("device", DEVICES)
def test_exported_models_reload_as_in_tensorflow(tf_oracle, tmp_path, device, program):
    expected = assert_parity(
        tf_oracle, program, args=(str(tmp_path), device), helpers=_HELPERS, rtol=1e-5
    )
    assert expected[0] != "raised", expected


def export_errors(tf, root):
    import os

    import numpy as np

    k = tf.keras

    class Subclassed(k.Model):
        def __init__(self):
            super().__init__()
            self.dense = k.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    built = k.Sequential([k.Input((3,)), k.layers.Dense(2)])
    unbuilt = k.Sequential([k.layers.Dense(2)])
    never_called = Subclassed()
    never_called.build((None, 3))
    path = os.path.join(root, "model")
    return [
        raised(lambda: built.export(path, format="bogus")),
        raised(lambda: built.export(path, format="torch")),
        raised(lambda: built.export(path, format="openvino")),
        raised(lambda: built.export(path, format="litert")),
        raised(lambda: built.export(path, verbose=False, jax2tf_kwargs={})),
        raised(lambda: built.export(path, verbose=False, is_static=True)),
        raised(lambda: unbuilt.export(path)),
        raised(lambda: unbuilt.export(path, format="onnx")),
        raised(lambda: Subclassed().export(path)),
        raised(lambda: never_called.export(path)),
        raised(lambda: built.export(path, input_signature=[k.InputSpec(shape=(None, 3))])),
        raised(lambda: built.export(path, input_signature=[np.float32(3)])),
        raised(lambda: k.export.ExportArchive().track_and_add_endpoint("e", unbuilt, [])),
        os.path.exists(path),
    ]


def test_export_errors_are_kerass(tf_oracle, tmp_path):
    expected = assert_parity(tf_oracle, export_errors, args=(str(tmp_path),), helpers=[raised])
    assert expected[0] != "raised", expected


def archive_endpoints(tf, root, device):
    """A hand-built archive: two endpoints (one a `tf.function` called once), a variable
    collection, and the lists of the tracked model on the reloaded object."""
    import os

    import numpy as np

    k = tf.keras
    with tf.device(device):
        inputs = k.Input((3,), name="features")
        hidden = k.layers.Dense(4, activation="tanh")(inputs)
        hidden = k.layers.BatchNormalization()(hidden)
        model = k.Model(inputs, k.layers.Dense(2)(hidden))
        _set_weights(tf, model)

        @tf.function
        def doubled(x):
            return model(x) * 2.0

        doubled(np.ones((4, 3), np.float32))
        archive = k.export.ExportArchive()
        archive.track(model)
        archive.add_endpoint("double", doubled)
        archive.add_endpoint(
            "call", model.call, input_signature=[k.InputSpec(shape=(None, 3), dtype="float32")]
        )
        archive.add_variable_collection("kernels", [model.layers[1].kernel])
        counts = [
            len(archive.variables),
            len(archive.trainable_variables),
            len(archive.non_trainable_variables),
        ]
        path = os.path.join(root, "archive")
        archive.write_out(path, verbose=False)
        loaded = tf.saved_model.load(path)
        x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
        z = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
        signatures = {}
        for name in sorted(loaded.signatures):
            _, specs = loaded.signatures[name].structured_input_signature
            signatures[name] = [(key, _spec_text(specs[key])) for key in sorted(specs)]
        return {
            "archive_counts": counts,
            "double": np.asarray(loaded.double(x)),
            "call": np.asarray(loaded.call(z)),
            "default": np.asarray(loaded.signatures["serving_default"](x=x)["output_0"]),
            "signatures": signatures,
            "kernels": [np.asarray(v) for v in loaded.kernels],
            "counts": [
                len(loaded.variables),
                len(loaded.trainable_variables),
                len(loaded.non_trainable_variables),
                len(loaded._all_variables),
            ],
        }


@pytest.mark.parametrize("device", DEVICES)
def test_an_archive_with_several_endpoints(tf_oracle, tmp_path, device):
    expected = assert_parity(
        tf_oracle, archive_endpoints, args=(str(tmp_path), device), helpers=_HELPERS
    )
    assert expected[0] != "raised", expected
