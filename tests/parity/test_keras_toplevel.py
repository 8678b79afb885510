"""The remaining top-level names of `tf.keras` against Keras 3 under TensorFlow 2.21:
`keras.tree`, the scopes (`StatelessScope`, `SymbolicScope`, `RematScope`) and `remat`,
`Function`/`Operation`, `keras.quantizers`, `keras.distribution`, `keras.legacy`,
`keras.optimizers.legacy`, `keras.wrappers`, `keras.visualization`, `keras.preprocessing`,
`keras.export` and `keras.distillation`: values, structures, configs and errors."""

import pytest

from ._outcomes import error_classes, raised
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _tree(tf):
    import collections

    t = tf.keras.tree
    Point = collections.namedtuple("Point", ["x", "y"])
    nested = {"b": [1, None, (2, 3)], "a": Point(4, {"z": 5, "y": 6}), "c": collections.deque([7])}
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    out = [
        t.flatten(nested),
        t.flatten(ordered),
        t.flatten({"b": 1, "a": 2, 1: 3}),
        t.flatten(None),
        t.flatten([None]),
        t.flatten("text"),
        t.flatten({1, 2}),
        [list(p) for p, _ in t.flatten_with_path(nested)],
        repr(t.map_structure(lambda v: v * 10, nested, none_is_leaf=False)),
        repr(t.map_structure(lambda v: v is None, [None, 1])),
        repr(t.map_structure(lambda a, b: a + b, {"x": [1, 2]}, {"x": [10, 20]})),
        repr(t.pack_sequence_as(nested, list(range(8)))),
        repr(t.pack_sequence_as(ordered, ["p", "q"])),
        [t.is_nested(v) for v in (1, None, [], (), {}, "s", Point(1, 2), ordered, {1})],
        repr(t.lists_to_tuples([1, [2, {"a": [3]}]])),
        repr(t.map_shape_structure(lambda s: len(s), {"a": (None, 3), "b": [[1, 2], (4,)]})),
        repr(t.map_structure_up_to([1, 2], lambda v: repr(v), [[1], (2, 3)])),
        repr(t.traverse(lambda v: t.MAP_TO_NONE if v == 2 else None, [1, [2, 3]])),
        repr(t.traverse(lambda v: sum(v) if isinstance(v, list) else None, [1, [2, 3]])),
        repr(t.traverse(lambda v: v * 2 if isinstance(v, int) else None, (1, [2]), top_down=False)),
        raised(lambda: t.map_structure(lambda a, b: a, [1, 2], (1, 2))),
        raised(lambda: t.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])),
        raised(lambda: t.map_structure(lambda a, b: a, {"a": 1}, {"b": 1})),
        raised(lambda: t.map_structure(lambda a, b: a, [1, [2]], [1, 2])),
        raised(lambda: t.map_structure(lambda a, b: a, [1, 2], [1, [2]])),
        raised(lambda: t.pack_sequence_as([1, 2], [1])),
        raised(lambda: t.pack_sequence_as([1, 2], [1, 2, 3])),
        raised(lambda: t.assert_same_structure([1], (1,))),
        raised(lambda: t.assert_same_structure({"a": [1]}, {"a": [2]})),
        raised(lambda: t.assert_same_paths([1], (1,))),
        raised(lambda: t.assert_same_paths({"a": 1}, {"b": 1})),
        raised(lambda: t.map_structure(lambda v: v)),
    ]
    return out


def test_tree(tf_oracle):
    assert_parity(tf_oracle, _tree, helpers=[raised])


