"""`tf.config` against TensorFlow: logical devices (splitting the CPU, placement on a logical
device, the RuntimeError once the runtime is initialised), memory info and growth, threads,
determinism, the optimizer options (which ferroflow's graph passes follow), device policy and
cluster connection errors.

Settings that only hold before TensorFlow initialises its runtime are checked in fresh
processes: the same program runs in a new TensorFlow interpreter and a new ferroflow one and
prints its results, which must be equal."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from .harness import REPO, assert_parity, tensorflow_python

# --- in the shared (initialised) runtime ------------------------------------------------------


def _outcome(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return result


def _initialised(tf):
    tf.config.list_logical_devices()  # initialises either runtime
    cpu = tf.config.list_physical_devices("CPU")[0]
    ldc = tf.config.LogicalDeviceConfiguration
    return {
        "ldc": [tuple(ldc()), list(ldc._fields), tuple(ldc(memory_limit=100))],
        "get": tf.config.get_logical_device_configuration(cpu),
        "get_alias": tf.config.experimental.get_virtual_device_configuration(cpu),
        "vdc_alias": tf.config.experimental.VirtualDeviceConfiguration is ldc,
        "cpu_memory_limit": _outcome(
            lambda: tf.config.set_logical_device_configuration(cpu, [ldc(memory_limit=10)])
        ),
        "cpu_priority": _outcome(
            lambda: tf.config.set_logical_device_configuration(cpu, [ldc(None, 1)])
        ),
        "not_a_device": _outcome(
            lambda: tf.config.set_logical_device_configuration("CPU:0", [ldc()])
        ),
        "not_a_list": _outcome(lambda: tf.config.set_logical_device_configuration(cpu, None)),
        "after_init": _outcome(
            lambda: tf.config.set_logical_device_configuration(cpu, [ldc(), ldc()])
        ),
        "get_unknown": _outcome(
            lambda: tf.config.get_logical_device_configuration(
                tf.config.PhysicalDevice("/physical_device:CPU:7", "CPU")
            )
        ),
        "memory_info": [
            tf.config.experimental.get_memory_info(d)
            for d in ("CPU:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0")
        ],
        "memory_info_bad": [
            _outcome(lambda d=d: tf.config.experimental.get_memory_info(d))
            for d in ("XPU:0", "CPU:3", "GPU:9")
        ],
        "reset_stats": tf.config.experimental.reset_memory_stats("CPU:0"),
        "memory_usage": tf.config.experimental.get_memory_usage("CPU:0"),
        "growth_cpu_get": _outcome(lambda: tf.config.experimental.get_memory_growth(cpu)),
        "growth_cpu_set": _outcome(lambda: tf.config.experimental.set_memory_growth(cpu, True)),
        "threads_get": [
            tf.config.threading.get_intra_op_parallelism_threads(),
            tf.config.threading.get_inter_op_parallelism_threads(),
        ],
        # Setting 0 (what the getter reports) still counts as a change in TensorFlow.
        "threads_zero": _outcome(lambda: tf.config.threading.set_intra_op_parallelism_threads(0)),
        "threads_after_init": [
            _outcome(lambda: tf.config.threading.set_intra_op_parallelism_threads(2)),
            _outcome(lambda: tf.config.threading.set_inter_op_parallelism_threads(2)),
        ],
        "policy": [
            tf.config.experimental.get_device_policy(),
            tf.config.experimental.set_device_policy("silent"),
            tf.config.experimental.get_device_policy(),
            tf.config.experimental.set_device_policy(None),
            _outcome(lambda: tf.config.experimental.set_device_policy("loud")),
        ],
        "synchronous": [
            tf.config.experimental.get_synchronous_execution(),
            tf.config.experimental.set_synchronous_execution(True),
        ],
        "tf32": tf.config.experimental.tensor_float_32_execution_enabled(),
        "connect": [
            _outcome(lambda: tf.config.experimental_connect_to_cluster(None)),
            _outcome(lambda: tf.config.experimental_connect_to_cluster("localhost:2222")),
            _outcome(lambda: tf.config.experimental_connect_to_host()),
            _outcome(lambda: tf.config.experimental_connect_to_host([])),
        ],
        "filters": tf.config.experimental.ClusterDeviceFilters().set_device_filters(
            "worker", 0, ["/job:ps"]
        ),
    }


def test_initialised_runtime(tf_oracle):
    expected = assert_parity(tf_oracle, _initialised, helpers=(_outcome,))
    assert expected[0] == "dict", expected


def _optimizer_and_jit(tf):
    before = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options({"constant_folding": False, "remapping": True})
    during = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options(
        {"constant_folding": True, "min_graph_nodes": 3, "disable_meta_optimizer": True}
    )
    later = tf.config.optimizer.get_experimental_options()
    tf.config.optimizer.set_experimental_options(
        {"min_graph_nodes": 0, "disable_meta_optimizer": False}
    )
    jit = [tf.config.optimizer.get_jit()]
    tf.config.optimizer.set_jit("autoclustering")
    jit.append(tf.config.optimizer.get_jit())
    tf.config.optimizer.set_jit(False)
    jit.append(tf.config.optimizer.get_jit())
    return before, during, later, jit


def test_optimizer_options(tf_oracle):
    import ferroflow as tf

    saved = dict(tf.config._state.optimizer_options)
    try:
        assert_parity(tf_oracle, _optimizer_and_jit)
    finally:
        tf.config._state.optimizer_options = saved


def test_optimizer_options_choose_the_graph_passes():
    import ferroflow as tf
    import numpy as np

    def body(x):
        k = tf.constant(2.0) * tf.constant(3.0)
        a = tf.exp(x)
        b = tf.exp(x)
        return tf.tanh((a + b) * k) * 0.5 + 1.0

    x = tf.constant(np.linspace(-1, 1, 100, dtype=np.float32))
    expected = body(x).numpy()
    saved = dict(tf.config._state.optimizer_options)
    try:
        seen = {}
        for name, options in {
            "default": {},
            "no_folding": {"constant_folding": False},
            "no_cse": {"arithmetic_optimization": False, "remapping": False},
            "no_fusion": {"remapping": False},
            "none": {"disable_meta_optimizer": True},
        }.items():
            tf.config._state.optimizer_options = dict(options)
            concrete = tf.function(body).get_concrete_function(x)
            ops = [op.type for op in concrete.graph.get_optimized_operations()]
            np.testing.assert_allclose(concrete(x).numpy(), expected, rtol=1e-6)
            seen[name] = ops
    finally:
        tf.config._state.optimizer_options = saved
    assert seen["default"].count("Exp") == 1 and "FusedElementwise" in seen["default"]
    assert seen["no_folding"].count("Mul") >= 1 and "FusedElementwise" in seen["no_folding"]
    assert seen["no_cse"].count("Exp") == 2
    assert "FusedElementwise" not in seen["no_fusion"] and seen["no_fusion"].count("Exp") == 1
    assert seen["none"].count("Exp") == 2 and "FusedElementwise" not in seen["none"]


# --- in fresh processes -----------------------------------------------------------------------

FRESH = {
    "split_cpu": """
        cpu = tf.config.list_physical_devices("CPU")[0]
        ldc = tf.config.LogicalDeviceConfiguration
        out["set"] = tf.config.set_logical_device_configuration(cpu, [ldc(), ldc(), ldc()])
        out["get"] = [tuple(c) for c in tf.config.get_logical_device_configuration(cpu)]
        out["again"] = tf.config.set_logical_device_configuration(cpu, [ldc(), ldc()])
        out["logical"] = [tuple(d) for d in tf.config.list_logical_devices("CPU")]
        out["changed_after_init"] = outcome(
            lambda: tf.config.set_logical_device_configuration(cpu, [ldc()] * 3)
        )
        out["same_after_init"] = tf.config.set_logical_device_configuration(cpu, [ldc()] * 2)
        values = []
        for name in ("/CPU:0", "/CPU:1", "CPU:1", "/job:localhost/replica:0/task:0/device:CPU:1"):
            with tf.device(name):
                values.append((tf.constant([1.0, 2.0]) * 3.0 + 1.0).numpy().tolist())
        out["values"] = values
        tf.config.set_soft_device_placement(False)
        def on_logical():
            with tf.device("/CPU:1"):
                return (tf.constant([1.0]) + 1.0).numpy().tolist()
        out["hard_on_logical"] = outcome(on_logical)
    """,
    "hard_missing_logical": """
        cpu = tf.config.list_physical_devices("CPU")[0]
        ldc = tf.config.LogicalDeviceConfiguration
        tf.config.set_logical_device_configuration(cpu, [ldc(), ldc()])
        tf.config.set_soft_device_placement(False)
        def run():
            with tf.device("/CPU:5"):
                return (tf.constant([1.0]) + 1.0).numpy().tolist()
        out["hard"] = outcome(run)
        tf.config.set_soft_device_placement(True)
        with tf.device("/CPU:5"):
            out["soft"] = (tf.constant([1.0]) + 1.0).numpy().tolist()
    """,
    "threads": """
        tf.config.threading.set_intra_op_parallelism_threads(3)
        tf.config.threading.set_inter_op_parallelism_threads(2)
        out["get"] = [
            tf.config.threading.get_intra_op_parallelism_threads(),
            tf.config.threading.get_inter_op_parallelism_threads(),
        ]
        tf.config.list_logical_devices()
        out["after"] = outcome(lambda: tf.config.threading.set_intra_op_parallelism_threads(4))
        out["same"] = tf.config.threading.set_intra_op_parallelism_threads(3)
        out["value"] = tf.reduce_sum(tf.range(100000, dtype=tf.int64)).numpy().item()
        out["categorical"] = tf.random.stateless_categorical(
            tf.math.log([[0.1, 0.2, 0.7]] * 40), 3, seed=[1, 2]
        ).numpy().tolist()
    """,
    "determinism": """
        tf.config.experimental.enable_op_determinism()
        out["uniform"] = outcome(lambda: tf.random.uniform([2]))
        out["normal"] = outcome(lambda: tf.random.normal([2]))
        out["shuffle"] = outcome(lambda: tf.random.shuffle([1, 2, 3]))
        out["categorical"] = outcome(lambda: tf.random.categorical([[0.0, 1.0]], 2))
        out["global_generator"] = outcome(lambda: tf.random.get_global_generator())
        out["non_deterministic"] = outcome(
            lambda: tf.random.Generator.from_non_deterministic_state()
        )
        out["op_seed"] = outcome(lambda: tf.random.uniform([2], seed=3).shape.as_list())
        out["stateless"] = tf.random.stateless_uniform([2], seed=[1, 2]).numpy().tolist()
        tf.random.set_seed(5)
        out["after_seed"] = outcome(lambda: tf.random.normal([3]).shape.as_list())
        out["generator"] = tf.random.Generator.from_seed(3).normal([2]).numpy().tolist()
    """,
    "memory_growth": """
        gpu = tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")
        out["unknown_gpu"] = outcome(lambda: tf.config.experimental.set_memory_growth(gpu, True))
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2
        )
        out["split_cpu"] = outcome(lambda: tf.config.experimental.set_memory_growth(cpu, True))
    """,
}

_RUNNER = """
import json, os, sys, warnings
warnings.filterwarnings("ignore")
if sys.argv[1] == "tensorflow":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import tensorflow as tf
else:
    import ferroflow as tf
