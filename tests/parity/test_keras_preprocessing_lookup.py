"""Keras 3's `StringLookup` and `IntegerLookup` against Keras under TensorFlow 2.21: vocabularies
learned by `adapt` (arrays, lists, batched `tf.data`, frequency order and its tie-break,
`max_tokens`), given vocabularies and files, mask and OOV indices (hashed when several),
`invert`, every output mode with its dtype and shape, configs, and argument errors."""

from ._outcomes import error_classes
from .harness import assert_parity


def _string_lookup(tf, vocab_path):
    import numpy as np

    L = tf.keras.layers
    data = np.array([["b", "a", "c"], ["c", "b", "d"], ["c", "e", "a"], ["f", "", "b"]])
    probe = tf.constant([["a", "zz", ""], ["c", "f", "yy"]])
    out = []
    for kwargs in (
        {},
        {"max_tokens": 4},
        {"mask_token": "", "num_oov_indices": 2},
        {"num_oov_indices": 3, "salt": 5},
        {"output_mode": "multi_hot"},
        {"output_mode": "count", "mask_token": ""},
        {"output_mode": "one_hot", "max_tokens": 6, "pad_to_max_tokens": True},
        {"output_mode": "tf_idf"},
        {"output_mode": "tf_idf", "max_tokens": 8, "pad_to_max_tokens": True},
    ):
        layer = L.StringLookup(**kwargs)
        layer.adapt(data)
        probe_in = probe[:, :1] if kwargs.get("output_mode") == "one_hot" else probe
        out.append((layer.get_vocabulary(), layer.vocabulary_size(), layer(probe_in)))
        out.append(layer.get_vocabulary(include_special_tokens=False))
    # adapt on a batched dataset and on a list; tf.data map; scalar and 1-D calls.
    layer = L.StringLookup()
    layer.adapt(tf.data.Dataset.from_tensor_slices(data.reshape(-1)).batch(5))
    out.append((layer.get_vocabulary(), layer("c"), layer(["a", "q"])))
    out.append([b for b in tf.data.Dataset.from_tensor_slices(data).batch(3).map(layer)])
    layer = L.StringLookup()
    layer.adapt(["x", "y", "y"])
    out.append(layer.get_vocabulary())
    # A given vocabulary, with and without the special tokens in front, a file, invert.
    for layer in (
        L.StringLookup(vocabulary=["p", "q", "r"]),
        L.StringLookup(vocabulary=["[UNK]", "p", "q"]),
        L.StringLookup(vocabulary=["", "[UNK]", "p"], mask_token=""),
        L.StringLookup(vocabulary=vocab_path),
        L.StringLookup(vocabulary=["p", "q"], num_oov_indices=0),
    ):
        out.append((layer.get_vocabulary(), layer(tf.constant(["p", "q", "p"]))))
    inverse = L.StringLookup(vocabulary=["p", "q"], invert=True, mask_token="")
    out.append((inverse.get_vocabulary(), inverse(tf.constant([[0, 1, 2, 3, 9]]))))
    configured = L.StringLookup(vocabulary=["p", "q"], mask_token="", name="lookup")
    config = configured.get_config()
    back = L.StringLookup.from_config(config)
    out.append((config, back.get_vocabulary(), back(tf.constant(["q", "x"]))))
    out += error_classes(
        [
            lambda: L.StringLookup(max_tokens=1),
            lambda: L.StringLookup(num_oov_indices=-1),
            lambda: L.StringLookup(output_mode="bad"),
            lambda: L.StringLookup(invert=True, output_mode="count"),
            lambda: L.StringLookup(pad_to_max_tokens=True),
            lambda: L.StringLookup(vocabulary=["a", "a"]),
            lambda: L.StringLookup(vocabulary=["a", ""], mask_token=""),
            lambda: L.StringLookup(vocabulary=[]),
            lambda: L.StringLookup(vocabulary=["a", "b", "c"], max_tokens=3),
            lambda: L.StringLookup(idf_weights=[1.0]),
            lambda: L.StringLookup(output_mode="tf_idf", vocabulary=["a"]),
            lambda: L.StringLookup(vocabulary="/no/such/file.txt"),
            lambda: L.StringLookup(output_mode="multi_hot")(tf.constant(["a"])),
            lambda: L.StringLookup(vocabulary=["a"], num_oov_indices=0)(tf.constant(["b"])),
            lambda: L.StringLookup(vocabulary=["a"]).adapt(["a"]),
            lambda: L.StringLookup(salt="x"),
        ]
    )
    return out


def test_string_lookup(tf_oracle, tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("p\nq\nr\n")
    assert_parity(tf_oracle, _string_lookup, (str(path),), rtol=1e-6, helpers=[error_classes])


def _integer_lookup(tf):
    import numpy as np

    L = tf.keras.layers
    data = np.array([[3, 1, 2], [2, 2, 9], [0, 7, 7], [7, 3, 3]])
    probe = np.array([[1, 0, 42], [9, 3, -5]])
    out = []
    for kwargs in (
        {},
        {"mask_token": 0},
        {"num_oov_indices": 3},
        {"num_oov_indices": 2, "oov_method": "farmhash"},
        {"num_oov_indices": 2, "oov_method": "farmhash", "salt": [1, 2]},
        {"max_tokens": 3, "num_oov_indices": 0},
        {"output_mode": "multi_hot", "mask_token": 0},
        {"output_mode": "count"},
        {"output_mode": "tf_idf", "mask_token": 0},
    ):
        layer = L.IntegerLookup(**kwargs)
        layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(2))
        call = probe if kwargs.get("num_oov_indices", 1) else np.array([[3, 2]])
        out.append((layer.get_vocabulary(), layer(call), layer.get_config()))
    layer = L.IntegerLookup(vocabulary=np.array([10, 20, 30]), mask_token=0)
    out.append((layer.get_vocabulary(), layer(np.array([0, 10, 30, 5], np.int32))))
    inverse = L.IntegerLookup(vocabulary=[10, 20], invert=True)
    out.append((inverse.get_vocabulary(), inverse(tf.constant([0, 1, 2, 3]))))
    out.append(inverse.get_config())
    out.append(L.IntegerLookup.from_config(layer.get_config()).get_vocabulary())
    out.append((L.IntegerLookup(vocabulary=[1, 2])([1, 2, 3]), inverse([[1], [2]])))
    out += error_classes(
        [
            lambda: L.IntegerLookup(max_tokens=0),
            lambda: L.IntegerLookup(vocabulary_dtype="int32"),
            lambda: L.IntegerLookup(salt=3),
            lambda: L.IntegerLookup(oov_method="md5"),
            lambda: L.IntegerLookup(vocabulary=[1, 2], invert=True, output_mode="one_hot"),
            lambda: L.IntegerLookup(vocabulary=[1, 1]),
        ]
    )
    return out


def test_integer_lookup(tf_oracle):
    assert_parity(tf_oracle, _integer_lookup, rtol=1e-6, helpers=[error_classes])
