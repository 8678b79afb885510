"""Keras 3's sparse outputs against Keras under TensorFlow 2.21 on both devices:
`ops.one_hot`, `ops.multi_hot` and `ops.bincount` with ``sparse=True``, and the encoding
layers (CategoryEncoding, Discretization, Hashing, HashedCrossing, StringLookup, IntegerLookup,
TextVectorization) with ``sparse=True`` or sparse inputs -- indices (order included), values
and their dtype, dense shapes -- eagerly and inside `tf.function`; the modes that refuse
``sparse``; sparse KerasTensors in functional models, and a sparse encoding feeding Dense
through `fit` and `predict`."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def parts(tf, value):
    """A result in comparable form: a sparse tensor's indices, values (with their dtype),
    dense shape and static shape; a dense result as it is; an error's class name."""
    if callable(value):
        try:
            value = value()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__
    if isinstance(value, tf.SparseTensor):
        return (
            "sparse",
            value.indices.numpy(),
            value.values.numpy(),
            value.dense_shape.numpy().tolist(),
            value.shape.as_list(),
        )
    return ("dense", value)


def _ops(tf, device):
    import numpy as np

    ops = tf.keras.ops
    x = np.array([[1, -1, 3], [3, 0, 0]])
    sp = tf.SparseTensor([[0, 0], [1, 2], [1, 3]], tf.constant([1, 3, 3], tf.int64), [2, 4])
    calls = [
        lambda: ops.one_hot(x, 4, sparse=True),
        lambda: ops.one_hot(x, 4, axis=0, sparse=True),
        lambda: ops.one_hot(x, 4, axis=1, dtype="int32", sparse=True),
        lambda: ops.one_hot(np.array([2, 0, 5]), 4, dtype="bool", sparse=True),
        lambda: ops.one_hot(2, 4, sparse=True),
        lambda: ops.one_hot(np.zeros([0, 2], "int32"), 4, sparse=True),
        lambda: ops.multi_hot(x, 4, sparse=True),
        lambda: ops.multi_hot(x, 4, dtype="bool", sparse=True),
        lambda: ops.multi_hot(x, 4, dtype="int32", sparse=True),
        lambda: ops.multi_hot(np.array([1, -1, 1]), 4, sparse=True),
        lambda: ops.bincount(np.array([[1, 1, 2], [3, 0, 0]]), sparse=True),
        lambda: ops.bincount(np.array([1, 1, 2, 5]), minlength=8, sparse=True),
        lambda: ops.bincount(np.array([1, 1, 2, 5]), weights=np.array([0.5, 1, 2, 3]), sparse=True),
        lambda: ops.bincount(
            np.array([1, 2], "int8"), weights=np.array([2, 3], "int16"), sparse=True
        ),
        lambda: ops.bincount(sp),
        lambda: ops.bincount(np.array([1, -1]), sparse=True),
        lambda: ops.cast(sp, "float16"),
        lambda: tf.cast(sp, tf.bool),
        lambda: ops.convert_to_tensor(sp, dtype="int32"),
        lambda: ops.matmul(ops.cast(sp, "float32"), np.arange(8, dtype="float32").reshape(4, 2)),
    ]
    traced = tf.function(
        lambda v: (
            ops.one_hot(v, 4, sparse=True),
            ops.multi_hot(v, 4, sparse=True),
            ops.bincount(tf.abs(v), sparse=True),
            tf.cast(ops.one_hot(v, 4, sparse=True), tf.int8),
        )
    )
    with tf.device(device):
        out = [parts(tf, call) for call in calls]
        out.append([parts(tf, r) for r in traced(tf.constant(x))])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_ops(tf_oracle, device):
    assert_parity(tf_oracle, _ops, (device,), helpers=[parts])