def outcome(fn):
    try:
        return fn()
    except Exception as e:
        return type(e).__name__
out = {}
exec(compile(sys.argv[2], "<program>", "exec"))
print("RESULT " + json.dumps(out, sort_keys=True))
"""


def run_fresh(framework, program, env=None):
    python = tensorflow_python() if framework == "tensorflow" else sys.executable
    if python is None:
        pytest.skip("TensorFlow is not installed")
    full_env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", **(env or {}))
    full_env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [python, "-c", _RUNNER, framework, textwrap.dedent(program)],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=str(REPO),
        timeout=300,
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"{framework} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT ") :])


@pytest.mark.parametrize("name", sorted(FRESH))
def test_fresh_runtime(name):
    expected = run_fresh("tensorflow", FRESH[name])
    actual = run_fresh("ferroflow", FRESH[name], {"FERROFLOW_VISIBLE_DEVICES": "-1"})
    assert actual == expected


def test_split_gpu_places_on_its_logical_gpus():
    got = run_fresh(
        "ferroflow",
        """
        gpus = tf.config.list_physical_devices("GPU")
        out["gpus"] = len(gpus)
        if gpus:
            ldc = tf.config.LogicalDeviceConfiguration
            out["no_limit"] = outcome(
                lambda: tf.config.set_logical_device_configuration(gpus[0], [ldc(), ldc()])
            )
            tf.config.set_logical_device_configuration(
                gpus[0], [ldc(memory_limit=256), ldc(memory_limit=256)]
            )
            out["growth"] = outcome(
                lambda: tf.config.experimental.set_memory_growth(gpus[0], True)
            )
            out["logical"] = [d.name for d in tf.config.list_logical_devices()]
            values, devices = [], []
            for name in ("/GPU:0", "/GPU:1"):
                with tf.device(name):
                    y = tf.constant([1.0, 2.0]) * 3.0 + 1.0
                values.append(y.numpy().tolist())
                devices.append(y.device)
            out["values"] = values
            out["devices"] = devices
            out["memory_info"] = outcome(lambda: tf.config.experimental.get_memory_info("GPU:1"))
        """,
        {"FERROFLOW_ALLOW_SOFTWARE_GPU": "1"},
    )
    if not got["gpus"]:
        pytest.skip("no GPU adapter")
    assert got["no_limit"] == "ValueError"
    assert got["growth"] == "ValueError"
    assert got["logical"][:3] == ["/device:CPU:0", "/device:GPU:0", "/device:GPU:1"]
    assert got["values"] == [[4.0, 7.0], [4.0, 7.0]]
    assert [d[-5:] for d in got["devices"]] == ["GPU:0", "GPU:1"]
    # tests/parity/test_logical_devices.py checks the numbers.
    assert sorted(got["memory_info"]) == ["current", "peak"]
