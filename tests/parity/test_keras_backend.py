"""`tf.keras.backend` (TensorFlow 2.21's 137 names) against TensorFlow on both devices: the
legacy ``K.*`` functions from one table per family (values, dtypes, shapes), gradients through
``K.rnn`` and ``K.switch``, variables, random draws' shapes, CTC, the global configuration
(restored after each program) and argument errors."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _math(tf, device):
    import numpy as np

    K = tf.keras.backend
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    y = rng.normal(size=(2, 3, 4)).astype(np.float32)
    i = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    b = np.array([[True, False], [True, True]])
    calls = [
        ("abs", (x,), {}),
        ("abs", (i,), {}),
        ("cos", (x,), {}),
        ("sin", (x,), {}),
        ("exp", (x,), {}),
        ("log", (np.abs(x) + 0.1,), {}),
        ("round", (x * 3,), {}),
        ("sign", (i,), {}),
        ("square", (i,), {}),
        ("sqrt", (x,), {}),
        ("pow", (np.abs(x), 1.5), {}),
        ("equal", (i, 2), {}),
        ("not_equal", (x, y), {}),
        ("greater", (x, y), {}),
        ("greater_equal", (i, 0), {}),
        ("less", (x, y), {}),
        ("less_equal", (i, 1), {}),
        ("maximum", (x, y), {}),
        ("minimum", (i, 0), {}),
        ("clip", (x, -0.5, 0.5), {}),
        ("clip", (x, 0.5, -0.5), {}),
        ("clip", (x, None, 0.2), {}),
        ("all", (i,), {}),
        ("all", (b,), {"axis": 1, "keepdims": True}),
        ("any", (i,), {"axis": 0}),
        ("argmax", (x,), {}),
        ("argmin", (x,), {"axis": 1}),
        ("max", (x,), {"axis": 1}),
        ("min", (i,), {"axis": [0, 1], "keepdims": True}),
        ("sum", (x,), {}),
        ("sum", (i,), {"axis": -1}),
        ("prod", (x,), {"axis": 2, "keepdims": True}),
        ("mean", (x,), {"axis": 1}),
        ("mean", (b,), {}),
        ("std", (x,), {"axis": -1}),
        ("std", (b,), {"axis": 0}),
        ("var", (x,), {"keepdims": True}),
        ("cumsum", (x,), {}),
        ("cumsum", (i,), {"axis": 1}),
        ("cumprod", (x,), {"axis": 2}),
        ("dot", (x[0], y[0].T), {}),
        ("dot", (x, rng.normal(size=(5, 4, 2)).astype(np.float32)), {}),
        ("batch_dot", (x, y), {"axes": (2, 2)}),
        ("batch_dot", (x, y), {"axes": 1}),
        ("batch_dot", (x[:, 0], y[:, 0]), {}),
        ("batch_dot", (x[:, 0], y[:, :, 0]), {"axes": (1, 1)}),
        ("batch_dot", (x, y[:, 0]), {"axes": (2, 1)}),
        ("batch_dot", (rng.normal(size=(2, 3, 4, 5)).astype(np.float32), x), {"axes": (2, 1)}),
        ("sum", (np.zeros((0, 3), np.float32),), {"axis": 0}),
    ]
    out = []
    with tf.device(device):
        for name, args, kwargs in calls:
            args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
            out.append((name, getattr(K, name)(*args, **kwargs)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_math(tf_oracle, device):
    assert_parity(tf_oracle, _math, (device,), rtol=1e-5, atol=1e-6)


def _arrays(tf, device):
    import numpy as np

    K = tf.keras.backend
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    img = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3) / 10
    vol = np.arange(2 * 2 * 2 * 2 * 1, dtype=np.float32).reshape(2, 2, 2, 2, 1)
    calls = [
        ("arange", (5,), {}),
        ("arange", (-3,), {}),
        ("arange", (1, 7, 2), {"dtype": "float32"}),
        ("cast", (x, "int32"), {}),
        ("cast_to_floatx", (x.astype(np.int64),), {}),
        ("shape", (x,), {}),
        ("batch_flatten", (x,), {}),
        ("flatten", (x,), {}),
        ("expand_dims", (x,), {}),
        ("expand_dims", (x, 1), {}),
        ("squeeze", (x[:, :1], 1), {}),
        ("reshape", (x, (4, -1)), {}),
        ("permute_dimensions", (x, (2, 0, 1)), {}),
        ("transpose", (x,), {}),
        ("reverse", (x, 1), {}),
        ("reverse", (x, [0, 2]), {}),
        ("tile", (x, (1, 2, 1)), {}),
        ("tile", (x[0, 0], 2), {}),
        ("repeat", (x[0], 2), {}),
        ("repeat_elements", (x, 2, 1), {}),
        ("repeat_elements", (x, 3, -1), {}),
        ("gather", (x, [1, 0, 1]), {}),
        ("one_hot", (np.array([[0, 2], [1, 3]], np.int32), 4), {}),
        ("temporal_padding", (x,), {}),
        ("temporal_padding", (x, (0, 2)), {}),
        ("spatial_2d_padding", (img,), {}),
        ("spatial_2d_padding", (img, ((0, 1), (2, 0)), "channels_first"), {}),
        ("spatial_3d_padding", (vol,), {}),
        ("spatial_3d_padding", (vol, ((0, 1), (1, 0), (0, 0)), "channels_first"), {}),
    ]
    out = []
    with tf.device(device):
        for name, args, kwargs in calls:
            args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
            out.append((name, getattr(K, name)(*args, **kwargs)))
        t = tf.constant(x)
        out.append(K.concatenate([t, t * 2]))
        out.append(K.concatenate([t, t], axis=1))
        out.append(K.stack([t, t], axis=-1))
        out.append((K.int_shape(t), K.ndim(t), K.dtype(t), K.count_params(t)))
        out.append((K.is_sparse(t), K.to_dense(t)))
        sp = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
        out.append((K.is_sparse(sp), K.to_dense(sp), K.eval(sp)))
        out.append(tf.sparse.to_dense(K.concatenate([sp, sp], axis=0)))
        out.append(K.cast_to_floatx([1, 2]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_arrays(tf_oracle, device):
    assert_parity(tf_oracle, _arrays, (device,))


def _nn(tf, device):
    import numpy as np

    K = tf.keras.backend
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    p = rng.uniform(0.05, 0.95, size=(2, 3, 4)).astype(np.float32)
    t = (rng.uniform(size=(2, 3, 4)) > 0.5).astype(np.float32)
    onehot = np.eye(4, dtype=np.float32)[[[0, 1, 2], [3, 0, 1]]]
    labels = np.array([[0, 1, 2], [3, 2, 1]], np.int64)
    calls = [
        ("sigmoid", (x,), {}),
        ("tanh", (x,), {}),
        ("softplus", (x,), {}),
        ("softsign", (x,), {}),
        ("hard_sigmoid", (x * 4,), {}),
        ("elu", (x,), {}),
        ("elu", (x, 0.5), {}),
        ("relu", (x,), {}),
        ("relu", (x * 8,), {"max_value": 6}),
        ("relu", (x,), {"alpha": 0.1}),
        ("relu", (x,), {"alpha": 0.1, "max_value": 0.8, "threshold": 0.3}),
        ("relu", (x,), {"threshold": -0.2, "max_value": 1.0}),
        ("softmax", (x,), {}),
        ("softmax", (x, 1), {}),
        ("softmax", (x, [1, 2]), {}),
        ("l2_normalize", (x,), {"axis": -1}),
        ("l2_normalize", (x,), {}),
        ("in_top_k", (x[:, 0], np.array([1, 2], np.int32), 2), {}),
        ("batch_normalization", (x, 0.1, 2.0, 0.5, 1.5), {}),
        ("bias_add", (x, np.array([1.0, 2.0, 3.0, 4.0], np.float32)), {}),
        ("bias_add", (x, np.array([1.0, 2.0, 3.0], np.float32), "channels_first"), {}),
        ("bias_add", (x, np.ones((3, 4), np.float32)), {}),
        ("bias_add", (x, np.arange(12, dtype=np.float32).reshape(4, 3), "channels_first"), {}),
        ("binary_crossentropy", (t, p), {}),
        ("binary_crossentropy", (t, x), {"from_logits": True}),
        ("binary_focal_crossentropy", (t, p), {}),
        ("binary_focal_crossentropy", (t, x), {"apply_class_balancing": True, "from_logits": True}),
        ("categorical_crossentropy", (onehot, p), {}),
        ("categorical_crossentropy", (onehot, x), {"from_logits": True}),
        ("categorical_crossentropy", (np.transpose(onehot, (0, 2, 1)), p[:, :, :3]), {"axis": 1}),
        ("categorical_focal_crossentropy", (onehot, p), {}),
        ("categorical_focal_crossentropy", (onehot, x), {"from_logits": True, "gamma": 1.0}),
        ("sparse_categorical_crossentropy", (labels, p), {}),
        ("sparse_categorical_crossentropy", (labels, x), {"from_logits": True}),
        ("sparse_categorical_crossentropy", (labels[:, :, None], x), {"from_logits": True}),
        ("sparse_categorical_crossentropy", (labels[:, :2], x[:, :, :2]), {"axis": 1}),
        ("sparse_categorical_crossentropy", (labels, x), {"from_logits": True, "ignore_class": 1}),
    ]
    out = []
    with tf.device(device):
        for name, args, kwargs in calls:
            args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
            out.append((name, getattr(K, name)(*args, **kwargs)))
        masked = K.sparse_categorical_crossentropy(
            tf.constant(labels), tf.constant(x), from_logits=True, ignore_class=2
        )
        out.append(masked._keras_mask)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_nn(tf_oracle, device):
    assert_parity(tf_oracle, _nn, (device,), rtol=1e-5, atol=1e-6)


def _conv(tf, device, data_format):
    import numpy as np

    K = tf.keras.backend
    rng = np.random.default_rng(2)
    first = data_format == "channels_first"

    def layout(a):
        return np.moveaxis(a, -1, 1) if first else a

    seq = layout(rng.normal(size=(2, 7, 3)).astype(np.float32))
    img = layout(rng.normal(size=(2, 6, 5, 3)).astype(np.float32))
    vol = layout(rng.normal(size=(1, 4, 5, 4, 2)).astype(np.float32))
    k1 = rng.normal(size=(3, 3, 2)).astype(np.float32)
    k2 = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)
    k3 = rng.normal(size=(2, 2, 2, 2, 3)).astype(np.float32)
    kt = rng.normal(size=(3, 3, 4, 3)).astype(np.float32)
    dk = rng.normal(size=(2, 2, 3, 2)).astype(np.float32)
    pk = rng.normal(size=(1, 1, 6, 4)).astype(np.float32)
    tshape = (2, 4, 13, 11) if first else (2, 13, 11, 4)
    calls = [
        ("conv1d", (seq, k1), {}),
        ("conv1d", (seq, k1), {"strides": 2, "padding": "same"}),
        ("conv2d", (img, k2), {}),
        ("conv2d", (img, k2), {"strides": (2, 1), "padding": "same"}),
        ("conv2d", (img, k2), {"dilation_rate": (2, 1)}),
        ("conv3d", (vol, k3), {"padding": "same"}),
        ("conv2d_transpose", (img, kt, tshape), {"strides": (2, 2)}),
        ("conv2d_transpose", (img, kt, (None, *tshape[1:])), {"strides": (2, 2)}),
        ("depthwise_conv2d", (img, dk), {"padding": "same"}),
        ("separable_conv2d", (img, dk, pk), {"strides": (2, 2)}),
        ("pool2d", (img, (2, 2)), {"strides": (2, 2)}),
        ("pool2d", (img, (3, 2)), {"padding": "same", "pool_mode": "avg"}),
        ("pool3d", (vol, (2, 2, 2)), {"strides": (2, 2, 2), "pool_mode": "avg"}),
        ("pool3d", (vol, (2, 2, 2)), {"padding": "same"}),
        ("resize_images", (img, 2, 3, data_format), {}),
        ("resize_images", (img, 2, 2, data_format), {"interpolation": "bilinear"}),
        ("resize_volumes", (vol, 2, 1, 2, data_format), {}),
    ]
    if not first:
        # Keras pads axis 1, the time axis only when channels are last.
        calls.append(("conv1d", (seq, k1), {"padding": "causal", "dilation_rate": 2}))
    out = []
    with tf.device(device):
        for name, args, kwargs in calls:
            args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
            if name not in ("resize_images", "resize_volumes"):
                kwargs = {**kwargs, "data_format": data_format}
            out.append((name, getattr(K, name)(*args, **kwargs)))
    return out


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("device", DEVICES)
def test_conv(tf_oracle, device, data_format):
    assert_parity(tf_oracle, _conv, (device, data_format), rtol=1e-4, atol=1e-5)


def _variables(tf, device):
    import numpy as np

    K = tf.keras.backend
    out = []
    with tf.device(device):
        v = K.variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        out.append((K.dtype(v), K.int_shape(v), K.get_value(v), K.eval(v), K.count_params(v)))
        out.append(K.get_value(K.variable(np.arange(3), dtype="int32")))
        K.set_value(v, [[5, 6], [7, 8]])
        out.append(v.numpy())
        out.append(K.update(v, tf.ones((2, 2))).numpy())
        out.append(K.update_add(v, tf.ones((2, 2))).numpy())
        out.append(K.update_sub(v, 0.5 * tf.ones((2, 2))).numpy())
        out.append(K.moving_average_update(v, tf.zeros((2, 2)), 0.9).numpy())
        w = K.variable(np.zeros(3, np.float64), dtype="float64")
        K.batch_set_value([(v, np.eye(2)), (w, [1, 2, 3])])
        out.append(K.batch_get_value([v, w]))
        for make in (K.zeros, K.ones):
            a, b, c = make((2, 3)), make((2, 0)), make((3,), dtype="int32")
            out.append([(type(t).__name__.endswith("Variable"), K.get_value(t)) for t in (a, b, c)])
        out.append(K.get_value(K.eye(3)))
        out.append(K.get_value(K.eye(2, dtype="int32")))
        t = tf.constant([[1.0, 2.0]])
        out.append((K.zeros_like(t), K.ones_like(t, dtype="int32")))
        out.append(K.constant(3))
        out.append(K.constant([1, 2], dtype="int32", shape=(2, 1)))
        out.append(K.get_value(3.5))
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(K.stop_gradient(v) * v)
        out.append(tape.gradient(y, v))
        out.append([s.numpy() for s in K.stop_gradient([t, t])])
        with K.name_scope("block"):
            out.append("entered")
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_variables(tf_oracle, device):
    assert_parity(tf_oracle, _variables, (device,))


def _random(tf, device):
    K = tf.keras.backend
    out = []
    with tf.device(device):
        draws = [
            K.random_normal((200, 50), mean=1.0, stddev=2.0, seed=1),
            K.random_uniform((200, 50), minval=-1.0, maxval=3.0),
            K.truncated_normal((200, 50), stddev=0.5, dtype="float64", seed=2),
            K.random_bernoulli((200, 50), p=0.3, seed=3),
            K.get_value(K.random_normal_variable((200, 50), 0.5, 1.0, seed=4)),
            K.get_value(K.random_uniform_variable((200, 50), 2.0, 4.0, dtype="float64")),
        ]
        for d in draws:
            d = tf.convert_to_tensor(d)
            mean = float(tf.reduce_mean(tf.cast(d, "float64")))
            out.append((d.dtype.name, tuple(d.shape), round(mean, 1)))
        out.append(round(float(tf.reduce_max(tf.abs(draws[2]))), 0) <= 1.0)
        kept = K.dropout(tf.ones((100, 100)), 0.25, seed=5)
        out.append(sorted({round(float(u), 4) for u in tf.unique(tf.reshape(kept, [-1]))[0]}))
        out.append(abs(float(tf.reduce_mean(tf.cast(kept > 0, "float32"))) - 0.75) < 0.03)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_random(tf_oracle, device):
    assert_parity(tf_oracle, _random, (device,))


def _step(tf, K):
    def step(x_t, states):
        h = K.tanh(K.dot(x_t, tf.ones((3, 2)) * 0.3) + K.dot(states[0], tf.ones((2, 2)) * 0.2))
        if len(states) > 1:
            h = h + states[1]
        return h, [h]

    return step


def _control(tf, device):
    import numpy as np

    K = tf.keras.backend
    x = np.linspace(-1, 1, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 0]], bool)
    out = []
    with tf.device(device):
        t = tf.constant(x)
        step = _step(tf, K)
        h0 = [tf.zeros((2, 2))]
        options = [
            {},
            {"go_backwards": True},
            {"mask": tf.constant(mask)},
            {"mask": tf.constant(mask), "zero_output_for_mask": True, "unroll": True},
            {"mask": tf.constant(mask.astype(np.float32)), "go_backwards": True},
            {"constants": [tf.constant([[0.5, -0.5]])]},
            {"return_all_outputs": False},
            {"unroll": True, "go_backwards": True},
        ]
        for kwargs in options:
            last, seq, states = K.rnn(step, t, h0, **kwargs)
            out.append((last, seq, list(states)))
        last, seq, states = K.rnn(step, tf.transpose(t, [1, 0, 2]), h0, time_major=True)
        out.append((last, seq, list(states)))

        @tf.function
        def traced(inputs):
            return K.rnn(step, inputs, h0, mask=tf.constant(mask))[1]

        out.append(traced(t))
        with tf.GradientTape() as tape:
            tape.watch(t)
            last, seq, _ = K.rnn(step, t, h0, mask=tf.constant(mask))
            loss = tf.reduce_sum(seq * seq) + tf.reduce_sum(last)
        out.append(tape.gradient(loss, t))
        # switch: scalar conditions pick a branch, tensors select elementwise.
        a, b = tf.constant(x), tf.constant(-x)
        out.append(K.switch(tf.constant(True), a, b))
        out.append(K.switch(tf.constant(0), lambda: a, lambda: b))
        out.append(K.switch(tf.constant(x[:, :, 0] > 0), a, b))
        out.append(K.switch(tf.constant(x > 0), a, b))
        out.append(K.switch(tf.constant([True, False]), a[:, 0], b[:, 0]))
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = K.switch(a > 0.2, a * a, 3.0 * a)
        out.append(tape.gradient(y, a))
        out.append(K.map_fn(lambda r: r * 2.0, t))
        out.append(K.map_fn(lambda r: tf.cast(tf.reduce_sum(r), "int32"), t, dtype="int32"))
        out.append(K.foldl(lambda acc, r: acc + r, t))
        out.append(K.foldr(lambda acc, r: acc * 0.5 + r, t, initializer=tf.zeros((4, 3))))

        @tf.function
        def symbolic(inputs):
            return K.gradients(tf.reduce_sum(inputs * inputs), [inputs])

        out.append(symbolic(t))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_control_flow_and_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _control, (device,), rtol=1e-5, atol=1e-6, helpers=[_step])


def _ctc(tf):
    import numpy as np

    K = tf.keras.backend
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(2, 6, 4)).astype(np.float32)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    y_true = np.array([[1, 2, 2], [0, 1, 0]], np.int32)
    out = []
    sparse = K.ctc_label_dense_to_sparse(tf.constant(y_true), tf.constant([3, 2]))
    out.append((sparse.indices, sparse.values, sparse.dense_shape))
    out.append(
        K.ctc_batch_cost(
            tf.constant(y_true),
            tf.constant(probs),
            tf.constant([[6], [5]]),
            tf.constant([[3], [2]]),
        )
    )
    out.append(K.ctc_decode(tf.constant(probs), tf.constant([6, 4])))
    out.append(K.ctc_decode(tf.constant(probs), tf.constant([6, 5]), greedy=False, beam_width=8))
    out.append(K.ctc_decode(tf.constant(probs), tf.constant([6, 6]), greedy=False, top_paths=3))
    return out


def test_ctc(tf_oracle):
    assert_parity(tf_oracle, _ctc, (), rtol=1e-4, atol=1e-5)


def _config_and_helpers(tf):
    K = tf.keras.backend
    out = [K.floatx(), K.epsilon(), K.image_data_format(), K.backend()]
    # The global dtype policy is made from floatx once and kept; clearing the session lets
    # the layers below follow the new floatx however many layers this process made before.
    K.clear_session()
    try:
        K.set_floatx("float64")
        K.set_epsilon(1e-3)
        K.set_image_data_format("Channels_First")
        out.append((K.floatx(), K.epsilon(), K.image_data_format()))
        out.append((K.constant(1.0).dtype.name, K.variable(1.0).dtype.name, K.eye(1).dtype.name))
        out.append(K.random_normal((2,)).dtype.name)
        out.append(K.mean(tf.constant([True, False])))
        out.append(K.cast_to_floatx([1]).dtype.name)
        out.append(K.binary_crossentropy(tf.constant([1.0, 0.0]), tf.constant([1.0, 0.0])))
        out.append(K.bias_add(tf.ones((1, 2, 3)), tf.constant([1.0, 2.0])))
        out.append(tf.keras.ops.ones((2,)).dtype)
        out.append(tf.keras.ops.sqrt(tf.constant([4])).dtype)
        out.append(tf.keras.losses.binary_crossentropy([[1.0, 0.0]], [[1.0, 0.0]]))
        out.append(tf.keras.layers.Conv2D(2, 1).data_format)
        out.append(tf.keras.initializers.GlorotUniform(seed=1)((2, 2)).dtype)
        out.append(tf.keras.layers.Dense(2)(tf.ones((1, 3), "float64")).dtype)
        out.append((tf.keras.Input((3,)).dtype, tf.keras.metrics.Mean().dtype))
        out.append(tf.keras.layers.MaxPooling2D().data_format)
        out.append(K.standardize_dtype(None))
        out.append(K.result_type())
    finally:
        K.set_floatx("float32")
        K.set_epsilon(1e-7)
        K.set_image_data_format("channels_last")
    out.append((K.floatx(), K.epsilon(), K.image_data_format()))
    out.append(
        [K.standardize_dtype(d) for d in (None, int, float, bool, "float16", tf.int8, "int")]
    )
    out.append([K.result_type(*a) for a in (("int32", float), ("int8", "uint8"), (int,), ())])
    out.append([K.is_float_dtype(d) for d in ("bfloat16", "int32", float)])
    out.append([K.is_int_dtype(d) for d in ("uint8", "float32", int, bool)])
    K.clear_session()
    out.append([K.get_uid("foo"), K.get_uid("foo"), K.get_uid(), K.get_uid("bar")])
    K.clear_session()
    out.append(K.get_uid("foo"))
    out.append([K.is_keras_tensor(tf.keras.Input((3,))), K.is_keras_tensor(tf.ones(2))])
    return out


def test_config_and_helpers(tf_oracle):
    assert_parity(tf_oracle, _config_and_helpers, ())


def _errors(tf):
    import numpy as np

    K = tf.keras.backend
    x = tf.ones((2, 3, 4))
    img = tf.ones((1, 4, 4, 2))
    k = tf.ones((2, 2, 2, 1))
    return error_classes(
        [
            lambda: K.set_floatx("int32"),
            lambda: K.set_image_data_format("nhwc"),
            lambda: K.standardize_dtype("floaty"),
            lambda: K.standardize_dtype("float"),
            lambda: K.standardize_dtype(object),
            lambda: K.standardize_dtype("double"),
            lambda: K.result_type("float8_e4m3fn", "float32"),
            lambda: K.batch_dot(tf.ones((2,)), x),
            lambda: K.batch_dot(x, tf.ones((3, 4, 2))),
            lambda: K.batch_dot(x, x, axes=0),
            lambda: K.batch_dot(x, x, axes=((1, 2), (1, 2))),
            lambda: K.batch_dot(x, x, axes=(1, 2)),
            lambda: K.softmax(tf.ones((3,))),
            lambda: K.repeat(x, 2),
            lambda: K.temporal_padding(x, (1, 2, 3)),
            lambda: K.spatial_2d_padding(img, ((1, 1),)),
            lambda: K.spatial_3d_padding(tf.ones((1, 2, 2, 2, 1)), ((1, 1), (1, 1), (1,))),
            lambda: K.spatial_2d_padding(img, data_format="nhwc"),
            lambda: K.bias_add(x, tf.ones((1, 1, 1))),
            lambda: K.bias_add(x, tf.ones(4), data_format="nhwc"),
            lambda: K.conv2d(img, k, padding="full"),
            lambda: K.conv2d(img, k, data_format="NHWC"),
            lambda: K.pool2d(img, (2, 2, 2)),
            lambda: K.pool2d(img, (2, 2), strides=(1,)),
            lambda: K.pool2d(img, (2, 2), pool_mode="min"),
            lambda: K.separable_conv2d(img, k, tf.ones((1, 1, 2, 1)), strides=(1,)),
            lambda: K.resize_images(img, 2, 2, "nhwc"),
            lambda: K.resize_images(img, 2, 2, "channels_last", interpolation="cubic"),
            lambda: K.resize_volumes(tf.ones((1, 2, 2, 2, 1)), 2, 2, 2, "nhwc"),
            lambda: K.conv2d_transpose(img, k, (1, 8, 8, 2), dilation_rate=(2, 1)),
            lambda: K.categorical_crossentropy(tf.ones((2, 3)), tf.ones((2, 4))),
            lambda: K.switch(tf.ones((2, 2, 2)) > 0, tf.ones((2, 2)), tf.ones((2, 2))),
            lambda: K.rnn(lambda a, s: (a, s), tf.ones((2, 3)), [tf.ones((2, 3))]),
            lambda: K.gradients(tf.reduce_sum(x), [x]),
            lambda: K.add(x, x),
            lambda: K.cast(np.array(["a"]), "float32"),
        ]
    )


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, (), helpers=[error_classes])


def _traced(tf, device):
    import numpy as np

    K = tf.keras.backend
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    y = rng.normal(size=(2, 4, 5)).astype(np.float32)
    img = rng.normal(size=(2, 3, 3, 2)).astype(np.float32)
    kt = rng.normal(size=(2, 2, 3, 2)).astype(np.float32)
    labels = np.array([[0, 1, 2], [3, 2, 1]], np.int64)
    any3 = tf.TensorSpec([None, None, None], tf.float32)

    @tf.function(input_signature=[any3, any3, tf.TensorSpec([None, 3, 3, 2], tf.float32)])
    def unknown_dims(a, b, images):
        return [
            K.batch_dot(a, b),
            K.batch_flatten(a),
            K.dot(a, b[0]),
            K.repeat_elements(a, 2, 1),
            K.resize_images(images, 2, 1, "channels_last"),
            K.conv2d_transpose(images, kt, (None, 6, 6, 3), strides=(2, 2), padding="same"),
            K.sparse_categorical_crossentropy(labels, a, from_logits=True),
            K.shape(a),
        ]

    with tf.device(device):
        return unknown_dims(tf.constant(x), tf.constant(y), tf.constant(img))


@pytest.mark.parametrize("device", DEVICES)
def test_traced_with_unknown_dimensions(tf_oracle, device):
    assert_parity(tf_oracle, _traced, (device,), rtol=1e-5, atol=1e-5)


def _dtypes(tf, device):
    import numpy as np

    K = tf.keras.backend
    names = ["sqrt", "square", "exp", "mean", "std", "var", "sum", "max", "cumsum"]
    names += ["sigmoid", "softplus", "hard_sigmoid", "elu", "relu", "round"]
    out = []
    with tf.device(device):
        for dtype in ("float16", "float64", "int32", "int64", "bool"):
            x = tf.constant(np.arange(-3, 3).reshape(2, 3).astype(dtype))
            # On integers TensorFlow's l2_normalize raises TypeError, ferroflow's core op
            # InvalidArgumentError: compared on floats only.
            for name in names + (["l2_normalize"] if dtype.startswith("float") else []):
                try:
                    y = getattr(K, name)(x)
                    out.append((dtype, name, y.dtype.name, y))
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out.append((dtype, name, type(e).__name__))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_dtypes(tf_oracle, device):
    assert_parity(tf_oracle, _dtypes, (device,), rtol=1e-3, atol=1e-3)
