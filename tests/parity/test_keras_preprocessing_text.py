"""Keras 3's `TextVectorization` against Keras under TensorFlow 2.21: standardization, splitting,
n-grams, every output mode, `output_sequence_length` (padding and cutting), ragged outputs,
vocabularies learned by `adapt` from lists, arrays and batched `tf.data`, the layer inside
`tf.data.Dataset.map`, `tf.function`, a functional model with a string `Input` in `fit` and
`predict`, configs (vocabulary included), and argument errors."""

from ._outcomes import error_classes
from .harness import assert_parity

TEXTS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "Dog and cat: friends?",
    "  Ünïcode   WORDS, the END ",
    "",
]


def _modes(tf, texts):
    import numpy as np

    L = tf.keras.layers

    def keep_letters(x):
        return tf.strings.regex_replace(x, "[^a-z ]", "")

    def on_commas(x):
        return tf.strings.split(x, sep=",")

    probe = ["the cat ate the dog", "an unseen phrase, the end", ""]
    out = []
    for kwargs in (
        {},
        {"max_tokens": 6, "output_sequence_length": 4},
        {"output_sequence_length": 9},
        {"ngrams": 2, "output_mode": "multi_hot"},
        {"ngrams": (1, 3), "output_mode": "count", "max_tokens": 10, "pad_to_max_tokens": True},
        {"output_mode": "tf_idf", "standardize": "lower"},
        {"output_mode": "one_hot", "split": None, "standardize": None},
        {"split": "character", "standardize": "strip_punctuation", "max_tokens": 12},
        {"standardize": keep_letters, "split": on_commas},
        {"ragged": True},
        {"ragged": True, "output_sequence_length": 2},
    ):
        layer = tf.keras.layers.TextVectorization(**kwargs)
        layer.adapt(texts)
        result = layer(probe if kwargs.get("split", 1) is not None else [[p] for p in probe])
        if hasattr(result, "to_list"):
            result = result.to_list()
        out.append((layer.get_vocabulary(), layer.vocabulary_size(), result))
    # adapt on an array, on a batched dataset with `steps`; rank-2 input.
    layer = L.TextVectorization()
    layer.adapt(np.array(texts))
    out.append((layer.get_vocabulary(include_special_tokens=False), layer([[t] for t in texts])))
    layer = L.TextVectorization(max_tokens=5)
    layer.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(2), steps=2)
    out.append(layer.get_vocabulary())
    # A given vocabulary, and the config round trip with it.
    given = L.TextVectorization(vocabulary=["cat", "dog", "the"], output_sequence_length=3)
    config = given.get_config()
    back = L.TextVectorization.from_config(config)
    out.append((config, back.get_vocabulary(), back(["the cat and dog"]), given(["dog"])))
    given.set_vocabulary(["x", "y"])
    out.append(given.get_vocabulary())
    out += error_classes(
        [
            lambda: L.TextVectorization(standardize="upper"),
            lambda: L.TextVectorization(split="comma"),
            lambda: L.TextVectorization(output_mode="hot"),
            lambda: L.TextVectorization(ngrams=[1, 2]),
            lambda: L.TextVectorization(output_sequence_length=2.5),
            lambda: L.TextVectorization(output_mode="count", output_sequence_length=2),
            lambda: L.TextVectorization(output_mode="count", ragged=True),
            lambda: L.TextVectorization(output_mode="multi_hot")(["a"]),
            lambda: L.TextVectorization(vocabulary=["a"])(tf.constant([["a", "b"]])),
            lambda: L.TextVectorization(max_tokens=1),
        ]
    )
    return out


def test_modes_and_vocabularies(tf_oracle):
    assert_parity(tf_oracle, _modes, (TEXTS,), rtol=1e-6, helpers=[error_classes])


def _pipelines(tf, texts):
    import numpy as np

    L = tf.keras.layers
    layer = L.TextVectorization(max_tokens=12, output_sequence_length=5)
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(2)
    layer.adapt(dataset)
    out = [layer.get_vocabulary()]
    mapped = dataset.map(layer)
    out.append((mapped.element_spec, [b for b in mapped]))
    # Unbatched (scalar strings); TensorFlow's map fails on the empty one.
    unbatched = tf.data.Dataset.from_tensor_slices(texts[:-1]).map(layer)
    out.append([b for b in unbatched])

    @tf.function
    def traced(x):
        return layer(x)

    out.append(traced(tf.constant(texts)))
    counts = L.TextVectorization(output_mode="count")
    counts.adapt(texts)
    out.append(traced.__class__.__name__ != "" and tf.function(counts)(tf.constant(texts)))
    # A functional model from raw strings: predict and a short fit.
    inputs = tf.keras.Input(shape=(1,), dtype="string")
    ids = layer(inputs)
    embedded = L.Embedding(12, 3, embeddings_initializer="ones")(ids)
    pooled = L.GlobalAveragePooling1D()(embedded)
    outputs = L.Dense(1, kernel_initializer="ones")(pooled)
    model = tf.keras.Model(inputs, outputs)
    out.append((tuple(ids.shape), tf.as_dtype(ids.dtype).name))
    x = tf.constant([[t] for t in texts])
    y = np.arange(len(texts), dtype=np.float32).reshape(-1, 1)
    out.append(model.predict(x, verbose=0))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    out.append(history.history["loss"])
    out.append(model.predict(x, verbose=0))
    # The layer inside the model of a dataset-fed fit.
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(3), epochs=1, verbose=0)
    out.append(model.predict(x, verbose=0))
    return out


def test_pipelines_and_models(tf_oracle):
    assert_parity(tf_oracle, _pipelines, (TEXTS,), rtol=1e-5, atol=1e-6)


def _keras_file_round_trip(tf, path, texts):
    import zipfile

    import numpy as np

    L = tf.keras.layers
    ids = L.TextVectorization(output_sequence_length=4)
    ids.adapt(texts)
    weights = L.TextVectorization(output_mode="tf_idf", max_tokens=6)
    weights.adapt(texts)
    lookup = L.StringLookup(vocabulary=["cat", "dog"], output_mode="multi_hot")
    norm = L.Normalization()
    norm.adapt(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
    text = tf.keras.Input(shape=(1,), dtype="string")
    numbers = tf.keras.Input(shape=(2,))
    symbolic = [ids(text), weights(text), lookup(text), norm(numbers)]
    model = tf.keras.Model([text, numbers], symbolic)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    x = [tf.constant([["the cat"], ["an unseen dog"]]), tf.constant([[1.0, 1.0], [0.0, 2.0]])]
    members = sorted(n for n in zipfile.ZipFile(path).namelist() if n.startswith("assets/"))
    return (
        [(tuple(s.shape), tf.as_dtype(s.dtype).name) for s in symbolic],
        members,
        loaded(x),
        [layer.get_vocabulary() for layer in loaded.layers if hasattr(layer, "get_vocabulary")],
    )


def test_keras_file_round_trip(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _keras_file_round_trip, (str(tmp_path / "m.keras"), TEXTS), rtol=1e-6)