def _scopes(tf, device):
    import numpy as np

    k = tf.keras
    out = []
    with tf.device(device):
        f = k.remat(lambda x: tf.sin(x) * x)
        x = tf.constant([0.5, -1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        out += [y, tape.gradient(y, x)]
        dense = k.layers.Dense(2)
        dense.build((None, 3))
        dense.set_weights([np.full((3, 2), 0.5, "float32"), np.array([1.0, 2.0], "float32")])
        kernel, bias = dense.kernel, dense.bias
        mapped = np.arange(6, dtype="float32").reshape(3, 2)
        with k.StatelessScope([(kernel, mapped)]) as scope:
            inside = dense(np.ones((1, 3), "float32"))
            bias.assign_add([10.0, 10.0])
            bias_inside = np.array(bias.numpy())
        out += [
            inside,
            bias_inside,
            kernel.numpy(),
            bias.numpy(),
            scope.get_current_value(kernel),
            scope.get_current_value(bias),
            scope.get_current_value(k.Variable(1.0)) is None,
        ]
        # Keras's TensorFlow optimizers write their variables even in a StatelessScope; the
        # iteration count and metric updates are collected.
        weight = k.Variable(np.ones(2, "float32"))
        optimizer = k.optimizers.Adam(0.1)
        optimizer.build([weight])
        mean = k.metrics.Mean()
        with k.StatelessScope() as scope:
            optimizer.apply([tf.constant([1.0, 2.0])], [weight])
            mean.update_state([1.0, 3.0])
        out += [
            weight.numpy(),
            optimizer.iterations.numpy(),
            scope.get_current_value(optimizer.iterations),
            [v.numpy() for v in optimizer.variables],
            mean.result(),
            [scope.get_current_value(v) for v in mean.variables],
        ]
    out.append(
        error_classes(
            [
                lambda: k.StatelessScope([(tf.Variable(1.0), 1.0)]),
                lambda: k.StatelessScope([(k.Variable(np.ones(2)), np.ones(3))]),
                lambda: k.RematScope(mode="bad"),
            ]
        )
    )
    for mode in ("full", "activations", "larger_than", "list_of_layers", None):
        with k.RematScope(mode=mode, layer_names=["a"]) as scope:
            out.append((scope.mode, scope.output_size_threshold, scope.layer_names))
    with k.SymbolicScope() as scope:
        out.append(type(scope).__name__)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_scopes_and_remat(tf_oracle, device):
    assert_parity(tf_oracle, _scopes, (device,), helpers=[error_classes])


def _function(tf):
    import numpy as np

    k = tf.keras
    a, b = k.Input((3,), name="a"), k.Input((3,), name="b")
    dense = k.layers.Dense(2, name="d")
    added = k.layers.Add(name="add")([a, b])
    fn = k.Function(inputs=[a, b], outputs={"sum": added, "proj": dense(added)}, name="fn")
    dense.set_weights([np.arange(6, dtype="float32").reshape(3, 2), np.ones(2, "float32")])
    x1 = np.arange(6, dtype="float32").reshape(2, 3)
    x2 = np.ones((2, 3), "float32")
    result = fn([x1, x2])
    single = k.Function(a, k.layers.Activation("relu", name="r")(a))
    bare1, bare2 = k.KerasTensor(shape=(None, 3)), k.KerasTensor(shape=(None, 3))
    with_ops = k.Function([bare1, bare2], k.ops.sigmoid(bare1 * bare2 + 1.0))
    with tf.GradientTape() as tape:
        t = tf.constant(x1)
        tape.watch(t)
        y = with_ops([t, x2 * 0.5])
    symbolic = with_ops([k.Input((3,)), k.Input((3,))])
    return [
        sorted(result),
        result["sum"],
        result["proj"],
        single(x1 - 3.0),
        y,
        tape.gradient(y, t),
        [type(op).__name__ for op in with_ops.operations],
        (type(symbolic).__name__, tuple(symbolic.shape)),
        fn.name,
        [op.name for op in fn.operations],
        len(fn.inputs),
        len(fn.outputs),
        isinstance(fn, k.Operation),
        isinstance(dense, k.Operation),
        # (Keras wraps these messages in its call-context traceback: classes are compared.)
        error_classes(
            [
                lambda: fn(x1),
                lambda: fn([x1, np.ones((2, 4), "float32")]),
                lambda: k.Function([], a),
                lambda: k.Function(a, []),
            ]
        ),
        repr(k.Operation(name="op")),
    ]


def test_function_and_operation(tf_oracle):
    assert_parity(tf_oracle, _function, helpers=[raised, error_classes])


def _quantizers(tf, device):
    import numpy as np

    q = tf.keras.quantizers
    x = np.array([[0.3, -1.7, 2.2, 0.0], [5.0, -0.01, 0.4, -3.3]], "float32")
    out = []
    with tf.device(device):
        t = tf.constant(x)
        out += list(q.abs_max_quantize(t, axis=-1))
        out += list(q.abs_max_quantize(t, axis=0, value_range=(-7, 7)))
        out += list(q.abs_max_quantize(t, axis=-1, to_numpy=True))
        quantizer = q.AbsMaxQuantizer(axis=0)
        out += list(quantizer(t))
        out += list(q.AbsMaxQuantizer()(t, axis=1))
        out.append(quantizer.get_config())
        out.append(
            q.compute_float8_scale(
                tf.constant([2.0, 0.0, np.inf]), tf.constant([0.5, 0.25, 4.0]), 448.0, margin=1
            )
        )
        out.append(q.compute_float8_amax_history(t, tf.constant([1.0, 2.0, 3.0])))
        out.append(q.quantize_and_dequantize(t, 0.01, "float8_e4m3fn", "float32"))
        out.append(q.quantize_and_dequantize(t, 0.5, "float8_e5m2", "float32"))
        for kwargs in ({}, {"num_bits": 4, "narrow_range": True}):
            lo, hi = tf.constant(-1.5), tf.constant(2.5)
            with tf.GradientTape() as tape:
                tape.watch([t, lo, hi])
                y = q.fake_quant_with_min_max_vars(t, lo, hi, **kwargs)
                loss = tf.reduce_sum(y * tf.constant([[1.0, 2.0, 3.0, 4.0]]))
            out += [y, *tape.gradient(loss, [t, lo, hi])]
        lo, hi = tf.constant([-1.0, -2.0]), tf.constant([1.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch([t, lo, hi])
            y = q.fake_quant_with_min_max_vars(t, lo, hi, axis=0)
            loss = tf.reduce_sum(y * y)
        out += [y, *tape.gradient(loss, [t, lo, hi])]
        ints = tf.constant([[1, -2, 7], [-8, 3, 0], [5, 5, -1]], tf.int8)
        packed, shape, length = q.pack_int4(ints)
        out += [packed, shape, length, q.unpack_int4(packed, length)]
        packed, shape, length = q.pack_int4(ints, axis=1)
        out += [packed, q.unpack_int4(packed, length, axis=1)]
        u = tf.constant([[1, 15], [9, 0]], tf.uint8)
        packed, _, length = q.pack_int4(u, dtype="uint8")
        out += [packed, q.unpack_int4(packed, length, dtype="uint8")]
    serialized = q.serialize(q.AbsMaxQuantizer(axis=-1, value_range=(-100, 100)))
    out.append(serialized)
    revived = q.deserialize(serialized)
    out.append((type(revived).__name__, revived.get_config()))
    out.append(type(q.get(q.AbsMaxQuantizer())).__name__)
    out.append(q.get(None))
    out.append(
        error_classes(
            [
                lambda: q.AbsMaxQuantizer(value_range=(-200, 127)),
                lambda: q.get("nope"),
                lambda: q.pack_int4(tf.constant([1.0]), dtype="int8"),
                lambda: q.pack_int4(tf.constant([1], tf.int8), dtype="int4"),
                lambda: q.unpack_int4(tf.constant([1.0]), 1),
                lambda: q.Quantizer().get_config(),
            ]
        )
    )
    out.append(q.Quantizer()(5))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_quantizers(tf_oracle, device):
    assert_parity(tf_oracle, _quantizers, (device,), helpers=[error_classes])


def _quantization_configs(tf):
    q = tf.keras.quantizers
    int8 = q.Int8QuantizationConfig()
    int4 = q.Int4QuantizationConfig(
        block_size=None, weight_quantizer=q.AbsMaxQuantizer(value_range=(-8, 7))
    )
    out = []
    for config in (int8, int4, q.Int4QuantizationConfig(), q.Float8QuantizationConfig()):
        revived = type(config).from_config(config.get_config())
        out.append((config.mode, config.get_config(), revived.get_config()))
    out.append(q.serialize(int8))
    out.append(type(q.deserialize(q.serialize(int4))).__name__)
    out.append(q.QuantizationConfig.weight_quantizer_or_default(int8, "d"))
    out.append(q.QuantizationConfig.activation_quantizer_or_default(None, "d"))
    out.append(
        [
            raised(make)
            for make in (
                lambda: q.QuantizationConfig().mode,
                lambda: q.Int8QuantizationConfig(
                    weight_quantizer=q.AbsMaxQuantizer(
                        output_dtype="int16", value_range=(-1000, 1000)
                    )
                ),
                lambda: q.Int4QuantizationConfig(block_size=0),
                lambda: q.Int4QuantizationConfig(weight_quantizer=q.AbsMaxQuantizer()),
                lambda: q.Int4QuantizationConfig(
                    block_size=-1, weight_quantizer=q.AbsMaxQuantizer()
                ),
            )
        ]
    )
    return out


def test_quantization_configs(tf_oracle):
    assert_parity(tf_oracle, _quantization_configs, helpers=[raised])


def _distribution(tf):
    d = tf.keras.distribution
    mesh = d.DeviceMesh((1,), ["batch"], ["cpu:0"])
    layout = d.TensorLayout(["batch", None])
    data_parallel = d.DataParallel(devices=["cpu:0"])
    layout_map = d.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "batch")
    layout_map["bias"] = d.TensorLayout(["batch"])
    model_parallel = d.ModelParallel(layout_map=layout_map)
    out = [
        d.list_devices("cpu"),
        repr(mesh),
        str(mesh),
        mesh.devices.tolist(),
        repr(layout),
        repr(data_parallel),
        data_parallel.num_model_replicas,
        data_parallel.batch_dim_name,
        repr(data_parallel.get_data_layout((4, 3))),
        data_parallel.get_tensor_layout("x"),
        repr(d.DataParallel(device_mesh=mesh)),
        repr(layout_map["dense_1/kernel"]),
        repr(layout_map["bias"]),
        layout_map["other"],
        len(layout_map),
        list(layout_map),
        repr(model_parallel),
        model_parallel.batch_dim_name,
        model_parallel.num_model_replicas,
        repr(model_parallel.get_tensor_layout("dense/kernel")),
        d.distribution(),
    ]
    with data_parallel.scope():
        out.append(repr(d.distribution()))
    d.set_distribution(model_parallel)
    out.append(repr(d.distribution()))
    d.set_distribution(None)
    out.append(d.distribution())

    def set_mesh():
        laid = d.TensorLayout(["batch"], mesh)
        laid.device_mesh = mesh

    out += [
        raised(lambda: d.DeviceMesh((2,), ["batch"], ["cpu:0"])),
        raised(lambda: d.DeviceMesh((), [], ["cpu:0"])),
        raised(lambda: d.DeviceMesh((1, 1), ["batch"], ["cpu:0"])),
        raised(lambda: d.TensorLayout(["model"], mesh)),
        raised(set_mesh),
        raised(lambda: layout.backend_layout),
        raised(lambda: mesh.backend_mesh),
        raised(lambda: d.get_device_count()),
        raised(lambda: d.initialize()),
        raised(lambda: d.distribute_tensor(tf.ones([2]), layout)),
        raised(lambda: d.ModelParallel()),
        raised(lambda: d.ModelParallel(layout_map={})),
        raised(lambda: d.DataParallel(device_mesh="mesh")),
        raised(lambda: layout_map.__setitem__("bias", (None,))),
        raised(lambda: layout_map.__setitem__("x", ["batch"])),
    ]
    layout_map["k.*"] = (None,)
    out.append(raised(lambda: layout_map["kernel"]))
    return out


def test_distribution(tf_oracle):
    assert_parity(tf_oracle, _distribution, helpers=[raised])


def _legacy_and_stubs(tf):
    import numpy as np

    k = tf.keras
    saving = k.legacy.saving
    dense = k.layers.Dense(3, activation="relu", name="d")
    config = saving.serialize_keras_object(dense)
    revived = saving.deserialize_keras_object(config, module_objects={"Dense": k.layers.Dense})
    images = np.arange(2 * 3 * 3 * 3, dtype="float32").reshape(2, 3, 3, 3)
    masks = np.array([[[0, 1, 2], [1, 1, -1], [2, 0, 0]]] * 2, "int32")[..., None]
    return [
        config,
        revived.get_config(),
        saving.serialize_keras_object(None),
        saving.serialize_keras_object(k.activations.relu),
        saving.deserialize_keras_object("relu", custom_objects={"relu": k.activations.relu})
        is k.activations.relu,
        raised(lambda: saving.deserialize_keras_object("relu")),
        raised(lambda: saving.deserialize_keras_object({"class_name": "Nope", "config": {}})),
        raised(lambda: saving.deserialize_keras_object({"config": {}})),
        raised(lambda: saving.deserialize_keras_object(3)),
        raised(lambda: saving.serialize_keras_object(3)),
        [
            raised(lambda c=c: c(learning_rate=0.1))
            for c in (
                k.optimizers.legacy.Adam,
                k.optimizers.legacy.SGD,
                k.optimizers.legacy.RMSprop,
                k.optimizers.legacy.Adagrad,
                k.optimizers.legacy.Ftrl,
                k.optimizers.legacy.Optimizer,
            )
        ],
        [
            raised(lambda c=c: c(None))
            for c in (
                k.wrappers.SKLearnClassifier,
                k.wrappers.SKLearnRegressor,
                k.wrappers.SKLearnTransformer,
            )
        ],
        k.visualization.draw_segmentation_masks(images, masks, num_classes=3),
        k.visualization.draw_segmentation_masks(images, masks, blend=False),
        k.visualization.draw_segmentation_masks(
            images,
            masks,
            num_classes=3,
            color_mapping={0: [1, 2, 3], 1: [4, 5, 6], 2: [7, 8, 9]},
            alpha=0.5,
        ),
        raised(lambda: k.visualization.draw_segmentation_masks(images[0], masks)),
        raised(lambda: k.visualization.draw_segmentation_masks(images, masks * 1.0)),
        raised(
            lambda: k.visualization.draw_bounding_boxes(
                images, {"boxes": np.zeros((2, 1, 4)), "labels": np.zeros((2, 1))}, "xyxy"
            )
        ),
    ]


def test_legacy_wrappers_visualization(tf_oracle):
    assert_parity(tf_oracle, _legacy_and_stubs, helpers=[raised])


def _preprocessing(tf):
    import json

    import numpy as np

    p = tf.keras.preprocessing
    text = p.text
    texts = ["The cat sat on the mat.", "The dog ate my homework!", "cat, dog: cat"]
    tokenizer = text.Tokenizer(num_words=6, oov_token="<oov>")
    tokenizer.fit_on_texts(texts)
    plain = text.Tokenizer()
    plain.fit_on_texts(texts)
    plain.fit_on_sequences([[1, 2], [2, 2, 3]])
    chars = text.Tokenizer(char_level=True)
    chars.fit_on_texts(["abca", "Bd"])
    restored = text.tokenizer_from_json(tokenizer.to_json())
    seq = p.sequence
    series = np.arange(20, dtype="float32").reshape(10, 2)
    gen = seq.TimeseriesGenerator(
        series, np.arange(10), length=3, sampling_rate=2, stride=2, batch_size=2
    )
    reversed_gen = seq.TimeseriesGenerator(
        series, np.arange(10), length=2, reverse=True, start_index=1, end_index=7, batch_size=3
    )
    image = np.arange(4 * 6 * 2, dtype="float32").reshape(4, 6, 2)

    def hash_free(config):
        config = dict(config)
        for key in ("word_docs", "index_docs"):
            config[key] = sorted(json.loads(config[key]).items())
        return config

    return [
        text.text_to_word_sequence("Hello, World!  It's\tme"),
        text.text_to_word_sequence("a-b c", filters="", lower=False, split="-"),
        text.hashing_trick("the cat the dog", 7, hash_function="md5"),
        len(text.one_hot("the cat sat", 10)),
        tokenizer.word_index,
        dict(tokenizer.word_counts),
        # Keras counts documents over a set of words: the order follows string hashing.
        sorted(tokenizer.word_docs.items()),
        sorted(tokenizer.index_docs.items()),
        tokenizer.texts_to_sequences(texts + ["unknown words cat"]),
        tokenizer.sequences_to_texts([[1, 2, 3, 5, 9]]),
        [tokenizer.texts_to_matrix(texts, mode=m) for m in ("binary", "count", "freq", "tfidf")],
        plain.texts_to_sequences(["cat unknown the"]),
        plain.sequences_to_matrix([[1, 2, 2], []], mode="tfidf"),
        plain.document_count,
        chars.word_index,
        chars.texts_to_sequences(["dab"]),
        hash_free(tokenizer.get_config()),
        hash_free(restored.get_config()),
        restored.texts_to_sequences(texts),
        raised(lambda: text.Tokenizer().texts_to_matrix(["a"])),
        raised(lambda: text.Tokenizer(bad=1)),
        raised(lambda: tokenizer.texts_to_matrix(texts, mode="nope")),
        seq.pad_sequences([[1, 2], [3]], maxlen=3, padding="post"),
        len(gen),
        [list(gen[i]) for i in range(len(gen))],
        len(reversed_gen),
        list(reversed_gen[0]),
        raised(lambda: gen.get_config()),
        raised(lambda: seq.TimeseriesGenerator(series, np.arange(9), length=3)),
        raised(lambda: seq.TimeseriesGenerator(series, np.arange(10), length=30)),
        seq.make_sampling_table(6),
        seq.skipgrams([1, 2, 0, 3, 4], 5, window_size=2, negative_samples=0.0, shuffle=False),
        seq.skipgrams(
            [1, 2, 3], 5, window_size=1, negative_samples=0.0, shuffle=False, categorical=True
        ),
        p.image.smart_resize(image, (3, 3)),
        p.image.smart_resize(image[None], (2, 5), interpolation="nearest"),
        raised(lambda: p.image.smart_resize(image[0], (2, 2))),
        raised(lambda: p.image.smart_resize(image, (2,))),
        p.image.apply_channel_shift(image, 5.0, channel_axis=2),
        p.image.apply_affine_transform(image, channel_axis=2, row_axis=0, col_axis=1),
        p.image.random_zoom(image, (1, 1), channel_axis=2, row_axis=0, col_axis=1),
        raised(lambda: p.image.apply_affine_transform(image, theta=10)),
        raised(lambda: p.image.apply_affine_transform(image, row_axis=0, col_axis=0)),
        raised(lambda: p.image.random_zoom(image, (1,))),
        callable(p.timeseries_dataset_from_array),
    ]


def test_preprocessing(tf_oracle):
    assert_parity(tf_oracle, _preprocessing, helpers=[raised])


def _export(tf, directory):
    import os

    import numpy as np

    k = tf.keras
    inp = k.Input((3,))
    model = k.Model(inp, k.layers.Dense(2)(inp))
    model.set_weights(
        [np.arange(6, dtype="float32").reshape(3, 2) / 10, np.array([1.0, -1.0], "float32")]
    )
    archive = k.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint(
        "serve", model.call, input_signature=[tf.TensorSpec((None, 3), tf.float32)]
    )
    archive.add_endpoint(
        "double",
        lambda x: model(x) * 2.0,
        input_signature=[k.InputSpec(shape=(None, 3), dtype="float32")],
    )
    path = os.path.join(directory, "exported")
    archive.write_out(path, verbose=False)
    loaded = tf.saved_model.load(path)
    x = tf.constant(np.ones((2, 3), "float32"))
    unbuilt = k.export.ExportArchive()
    out = [
        loaded.serve(x),
        loaded.double(x),
        loaded.signatures["serving_default"](x),
        sorted(loaded.signatures),
        len(archive.variables),
        len(archive.trainable_variables),
        raised(
            lambda: archive.add_endpoint(
                "serve", model.call, input_signature=[tf.TensorSpec((None, 3))]
            )
        ),
        raised(lambda: archive.add_endpoint("other", model.call)),
        raised(lambda: unbuilt.write_out(os.path.join(directory, "none"))),
        raised(lambda: unbuilt.track(k.layers.Dense(2))),
        raised(lambda: unbuilt.track(3)),
        raised(lambda: unbuilt.add_variable_collection("v", 3)),
        raised(lambda: k.export.ExportArchive(format="onnx")),
        raised(lambda: unbuilt.add_endpoint("e", model.call, [k.InputSpec(shape=(None, 3))])),
        raised(lambda: unbuilt.add_endpoint("e", model.call, [3])),
    ]
    return out


def test_export(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _export, (str(tmp_path),), helpers=[raised])


def _distillation(tf):
    import numpy as np

    dist = tf.keras.distillation
    teacher = tf.constant(np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], "float32"))
    student = tf.constant(np.array([[0.5, 2.5, 0.0], [1.0, -0.5, 2.0]], "float32"))
    kl = dist.LogitsDistillation(temperature=2.0, loss=tf.keras.losses.KLDivergence())
    return [
        dist.LogitsDistillation().compute_loss(teacher, student),
        kl.compute_loss(teacher, student),
        dist.LogitsDistillation(temperature=4, loss="mse").compute_loss(teacher, student),
        dist.LogitsDistillation(loss=["mse", None]).compute_loss(
            [teacher, student], [student, teacher]
        ),
        dist.FeatureDistillation().compute_loss(teacher, student),
        dist.FeatureDistillation(loss="cosine_similarity").compute_loss(teacher, student),
        dist.FeatureDistillation(loss={"a": "mae", "b": "mse"}).compute_loss(
            {"a": teacher, "b": student}, {"a": student, "b": teacher}
        ),
        dist.FeatureDistillation(teacher_layer_name="t").get_config(),
        dist.LogitsDistillation(temperature=5.0).get_config(),
        raised(lambda: dist.LogitsDistillation(temperature=0)),
        raised(lambda: dist.LogitsDistillation(temperature="2")),
        raised(lambda: dist.LogitsDistillation(loss=None)),
        raised(lambda: dist.FeatureDistillation(loss=[None])),
        raised(lambda: dist.DistillationLoss().compute_loss(teacher, student)),
        raised(lambda: dist.DistillationLoss().validate_outputs([teacher], (student,))),
    ]


def test_distillation(tf_oracle):
    assert_parity(tf_oracle, _distillation, helpers=[raised])


def _distiller(tf):
    import numpy as np

    k = tf.keras
    dist = k.distillation

    def model(prefix, units):
        inp = k.Input((4,), name=f"{prefix}_in")
        hidden = k.layers.Dense(units, activation="tanh", name=f"{prefix}_hidden")(inp)
        out = k.layers.Dense(3, name=f"{prefix}_out")(hidden)
        built = k.Model(inp, out, name=prefix)
        rng = np.random.default_rng(len(prefix) + units)
        built.set_weights(
            [rng.uniform(-0.5, 0.5, w.shape).astype("float32") for w in built.get_weights()]
        )
        return built

    x = np.random.default_rng(0).uniform(-1, 1, (8, 4)).astype("float32")
    y = np.random.default_rng(1).uniform(-1, 1, (8, 3)).astype("float32")
    out = []
    teacher, student = model("teacher", 5), model("student", 5)
    distiller = dist.Distiller(
        teacher,
        student,
        [
            dist.LogitsDistillation(temperature=2.0),
            dist.FeatureDistillation(
                teacher_layer_name="teacher_hidden", student_layer_name="student_hidden"
            ),
        ],
        distillation_loss_weights=[1.0, 0.5],
        student_loss_weight=0.3,
    )
    distiller.compile(optimizer=k.optimizers.SGD(0.1), loss="mse")
    out.append(distiller.compute_loss(x, y, student(x)))
    history = distiller.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out.append({key: [float(v) for v in values] for key, values in history.history.items()})
    out.append(student.get_weights())
    out.append(teacher.trainable)
    out.append(distiller.evaluate(x, y, batch_size=8, verbose=0, return_dict=True))
    out.append(distiller.predict(x, verbose=0))
    config = distiller.get_config()
    out.append(sorted(config))
    out.append((config["distillation_losses"], config["student_loss_weight"]))
    other = model("other", 5)
    out.append(
        [
            raised(make)
            for make in (
                lambda: dist.Distiller(teacher, 3, dist.LogitsDistillation()),
                lambda: dist.Distiller(teacher, other, None),
                lambda: dist.Distiller(
                    teacher, other, dist.LogitsDistillation(), student_loss_weight=2.0
                ),
                lambda: dist.Distiller(
                    teacher,
                    other,
                    [dist.LogitsDistillation()],
                    distillation_loss_weights=[1.0, 2.0],
                ),
                lambda: dist.Distiller(
                    teacher, model("narrow", 2), dist.FeatureDistillation(teacher_layer_name="nope")
                ),
                lambda: dist.Distiller(teacher, other, dist.LogitsDistillation()).compile(),
            )
        ]
    )
    return out


def test_distiller(tf_oracle):
    assert_parity(tf_oracle, _distiller, helpers=[raised], rtol=1e-5, atol=1e-5)
