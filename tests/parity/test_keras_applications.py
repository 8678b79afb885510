"""`keras.applications` against Keras 3 under TensorFlow 2.21: every builder's parameter
count, output shape and model name with ``weights=None`` (full layer-name lists for a
subset), ImageNet weights read from a Keras cache file that Keras itself wrote (outputs at
1e-4), the missing-file error, ``preprocess_input`` in its three modes and
``decode_predictions``."""

import ferroflow as ff
import numpy as np
import pytest

from .harness import assert_parity, run_both

# (builder, kwargs, compare the full layer-name list): cheap input sizes where allowed. To keep
# CI's run short, the deeper variants of each family (ResNet101/152, ResNet101/152V2,
# DenseNet169/201, EfficientNetB2-B7, EfficientNetV2B2/B3/S/M/L, ConvNeXtSmall/Base/Large/
# XLarge, NASNetLarge) are left out: they differ from the ones below only in their stage
# tables (each was compared with Keras once, by hand, when written).
BUILDS = [
    ("ResNet50", {}, True),
    ("ResNet50V2", {"include_top": False, "pooling": "max", "input_shape": (64, 64, 3)}, True),
    ("VGG16", {"include_top": False, "input_shape": (32, 32, 3)}, True),
    ("VGG19", {"input_shape": (32, 32, 3), "classes": 10}, True),
    ("MobileNet", {"input_shape": (128, 128, 3), "alpha": 0.5}, True),
    ("MobileNetV2", {"alpha": 0.35, "input_shape": (96, 96, 3)}, True),
    ("DenseNet121", {"input_shape": (32, 32, 3)}, True),
    ("Xception", {"include_top": False, "input_shape": (71, 71, 3), "pooling": "avg"}, True),
    ("InceptionV3", {"include_top": False, "input_shape": (75, 75, 3), "pooling": "max"}, True),
    ("InceptionResNetV2", {"include_top": False, "input_shape": (75, 75, 3)}, True),
    ("EfficientNetB0", {"input_shape": (32, 32, 3)}, True),
    ("EfficientNetV2B0", {"input_shape": (32, 32, 3)}, True),
    *[
        (f"EfficientNetV2{v}", {"include_top": False, "input_shape": (32, 32, 3)}, False)
        for v in ("B1",)
    ],
    ("MobileNetV3Small", {}, True),
    ("MobileNetV3Large", {"alpha": 1.25, "minimalistic": True, "input_shape": (64, 64, 3)}, True),
    (
        "MobileNetV3Small",
        {"alpha": 0.75, "include_preprocessing": False, "include_top": False},
        False,
    ),
    ("ConvNeXtTiny", {"input_shape": (32, 32, 3)}, True),
    ("NASNetMobile", {"include_top": False, "pooling": "avg", "input_shape": (32, 32, 3)}, True),
    *[
        (f"EfficientNetB{i}", {"include_top": False, "input_shape": (32, 32, 3)}, False)
        for i in (1,)
    ],
]


def _builds(tf, builds):
    out = []
    for name, kwargs, names in builds:
        model = getattr(tf.keras.applications, name)(weights=None, **kwargs)
        layer_names = [layer.name for layer in model.layers] if names else len(model.layers)
        out.append((name, model.count_params(), tuple(model.output_shape), model.name, layer_names))
        tf.keras.backend.clear_session()
    return out


def test_builds_match_keras(tf_oracle):
    assert_parity(tf_oracle, _builds, (BUILDS,))


def _argument_errors(tf):
    A = tf.keras.applications
    out = []
    for build in (
        lambda: A.ResNet50(weights="nowhere.h5"),
        lambda: A.ResNet50(weights="imagenet", classes=10),
        lambda: A.VGG16(weights=None, input_shape=(16, 16, 3), include_top=False),
        lambda: A.VGG16(weights=None, input_shape=(None, None, 3)),
        lambda: A.MobileNetV2(weights=None, input_shape=(64, 64)),
        lambda: A.MobileNet(weights="imagenet", depth_multiplier=2),
        lambda: A.ResNet50(weights=None, classifier_activation="relu", input_shape=(32, 32, 3)),
    ):
        try:
            out.append(build().count_params())
        except Exception as e:  # noqa: BLE001 - the class is compared
            out.append(type(e).__name__)
    return out


def test_argument_errors(tf_oracle):
    assert_parity(tf_oracle, _argument_errors)


def _imagenet_weights(tf, home, image):
    """TensorFlow writes its random MobileNetV2's weights in the legacy .h5 layout of Keras's
    weight files into a Keras cache; ferroflow loads them with weights="imagenet"."""
    import os

    import numpy as np

    os.environ["KERAS_HOME"] = home
    fname = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96.h5"
    path = os.path.join(home, "models", fname)
    if tf.__name__ == "tensorflow":
        import h5py
        from keras.src.legacy.saving import legacy_h5_format

        model = tf.keras.applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), weights=None)
        rng = np.random.default_rng(0)
        for w in model.weights:
            low = 0.5 if "variance" in w.path else -0.5
            w.assign(rng.uniform(low, 1.0, w.shape).astype("float32") * 0.5)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with h5py.File(path, "w") as f:
            legacy_h5_format.save_weights_to_hdf5_group(f, model)
    else:
        model = tf.keras.applications.MobileNetV2(
            alpha=0.35, input_shape=(96, 96, 3), weights="imagenet"
        )
    return model(tf.constant(image), training=False)


