"""Writes SavedModels with TensorFlow 2.21 and Keras 3, for ferroflow's import to read.

Run with TensorFlow's interpreter (the repository's `.venv-tf`):

    .venv-tf/bin/python tools/tf_saved_model_fixtures.py OUT_DIR            # all fixtures
    .venv-tf/bin/python tools/tf_saved_model_fixtures.py OUT_DIR keras_mlp keras_lstm   # some

Each fixture is `OUT_DIR/<name>/` (a SavedModel directory) and `OUT_DIR/<name>.npz`, the
reference of calling its `serving_default` signature after loading it back: `input:<arg>` and
`output:<key>` arrays. Seeds are fixed, so weights and inputs are the same on every run.
`OUT_DIR/timings.json` records how long each save took.
"""

import argparse
import json
import os
import pathlib
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

SEED = 1234


class CondWhileModule(tf.Module):
    """A tf.Module whose function has a tf.cond and a tf.while_loop over variables."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(SEED)
        self.w = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        self.b = tf.Variable(np.zeros(3, np.float32), name="b")
        self.steps = tf.Variable(3, dtype=tf.int32, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        # The branch taken depends on the data, so the graph keeps an If (StatelessIf here,
        # since neither branch touches state).
        y = tf.cond(tf.reduce_sum(y) > 0.0, lambda: tf.nn.relu(y), lambda: tf.tanh(y))

        def body(i, acc):
            return i + 1, acc * 0.5 + tf.reduce_mean(acc)

        _, y = tf.while_loop(lambda i, acc: i < self.steps, body, (tf.constant(0), y))
        return {"y": y}


def save_module(path):
    module = CondWhileModule()
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__})


VOCABULARY = ["apple", "banana", "cherry"]


@tf.custom_gradient
def clipped_identity(x):
    # Saved with its gradient function: an IdentityN carrying _gradient_op_type.
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)


class ControlFlowModule(tf.Module):
    """One of each call and control-flow form the importer inlines, and a vocabulary asset.

    Nested tf.functions give PartitionedCall (stateless) and StatefulPartitionedCall (reads a
    variable); a cond reading a variable gives If; switch_case gives StatelessCase and, reading
    a variable, Case; a loop without state gives StatelessWhile; a TensorArray gives TensorList
    ops outside Keras; the table gives `asset` and `resource` objects and their functions.
    """

    def __init__(self, vocabulary_path):
        super().__init__()
        self.scale = tf.Variable(2.0, name="scale")
        self.offset = tf.Variable([0.5, -0.5, 1.0], name="offset")
        self.bias = tf.constant([1.0, 2.0, 3.0])  # an eager tensor captured: a `constant`
        initializer = tf.lookup.TextFileInitializer(
            vocabulary_path,
            tf.string,
            tf.lookup.TextFileIndex.WHOLE_LINE,
            tf.int64,
            tf.lookup.TextFileIndex.LINE_NUMBER,
        )
        self.table = tf.lookup.StaticHashTable(initializer, default_value=-1)

    @tf.function
    def stateless_helper(self, x):
        return x * 2.0 + 1.0

    @tf.function
    def stateful_helper(self, x):
        return x * self.scale

    @tf.function(jit_compile=True)
    def compiled_helper(self, x):
        return tf.nn.softplus(x)

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, 3], tf.float32, name="x"),
            tf.TensorSpec([], tf.int32, name="branch"),
            tf.TensorSpec([None], tf.string, name="words"),
        ]
    )
    def __call__(self, x, branch, words):
        y = self.stateful_helper(self.stateless_helper(x))
        y = self.compiled_helper(clipped_identity(y))
        y = tf.cond(tf.reduce_sum(y) > 0.0, lambda: y + self.offset, lambda: y - self.offset)
        y = tf.switch_case(branch, [lambda: y * 1.0, lambda: tf.sin(y), lambda: tf.abs(y)])
        gain = tf.switch_case(branch, [lambda: self.scale * 1.0, lambda: self.scale + 1.0])
        _, total = tf.while_loop(
            lambda i, t: i < 4, lambda i, t: (i + 1, t + tf.cast(i, tf.float32)), (0, 0.0)
        )
        array = tf.TensorArray(tf.float32, size=3)
        _, array = tf.while_loop(
            lambda i, a: i < 3,
            lambda i, a: (i + 1, a.write(i, tf.reduce_sum(y[:, i]))),
            (0, array),
        )
        return {
            "y": y * gain + total + self.bias,
            "column_sums": array.stack(),
            "ids": self.table.lookup(words),
        }


def save_control_flow_module(path):
    vocabulary = pathlib.Path(path + "_vocabulary.txt")
    vocabulary.write_text("\n".join(VOCABULARY) + "\n")
    module = ControlFlowModule(str(vocabulary))
    # A second trace of a helper, so its `function` object holds two concrete functions.
    module.stateless_helper(tf.constant([1.0, 2.0]))
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__})
    vocabulary.unlink()


def seed_everything():
    keras.utils.set_random_seed(SEED)


def mlp():
    seed_everything()
    inputs = keras.Input((8,), name="features")
    x = keras.layers.Dense(16, activation="relu")(inputs)
    x = keras.layers.Dense(4, activation="softmax")(x)
    return keras.Model(inputs, x, name="mlp")


def cnn():
    seed_everything()
    inputs = keras.Input((16, 16, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.Conv2D(8, 3, strides=2, padding="valid")(x)
    x = keras.layers.AveragePooling2D(2, padding="same")(x)
    x = keras.layers.Dropout(0.25)(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(5)(x)
    model = keras.Model(inputs, x, name="cnn")
    # Non-trivial moving statistics, so inference-mode batch normalization is visible.
    bn = model.layers[2]
    rng = np.random.default_rng(SEED)
    bn.moving_mean.assign(rng.standard_normal(8).astype(np.float32) * 0.1)
    bn.moving_variance.assign(rng.uniform(0.5, 1.5, 8).astype(np.float32))
    return model


def recurrent(layer_class):
    def build():
        seed_everything()
        inputs = keras.Input((5, 3), name="sequence")
        x = layer_class(6, return_sequences=True)(inputs)
        x = layer_class(4)(x)
        x = keras.layers.Dense(2)(x)
        return keras.Model(inputs, x, name=layer_class.__name__.lower())

    return build


def embedding():
    seed_everything()
    inputs = keras.Input((7,), dtype="int32", name="tokens")
    x = keras.layers.Embedding(50, 8)(inputs)
    x = keras.layers.GlobalAveragePooling1D()(x)
    x = keras.layers.Dense(3)(x)
    return keras.Model(inputs, x, name="embedding")


def string_and_integer_lookup():
    """StringLookup and IntegerLookup layers: hash tables (`resource` objects filled by their
    initializer functions from constants) read by LookupTableFindV2, then embedded."""
    seed_everything()
    words = keras.Input((4,), dtype="string", name="words")
    codes = keras.Input((4,), dtype="int64", name="codes")
    word_ids = keras.layers.StringLookup(vocabulary=VOCABULARY, num_oov_indices=2)(words)
    code_ids = keras.layers.IntegerLookup(vocabulary=list(range(0, 50, 2)))(codes)  # half hit
    x = keras.layers.Embedding(5, 3)(word_ids) + keras.layers.Embedding(26, 3)(code_ids)
    return keras.Model([words, codes], keras.layers.Dense(2)(x), name="lookup")


def text_vectorization():
    """TextVectorization: lower-casing, punctuation stripped by regex, whitespace split
    (StringSplitV2), a hash table, then the ragged ids made dense (RaggedTensorToTensor over
    row ids that DenseBincount and Cumsum turn into row splits)."""
    seed_everything()
    sentences = keras.Input((), dtype="string", name="sentences")
    vectorize = keras.layers.TextVectorization(
        max_tokens=10, output_sequence_length=5, vocabulary=[*VOCABULARY, "pie"]
    )
    x = keras.layers.Embedding(10, 3)(vectorize(sentences))
    return keras.Model(sentences, keras.layers.Dense(2)(x), name="text")


def grouped_attention():
    """A grouped Conv2D, then self-attention over its pixels (MultiHeadAttention's EinsumDense
    layers are Einsum ops) and a LayerNormalization (moments: SquaredDifference) with exact
    GELU (Erf)."""
    seed_everything()
    inputs = keras.Input((6, 6, 4), name="image")
    x = keras.layers.Conv2D(6, 3, groups=2, padding="same")(inputs)
    x = keras.layers.Conv2D(12, 3, groups=6, padding="same")(x)  # one channel per group
    x = keras.layers.Conv2D(6, 1)(x)
    x = keras.layers.Reshape((36, 6))(x)
    x = x + keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)(x, x)
    x = keras.layers.LayerNormalization()(x)
    x = keras.layers.Dense(5, activation="gelu")(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, x, name="grouped_attention")


def constants_and_swish():
    """A Normalization layer given its mean and variance: it holds them as plain tensors, which
    the exported function captures as constants (EfficientNet's first layers), then swish and
    hard swish (EfficientNet's and MobileNetV3's activations)."""
    seed_everything()
    inputs = keras.Input((6,), name="features")
    mean, variance = np.linspace(-1, 1, 6), np.linspace(0.5, 2, 6)
    x = keras.layers.Normalization(mean=mean, variance=variance)(inputs)
    x = keras.layers.Dense(8, activation="swish")(x)
    x = keras.layers.Dense(4, activation="hard_swish")(x)
    return keras.Model(inputs, x, name="constants_and_swish")


def mobilenet_v2():
    seed_everything()
    # A named input tensor, so the signature's argument is "image", not a counter's name.
    image = keras.Input((96, 96, 3), name="image")
    model = tf.keras.applications.MobileNetV2(weights=None, input_tensor=image, classes=10)
    calibrate_batch_norm(model, np.random.default_rng(SEED + 1).standard_normal((4, 96, 96, 3)))
    return model


def calibrate_batch_norm(model, inputs):
    """Sets every BatchNormalization's moving statistics to those of `inputs`.

    Freshly initialised (mean 0, variance 1), they let MobileNetV2's activations shrink to
    ~1e-11 by the classifier, so every output is 1/classes and a reference compares nothing.
    One training-mode call with momentum 0 stores each layer's batch statistics instead.
    """
    layers = [layer for layer in model.layers if isinstance(layer, keras.layers.BatchNormalization)]
    momenta = [layer.momentum for layer in layers]
    for layer in layers:
        layer.momentum = 0.0
    model([inputs.astype(np.float32)], training=True)  # a functional model takes a list
    for layer, momentum in zip(layers, momenta):
        layer.momentum = momentum


# One model of each family of `tf.keras.applications`, at a small input size (the smallest each
# family accepts, or near it), with 10 logits: each family lays its layers out differently
# (Normalization's captured constants in EfficientNet, exact GELU and LayerNormalization in
# ConvNeXt, hard swish in MobileNetV3, concatenations in DenseNet, Inception and NASNet).
APPLICATION_SIZES = {
    "ConvNeXtTiny": 32,
    "DenseNet121": 32,
    "EfficientNetB0": 32,
    "EfficientNetV2B0": 32,
    "InceptionResNetV2": 75,
    "InceptionV3": 75,
    "MobileNet": 32,
    "MobileNetV2": 32,
    "MobileNetV3Large": 32,
    "MobileNetV3Small": 32,
    "NASNetMobile": 32,
    "ResNet50": 32,
    "ResNet50V2": 32,
    "VGG16": 32,
    "Xception": 71,
}


def application(name):
    def build():
        seed_everything()
        size = APPLICATION_SIZES[name]
        model = getattr(tf.keras.applications, name)(
            weights=None, input_shape=(size, size, 3), classes=10, classifier_activation=None
        )
        calibrate_batch_norm(
            model, np.random.default_rng(SEED + 1).standard_normal((4, size, size, 3))
        )
        return model

    return build


def export(build):
    def save(path):
        build().export(path, format="tf_saved_model", verbose=False)

    return save


def saved_model_save(build):
    """tf.saved_model.save of a Keras 3 model itself (it is a tf.Module under the TF backend)."""

    def save(path):
        model = build()
        spec = [tf.TensorSpec((None, *model.input_shape[1:]), model.inputs[0].dtype)]
        serve = tf.function(lambda x: model(x, training=False), input_signature=spec)
        tf.saved_model.save(model, path, signatures={"serving_default": serve})

    return save


FIXTURES = {
    "module_cond_while": save_module,
    "module_control_flow": save_control_flow_module,
    "keras_mlp": export(mlp),
    "keras_cnn": export(cnn),
    "keras_lstm": export(recurrent(keras.layers.LSTM)),
    "keras_gru": export(recurrent(keras.layers.GRU)),
    "keras_simple_rnn": export(recurrent(keras.layers.SimpleRNN)),
    "keras_embedding": export(embedding),
    "keras_mobilenet_v2": export(mobilenet_v2),
    "keras_grouped_attention": export(grouped_attention),
    "keras_string_and_integer_lookup": export(string_and_integer_lookup),
    "keras_text_vectorization": export(text_vectorization),
    "keras_constants_and_swish": export(constants_and_swish),
    "saved_model_save_keras_mlp": saved_model_save(mlp),
    **{f"application_{name}": export(application(name)) for name in APPLICATION_SIZES},
}


def reference_input(spec, rng):
    shape = [2 if d is None else d for d in spec.shape.as_list()]
    if spec.dtype == tf.string and spec.name == "sentences":
        sentences = ["Apple pie, CHERRY pie! An apple a day...", "banana", ""]
        return np.array(sentences[: shape[0]] if shape else sentences[0], "S")
    if spec.dtype == tf.string:
        words = [*VOCABULARY, "unknown"]  # one known word, one unknown, and so on
        size = int(np.prod(shape))
        return np.array([words[(2 * i + 1) % 4] for i in range(size)], "S").reshape(shape)
    if spec.shape.rank == 0 and spec.dtype.is_integer:
        return np.asarray(rng.integers(0, 3), spec.dtype.as_numpy_dtype)  # e.g. a branch
    if spec.dtype.is_integer:
        return rng.integers(0, 50, shape).astype(spec.dtype.as_numpy_dtype)
    return rng.standard_normal(shape).astype(spec.dtype.as_numpy_dtype)


def write_reference(path, npz_path):
    """Calls the loaded model's serving_default on seeded inputs and stores both sides."""
    serving = tf.saved_model.load(path).signatures["serving_default"]
    rng = np.random.default_rng(SEED)
    _, kwargs = serving.structured_input_signature
    inputs = {name: reference_input(spec, rng) for name, spec in sorted(kwargs.items())}
    outputs = serving(**{k: tf.constant(v) for k, v in inputs.items()})
    arrays = {f"input:{k}": v for k, v in inputs.items()}
    arrays.update({f"output:{k}": v.numpy() for k, v in outputs.items()})
    np.savez(npz_path, **arrays)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=pathlib.Path)
    parser.add_argument("names", nargs="*", help=f"some of: {', '.join(FIXTURES)}")
    args = parser.parse_args(argv)
    unknown = set(args.names) - set(FIXTURES)
    if unknown:
        parser.error(f"unknown fixtures: {sorted(unknown)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    timings_path = args.out_dir / "timings.json"
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    for name in args.names or FIXTURES:
        path = str(args.out_dir / name)
        start = time.perf_counter()
        FIXTURES[name](path)
        timings[name] = {"save_s": round(time.perf_counter() - start, 2)}
        start = time.perf_counter()
        write_reference(path, args.out_dir / f"{name}.npz")
        timings[name]["load_and_call_s"] = round(time.perf_counter() - start, 2)
        print(f"{name}: {timings[name]}", file=sys.stderr)
        timings_path.write_text(json.dumps(timings, indent=1) + "\n")


if __name__ == "__main__":
    main()
