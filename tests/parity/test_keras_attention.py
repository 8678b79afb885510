"""Keras 3's attention layers (MultiHeadAttention, GroupQueryAttention, Attention,
AdditiveAttention) and EinsumDense / ReversibleEmbedding against Keras under TensorFlow 2.21
on both devices, with fixed weights: outputs, attention scores, gradients, explicit and
causal masks (both of Keras's computations: the fused one, where a wholly masked row averages
the values, and the explicit-scores one, where it gives zeros), a traced call, configs,
weight paths and shapes, functional output shapes and argument errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def set_fixed_weights(layer, seed=1):
    """Gives every weight of ``layer`` fixed normal values (scaled by 0.5)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    layer.set_weights(
        [(rng.standard_normal(w.shape) * 0.5).astype(w.dtype) for w in layer.get_weights()]
    )


def _mha_outputs(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(0)
    q_np = rng.standard_normal((2, 4, 6)).astype(np.float32)
    v_np = rng.standard_normal((2, 5, 6)).astype(np.float32)
    k_np = rng.standard_normal((2, 5, 3)).astype(np.float32)
    # Row 0 of batch 1 is wholly masked: the fused path averages, the scores path gives 0.
    mask = np.array([[[1, 1, 0, 0, 1]] * 4, [[0] * 5] + [[1, 0, 1, 0, 1]] * 3], bool)
    value_mask = np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], bool)
    out = []
    with tf.device(device):
        q, v, k = tf.constant(q_np), tf.constant(v_np), tf.constant(k_np)
        mha = L.MultiHeadAttention(2, 3)
        mha(q, v)
        set_fixed_weights(mha)
        for kwargs in (
            {},
            {"return_attention_scores": True},
            {"attention_mask": mask},
            {"attention_mask": mask, "return_attention_scores": True},
            {"attention_mask": mask.astype(np.int32)},
            {"value_mask": value_mask},
            {"value_mask": value_mask, "return_attention_scores": True},
        ):
            out.append(mha(q, v, **kwargs))
        out.append(mha(q, q, use_causal_mask=True))
        out.append(mha(q, q, use_causal_mask=True, return_attention_scores=True))
        out.append(mha(q, v, use_causal_mask=True, attention_mask=mask))
        # A key of its own size, with its own mask.
        mk = L.MultiHeadAttention(3, 2, value_dim=4, use_bias=False, output_shape=(2, 5))
        mk(q, v, k)
        set_fixed_weights(mk, 2)
        out.append(mk(q, v, k, key_mask=value_mask))
        out.append(mk(q, v, key=k, key_mask=value_mask, return_attention_scores=True))
        # Gated, with a sliding window.
        mg = L.MultiHeadAttention(2, 3, use_gate=True, sliding_window=2)
        mg(q, q)
        set_fixed_weights(mg, 3)
        out.append(mg(q, q))
        # 4-D inputs: attention over one axis (explicit scores path) and over two.
        x4 = tf.constant(rng.standard_normal((2, 3, 4, 6)).astype(np.float32))
        for axes in ((2,), (1, 2)):
            m4 = L.MultiHeadAttention(2, 3, attention_axes=axes)
            m4(x4, x4)
            set_fixed_weights(m4, 4)
            out.append(m4(x4, x4, return_attention_scores=True))
            out.append(m4(x4, x4, attention_mask=np.ones((2, 3, 4, 3, 4), bool)))
        # With dropout in training, Keras returns the scores before the dropout.
        md = L.MultiHeadAttention(2, 3, dropout=0.5)
        md(q, v)
        set_fixed_weights(md)
        out.append(md(q, v, return_attention_scores=True, training=True)[1])
        # Gradients with respect to the inputs and every weight.
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([q, v])
            y = mha(q, v, attention_mask=mask)
            loss = tf.reduce_sum(y * y)
            ys, scores = mha(q, v, value_mask=value_mask, return_attention_scores=True)
            loss2 = tf.reduce_sum(ys * ys) + tf.reduce_sum(scores * scores)
        out.append(tape.gradient(loss, [q, v] + mha.trainable_weights))
        out.append(tape.gradient(loss2, [q, v] + mha.trainable_weights))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_multi_head_attention(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _mha_outputs,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[set_fixed_weights],
    )