def test_imagenet_weights_from_the_cache(tf_oracle, tmp_path):
    image = np.random.default_rng(1).uniform(-1, 1, (2, 96, 96, 3)).astype("float32")
    assert_parity(tf_oracle, _imagenet_weights, (str(tmp_path), image), rtol=1e-4, atol=1e-4)


def seed_weights(model):
    """Sets the model's weights from one seeded generator (variances positive): the same
    values under both frameworks."""
    import numpy as np

    rng = np.random.default_rng(0)
    values = []
    for w in model.weights:
        low = 0.5 if "variance" in w.path else -0.5
        values.append(rng.uniform(low, 1.0, tuple(w.shape)).astype("float32") * 0.3)
    model.set_weights(values)


def _seeded_forward(tf, builds, image):
    """Forward passes of small builds whose weights come from one seeded generator."""
    out = []
    for name, kwargs in builds:
        model = getattr(tf.keras.applications, name)(weights=None, **kwargs)
        seed_weights(model)
        out.append(model(tf.constant(image), training=False))
        tf.keras.backend.clear_session()
    return out


def test_seeded_forward(tf_oracle):
    builds = [
        ("MobileNetV3Small", {"input_shape": (32, 32, 3), "include_top": False}),
        ("EfficientNetB0", {"input_shape": (32, 32, 3), "include_top": False}),
        ("ConvNeXtTiny", {"input_shape": (32, 32, 3), "include_top": False}),
    ]
    image = np.random.default_rng(2).uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    assert_parity(
        tf_oracle, _seeded_forward, (builds, image), rtol=1e-4, atol=1e-4, helpers=[seed_weights]
    )


def test_missing_weight_file_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(Exception, match="does not download") as info:
        ff.keras.applications.ResNet50(weights="imagenet", include_top=False)
    assert "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5" in str(info.value)
    with pytest.raises(Exception, match="imagenet_class_index.json"):
        ff.keras.applications.imagenet_utils.CLASS_INDEX = None
        ff.keras.applications.resnet.decode_predictions(np.zeros((1, 1000), "float32"))


def _preprocess(tf, device):
    import numpy as np

    A = tf.keras.applications
    x = np.linspace(0, 255, 2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
    out = []
    with tf.device(device):
        for mode in ("caffe", "tf", "torch"):
            for fmt in ("channels_last", "channels_first"):
                out.append(A.imagenet_utils.preprocess_input(x.copy(), fmt, mode))
                out.append(A.imagenet_utils.preprocess_input(tf.constant(x), fmt, mode))
                out.append(A.imagenet_utils.preprocess_input(x[0].copy(), fmt, mode))
        out.append(A.vgg16.preprocess_input(x.astype("uint8")))
        out.append(A.mobilenet_v2.preprocess_input(tf.constant(x)))
        for bad in ({"mode": "nope"}, {"data_format": "nhwc"}):
            try:
                A.imagenet_utils.preprocess_input(x.copy(), **bad)
            except ValueError as e:
                out.append(str(e))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_preprocess_input(tf_oracle, device):
    assert_parity(tf_oracle, _preprocess, (device,))


def _decode(tf, home, index):
    import json
    import os

    import numpy as np

    os.environ["KERAS_HOME"] = home
    if tf.__name__ == "tensorflow":
        # Keras would check the real file's hash and download it: hand it the index instead.
        from keras.src.applications import imagenet_utils

        imagenet_utils.CLASS_INDEX = json.loads(json.dumps(index))
    preds = np.random.default_rng(3).random((2, 1000)).astype("float32")
    out = tf.keras.applications.resnet.decode_predictions(preds, top=3)
    try:
        tf.keras.applications.resnet.decode_predictions(preds[:, :10])
    except ValueError as e:
        out.append(str(e))
    return out


def test_decode_predictions(tf_oracle, tmp_path):
    import json

    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    ff.keras.applications.imagenet_utils.CLASS_INDEX = None
    expected, actual = run_both(tf_oracle, _decode, (str(tmp_path), index))
    assert repr(expected) == repr(actual)


def test_legacy_weights_by_order_when_names_differ(tmp_path):
    """Default-named layers (``dense_3`` after earlier builds) load by order, as in Keras."""
    import h5py
    from ferroflow.keras.applications._common import load_legacy_h5_weights

    keras = ff.keras
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.Dense(4)(inputs)))
    values = [np.arange(w.size, dtype="float32").reshape(w.shape) for w in model.get_weights()]
    path = tmp_path / "w.h5"
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = [b"input_layer", b"dense_7", b"dense_8"]
        f.create_group("input_layer").attrs["weight_names"] = []
        for name, (kernel, bias) in zip(("dense_7", "dense_8"), (values[:2], values[2:])):
            g = f.create_group(name)
            g.attrs["weight_names"] = [f"{name}/kernel".encode(), f"{name}/bias".encode()]
            g[f"{name}/kernel"] = kernel
            g[f"{name}/bias"] = bias
    load_legacy_h5_weights(model, str(path))
    for got, want in zip(model.get_weights(), values):
        np.testing.assert_array_equal(got, want)
