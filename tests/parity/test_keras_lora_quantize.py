"""Keras 3's LoRA (`enable_lora`, ``lora_rank=``) and weight quantization (``quantize("int8")``,
``"int4"``, `Model.quantize`) against Keras under TensorFlow 2.21 on both devices: the
variables (names, paths, dtypes, shapes, trainable flags), outputs, gradients, configs and
weights files that cross between Keras and ferroflow."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _variables(layer):
    return [(v.path, str(v.dtype), tuple(v.shape), bool(v.trainable)) for v in layer.weights]


def _dense_lora(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    x = np.linspace(-1.5, 2.0, 24, dtype=np.float32).reshape(2, 3, 4)
    kernel = (np.arange(12, dtype=np.float32).reshape(4, 3) / 7.0 - 0.8).astype(np.float32)
    with tf.device(device):
        for make in (
            lambda: L.Dense(3, name="plain_lora"),
            lambda: L.Dense(3, lora_rank=2, lora_alpha=3, name="ctor_lora", activation="relu"),
            lambda: L.Dense(3, use_bias=False, name="nobias_lora"),
        ):
            layer = make()
            layer.build((None, 4))
            layer._kernel.assign(kernel)
            if not layer.lora_enabled:
                layer.enable_lora(2, lora_alpha=4)
            layer.lora_kernel_a.assign(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
            layer.lora_kernel_b.assign(np.linspace(0.5, -0.5, 6, dtype=np.float32).reshape(2, 3))
            t = tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch(t)
                y = layer(t)
                loss = tf.reduce_sum(y * y)
            grads = tape.gradient(loss, [t, *layer.trainable_weights])
            out.append((_variables(layer), [v.path for v in layer.trainable_weights]))
            out.append((y, grads, layer.kernel, layer.lora_rank, layer.lora_alpha))
            config = layer.get_config()
            out.append(config)
            out.append(type(layer).from_config(config).get_config() == config)
            out.append(tf.function(lambda v, layer=layer: layer(v))(t))
        out += error_classes(
            [
                lambda: L.Dense(2).enable_lora(2),
                lambda: L.Dense(2, lora_rank=1)(tf.ones((1, 3))) and None,
                lambda: L.Dense(2, kernel_constraint="non_neg", lora_rank=1)(tf.ones((1, 3))),
            ]
        )
        layer = L.Dense(2, lora_rank=1)
        layer.build((None, 3))
        out += error_classes([lambda: layer.enable_lora(1)])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dense_lora(tf_oracle, device):
    assert_parity(
        tf_oracle, _dense_lora, (device,), rtol=1e-5, atol=1e-6, helpers=[_variables, error_classes]
    )


def _dense_quantized(tf, device):
    import numpy as np

    L = tf.keras.layers
    Q = tf.keras.quantizers
    out = []
    x = np.linspace(-1.5, 2.0, 40, dtype=np.float32).reshape(2, 4, 5)
    kernel = np.cos(np.arange(35, dtype=np.float32)).reshape(5, 7).astype(np.float32)
    configs = [
        ("int8", None),
        ("int4", None),
        (None, Q.Int4QuantizationConfig(block_size=2)),
        (None, Q.Int4QuantizationConfig(block_size=-1)),
        (None, Q.Int8QuantizationConfig(activation_quantizer=None)),
        (
            "int4",
            Q.Int4QuantizationConfig(block_size=None, activation_quantizer=Q.AbsMaxQuantizer()),
        ),
    ]
    with tf.device(device):
        for i, (mode, config) in enumerate(configs):
            for lora in (False, True):
                layer = L.Dense(7, activation="tanh", name=f"q{i}_{int(lora)}")
                layer.build((None, 5))
                layer._kernel.assign(kernel)
                layer.bias.assign(np.linspace(-0.1, 0.1, 7, dtype=np.float32))
                layer.quantize(mode, config=config)
                if lora:
                    layer.enable_lora(2)
                    layer.lora_kernel_a.assign(
                        np.linspace(-1, 1, 10, dtype=np.float32).reshape(5, 2)
                    )
                    layer.lora_kernel_b.assign(
                        np.linspace(0.2, -0.2, 14, dtype=np.float32).reshape(2, 7)
                    )
                t = tf.constant(x)
                with tf.GradientTape() as tape:
                    tape.watch(t)
                    y = layer(t)
                    loss = tf.reduce_sum(y * y)
                grads = tape.gradient(loss, [t, *layer.trainable_weights])
                weights = [w.numpy() for w in layer.weights]
                out.append(
                    (_variables(layer), weights, str(layer.dtype_policy), layer.quantization_mode)
                )
                out.append((y, grads))
                out.append(tf.function(lambda v, layer=layer: layer(v))(t))
                out.append(layer.get_config())
                store = {}
                layer.save_own_variables(store)
                out.append({k: np.asarray(v) for k, v in store.items()})
        layer = L.Dense(2)
        out += error_classes(
            [
                lambda: layer.quantize("int8"),
                lambda: L.Dense(2)(tf.ones((1, 2))) is None or L.Dense(2).quantize("int16"),
                lambda: L.Dense(2).quantize(),
            ]
        )
        layer.build((None, 3))
        layer.quantize("int8")
        out += error_classes([lambda: layer.quantize("int8")])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dense_quantized(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _dense_quantized,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[_variables, error_classes],
    )


def _embedding(tf, device):
    import numpy as np

    L = tf.keras.layers
    Q = tf.keras.quantizers
    out = []
    table = np.sin(np.arange(42, dtype=np.float32)).reshape(6, 7).astype(np.float32)
    ids = np.array([[0, 5, 2], [3, 3, 1]], np.int32)
    cases = [
        (None, None),
        ("int8", None),
        ("int4", None),
        (None, Q.Int4QuantizationConfig(block_size=3)),
    ]
    cases.append((None, Q.Int4QuantizationConfig(block_size=None)))
    with tf.device(device):
        for i, (mode, config) in enumerate(cases):
            for lora in (False, True):
                layer = L.Embedding(6, 7, name=f"e{i}_{int(lora)}")
                layer.build()
                layer._embeddings.assign(table)
                if mode or config:
                    layer.quantize(mode, config=config)
                if lora:
                    layer.enable_lora(2, lora_alpha=3)
                    layer.lora_embeddings_a.assign(
                        np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2)
                    )
                    layer.lora_embeddings_b.assign(
                        np.linspace(0.3, -0.3, 14, dtype=np.float32).reshape(2, 7)
                    )
                with tf.GradientTape() as tape:
                    y = layer(ids)
                    loss = tf.reduce_sum(y * y)
                grads = tape.gradient(loss, layer.trainable_weights)
                out.append(
                    (_variables(layer), [w.numpy() for w in layer.weights], str(layer.dtype_policy))
                )
                out.append((y, grads, layer.get_config()))
                out.append(tf.function(lambda v, layer=layer: layer(v))(tf.constant(ids)))
                store = {}
                layer.save_own_variables(store)
                out.append({k: np.asarray(v) for k, v in store.items()})
        layer = L.Embedding(4, 3, lora_rank=2, mask_zero=True)
        out.append(layer(np.array([[0, 1, 2]]))._keras_mask)
        out.append(_variables(layer))
        out += error_classes(
            [
                lambda: L.Embedding(3, 2, embeddings_constraint="non_neg", lora_rank=1).build(),
                lambda: L.Embedding(3, 2).enable_lora(1),
            ]
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_embedding(tf_oracle, device):
    assert_parity(
        tf_oracle, _embedding, (device,), rtol=1e-5, atol=1e-5, helpers=[_variables, error_classes]
    )


def _fill(variable, low, high, scale=None):
    """Assigns ``variable`` fixed values: evenly spaced, or a sine wave times ``scale``."""
    import numpy as np

    n = int(np.prod(variable.shape))
    if scale is not None:
        values = np.sin(np.arange(n, dtype=np.float32) * scale)
    else:
        values = np.linspace(low, high, n, dtype=np.float32)
    variable.assign(values.reshape(tuple(variable.shape)))


def _lora_outcomes(tf, layer, x):
    """A built LoRA layer (rank 3 unless it has one) with fixed weights: its variables,
    output, gradients, config, weights-file arrays and traced output."""
    import numpy as np

    _fill(layer._kernel, 0, 0, scale=1.0)
    if not layer.lora_enabled:
        layer.enable_lora(3)
    _fill(layer.lora_kernel_a, -1, 1)
    _fill(layer.lora_kernel_b, 0.5, -0.5)
    t = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(t)
        y = layer(t)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, [t, *layer.trainable_weights])
    store = {}
    layer.save_own_variables(store)
    saved = [np.asarray(store[k]) for k in sorted(store)]
    traced = tf.function(lambda v: layer(v))(t)
    return [(_variables(layer), y, grads, layer.get_config(), saved), traced]


def _conv_lora(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    cases = [
        (L.Conv1D(4, 3, lora_rank=2, padding="causal", name="c1"), (2, 6, 2)),
        (L.Conv2D(4, 2, groups=2, name="c2"), (1, 4, 5, 2)),
        (L.Conv3D(2, 2, lora_rank=1, lora_alpha=5, name="c3"), (1, 3, 3, 3, 1)),
    ]
    with tf.device(device):
        for layer, shape in cases:
            layer.build(shape)
            x = np.cos(np.arange(np.prod(shape), dtype=np.float32)).reshape(shape)
            out += _lora_outcomes(tf, layer, x)
        out += error_classes(
            [lambda: L.Conv2D(2, 2, kernel_constraint="max_norm", lora_rank=1).build((1, 3, 3, 1))]
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_conv_lora(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _conv_lora,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[_variables, error_classes, _fill, _lora_outcomes],
    )


def _fixed_model(tf, lora):
    import numpy as np

    L = tf.keras.layers
    inputs = tf.keras.Input((5,), dtype="int32")
    x = L.Embedding(9, 4, name="emb", lora_rank=2 if lora else None)(inputs)
    x = L.Flatten()(x)
    x = L.Dense(6, activation="relu", name="hidden", lora_rank=2 if lora else None)(x)
    outputs = L.Dense(3, name="head")(x)
    model = tf.keras.Model(inputs, outputs)
    for w in model.weights:
        n = int(np.prod(w.shape))
        w.assign(np.cos(np.arange(n, dtype=np.float32) * 0.37 + len(w.path)).reshape(w.shape) * 0.5)
    return model


def _model_save(tf, device, directory):
    import numpy as np

    side = "tf" if tf.__name__.startswith("tensorflow") else "ff"
    ids = (np.arange(20, dtype=np.int32).reshape(4, 5) * 7) % 9
    out = []
    with tf.device(device):
        for name, mode, lora in (
            ("int8", "int8", False),
            ("int4", "int4", False),
            ("float8", "float8", False),
            ("lora", None, True),
        ):
            model = _fixed_model(tf, lora)
            if mode:
                model.quantize(mode)
            out.append(
                [(v.path, str(v.dtype), tuple(v.shape), bool(v.trainable)) for v in model.weights]
            )
            out.append([str(layer.dtype_policy) for layer in model.layers[1:]])
            out.append(model.predict(ids, verbose=0))
            model.save(f"{directory}/{name}_{side}.keras")
            model.save_weights(f"{directory}/{name}_{side}.weights.h5")
        model = _fixed_model(tf, True)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        before = [w.numpy() for w in model.weights]
        model.fit(
            ids, np.ones((4, 3), np.float32), epochs=2, batch_size=2, shuffle=False, verbose=0
        )
        out.append([w.numpy() - b for w, b in zip(model.weights, before)])
        out.append([v.path for v in model.trainable_weights])
    return out


def _model_load(tf, device, directory):
    import numpy as np

    ids = (np.arange(20, dtype=np.int32).reshape(4, 5) * 7) % 9
    out = []
    with tf.device(device):
        for name, mode, lora in (
            ("int8", "int8", False),
            ("int4", "int4", False),
            ("float8", "float8", False),
            ("lora", None, True),
        ):
            for side in ("tf", "ff"):
                model = tf.keras.models.load_model(f"{directory}/{name}_{side}.keras")
                out.append(
                    (
                        [str(layer.dtype_policy) for layer in model.layers[1:]],
                        model.predict(ids, verbose=0),
                    )
                )
                out.append([(v.path, str(v.dtype), tuple(v.shape)) for v in model.weights])
                target = _fixed_model(tf, lora)
                if mode:
                    target.quantize(mode)
                target.load_weights(f"{directory}/{name}_{side}.weights.h5")
                out.append(target.predict(ids, verbose=0))
    return out


@pytest.mark.parametrize("device", ["CPU:0"])  # files; devices are covered above
def test_models_and_files_cross(tf_oracle, device, tmp_path):
    helpers = [_fixed_model]
    assert_parity(
        tf_oracle, _model_save, (device, str(tmp_path)), rtol=1e-5, atol=1e-5, helpers=helpers
    )
    assert_parity(
        tf_oracle, _model_load, (device, str(tmp_path)), rtol=1e-5, atol=1e-5, helpers=helpers
    )


def _einsum_lora(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    cases = [
        (L.EinsumDense("ab,bc->ac", 4, bias_axes="c", name="ed1"), (3, 5)),
        (
            L.EinsumDense("abc,cde->abde", (3, 2, 4), bias_axes="de", lora_rank=2, lora_alpha=6),
            (2, 3, 5),
        ),
    ]
    with tf.device(device):
        for layer, shape in cases:
            layer.build(shape)
            x = np.cos(np.arange(np.prod(shape), dtype=np.float32)).reshape(shape)
            out += _lora_outcomes(tf, layer, x)
            out.append(
                type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
            )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_einsum_dense_lora(tf_oracle, device):
    helpers = [_variables, _fill, _lora_outcomes]
    assert_parity(tf_oracle, _einsum_lora, (device,), rtol=1e-5, atol=1e-5, helpers=helpers)


def _einsum_int8(tf, device):
    import numpy as np

    L = tf.keras.layers
    Q = tf.keras.quantizers
    out = []
    cases = [
        ("ab,bc->ac", 4, "c", (3, 5)),
        ("abc,cde->abde", (3, 2, 4), "de", (2, 3, 5)),
        ("abcd,cde->abe", (3, 4), "e", (2, 3, 2, 5)),
        ("abc,dc->abd", (3, 4), "d", (2, 3, 5)),
    ]
    with tf.device(device):
        for i, (equation, output_shape, bias_axes, shape) in enumerate(cases):
            for variant in ("plain", "lora", "weight_only", "int4", "int4_lora", "int4_grouped"):
                layer = L.EinsumDense(
                    equation, output_shape, bias_axes=bias_axes, name=f"e{i}_{variant}"
                )
                x = np.cos(np.arange(np.prod(shape), dtype=np.float32)).reshape(shape)
                layer.build(shape)
                n = int(np.prod(layer._kernel.shape))
                layer._kernel.assign(
                    np.sin(np.arange(n, dtype=np.float32) * 1.3).reshape(layer._kernel.shape)
                )
                config = {
                    "weight_only": Q.Int8QuantizationConfig(activation_quantizer=None),
                    "int4": Q.Int4QuantizationConfig(
                        block_size=None, activation_quantizer=Q.AbsMaxQuantizer()
                    ),
                    "int4_lora": Q.Int4QuantizationConfig(block_size=-1),
                    "int4_grouped": Q.Int4QuantizationConfig(block_size=2),
                }.get(variant)
                layer.quantize(None if config else "int8", config=config)
                if variant.endswith("lora"):
                    layer.enable_lora(2)
                    a, b = layer.lora_kernel_a, layer.lora_kernel_b
                    a.assign(
                        np.linspace(-1, 1, int(np.prod(a.shape)), dtype=np.float32).reshape(a.shape)
                    )
                    b.assign(
                        np.linspace(0.5, -0.5, int(np.prod(b.shape)), dtype=np.float32).reshape(
                            b.shape
                        )
                    )
                t = tf.constant(x)
                with tf.GradientTape() as tape:
                    tape.watch(t)
                    y = layer(t)
                    loss = tf.reduce_sum(y * y)
                grads = tape.gradient(loss, [t, *layer.trainable_weights])
                store = {}
                layer.save_own_variables(store)
                out.append((_variables(layer), [w.numpy() for w in layer.weights], y, grads))
                out.append((layer.get_config(), [np.asarray(store[k]) for k in sorted(store)]))
                out.append(tf.function(lambda v, layer=layer: layer(v))(t))
        inputs = tf.keras.Input((3, 4))
        outputs = L.MultiHeadAttention(2, 3, name="mha")(inputs, inputs)
        model = tf.keras.Model(inputs, outputs)
        for w in model.weights:
            w.assign(np.cos(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        model.quantize("int8")
        out.append(_variables(model))
        out.append(model(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)))
        model = tf.keras.Model(inputs, L.MultiHeadAttention(2, 3, name="mha4")(inputs, inputs))
        for w in model.weights:
            w.assign(np.cos(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        model.quantize("int4")
        out.append(_variables(model))
        out.append(model(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)))
        ellipsis = L.EinsumDense("...b,bc->...c", 4)
        ellipsis.build((2, 3, 5))
        out += error_classes([lambda: ellipsis.quantize("int8"), lambda: ellipsis.quantize("int4")])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_einsum_dense_int8(tf_oracle, device):
    helpers = [_variables, error_classes]
    assert_parity(tf_oracle, _einsum_int8, (device,), rtol=1e-5, atol=1e-5, helpers=helpers)


def _mixed_precision(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    with tf.device(device):
        layer = L.Dense(3, dtype="mixed_float16", lora_rank=2, name="mixed")
        layer.build((None, 4))
        layer._kernel.assign(np.linspace(-0.5, 0.7, 12, dtype=np.float32).reshape(4, 3))
        layer.lora_kernel_a.assign(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
        layer.lora_kernel_b.assign(np.linspace(0.3, -0.3, 6, dtype=np.float32).reshape(2, 3))
        out.append((_variables(layer), layer(x)))
        q = L.Dense(3, dtype="mixed_bfloat16", name="bf16")
        q.build((None, 4))
        q._kernel.assign(np.linspace(-0.5, 0.7, 12, dtype=np.float32).reshape(4, 3))
        q.quantize("int8")
        out.append((_variables(q), str(q.dtype_policy), q(x)))
        half = L.Dense(3, dtype="float16")
        half.build((None, 4))
        out += error_classes(
            [lambda: half.quantize("int8"), lambda: L.Dense(2, dtype="int8_from_float16")]
        )
        out.append(tf.keras.dtype_policies.get("int4/64_from_mixed_bfloat16").get_config())
        out.append(str(tf.keras.dtype_policies.get("float8_from_float32")))
        out.append(
            tf.keras.dtype_policies.serialize(tf.keras.dtype_policies.get("int8_from_float32"))
        )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_precision_and_policies(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _mixed_precision,
        (device,),
        rtol=1e-3,
        atol=1e-3,
        helpers=[_variables, error_classes],
    )


def _filters_and_policy_setter(tf):
    import numpy as np

    L = tf.keras.layers
    out = []
    for filters in ("^keep", ["one", "two"], lambda layer: layer.name.endswith("two")):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((3,)),
                L.Dense(2, name="one"),
                L.Dense(2, name="two"),
                L.Dense(2, name="keep"),
            ]
        )
        model.quantize("int8", filters=filters)
        out.append([str(layer.dtype_policy) for layer in model.layers])
    layer = L.Dense(2)
    layer.build((None, 3))
    layer.dtype_policy = "int8_from_float32"
    out.append((_variables(layer), layer.quantization_mode))
    out += error_classes(
        [
            lambda: model.quantize("int8", filters=3),
            lambda: model.quantize("int8", bogus=1),
            lambda: model.quantize(config="int8"),
            lambda: tf.keras.quantizers.Int4QuantizationConfig(block_size=0),
            lambda: model.quantize("int4", config=tf.keras.quantizers.Int8QuantizationConfig()),
        ]
    )
    out.append(np.asarray(layer(np.ones((1, 3), np.float32))).shape)
    return out


def test_filters_and_policy_setter(tf_oracle):
    assert_parity(tf_oracle, _filters_and_policy_setter, (), helpers=[_variables, error_classes])


def _grouped_quantization(tf):
    import numpy as np

    Q = tf.keras.quantizers
    x = np.cos(np.arange(35, dtype=np.float32) * 1.7).reshape(7, 5)
    x[:, 2] = 0.5
    out = []
    for block_size in (2, 3, 7, 10):
        for to_numpy in (False, True):
            out.append(
                Q.abs_max_quantize_grouped_with_zero_point(
                    x, block_size=block_size, to_numpy=to_numpy
                )
            )
    return out


def test_grouped_quantization(tf_oracle):
    assert_parity(tf_oracle, _grouped_quantization, ())


def _reversible_embedding(tf):
    import numpy as np

    L = tf.keras.layers
    out = []
    for tie, rank in ((True, 2), (False, None)):
        layer = L.ReversibleEmbedding(5, 4, tie_weights=tie, lora_rank=rank, name=f"rev_{tie}")
        layer.build()
        for w in layer.weights:
            w.assign(np.cos(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        store = {}
        layer.save_own_variables(store)
        logits = layer(np.ones((2, 4), np.float32), reverse=True)
        out.append((_variables(layer), [np.asarray(store[k]) for k in sorted(store)], logits))
    return out


def test_reversible_embedding(tf_oracle):
    assert_parity(tf_oracle, _reversible_embedding, (), rtol=1e-5, atol=1e-6, helpers=[_variables])


def _dense_float8(tf, device):
    import numpy as np

    L = tf.keras.layers
    out = []
    x = (np.linspace(-3, 5, 24, dtype=np.float32) ** 3).reshape(4, 6)
    with tf.device(device):
        layer = L.Dense(3, activation="relu", name="f8")
        layer.build((None, 6))
        layer._kernel.assign(np.cos(np.arange(18, dtype=np.float32) * 2.1).reshape(6, 3) * 3)
        layer.bias.assign(np.array([0.1234567, -0.7654321, 1e-3], np.float32))
        layer.quantize("float8")
        layer.inputs_scale.assign(0.05)
        layer.kernel_scale.assign(0.01)
        layer.outputs_grad_scale.assign(0.5)
        layer.inputs_amax_history.assign(np.linspace(0, 200, 1024, dtype=np.float32))
        out.append((_variables(layer), str(layer.dtype_policy), layer.dtype_policy.get_config()))
        t = tf.constant(x)
        # Keras's float8 custom gradients fail under an eager tape in TensorFlow (they read
        # variables): gradients are compared through `fit` below.
        out.append((layer(t), layer(t, training=True)))
        out.append(tf.function(lambda v: layer(v, training=False))(t))
        store = {}
        layer.save_own_variables(store)
        out.append([np.asarray(store[k]) for k in sorted(store, key=int)])
        model = tf.keras.Sequential(
            [tf.keras.Input((6,)), L.Dense(4, name="a"), L.Dense(2, name="b")]
        )
        for w in model.weights:
            w.assign(np.sin(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        model.quantize("float8")
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01, momentum=0.5), loss="mse")
        model.fit(x, np.ones((4, 2), np.float32), epochs=2, batch_size=2, shuffle=False, verbose=0)
        out.append([(v.path, v.numpy()) for v in model.weights])
        out.append([v.path for v in model.optimizer.variables])
        model = tf.keras.Sequential([tf.keras.Input((6,)), L.Dense(2, name="acc")])
        for w in model.weights:
            w.assign(np.sin(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        model.quantize("float8")
        model.compile(
            optimizer=tf.keras.optimizers.SGD(0.01, gradient_accumulation_steps=2), loss="mse"
        )
        model.fit(x, np.ones((4, 2), np.float32), epochs=2, batch_size=1, shuffle=False, verbose=0)
        out.append([(v.path, v.numpy()) for v in model.weights])
        inputs = tf.keras.Input((3, 2))
        hidden = L.EinsumDense("abc,cd->abd", (3, 4), bias_axes="d", name="ed")(inputs)
        model = tf.keras.Model(inputs, L.MultiHeadAttention(2, 2, name="mha")(hidden, hidden))
        for w in model.weights:
            w.assign(np.sin(np.arange(int(np.prod(w.shape)), dtype=np.float32)).reshape(w.shape))
        model.quantize("float8")
        # SGD: the key bias's gradient is zero up to rounding, which Adam would amplify.
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
        data = x.reshape(4, 3, 2)
        model.fit(
            data, np.ones((4, 3, 4), np.float32), epochs=2, batch_size=2, shuffle=False, verbose=0
        )
        out.append([(v.path, v.numpy()) for v in model.weights])
        out.append(model(data))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dense_float8(tf_oracle, device):
    assert_parity(tf_oracle, _dense_float8, (device,), rtol=1e-5, atol=1e-5, helpers=[_variables])
