"""Keras 3's `Hashing`, `HashedCrossing`, `CategoryEncoding`, `Discretization`, `Normalization`
and `Rescaling` against Keras under TensorFlow 2.21 on both devices: bins (FarmHash and salted
SipHash values), encodings with their dtypes and shapes, quantile boundaries from `adapt`,
means and variances from `adapt` over arrays and batched datasets, `invert`, configs, a
functional model, and argument errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _hashing(tf, device):
    import numpy as np

    L = tf.keras.layers
    words = np.array([["cat", "dog"], ["", "bird"], ["fish", "cat"]])
    ints = np.array([[3, -7], [0, 123456789]])
    out = []
    with tf.device(device):
        for kwargs in (
            {"num_bins": 7},
            {"num_bins": 7, "mask_value": ""},
            {"num_bins": 5, "salt": 133},
            {"num_bins": 5, "salt": [1, 2], "output_mode": "count"},
            {"num_bins": 6, "output_mode": "multi_hot"},
            {"num_bins": 4, "dtype": "int32"},
        ):
            layer = L.Hashing(**kwargs)
            on_ints = error_classes([lambda layer=layer: layer(tf.constant(ints))])
            if on_ints == ["no error"]:
                on_ints = layer(tf.constant(ints))
            out.append((layer(words), on_ints, layer.get_config()))
        out.append(L.Hashing(4, output_mode="one_hot")(np.array([["a"], ["b"], ["c"]])))
        out.append(L.Hashing(9, mask_value=0)(np.array([0, 1, 2.5])))
        out.append(L.Hashing(9)(["a", "b"]))
        crossing = L.HashedCrossing(num_bins=11)
        out.append(crossing((np.array([1, 2, 3]), np.array(["a", "b", "c"]))))
        out.append(crossing((tf.constant([[4], [5]]), tf.constant([[6], [7]]))))
        out.append(crossing((tf.constant(4), tf.constant("x"))))
        one_hot = L.HashedCrossing(num_bins=4, output_mode="one_hot")
        out.append((one_hot((np.array([1, 2]), np.array([3, 4]))), one_hot.get_config()))
    out += error_classes(
        [
            lambda: L.Hashing(0),
            lambda: L.Hashing(3, dtype="float32"),
            lambda: L.Hashing(3, output_mode="tf_idf"),
            lambda: L.Hashing(3, salt="s"),
            lambda: L.HashedCrossing(3, output_mode="count"),
            lambda: L.HashedCrossing(3)(np.array([1])),
            lambda: L.HashedCrossing(3)([np.array([1, 2]), np.array([1])]),
            lambda: L.HashedCrossing(3)([np.array([1.0]), np.array([1.0])]),
        ]
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_hashing(tf_oracle, device):
    assert_parity(tf_oracle, _hashing, (device,), rtol=0, atol=0, helpers=[error_classes])


def _encoding_and_buckets(tf, device):
    import numpy as np

    L = tf.keras.layers
    tokens = np.array([[1, 2, 2], [0, 3, 1]])
    out = []
    with tf.device(device):
        for mode in ("multi_hot", "count", "one_hot"):
            layer = L.CategoryEncoding(num_tokens=5, output_mode=mode)
            out.append((layer(tokens[:, :1] if mode == "one_hot" else tokens), layer.get_config()))
        out.append(L.CategoryEncoding(4, output_mode="one_hot")(np.array([0, 3, 1])))
        out.append(L.CategoryEncoding(4)(np.array([[[1, 2], [0, 0]], [[3, 3], [1, 0]]])))
        weights = np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 0.25]], np.float32)
        out.append(L.CategoryEncoding(4, output_mode="count")(tokens, count_weights=weights))
        out.append(L.CategoryEncoding(4, dtype="int32")(tf.constant([1, 1, 3])))
        out.append(L.CategoryEncoding(3)([[0, 2], [1, 1]]))
        values = np.array([[-1.5, 0.0, 0.2], [1.0, 7.5, 3.0]], np.float32)
        for kwargs in (
            {"bin_boundaries": [0.0, 1.0, 2.5]},
            {"bin_boundaries": [0.0, 1.0], "output_mode": "one_hot"},
            {"bin_boundaries": [0.0, 1.0], "output_mode": "count"},
            {"bin_boundaries": [0.0, 1.0], "output_mode": "multi_hot"},
        ):
            layer = L.Discretization(**kwargs)
            out.append((layer(values[:, :1] if "one_hot" in kwargs.values() else values),))
        out.append(L.Discretization(bin_boundaries=[0.0, 2.0])(np.array([[-3, 1, 2, 5]])))
        rng = np.random.default_rng(0)
        data = rng.normal(size=(500, 2)).astype(np.float32)
        for kwargs, source in (
            ({"num_bins": 4}, data),
            ({"num_bins": 5, "epsilon": 0.05}, tf.data.Dataset.from_tensor_slices(data).batch(64)),
            ({"num_bins": 3}, [data[:100], data[100:]]),
        ):
            layer = L.Discretization(**kwargs)
            layer.adapt(source)
            out.append((layer.bin_boundaries, layer(data[:4]), layer.get_config()))
        back = L.Discretization.from_config(layer.get_config())
        out.append((back.bin_boundaries, back(data[:3])))
    out += error_classes(
        [
            lambda: L.CategoryEncoding(),
            lambda: L.CategoryEncoding(0),
            lambda: L.CategoryEncoding(3, output_mode="tf_idf"),
            lambda: L.CategoryEncoding(3)(tokens, count_weights=np.ones((2, 3))),
            lambda: L.Discretization(),
            lambda: L.Discretization(bin_boundaries=[1.0], num_bins=2),
            lambda: L.Discretization(num_bins=-1),
            lambda: L.Discretization(num_bins=2, output_mode="tf_idf"),
            lambda: L.Discretization(bin_boundaries=[1.0]).adapt(np.ones(3)),
            lambda: L.Discretization(num_bins=3)(np.ones(3)),
        ]
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_category_encoding_and_discretization(tf_oracle, device):
    assert_parity(
        tf_oracle, _encoding_and_buckets, (device,), rtol=1e-6, atol=1e-6, helpers=[error_classes]
    )


def _normalization(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(1)
    data = rng.normal(3.0, 2.0, size=(40, 3, 2)).astype(np.float32)
    out = []
    with tf.device(device):
        for kwargs, source in (
            ({}, data),
            ({"axis": None}, data),
            ({"axis": (1, 2)}, tf.constant(data)),
            ({"axis": 1}, tf.data.Dataset.from_tensor_slices(data).batch(16)),
            ({"invert": True}, data),
        ):
            layer = L.Normalization(**kwargs)
            layer.adapt(source)
            out.append((layer(data[:3]), layer.get_config()))
            out.append([(w.shape, tf.as_dtype(w.dtype).name) for w in layer.weights])
        layer = L.Normalization(mean=[1.0, 2.0], variance=[4.0, 0.0])
        out.append((layer(np.array([[3.0, 2.0]])), layer.get_config()))
        layer = L.Normalization(axis=None, mean=2.0, variance=9.0, invert=True)
        out.append(layer(tf.constant([[1.0, -1.0]])))
        layer = L.Normalization()
        layer.adapt(tf.data.Dataset.from_tensor_slices(data[:, 0, :]))
        out.append(layer(data[:2, 0, :]))
        for scale, offset in ((1 / 255, 0.0), (2.0, -1.0), (np.array([1.0, 0.5]), 0.25)):
            layer = L.Rescaling(scale, offset)
            out.append(layer(np.array([[255, 128]], np.uint8)))
        out.append(L.Rescaling(0.5, 1.0).get_config())
        for layer in (
            L.Rescaling(np.array([1.0, 0.5]), 0.25),
            L.Normalization(mean=[1.0], variance=[4.0]),
        ):
            back = type(layer).from_config(layer.get_config())
            out.append((back.get_config(), back(np.array([[2.0, 4.0]], np.float32))))
        # A functional model: normalization adapted, then a dense layer, one fit step.
        norm = L.Normalization()
        norm.adapt(data[:, 0, :])
        inputs = tf.keras.Input((2,))
        outputs = L.Dense(1, kernel_initializer="ones")(L.Rescaling(0.5)(norm(inputs)))
        model = tf.keras.Model(inputs, outputs)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
        history = model.fit(
            data[:, 0, :], data[:, 1, :1], batch_size=20, epochs=1, verbose=0, shuffle=False
        )
        out.append((history.history["loss"], model.predict(data[:3, 0, :], verbose=0)))
    out += error_classes(
        [
            lambda: L.Normalization(mean=1.0),
            lambda: L.Normalization(mean=[1.0], variance=[1.0, 2.0]),
            lambda: L.Normalization(axis=-1, mean=[[1.0]], variance=[[1.0]]),
            lambda: L.Normalization(axis=3).adapt(np.ones((2, 2))),
            lambda: L.Normalization()(np.ones((2, 2))),
        ]
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_normalization_and_rescaling(tf_oracle, device):
    assert_parity(
        tf_oracle, _normalization, (device,), rtol=1e-5, atol=1e-5, helpers=[error_classes]
    )