def _other_outputs(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(5)
    q_np = rng.standard_normal((2, 4, 6)).astype(np.float32)
    v_np = rng.standard_normal((2, 5, 6)).astype(np.float32)
    q_mask = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], bool)
    v_mask = np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], bool)
    out = []
    with tf.device(device):
        q, v = tf.constant(q_np), tf.constant(v_np)
        # GroupQueryAttention: 4 query heads over 2 key/value heads.
        gqa = L.GroupQueryAttention(3, 4, 2)
        gqa(q, v)
        set_fixed_weights(gqa)
        out.append([(w.path, tuple(w.shape)) for w in gqa.weights])
        out.append(gqa(q, v))
        out.append(gqa(q, v, return_attention_scores=True))
        out.append(gqa(q, q, use_causal_mask=True))
        out.append(gqa(q, v, query_mask=q_mask, value_mask=v_mask))
        out.append(gqa(q, v, query_mask=q_mask, return_attention_scores=True))
        out.append(gqa(q, v, attention_mask=np.ones((2, 4, 5), bool)))
        # Attention and AdditiveAttention, each score mode, masks, causal, a separate key.
        for layer in (
            L.Attention(),
            L.Attention(use_scale=True),
            L.Attention(score_mode="concat"),
            L.Attention(use_scale=True, score_mode="concat"),
            L.AdditiveAttention(),
            L.AdditiveAttention(use_scale=False),
        ):
            layer([q, v])
            set_fixed_weights(layer)
            out.append(layer([q, v]))
            out.append(layer([q, v, v * 0.5], mask=[q_mask, v_mask]))
            out.append(layer([q, v], mask=[None, v_mask], return_attention_scores=True))
            out.append(layer([q, q], use_causal_mask=True, return_attention_scores=True))
            out.append(layer([q, q], mask=[q_mask, q_mask], use_causal_mask=True))
            with tf.GradientTape() as tape:
                tape.watch([q, v])
                y = layer([q, v], mask=[q_mask, v_mask])
                loss = tf.reduce_sum(y * y)
            out.append(tape.gradient(loss, [q, v] + layer.trainable_weights))
        # ReversibleEmbedding, tied and untied, soft-capped.
        ids = np.array([[1, 0, 3], [4, 2, 0]])
        for kwargs in ({}, {"tie_weights": False, "logit_soft_cap": 2.0}):
            emb = L.ReversibleEmbedding(10, 6, **kwargs)
            emb(ids)
            set_fixed_weights(emb)
            with tf.GradientTape() as tape:
                h = emb(ids)
                logits = emb(q, reverse=True)
                loss = tf.reduce_sum(h * h) + tf.reduce_sum(logits * logits)
            out.append((h, logits, tape.gradient(loss, emb.trainable_weights)))
        # float64 layers compute in float64.
        m64 = L.MultiHeadAttention(2, 3, dtype="float64")
        m64(q, v)
        set_fixed_weights(m64)
        out.append(m64(q, v, return_attention_scores=True))
        # EinsumDense: plain, ellipsis on the left and on the right, bias on some axes.
        x4 = tf.constant(rng.standard_normal((2, 3, 4, 6)).astype(np.float32))
        for equation, shape, bias in (
            ("abc,cd->abd", (None, 5), "d"),
            ("...b,bc->...c", 5, "c"),
            ("abcd,de->abce", (3, 4, 7), "be"),
            ("ab...,bc->ac...", (5, 4, 6), None),
            ("abcd,cde->abe", (3, 2), "e"),
        ):
            layer = L.EinsumDense(equation, output_shape=shape, bias_axes=bias, activation="tanh")
            x = q if equation.startswith("abc,") else x4
            layer(x)
            set_fixed_weights(layer)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = layer(x)
                loss = tf.reduce_sum(y * y)
            out.append((y, [tuple(w.shape) for w in layer.weights], tape.gradient(loss, x)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_other_attention_layers(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _other_outputs,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[set_fixed_weights],
    )


def _traced(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(7)
    q = tf.constant(rng.standard_normal((2, 4, 6)).astype(np.float32))
    mask = tf.constant(np.array([[1, 1, 0, 1], [1, 1, 1, 1]], bool))
    mha = L.MultiHeadAttention(2, 3, dropout=0.5)
    att = L.Attention()
    gqa = L.GroupQueryAttention(2, 2, 1)
    with tf.device(device):
        mha(q, q)
        gqa(q, q)
        set_fixed_weights(mha)
        set_fixed_weights(gqa, 2)

        @tf.function
        def step(x, m):
            a = mha(x, x, value_mask=m, use_causal_mask=True)
            b, s = mha(x, x, attention_mask=m[:, None, :], return_attention_scores=True)
            c = att([x, x], mask=[m, m], use_causal_mask=True)
            d = gqa(x, x, value_mask=m, use_causal_mask=True)
            return a, b, s, c, d

        return step(q, mask), step(q * 2.0, tf.logical_not(mask))


@pytest.mark.parametrize("device", DEVICES)
def test_traced(tf_oracle, device):
    assert_parity(tf_oracle, _traced, (device,), rtol=1e-5, atol=1e-5, helpers=[set_fixed_weights])


def _configs_names_shapes(tf):
    L = tf.keras.layers
    out = []
    layers = [
        L.MultiHeadAttention(2, 3),
        L.MultiHeadAttention(
            4,
            8,
            value_dim=5,
            dropout=0.1,
            use_bias=False,
            output_shape=7,
            attention_axes=2,
            kernel_initializer="he_normal",
            kernel_regularizer="l2",
            seed=3,
        ),
        L.GroupQueryAttention(4, 4, 2, sliding_window=3, use_gate=True),
        L.Attention(use_scale=True, score_mode="concat", dropout=0.2, seed=1),
        L.AdditiveAttention(use_scale=False),
        L.EinsumDense("abc,cd->abd", (None, 4), bias_axes="d", activation="relu"),
        L.ReversibleEmbedding(10, 4, tie_weights=False, logit_soft_cap=30.0),
    ]
    for layer in layers:
        config = layer.get_config()
        back = type(layer).from_config(config)
        out.append((type(layer).__name__, layer.name, config, back.get_config() == config))
    # Built: configs (MultiHeadAttention's attention_axes becomes a tuple), weights' paths.
    x = tf.ones((2, 3, 5, 6))
    for layer in layers[:3]:
        layer(x[:, 0], x[:, 0]) if layer is not layers[1] else layer(x, x)
        out.append(layer.get_config())
        out.append([(w.path, tuple(w.shape), w.trainable) for w in layer.weights])
        out.append(layer.count_params())
    # Functional API output shapes.
    q = tf.keras.Input((4, 6))
    v = tf.keras.Input((7, 6))
    mha = L.MultiHeadAttention(2, 3, output_shape=(2, 5))
    y = mha(q, v)
    y2 = L.MultiHeadAttention(2, 3)(q, q, use_causal_mask=True)
    a = L.Attention()([q, v])
    g = L.GroupQueryAttention(2, 4, 2)(q, v)
    e = L.EinsumDense("abc,cd->abd", (None, 4))(q)
    scored = [
        L.MultiHeadAttention(2, 3)(q, v, return_attention_scores=True),
        L.GroupQueryAttention(2, 4, 2)(q, v, return_attention_scores=True),
        L.Attention()([q, v], return_attention_scores=True),
    ]
    out.append([tuple(t.shape) for t in (y, y2, a, g, e, *[s for pair in scored for s in pair])])
    model = tf.keras.Model([q, v], [y, a, g])
    out.append([w.path for w in model.weights])

    def ones(length):
        return tf.ones((1, length, 3))

    out += error_classes(
        [
            lambda: L.MultiHeadAttention(0, 3),
            lambda: L.MultiHeadAttention(2, -1),
            lambda: L.MultiHeadAttention(2, 3, value_dim=0),
            lambda: L.MultiHeadAttention(2, 3, attention_axes="x"),
            lambda: L.MultiHeadAttention(2, 3, sliding_window=0),
            lambda: L.MultiHeadAttention(2, 3)(
                tf.ones((1, 2, 3)), tf.ones((1, 4, 3)), tf.ones((1, 5, 3))
            ),
            lambda: L.GroupQueryAttention(2, 3, 2),
            lambda: L.MultiHeadAttention(2, 3, dropout=0.1, flash_attention=True),
            lambda: L.MultiHeadAttention(2, 3, flash_attention=True)(ones(2), ones(2)),
            lambda: L.GroupQueryAttention(2, 2, 1, flash_attention=True)(
                ones(2), ones(2), return_attention_scores=True
            ),
            lambda: L.MultiHeadAttention(2, 3, flash_attention=True)(
                tf.ones((1, 2, 2, 3)), tf.ones((1, 2, 2, 3))
            ),
            lambda: L.Attention(score_mode="x"),
            lambda: L.Attention()(tf.ones((1, 2, 3))),
            lambda: L.Attention()([tf.ones((1, 2, 3))]),
            lambda: L.Attention()([tf.ones((1, 2, 3))] * 2, mask=tf.ones((1, 2), tf.bool)),
            lambda: L.EinsumDense("ab,bc", 4)(tf.ones((2, 3))),
            lambda: L.EinsumDense("ab,bc->ad", 4)(tf.ones((2, 3))),
            lambda: L.EinsumDense("ab,bc->ac", 4, bias_axes="x")(tf.ones((2, 3))),
        ]
    )
    return out


def test_configs_names_shapes_and_errors(tf_oracle):
    assert_parity(tf_oracle, _configs_names_shapes, rtol=0, atol=0, helpers=[error_classes])


def _transformer_fit(tf, path):
    import numpy as np

    L = tf.keras.layers
    inputs = tf.keras.Input((8, 16))
    h = L.MultiHeadAttention(2, 8)(inputs, inputs, use_causal_mask=True)
    h = L.LayerNormalization()(L.Add()([inputs, h]))
    f = L.Dense(16)(L.Dense(32, activation="relu")(h))
    h = L.LayerNormalization()(L.Add()([h, f]))
    outputs = L.Dense(1)(L.GlobalAveragePooling1D()(h))
    model = tf.keras.Model(inputs, outputs)
    rng = np.random.default_rng(11)
    model.set_weights(
        [rng.standard_normal(w.shape).astype(np.float32) * 0.3 for w in model.get_weights()]
    )
    x = rng.standard_normal((12, 8, 16)).astype(np.float32)
    y = rng.standard_normal((12, 1)).astype(np.float32)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    return (
        [(w.path, tuple(w.shape)) for w in model.weights],
        history.history["loss"],
        model.get_weights(),
        model.predict(x, verbose=0),
        loaded.predict(x, verbose=0),
    )


def test_transformer_block_fit_and_save(tf_oracle, tmp_path):
    assert_parity(
        tf_oracle, _transformer_fit, (str(tmp_path / "block.keras"),), rtol=1e-4, atol=1e-5
    )


def _propagated_masks(tf, device):
    import numpy as np

    L = tf.keras.layers
    ids = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    out = []
    with tf.device(device):
        emb = L.Embedding(10, 6, mask_zero=True)
        mha = L.MultiHeadAttention(2, 3)
        gqa = L.GroupQueryAttention(3, 2, 1)
        att = L.Attention()
        emb(ids)
        set_fixed_weights(emb)
        for layer, seed in ((mha, 2), (gqa, 3)):
            x = emb(ids)
            layer(x, x)
            set_fixed_weights(layer, seed)
        for layer in (mha, gqa):
            x = emb(ids)
            y, scores = layer(x, x, return_attention_scores=True)
            # MultiHeadAttention takes the masks off its inputs; GroupQueryAttention does not.
            out.append((y, scores, y._keras_mask, getattr(x, "_keras_mask", None)))
            x = emb(ids)
            out.append(layer(x, tf.constant(x.numpy()), use_causal_mask=True))
        x = emb(ids)
        y = att([x, x], return_attention_scores=True)
        out.append((y, y[0]._keras_mask))
        out.append(L.ReversibleEmbedding(10, 4, mask_zero=True)(ids)._keras_mask)
        # Functional: the mask flows from the Embedding through attention into the pooling.
        inputs = tf.keras.Input((5,), dtype="int32")
        h = emb(inputs)
        h = mha(h, h)
        outputs = L.GlobalAveragePooling1D()(h)
        model = tf.keras.Model(inputs, outputs)
        out.append(model(ids))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_masks_from_embedding(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _propagated_masks,
        (device,),
        rtol=1e-5,
        atol=1e-5,
        helpers=[set_fixed_weights],
    )
