"""The last top-level names against TensorFlow: approx_top_k (and tf.math/tf.nn approx_max_k/min_k),
the generic conv (2-D and 3-D), conv2d_backprop_input_v2/filter_v2, extract_volume_patches,
ragged_fill_empty_rows(_grad), nondifferentiable_batch_function and check_pinned on the CPU and the
GPU, eagerly and traced, with gradients where TensorFlow has them; tf.types.experimental's
isinstance answers, tf.graph_util, and tf.losses/metrics/initializers as Keras's."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

X4 = "tf.reshape(tf.range(2 * 5 * 6 * 3, dtype=tf.float32) / 50.0 - 1.0, [2, 5, 6, 3])"
W4 = "tf.reshape(tf.range(3 * 2 * 3 * 4, dtype=tf.float32) / 30.0 - 0.5, [3, 2, 3, 4])"
X5 = "tf.reshape(tf.range(2 * 4 * 5 * 6 * 2, dtype=tf.float32) / 90.0 - 1.0, [2, 4, 5, 6, 2])"
W5 = "tf.reshape(tf.range(2 * 2 * 3 * 2 * 3, dtype=tf.float32) / 30.0 - 0.5, [2, 2, 3, 2, 3])"
V5 = "tf.reshape(tf.range(1 * 5 * 4 * 5 * 2, dtype=tf.float32) / 7.0, [1, 5, 4, 5, 2])"
M = "tf.constant([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]])"

CASES = {
    "approx_top_k": f"tf.approx_top_k({M}, 2)",
    "approx_top_k_ties": "tf.approx_top_k(tf.constant([3.0, 1.0, 2.0, 3.0, 2.0]), 5)",
    "approx_top_k_zero": f"tf.approx_top_k({M}, 0)",
    "approx_top_k_half": f"tf.approx_top_k(tf.cast({M}, tf.float16), 3)",
    "approx_top_k_too_many": f"tf.approx_top_k({M}, 7)",
    "approx_top_k_int": "tf.approx_top_k(tf.constant([3, 1, 2]), 2)",
    "approx_top_k_double": "tf.approx_top_k(tf.constant([3.0, 1.0], tf.float64), 1)",
    "approx_top_k_axis0": f"tf.approx_top_k({M}, 1, reduction_dimension=0)",
    "approx_top_k_min": f"tf.approx_top_k({M}, 1, is_max_k=False)",
    "math_approx_max_k": f"tf.math.approx_max_k({M}, 3, recall_target=0.9)",
    "nn_approx_max_k": f"tf.nn.approx_max_k({M}, 1)",
    "math_approx_min_k": f"tf.math.approx_min_k({M}, 2)",
    "conv2d_valid": f"tf.conv({X4}, {W4}, [1, 1, 1, 1], 'VALID')",
    "conv2d_same_strided": f"tf.conv({X4}, {W4}, [1, 2, 1, 1], 'SAME')",
    "conv2d_dilated": f"tf.conv({X4}, {W4}, [1, 1, 1, 1], 'VALID', dilations=[1, 2, 1, 1])",
    "conv2d_explicit": (
        f"tf.conv({X4}, {W4}, [1, 1, 1, 1], 'EXPLICIT', explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])"
    ),
    # TensorFlow's CPU kernel has channels-last only (UnimplementedError); its GPU one and
    # ferroflow's both layouts: ferroflow's CHANNELS_FIRST, transposed, against TensorFlow's
    # channels-last.
    "conv2d_channels_first": (
        f"tf.conv({X4}, {W4}, [1, 1, 2, 1], 'SAME') if TF else tf.transpose(tf.conv("
        f"tf.transpose({X4}, [0, 3, 1, 2]), {W4}, [1, 1, 1, 2], 'SAME', "
        "data_format='CHANNELS_FIRST'), [0, 2, 3, 1])"
    ),
    "conv2d_batch_dims": (
        f"tf.conv(tf.reshape({X4}, [1, 2, 5, 6, 3]), {W4}, [1, 1, 1, 1], 'VALID', batch_dims=2)"
    ),
    "conv3d_valid": f"tf.conv({X5}, {W5}, [1, 1, 1, 1, 1], 'VALID')",
    "conv3d_same_strided": f"tf.conv({X5}, {W5}, [1, 2, 1, 2, 1], 'SAME')",
    # TensorFlow aborts the process on a 3-D EXPLICIT padding (a failed CHECK); ferroflow pads:
    # against TensorFlow's VALID convolution of the padded input.
    "conv3d_explicit": (
        f"tf.conv(tf.pad({X5}, [[0, 0], [1, 0], [0, 2], [1, 1], [0, 0]]), {W5}, "
        "[1, 1, 2, 1, 1], 'VALID') if TF else "
        f"tf.conv({X5}, {W5}, [1, 1, 2, 1, 1], 'EXPLICIT', "
        "explicit_paddings=[0, 0, 1, 0, 0, 2, 1, 1, 0, 0])"
    ),
    "conv3d_dilated": f"tf.conv({X5}, {W5}, [1, 1, 1, 1, 1], 'VALID', dilations=[1, 1, 2, 1, 1])",
    "conv_groups": f"tf.conv({X4}, {W4}, [1, 1, 1, 1], 'VALID', groups=3)",
    "conv_groups_consistent": (
        "tf.conv(tf.ones([1, 4, 4, 6]), tf.ones([2, 2, 2, 3]), [1, 1, 1, 1], 'VALID', groups=3)"
    ),
    "conv_bad_strides": f"tf.conv({X4}, {W4}, [1, 1], 'VALID')",
    "conv_1d": "tf.conv(tf.ones([2, 7, 3]), tf.ones([3, 3, 4]), [1, 1, 1], 'VALID')",
    "conv_depth_mismatch": (
        f"tf.conv({X4}, {W4}, [1, 1, 1, 1], 'VALID', data_format='CHANNELS_FIRST')"
    ),
    "volume_valid": f"tf.extract_volume_patches({V5}, [1, 2, 2, 3, 1], [1, 1, 1, 1, 1], 'VALID')",
    "volume_valid_strided": (
        f"tf.extract_volume_patches({V5}, [1, 3, 2, 2, 1], [1, 2, 1, 3, 1], 'VALID')"
    ),
    "volume_same": f"tf.extract_volume_patches({V5}, [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], 'SAME')",
    "volume_same_big": f"tf.extract_volume_patches({V5}, [1, 4, 3, 3, 1], [1, 3, 1, 1, 1], 'SAME')",
    "volume_int": (
        "tf.extract_volume_patches(tf.reshape(tf.range(2 * 3 * 3 * 3), [2, 3, 3, 3, 1]), "
        "[1, 2, 2, 2, 1], [1, 1, 1, 1, 1], 'VALID')"
    ),
    "fill_empty_rows": (
        "tf.ragged_fill_empty_rows(tf.constant([1, 1, 3], tf.int64), tf.constant([1.0, 2.0, 3.0]), "
        "tf.constant(5, tf.int64), tf.constant(9.0))"
    ),
    "fill_empty_rows_none_empty": (
        "tf.ragged_fill_empty_rows(tf.constant([0, 1, 1, 2], tf.int64), tf.constant([4, 5, 6, 7]), "
        "tf.constant(3, tf.int64), tf.constant(0))"
    ),
    "fill_empty_rows_all_empty": (
        "tf.ragged_fill_empty_rows(tf.zeros([0], tf.int64), tf.zeros([0]), "
        "tf.constant(3, tf.int64), tf.constant(-1.0))"
    ),
    "fill_empty_rows_int32_ids": (
        "tf.ragged_fill_empty_rows(tf.constant([0, 2]), tf.constant([1.0, 2.0]), "
        "tf.constant(3, tf.int64), tf.constant(0.0))"
    ),
    "fill_empty_rows_grad": (
        "tf.ragged_fill_empty_rows_grad(tf.constant([1, 2, 4], tf.int64), "
        "tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))"
    ),
    "check_pinned": "tf.check_pinned(tf.constant([1.0, 2.0]))",
}


def _case(tf, expression, device, traced):
    def run():
        names = {"tf": tf, "TF": tf.__name__ == "tensorflow"}
        return eval(expression, names)  # noqa: S307 - the test's own expression

    with tf.device(device):
        try:
            return (tf.function(run) if traced else run)()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_ops(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _case, (CASES[name], device, traced), rtol=1e-4, atol=1e-4)


# TensorFlow 2.21's CPU build has no kernel for Conv2DBackpropInputV2/FilterV2 (NotFoundError):
# TensorFlow computes the same values with Conv2DBackpropInput/Filter, which take the input's or
# the filter's shape where V2 takes the tensor itself.
ONES = [1, 1, 1, 1]
EXPLICIT = ("EXPLICIT", [0, 0, 1, 2, 0, 1, 0, 0])
BACKPROPS = {
    "input_valid": ("input", ONES, "VALID", [], ONES, [2, 3, 5, 4]),
    "input_same_strided": ("input", [1, 2, 2, 1], "SAME", [], ONES, [2, 3, 3, 4]),
    "input_explicit": ("input", ONES, *EXPLICIT, ONES, [2, 6, 6, 4]),
    "input_dilated": ("input", ONES, "VALID", [], [1, 2, 1, 1], [2, 1, 5, 4]),
    "filter_valid": ("filter", ONES, "VALID", [], ONES, [2, 3, 5, 4]),
    "filter_same_dilated": ("filter", ONES, "SAME", [], [1, 2, 1, 1], [2, 5, 6, 4]),
    "filter_strided": ("filter", [1, 2, 3, 1], "SAME", [], ONES, [2, 3, 2, 4]),
    "filter_explicit": ("filter", ONES, *EXPLICIT, ONES, [2, 6, 6, 4]),
}


def _backprop(tf, which, strides, padding, explicit, dilations, dy_shape, device, traced):
    def run():
        x = tf.reshape(tf.range(2 * 5 * 6 * 3, dtype=tf.float32) / 50.0 - 1.0, [2, 5, 6, 3])
        w = tf.reshape(tf.range(3 * 2 * 3 * 4, dtype=tf.float32) / 30.0 - 0.5, [3, 2, 3, 4])
        size = 1
        for d in dy_shape:
            size *= d
        dy = tf.reshape(tf.range(size, dtype=tf.float32) / 40.0, dy_shape)
        kw = dict(explicit_paddings=explicit, dilations=dilations)
        if tf.__name__ == "tensorflow":
            if which == "input":
                return tf.raw_ops.Conv2DBackpropInput(
                    input_sizes=tf.shape(x),
                    filter=w,
                    out_backprop=dy,
                    strides=strides,
                    padding=padding,
                    **kw,
                )
            return tf.raw_ops.Conv2DBackpropFilter(
                input=x,
                filter_sizes=tf.shape(w),
                out_backprop=dy,
                strides=strides,
                padding=padding,
                **kw,
            )
        op = tf.conv2d_backprop_input_v2 if which == "input" else tf.conv2d_backprop_filter_v2
        return op(x, w, dy, strides, padding, **kw)

    with tf.device(device):
        return (tf.function(run) if traced else run)()


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BACKPROPS))
def test_conv2d_backprops(tf_oracle, name, device, traced):
    args = (*BACKPROPS[name], device, traced)
    assert_parity(tf_oracle, _backprop, args, rtol=1e-4, atol=1e-4)


# TensorFlow registers no gradient for Conv (LookupError); ferroflow's composition has one,
# checked against the gradients of tf.nn.conv2d/conv3d, which compute the same convolution.
GRADIENTS = {
    "conv2d": (
        "tf.reduce_sum(tf.sin((tf.nn.conv2d if TF else tf.conv)(tf.reshape(x, [1, 3, 2, 2]), "
        "tf.reshape(tf.range(8.0) / 4.0 - 1.0, [2, 1, 2, 2]), [1, 1, 1, 1], 'SAME')))"
    ),
    "conv3d": (
        "tf.reduce_sum(tf.sin((tf.nn.conv3d if TF else tf.conv)(tf.reshape(x, [1, 3, 2, 2, 1]), "
        "tf.reshape(tf.range(8.0) / 4.0 - 1.0, [2, 2, 1, 1, 2]), [1, 2, 1, 1, 1], 'SAME')))"
    ),
    "approx_top_k": "tf.reduce_sum(tf.approx_top_k(x, 2).values * tf.constant([3.0, -1.0]))",
    "approx_max_k": "tf.reduce_sum(tf.math.approx_max_k(x * x, 3)[0])",
    "extract_volume_patches": (
        "tf.reduce_sum(tf.extract_volume_patches(tf.reshape(tf.concat([x, x * 2.0], 0), "
        "[1, 2, 3, 4, 1]), [1, 2, 2, 2, 1], [1, 1, 1, 2, 1], 'SAME') ** 2)"
    ),
}


def _gradient(tf, expression, device, traced):
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            names = {"tf": tf, "x": x, "TF": tf.__name__ == "tensorflow"}
            y = eval(expression, names)  # noqa: S307 - the test's own expression
        return tape.gradient(y, x)

    with tf.device(device):
        x = tf.reshape(tf.range(12.0) / 5.0 - 0.7, [3, 4])
        return (tf.function(run) if traced else run)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _gradient, (GRADIENTS[name], device, traced), rtol=1e-4, atol=1e-4)


def _batch_function(tf, device):
    out = []

    @tf.nondifferentiable_batch_function(1, 4, 10)
    def double(x):
        return x * 2.0

    @tf.nondifferentiable_batch_function(2, 3, 100, allowed_batch_sizes=[3])
    def pair(x, y):
        return x + y, x * y

    def attempt(fn):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    with tf.device(device):
        x = tf.constant([[1.0], [2.0]])
        out.append(double(x))
        out.append(pair(x, tf.constant([[3.0], [4.0]])))
        out.append(attempt(lambda: double(tf.ones([5, 1]))))
        out.append(attempt(lambda: double(tf.constant(1.0))))
        out.append(tf.function(lambda v: double(v) + 1.0)(x))

        def grad():
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = double(x)
            return tape.gradient(y, x)

        out.append(attempt(grad))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_nondifferentiable_batch_function(tf_oracle, device):
    assert_parity(tf_oracle, _batch_function, (device,))


def _types(tf):
    e = tf.types.experimental
    f = tf.function(lambda x: x * 2.0)
    c = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    values = [f, c, tf.TensorSpec([]), tf.constant(1.0), tf.Variable(1.0), 3, lambda: 0]
    answers = {}
    for name in (
        "Callable",
        "ConcreteFunction",
        "GenericFunction",
        "PolymorphicFunction",
        "AtomicFunction",
        "TraceType",
        "SupportsTracingProtocol",
    ):
        answers[name] = [isinstance(v, getattr(e, name)) for v in values]
    answers["generic_is_polymorphic"] = e.GenericFunction is e.PolymorphicFunction
    # (pytest's assertion rewriting adds "@py_builtins"-like names to modules it loads)
    answers["distributed"] = sorted(
        n for n in dir(e.distributed) if n.isidentifier() and n[0] != "_"
    )
    answers["mirrored"] = issubclass(e.distributed.Mirrored, e.distributed.PerReplica)
    answers["function_type_is_signature"] = issubclass(
        e.FunctionType, __import__("inspect").Signature
    )
    answers["tensor_like_union"] = type(e.TensorLike).__name__
    answers["members"] = sorted(n for n in dir(e) if n.isidentifier() and n[0] != "_")
    return answers


def test_types(tf_oracle):
    assert_parity(tf_oracle, _types, ())


def _graph_util(tf):
    # TensorFlow wants a real GraphDef; each side gets an empty one of its own.
    try:
        graph_def = tf.compat.v1.GraphDef()
    except AttributeError:
        graph_def = type("GraphDef", (), {"node": []})()
    return [
        tf.graph_util.import_graph_def(graph_def),
        tf.graph_util.import_graph_def(graph_def, return_elements=[]),
        sorted(n for n in dir(tf.graph_util) if n.isidentifier() and n[0] != "_"),
    ]


def test_graph_util(tf_oracle):
    assert_parity(tf_oracle, _graph_util, ())


def test_graph_util_with_nodes_raises():
    import ferroflow as tf

    class GraphDef:
        node = ["a node"]

    with pytest.raises(NotImplementedError, match="saved_model"):
        tf.graph_util.import_graph_def(GraphDef())
    with pytest.raises(TypeError):
        tf.graph_util.import_graph_def(3)


def _keras_aliases(tf):
    y_true = tf.constant([[0.0, 1.0], [1.0, 1.0]])
    y_pred = tf.constant([[0.2, 0.7], [0.9, 0.4]])
    metric = tf.metrics.Mean()
    metric.update_state([1.0, 2.0, 6.0])
    acc = tf.metrics.BinaryAccuracy()
    acc.update_state(y_true, y_pred)
    return [
        tf.losses.MeanSquaredError()(y_true, y_pred),
        tf.losses.binary_crossentropy(y_true, y_pred),
        tf.losses.Huber(delta=0.3)(y_true, y_pred),
        metric.result(),
        acc.result(),
        tf.initializers.Zeros()([2, 3]),
        tf.initializers.Constant(1.5)([2], dtype=tf.float32),
        tf.initializers.get("ones")([3]),
        tf.losses.MeanSquaredError is tf.keras.losses.MeanSquaredError,
        tf.metrics.Mean is tf.keras.metrics.Mean,
        tf.initializers.Zeros is tf.keras.initializers.Zeros,
    ]


def test_keras_aliases(tf_oracle):
    assert_parity(tf_oracle, _keras_aliases, (), rtol=1e-5, atol=1e-6)


SQRTM = {
    "spd": ([[4.0, 1.0], [1.0, 3.0]], "float32"),
    "nonsymmetric": ([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.5, 0.0, 1.0]], "float64"),
    "complex_eigenvalues": ([[1.0, -2.0], [2.0, 1.0]], "float64"),
    "negative_eigenvalue": ([[-1.0, 0.0], [0.0, 4.0]], "float64"),
    "zero": ([[0.0, 0.0], [0.0, 0.0]], "float32"),
    "one_by_one": ([[9.0]], "float32"),
    "batch": ([[[4.0, 1.0], [1.0, 3.0]], [[5.0, 2.0], [-1.0, 3.0]]], "float32"),
    "empty": ([[], []], "float32"),
    "complex": ([[4.0, 1.0], [1.0, 3.0]], "complex64"),
    "not_square": ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"),
    "vector": ([1.0, 2.0], "float32"),
    "int": ([[1, 0], [0, 1]], "int32"),
    "half": ([[1.0, 0.0], [0.0, 1.0]], "float16"),
}


def _sqrtm(tf, value, dtype, device, traced):
    def run():
        x = tf.constant(value, dtype=dtype)
        if dtype == "float32" and len(value) == 2 and value[0] == []:
            x = tf.zeros([2, 0, 0])
        return tf.matrix_square_root(x), tf.linalg.sqrtm(x)

    with tf.device(device):
        try:
            return (tf.function(run) if traced else run)()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(SQRTM))
def test_matrix_square_root(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _sqrtm, (*SQRTM[name], device, traced), rtol=2e-5, atol=2e-5)


def _sqrtm_gradient(tf, device, traced):
    def run(x):
        weights = tf.constant([[1.0, 2.0, -1.0], [3.0, 4.0, 0.5], [0.0, -2.0, 1.0]], tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.sin(tf.matrix_square_root(x)) * weights)
        return tape.gradient(y, x)

    with tf.device(device):
        x = tf.constant([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.5, 0.0, 1.0]], tf.float64)
        return (tf.function(run) if traced else run)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
def test_matrix_square_root_gradient(tf_oracle, device, traced):
    assert_parity(tf_oracle, _sqrtm_gradient, (device, traced), rtol=1e-6, atol=1e-8)
