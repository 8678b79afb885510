"""The remaining top-level names against TensorFlow: array ops (dynamic_partition/stitch,
tensor_scatter_nd_min/max, space_to_batch/batch_to_space, histogram bins, case, vectorized_map,
bitcast, random_index_shuffle, edit_distance, parallel_stack, guarantee_const, atan2) on the CPU
and the GPU, eagerly and traced, with gradients; the framework names (DeviceSpec, name scopes,
control_dependencies, init_scope, timestamp, version, sysconfig, tensor protos, conversion
functions, variable creator scopes, CriticalSection, py_function/numpy_function, initializers) and
TensorFlow 1's graph names."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


ARRAY_CASES = {
    "dynamic_partition": "tf.dynamic_partition(x, [0, 2, 1, 0], 3)",
    "dynamic_partition_2d": (
        "tf.dynamic_partition(x, [[0, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0]], 2)"
    ),
    "dynamic_stitch": "tf.dynamic_stitch([[0, 2], [1, 2]], [x[:2], x[2:]])",
    "dynamic_stitch_gap": "tf.dynamic_stitch([[0, 5]], [x[:2]])",
    "scatter_min": "tf.tensor_scatter_nd_min(x, [[1], [1], [3]], x[:3] * -1.0 + 0.5)",
    "scatter_max": "tf.tensor_scatter_nd_max(x, [[0, 1], [2, 2], [0, 1]], [5.0, -1.0, 7.0])",
    "space_to_batch": "tf.space_to_batch_nd(tf.reshape(x, [1, 4, 3, 1]), [2, 3], [[0, 0], [0, 0]])",
    "space_to_batch_pad": "tf.space_to_batch(tf.reshape(x, [2, 2, 3]), [3], [[1, 0]])",
    "batch_to_space": "tf.batch_to_space(tf.reshape(x, [4, 1, 3, 1]), [2, 2], [[0, 1], [1, 0]])",
    "required_paddings": "tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]])",
    "histogram_bins": "tf.histogram_fixed_width_bins(x, [-1.0, 2.0], nbins=4)",
    "histogram_bins_int64": "tf.histogram_fixed_width_bins(x, [0.0, 1.0], 3, dtype=tf.int64)",
    "case": (
        "tf.case([(tf.reduce_sum(x) > 100.0, lambda: x * 2.0), "
        "(tf.reduce_sum(x) > 0.0, lambda: x - 1.0)], default=lambda: x)"
    ),
    "case_default": "tf.case([(tf.reduce_sum(x) < -100.0, lambda: x * 2.0)], default=lambda: -x)",
    "vectorized_map": "tf.vectorized_map(lambda r: tf.reduce_sum(r * r), x)",
    "vectorized_map_nested": "tf.vectorized_map(lambda r: (r[0], r * 2.0), x)",
    "guarantee_const": "tf.guarantee_const(x) + 1.0",
    "atan2": "tf.atan2(x, x[::-1] - 0.5)",
}


def _array_case(tf, expression, device, traced):
    def run(x):
        return eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression

    with tf.device(device):
        x = tf.reshape(tf.range(12.0) / 5.0 - 0.7, [4, 3])
        try:
            return (tf.function(run) if traced else run)(x)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_array_ops(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _array_case, (ARRAY_CASES[name], device, traced))


GRADIENTS = {
    "dynamic_partition": "tf.reduce_sum(tf.dynamic_partition(x, [0, 2, 1, 0], 3)[0] ** 2)",
    "dynamic_stitch": (
        "tf.reduce_sum(tf.dynamic_stitch([[0, 2], [1, 2]], [x[:2], x[2:] * 3.0]) * "
        "tf.reshape(tf.range(9.0), [3, 3]))"
    ),
    "scatter_min": (
        "tf.reduce_sum(tf.tensor_scatter_nd_min(x, [[1], [1], [3]], x[:3] * -1.0 + 0.5) * "
        "tf.reshape(tf.range(12.0), [4, 3]))"
    ),
    "scatter_max_ties": (
        "tf.reduce_sum(tf.tensor_scatter_nd_max(x * 0.0, [[0, 1], [0, 1]], x[0, :2] * 0.0))"
    ),
    "space_to_batch": (
        "tf.reduce_sum(tf.space_to_batch_nd(tf.reshape(x, [1, 4, 3, 1]), [2, 1], [[1, 1], [0, 0]]) "
        "* tf.reshape(tf.range(18.0), [2, 3, 3, 1]))"
    ),
    "batch_to_space": (
        "tf.reduce_sum(tf.batch_to_space(tf.reshape(x, [4, 1, 3, 1]), [2, 2], [[0, 1], [1, 0]]) "
        "** 2)"
    ),
    "case": (
        "tf.case([(tf.reduce_sum(x) > 0.0, lambda: tf.reduce_sum(x * x))], default=lambda: 0.0)"
    ),
    "vectorized_map": "tf.reduce_sum(tf.vectorized_map(lambda r: tf.sin(r) * r, x))",
}


def _gradient(tf, expression, device, traced):
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = eval(expression, {"tf": tf, "x": x})  # noqa: S307 - the test's own expression
        return tape.gradient(y, x)

    with tf.device(device):
        x = tf.reshape(tf.range(12.0) / 5.0 - 0.7, [4, 3])
        return (tf.function(run) if traced else run)(x)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_array_gradients(tf_oracle, name, device, traced):
    assert_parity(tf_oracle, _gradient, (GRADIENTS[name], device, traced))


def _array_errors(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    return [
        _outcome(lambda: tf.dynamic_partition(x, [0, 3, 1], 2)),
        _outcome(lambda: tf.dynamic_partition(x, [0, 1], 2)),
        _outcome(lambda: tf.tensor_scatter_nd_min(x, [[5]], [0.0])),
        _outcome(lambda: tf.tensor_scatter_nd_max(x, [[-1]], [0.0])),
        _outcome(lambda: tf.parallel_stack([x, x])),
        _outcome(lambda: tf.case([(tf.constant(False), lambda: x)])),
        _outcome(lambda: tf.case([(tf.constant(True), 3)])),
        _outcome(lambda: tf.space_to_batch_nd(tf.zeros([1, 5, 1]), [2], [[0, 0]])),
        _outcome(lambda: tf.batch_to_space(tf.zeros([3, 2, 1]), [2], [[0, 0]])),
        _outcome(lambda: tf.guarantee_const(x).numpy().tolist()),
        tf.case([(tf.constant(True), lambda: x), (tf.constant(True), lambda: -x)], exclusive=True),
    ]


def test_array_errors(tf_oracle):
    expected = assert_parity(tf_oracle, _array_errors, helpers=(_outcome,))
    assert expected[0] == "list"


def _traced_only(tf):
    @tf.function
    def stacked(a, b):
        return tf.parallel_stack([a, b])

    def grad_const(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.guarantee_const(x) * 2.0
        return tape.gradient(y, x)

    x = tf.constant([1.0, 2.0])
    # (Traced, TensorFlow wraps the LookupError in AutoGraph's StagingError.)
    return stacked(x, x * 3.0), _outcome(lambda: grad_const(x))


def test_traced_parallel_stack_and_guarantee_const(tf_oracle):
    assert_parity(tf_oracle, _traced_only, helpers=(_outcome,))


def _host_ops(tf, device):
    import numpy as np

    with tf.device(device):
        f = tf.constant([1.0, -2.5, 3.0e-3])
        return {
            "bitcast_same": tf.bitcast(f, tf.int32),
            "bitcast_down": tf.bitcast(f, tf.uint8),
            "bitcast_up": tf.bitcast(
                tf.constant([[0, 0, 128, 63], [0, 0, 0, 64]], tf.uint8), tf.float32
            ),
            "bitcast_complex": tf.bitcast(tf.constant([1 + 2j, -3j], tf.complex64), tf.float32),
            "bitcast_f64": tf.bitcast(tf.constant([1.5], tf.float64), tf.int16),
            "bitcast_bad": _outcome(
                lambda: tf.bitcast(tf.constant([1, 2, 3], tf.uint8), tf.float32)
            ),
            "bitcast_bool": _outcome(lambda: tf.bitcast(tf.constant([True]), tf.uint8)),
            "shuffle": tf.random_index_shuffle(
                tf.constant(np.arange(10), tf.int64), tf.constant([1, 2, 3], tf.int64), 9
            ),
            "shuffle_scalar": tf.random_index_shuffle(7, [1, 2, 3], 100),
            "shuffle_rounds": tf.random_index_shuffle(7, [4, 5, 6], 100, rounds=8),
            "shuffle_big": tf.random_index_shuffle(
                tf.constant([0, 12345, 2**40], tf.uint64),
                tf.constant([7, 8, 9], tf.uint32),
                tf.constant(2**41, tf.uint64),
            ),
            "shuffle_rows": tf.random_index_shuffle(
                tf.constant([3, 3], tf.int32), tf.constant([[1, 2, 3], [4, 5, 6]]), 70000
            ),
            "shuffle_float": _outcome(lambda: tf.random_index_shuffle(1.0, [1, 2, 3], 5.0)),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_host_ops(tf_oracle, device):
    assert_parity(tf_oracle, _host_ops, (device,), helpers=(_outcome,))


def test_random_index_shuffle_is_a_permutation():
    import ferroflow as tf

    for top in (0, 1, 17, 1000, 70001):
        got = tf.random_index_shuffle(tf.range(top + 1, dtype=tf.int64), [5, 6, 7], top).numpy()
        assert sorted(got.tolist()) == list(range(top + 1))


def _edit_distance(tf):
    h = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 2, 3, 4], (3, 3))
    t = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 3, 4, 4], (2, 4))
    h3 = tf.SparseTensor([[0, 0, 0], [1, 0, 0]], [7, 8], (2, 1, 1))
    t3 = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], [7, 8, 9, 7], (2, 2, 2))
    return [
        tf.edit_distance(h, t),
        tf.edit_distance(h, t, normalize=False),
        tf.edit_distance(h3, t3),
        tf.edit_distance(h3, t3, normalize=False),
        _outcome(lambda: tf.edit_distance(tf.constant([[1]]), t)),
        _outcome(lambda: tf.edit_distance(h, tf.SparseTensor([[0, 0]], [1.0], (1, 1)))),
        _outcome(lambda: tf.edit_distance(tf.SparseTensor([[0]], [1], (1,)), t)),
    ]


def test_edit_distance(tf_oracle):
    assert_parity(tf_oracle, _edit_distance, helpers=(_outcome,))


# --- framework names --------------------------------------------------------------------------


def _device_spec(tf):
    spec = tf.DeviceSpec(job="w", replica=0, task=1, device_type="GPU", device_index=2)
    parsed = tf.DeviceSpec.from_string("/job:a/task:3/device:CPU:1")
    with tf.device(tf.DeviceSpec(device_type="CPU", device_index=0)):
        placed = (tf.constant(1.0) + 1.0).device
    return {
        "to_string": spec.to_string(),
        "repr": repr(parsed),
        "fields": [
            parsed.job,
            parsed.replica,
            parsed.task,
            parsed.device_type,
            parsed.device_index,
        ],
        "short": [
            tf.DeviceSpec.from_string(s).to_string()
            for s in ("/gpu:0", "CPU", "cpu:*", "/device:GPU:*", "", "/job:x/replica:2")
        ],
        "lower": tf.DeviceSpec(device_type="gpu").to_string(),
        "merge": tf.DeviceSpec(job="a", device_type="CPU")
        .make_merged_spec(tf.DeviceSpec(device_type="GPU", device_index=1))
        .to_string(),
        "replace": parsed.replace(job="b", device_index=None).to_string(),
        "parse_from": spec.parse_from_string("/job:z").to_string(),
        "eq": [
            tf.DeviceSpec(job="a") == tf.DeviceSpec.from_string("/job:a"),
            hash(tf.DeviceSpec(job="a")) == hash(tf.DeviceSpec.from_string("/job:a")),
            tf.DeviceSpec(job="a") == "/job:a",
        ],
        "errors": [
            _outcome(lambda: tf.DeviceSpec.from_string("/bogus:1")),
            _outcome(lambda: tf.DeviceSpec.from_string("/cpu:0/gpu:1")),
            _outcome(lambda: tf.DeviceSpec.from_string("/device:CPU:x")),
        ],
        "placed": placed,
        "public": sorted(n for n in dir(tf.DeviceSpec) if not n.startswith("_")),
    }


def test_device_spec(tf_oracle):
    expected = assert_parity(tf_oracle, _device_spec, helpers=(_outcome,))
    assert expected[0] == "dict"


def _context_names(tf):
    import numpy as np

    out = {"scope_top": tf.get_current_name_scope()}
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            out["scope_nested"] = tf.get_current_name_scope()
    seen = []

    @tf.function
    def f(x):
        with tf.name_scope("inner"):
            seen.append(tf.get_current_name_scope())
        seen.append(tf.is_symbolic_tensor(x))
        with tf.control_dependencies([x]):
            y = x + 1.0
        with tf.init_scope():
            seen.append("init")
        return y

    out["fn"] = f(tf.constant(1.0))
    out["fn_seen"] = seen
    out["symbolic"] = [
        tf.is_symbolic_tensor(tf.constant(1)),
        tf.is_symbolic_tensor(3),
        tf.is_symbolic_tensor(np.array(1)),
    ]
    with tf.control_dependencies([tf.constant(1)]) as c:
        out["control"] = [c, tf.constant(2)]
    with tf.control_dependencies(None) as c:
        out["control_none"] = c
    with tf.init_scope() as s:
        out["init"] = [s, tf.executing_eagerly()]
    stamp = tf.timestamp()
    out["timestamp"] = [stamp.dtype, stamp.shape.as_list(), float(stamp) > 1.6e9]
    out["version"] = [
        tf.version.VERSION,
        tf.version.GRAPH_DEF_VERSION,
        tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER,
        tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER,
        sorted(n for n in dir(tf.version) if not n.startswith("_")),
    ]
    out["sysconfig"] = [
        sorted(n for n in dir(tf.sysconfig) if not n.startswith("_")),
        tf.sysconfig.CXX11_ABI_FLAG,
        tf.sysconfig.MONOLITHIC_BUILD,
        tf.sysconfig.get_build_info()["is_cuda_build"] in (True, False),
    ]
    return out


def test_context_names(tf_oracle):
    expected = assert_parity(tf_oracle, _context_names)
    assert expected[0] == "dict"


def _protos_and_conversion(tf):
    import numpy as np

    proto = tf.make_tensor_proto([1.0, 2.0])
    ints = tf.make_tensor_proto(np.arange(6).reshape(2, 3).astype(np.int64))

    class Point:
        def __init__(self, v):
            self.v = v

    tf.register_tensor_conversion_function(
        Point, lambda value, dtype=None, name=None, as_ref=False: tf.constant(value.v, dtype=dtype)
    )
    return {
        "proto": [str(proto), tf.make_ndarray(proto), tf.make_ndarray(ints)],
        "proto_shape": tf.make_ndarray(tf.make_tensor_proto(3.0, shape=[2, 2])),
        "proto_dtype": tf.make_ndarray(tf.make_tensor_proto([1, 2], dtype=tf.float64)),
        "converted": [
            tf.convert_to_tensor(Point(3.0)),
            tf.add(Point(1.0), 2.0),
            tf.constant(1.0) + Point(2.0),
            tf.convert_to_tensor(Point(2), dtype=tf.int64),
        ],
        "errors": [
            _outcome(lambda: tf.register_tensor_conversion_function(int, lambda *a, **k: None)),
            _outcome(lambda: tf.register_tensor_conversion_function(np.ndarray, len)),
            _outcome(lambda: tf.register_tensor_conversion_function(Point, 3)),
            _outcome(lambda: tf.register_tensor_conversion_function("x", len)),
        ],
    }


def test_protos_and_conversion(tf_oracle):
    expected = assert_parity(tf_oracle, _protos_and_conversion, helpers=(_outcome,))
    assert expected[0] == "dict"


def _creators_and_sections(tf):
    seen = []

    def double(next_creator, **kwargs):
        seen.append(sorted(kwargs))
        kwargs["initial_value"] = kwargs["initial_value"] * 2
        return next_creator(**kwargs)

    def rename(next_creator, **kwargs):
        kwargs["name"] = "renamed"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(double):
        v = tf.Variable(3.0, name="v")
        with tf.variable_creator_scope(rename):
            w = tf.Variable(1.5)
    u = tf.Variable(1.0)
    with tf.variable_creator_scope(lambda next_creator, **kw: "not a variable"):
        odd = tf.Variable(1.0)
    section = tf.CriticalSection()
    return {
        "variables": [v, w.name, w.numpy(), u, odd],
        "kwargs": seen,
        "section": section.execute(lambda: tf.constant(3) * 2),
        "nested": _outcome(lambda: section.execute(lambda: section.execute(lambda: 1))),
    }


def test_creators_and_critical_sections(tf_oracle):
    expected = assert_parity(tf_oracle, _creators_and_sections, helpers=(_outcome,))
    assert expected[0] == "dict"


def _python_functions(tf, device):
    import numpy as np

    with tf.device(device):
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.py_function(lambda a: a * a * 3.0, [x], Tout=tf.float32)
        decorated = tf.py_function(Tout=tf.float32)(lambda a: a * 2.0)
        return {
            "value_and_grad": [y, tape.gradient(y, x)],
            "multi": tf.py_function(lambda a, b: (a, b * 2), [1.0, 2], Tout=[tf.float32, tf.int32]),
            "decorated": decorated(tf.constant(2.0)),
            "keywords": tf.py_function(func=lambda a: a, inp=[1.0], Tout=tf.float32),
            "bad_tout": _outcome(lambda: tf.py_function(lambda a: a, [1.0], Tout=tf.int32)),
            "no_tout": _outcome(lambda: tf.py_function(lambda a: a, [1.0], Tout=None)),
            "raises": _outcome(lambda: tf.py_function(lambda a: 1 / 0, [1.0], Tout=tf.float32)),
            "numpy": tf.numpy_function(lambda a: a * 2, [np.array([1, 2])], Tout=tf.int64),
            "numpy_own_dtype": tf.numpy_function(lambda a: a, [np.float64(1.0)], Tout=tf.float32),
            "numpy_multi": tf.numpy_function(
                lambda a: (a, a + 1), [np.int32(1)], Tout=[tf.int32, tf.int32]
            ),
            "numpy_raises": _outcome(
                lambda: tf.numpy_function(lambda a: 1 / 0, [1.0], Tout=tf.float32)
            ),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_python_functions(tf_oracle, device):
    assert_parity(tf_oracle, _python_functions, (device,), helpers=(_outcome,))


def _initializers(tf):
    out = {
        "zeros": tf.zeros_initializer()((2, 3)),
        "zeros_int": tf.zeros_initializer()([2], tf.int32),
        "ones": tf.ones_initializer()([3], dtype=tf.float64),
        "constant": tf.constant_initializer(3.0)((2, 2)),
        "constant_list": tf.constant_initializer([0, 1, 2, 3, 4, 5])([2, 3], tf.float32),
        "constant_bad": _outcome(lambda: tf.constant_initializer([1, 2, 3])([2, 2])),
        "constant_type": _outcome(lambda: tf.constant_initializer({"a": 1})),
        "normal": tf.random_normal_initializer(mean=1.0, stddev=2.0, seed=7)((2, 3)),
        "uniform": tf.random_uniform_initializer(-1.0, 1.0, seed=3)([4], tf.float64),
        "uniform_int": tf.random_uniform_initializer(0, 10, seed=3)([5], tf.int32),
        "normal_int": _outcome(lambda: tf.random_normal_initializer(seed=1)([2], tf.int32)),
        "zeros_string": _outcome(lambda: tf.zeros_initializer()([2], tf.string)),
        "kwargs": _outcome(lambda: tf.ones_initializer()([2], junk=1)),
        "configs": [
            tf.random_normal_initializer(seed=1).get_config(),
            tf.random_uniform_initializer(seed=2).get_config(),
            tf.constant_initializer(2.0).get_config(),
            tf.zeros_initializer().get_config(),
        ],
        "from_config": tf.random_uniform_initializer.from_config(
            {"minval": 0.0, "maxval": 2.0, "seed": 5}
        )([3]),
    }
    return out


def test_initializers(tf_oracle):
    expected = assert_parity(tf_oracle, _initializers, helpers=(_outcome,))
    assert expected[0] == "dict"


def _graph_relics(tf):
    @tf.function
    def f(x):
        return x * 2.0

    graph = f.get_concrete_function(tf.constant(1.0)).graph
    return [
        isinstance(graph, tf.Graph),
        [isinstance(op, tf.Operation) for op in graph.get_operations()][:1],
        _outcome(lambda: tf.import_graph_def(None)),
        _outcome(lambda: tf.load_op_library("/nonexistent/op_library.so")),
        _outcome(lambda: tf.load_library("/nonexistent/kernels")),
    ]


def test_graph_relics(tf_oracle):
    expected = assert_parity(tf_oracle, _graph_relics, helpers=(_outcome,))
    assert expected[0] == "list"


def test_departures():
    import ferroflow as tf

    # No TensorFlow 1 graph-building mode: tf.Graph() names the TF2 way.
    with pytest.raises(NotImplementedError, match="tf.function"):
        tf.Graph()
    # ferroflow's logger is its own.
    assert tf.get_logger().name == "ferroflow"
    with pytest.raises(NotImplementedError):
        tf.sysconfig.get_include()
    np.testing.assert_array_equal(
        tf.bitcast(tf.constant([1.0]), tf.int32).numpy(), np.array([1065353216], np.int32)
    )