def _layers(tf, device):
    import numpy as np

    L = tf.keras.layers
    ints = np.array([[1, 2, 2], [0, 4, 4]])
    floats = np.array([[-1.0, 0.5, 1.5], [2.5, 2.5, 0.0]], "float32")
    strings = np.array([["a", "z", "c"], ["b", "b", "a"]])
    sp_ints = tf.SparseTensor([[0, 0], [1, 2], [1, 1]], tf.constant([1, 3, 3], tf.int64), [2, 4])
    sp_floats = tf.SparseTensor([[0, 1], [1, 0]], [0.5, 2.5], [2, 3])
    sp_strings = tf.SparseTensor([[0, 0], [1, 2]], ["a", "q"], [2, 3])
    ragged = tf.ragged.constant([[1, 2], [3]])
    sorted_ints = tf.sparse.reorder(sp_ints)
    sp_weights = tf.SparseTensor([[0, 0], [1, 1], [1, 2]], [0.5, 2.0, 3.0], [2, 4])
    voc = ["a", "b", "c"]
    calls = []
    for mode in ("one_hot", "multi_hot", "count"):
        enc = L.CategoryEncoding(5, output_mode=mode, sparse=True)
        calls += [
            lambda enc=enc, mode=mode: enc(ints if mode != "one_hot" else np.array([1, 2, 0])),
            lambda enc=enc: enc(np.array([1, 2, 2])),
            lambda enc=enc: enc(np.array(3)),
            lambda enc=enc: enc(np.array([[[1, 2], [2, 2]]])),
        ]
        disc = L.Discretization(bin_boundaries=[0.0, 1.0, 2.0], output_mode=mode, sparse=True)
        calls += [lambda disc=disc: disc(floats), lambda disc=disc: disc(sp_floats)]
        hashing = L.Hashing(4, output_mode=mode, sparse=True)
        calls.append(lambda h=hashing, m=mode: h(strings if m != "one_hot" else strings[:, :1]))
        for lookup in (
            L.StringLookup(vocabulary=voc, output_mode=mode, sparse=True),
            L.StringLookup(vocabulary=voc, mask_token="", output_mode=mode, sparse=True),
        ):
            calls.append(lambda lk=lookup, m=mode: lk(strings if m != "one_hot" else strings[0]))
        ilookup = L.IntegerLookup(vocabulary=[7, 8, 9], output_mode=mode, sparse=True)
        calls.append(lambda lk=ilookup: lk(np.array([7, 9, 10, 8])))
    calls += [
        lambda: L.CategoryEncoding(5, output_mode="count", sparse=True)(
            ints, count_weights=np.array([[0.5, 1, 2], [1, 1, 1]])
        ),
        lambda: L.CategoryEncoding(5, output_mode="one_hot", sparse=True)(np.array([[1], [3]])),
        lambda: L.CategoryEncoding(5, sparse=True)(sp_ints),
        lambda: L.CategoryEncoding(5, output_mode="count")(sp_ints),
        lambda: L.CategoryEncoding(5, sparse=True)(np.array([[1, -1]])),
        lambda: L.Hashing(4)(sp_strings),
        lambda: L.Hashing(4, mask_value="a", output_mode="multi_hot", sparse=True)(sp_strings),
        lambda: L.HashedCrossing(5, output_mode="one_hot", sparse=True)(
            (np.array([1, 2, 3]), np.array(["a", "b", "c"]))
        ),
        lambda: L.HashedCrossing(5, sparse=True)((np.array([1, 2]), np.array(["a", "b"]))),
        lambda: L.HashedCrossing(5)((sp_ints, sp_ints)),
        lambda: L.StringLookup(vocabulary=voc)(sp_strings),
        lambda: L.StringLookup(vocabulary=voc, output_mode="multi_hot", sparse=True)(sp_strings),
        lambda: L.StringLookup(
            vocabulary=voc, output_mode="tf_idf", idf_weights=[0.5, 0.25, 2.0], sparse=True
        )(np.array(["a", "z", "c", "c"])),
        lambda: L.StringLookup(
            vocabulary=voc, output_mode="tf_idf", idf_weights=[0.5, 0.25, 2.0], sparse=True
        )(strings),
        lambda: L.TextVectorization(vocabulary=voc, output_mode="multi_hot", sparse=True)(
            np.array(["a b z", "c c"])
        ),
        lambda: L.TextVectorization(vocabulary=voc, output_mode="count", sparse=True)(
            np.array(["a b z", "c c"])
        ),
        lambda: L.IntegerLookup(vocabulary=[1, 2], output_mode="multi_hot", sparse=True)(ragged),
        lambda: L.IntegerLookup(vocabulary=[1, 2], output_mode="one_hot", sparse=True)(ragged),
        lambda: L.CategoryEncoding(5, output_mode="one_hot", sparse=True)(sp_ints),
        lambda: L.Discretization([0.0, 1.0], output_mode="one_hot")(sp_floats),
        lambda: L.CategoryEncoding(5, output_mode="count", sparse=True)(
            sorted_ints, count_weights=sp_weights
        ),
        lambda: L.CategoryEncoding(5, output_mode="count")(sorted_ints, count_weights=sp_weights),
        lambda: L.CategoryEncoding(5, output_mode="count")(
            sorted_ints, count_weights=np.ones([2, 4])
        ),
        lambda: L.CategoryEncoding(5, output_mode="count")(sorted_ints, sp_weights),
        lambda: L.Discretization([0.0])(floats, None),
        # IntegerLookup reads sparse inputs densely (their implicit zeros are OOV), so
        # unordered indices fail there.
        lambda: L.IntegerLookup(vocabulary=[1, 3], output_mode="count", sparse=True)(sorted_ints),
        lambda: L.IntegerLookup(vocabulary=[1, 3], output_mode="one_hot", sparse=True)(sorted_ints),
        lambda: L.IntegerLookup(vocabulary=[1, 3])(sorted_ints),
        lambda: L.IntegerLookup(vocabulary=[1, 3], invert=True)(sorted_ints),
        lambda: L.IntegerLookup(vocabulary=[1, 3], output_mode="count", sparse=True)(sp_ints),
        lambda: L.IntegerLookup(
            vocabulary=[1, 3], output_mode="tf_idf", idf_weights=[1.0, 2.0], sparse=True
        )(tf.SparseTensor([[0], [2]], tf.constant([1, 3], tf.int64), [4])),
    ]
    refused = [
        lambda: L.Discretization(bin_boundaries=[0.0], output_mode="int", sparse=True),
        lambda: L.Hashing(4, output_mode="int", sparse=True),
        lambda: L.StringLookup(vocabulary=voc, sparse=True),
        lambda: L.IntegerLookup(vocabulary=[1], output_mode="int", sparse=True),
        lambda: L.TextVectorization(vocabulary=voc, output_mode="int", sparse=True),
    ]
    with tf.device(device):
        out = [parts(tf, call) for call in calls]
    return out, error_classes(refused)


@pytest.mark.parametrize("device", DEVICES)
def test_layers(tf_oracle, device):
    assert_parity(tf_oracle, _layers, (device,), rtol=1e-6, helpers=[parts, error_classes])


def _layers_traced(tf, device):
    import numpy as np

    L = tf.keras.layers
    ints = tf.constant([[1, 2, 2], [0, 4, 4]])
    strings = tf.constant([["a", "z", "c"], ["b", "b", "a"]])
    floats = tf.constant([[-1.0, 0.5, 1.5], [2.5, 2.5, 0.0]])
    out = []
    with tf.device(device):
        for mode in ("one_hot", "multi_hot", "count"):
            layers = [
                (L.CategoryEncoding(5, output_mode=mode, sparse=True), ints),
                (L.CategoryEncoding(5, output_mode=mode, sparse=True), ints[None]),
                (L.Discretization([0.0, 1.0, 2.0], output_mode=mode, sparse=True), floats),
                (L.Hashing(4, output_mode=mode, sparse=True), strings),
                (
                    L.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode, sparse=True),
                    strings,
                ),
            ]
            for layer, x in layers:
                out.append(parts(tf, lambda layer=layer, x=x: tf.function(layer)(x)))
        crossing = L.HashedCrossing(5, output_mode="one_hot", sparse=True)
        fn = tf.function(lambda a, b: crossing((a, b)))
        out.append(parts(tf, lambda: fn(tf.constant([1, 2, 3]), tf.constant(["a", "b", "c"]))))
        encoding = L.CategoryEncoding(4, output_mode="multi_hot", sparse=True, dtype="int32")
        out.append(parts(tf, lambda: tf.function(encoding)(np.array([[1, 3]]))))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_layers_in_tf_function(tf_oracle, device):
    assert_parity(tf_oracle, _layers_traced, (device,), helpers=[parts])


def _functional(tf, device):
    import numpy as np

    keras = tf.keras
    L = keras.layers
    ints = keras.Input((3,), dtype="int64")
    texts = keras.Input((2,), dtype="string")
    floats = keras.Input((3,))
    symbolic = [
        L.CategoryEncoding(5, sparse=True)(ints),
        L.CategoryEncoding(5, output_mode="one_hot", sparse=True)(ints),
        L.StringLookup(vocabulary=["a"], output_mode="count", sparse=True)(texts),
        L.HashedCrossing(5, output_mode="one_hot", sparse=True)((ints[:, 0], ints[:, 1])),
        L.Discretization([0.5], output_mode="count", sparse=True)(floats),
        keras.ops.one_hot(ints, 5, sparse=True),
        keras.ops.multi_hot(ints, 5, sparse=True),
        keras.ops.multi_hot(ints, 5, dtype="bool"),
        keras.ops.bincount(ints, sparse=True),
        keras.ops.bincount(keras.Input((3,), dtype="int32", sparse=True)),
    ]
    specs = [(t.shape, t.dtype, t.sparse) for t in symbolic]
    x = np.array([[0.1, 1.2, 2.5], [0.0, 4.0, 4.0], [3.0, 3.0, 3.0], [1.0, 0.0, 0.0]], "float32")
    y = np.ones((4, 2), "float32")
    with tf.device(device):
        encoded = L.Discretization([0.5, 1.5, 2.5], output_mode="count", sparse=True)(floats)
        dense = L.Dense(2)
        model = keras.Model(floats, dense(encoded))
        dense.set_weights([np.arange(8, dtype="float32").reshape(4, 2) / 8, np.zeros(2, "f")])
        model.compile(keras.optimizers.SGD(0.05), "mse")
        history = model.fit(x, y, epochs=2, batch_size=2, shuffle=False, verbose=0)
        encoder = keras.Model(floats, encoded)
        predicted = encoder.predict(x, batch_size=3, verbose=0)
        called = encoder(x)
        lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot", sparse=True)
        words = keras.Model(texts, lookup(texts))
        restored = keras.Model.from_config(words.get_config())
        out = [
            specs,
            history.history["loss"],
            model.get_weights(),
            model.predict(x, verbose=0),
            parts(tf, predicted),
            parts(tf, called),
            parts(tf, restored(np.array([["a", "c"], ["b", "b"]]))),
            lookup.get_config()["sparse"],
            parts(tf, lambda: encoder.predict_on_batch(x)),
        ]
        # An integer sparse encoding (a lookup's counts) into Dense, trained from a dataset.
        words = tf.constant([["a", "b", "c"], ["d", "e", "f"], ["a", "a", "a"], ["b", "b", "c"]])
        counts = L.StringLookup(vocabulary=["a", "b", "c"], output_mode="count", sparse=True)
        dense = L.Dense(1)
        texts3 = keras.Input((3,), dtype="string")
        model = keras.Model(texts3, dense(counts(texts3)))
        dense.set_weights([np.array([[0.1], [0.2], [0.3], [0.4]], "float32"), np.zeros(1, "f")])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        data = tf.data.Dataset.from_tensor_slices((words, y[:, :1])).batch(2)
        out.append(model.fit(data, epochs=2, shuffle=False, verbose=0).history["loss"])
        out += [model.get_weights(), model.predict(words, verbose=0)]
        # Sparse Inputs keep sparse tensors (values cast to the Input's dtype); others
        # make them dense.
        sp_texts = tf.SparseTensor([[0, 0], [1, 2]], ["a", "q"], [2, 3])
        sp_ints = tf.SparseTensor([[0, 0], [1, 2], [1, 1]], [1, 3, 3], [2, 4])
        for sparse in (True, False):
            texts_in = keras.Input((3,), sparse=sparse, dtype="string")
            ints_in = keras.Input((4,), sparse=sparse, dtype="int64")
            lookup = L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot", sparse=True)
            count = L.CategoryEncoding(5, output_mode="count", sparse=sparse)
            models = [
                (keras.Model(texts_in, lookup(texts_in)), sp_texts),
                (keras.Model(ints_in, count(ints_in)), sp_ints),
            ]
            out += [parts(tf, lambda m=m, v=v: m(v)) for m, v in models]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_functional_fit_and_predict(tf_oracle, device):
    assert_parity(tf_oracle, _functional, (device,), rtol=1e-5, atol=1e-6, helpers=[parts])
