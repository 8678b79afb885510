"""Logical devices against TensorFlow: a CPU split by `set_logical_device_configuration` into
logical CPUs that ops, constants, variables and tf.functions are placed on and that
``tensor.device`` names; a GPU split into logical GPUs with memory limits and byte counters.

The configuration is process-global and fixed once the runtime initialises, so every program
runs in a fresh interpreter (`run_fresh`). TensorFlow's CPU build runs the logical-CPU programs
too; it has no GPU, so the logical-GPU programs run under ferroflow (on lavapipe in CI) and are
checked against the CPU's values and TensorFlow's documented behaviour."""

import os
import subprocess
import sys
import textwrap

import pytest

from .harness import REPO, tensorflow_python
from .test_config import run_fresh

CPU = "/job:localhost/replica:0/task:0/device:CPU:"
GPU = "/job:localhost/replica:0/task:0/device:GPU:"

SPLIT_CPU = """
CPU = "/job:localhost/replica:0/task:0/device:CPU:"
cpu = tf.config.list_physical_devices("CPU")[0]
ldc = tf.config.LogicalDeviceConfiguration
tf.config.set_logical_device_configuration(cpu, [ldc(), ldc(), ldc()])
"""

CPU_PROGRAMS = {
    "placement": """
        out["logical"] = [tuple(d) for d in tf.config.list_logical_devices()]
        with tf.device("/CPU:1"):
            a = tf.constant([1.0, 2.0])
            x = a * 3.0 + 1.0
        out["a"] = [a.device, a.numpy().tolist()]
        out["x"] = [x.device, x.numpy().tolist()]
        out["no_scope"] = (x + 1).device
        with tf.device("/CPU:2"):
            b = tf.constant([3.0, 4.0])
            mixed = a + b
        out["mixed"] = [mixed.device, mixed.numpy().tolist()]
        with tf.device("/CPU:0"):
            out["to_cpu0"] = (a + b).device
        with tf.device("/CPU:1"):
            moved = tf.identity(b)
        out["identity"] = [moved.device, b.device, moved.numpy().tolist()]
        for name in ("CPU:2", "/cpu:2", "/device:CPU:2", CPU + "2"):
            with tf.device(name):
                out[name] = tf.constant(1.0).device
        with tf.device("CPU"):
            out["no_index"] = (a + 1).device
        with tf.device("/CPU:1"):
            made = [tf.zeros([2]), tf.ones([2]), tf.range(3), tf.fill([2], 1.0),
                    tf.reduce_sum(a), tf.concat([a, b], 0), tf.cast(a, tf.int32)]
        out["made"] = [t.device for t in made]
        with tf.device("/CPU:2"):
            with tf.device("/CPU:1"):
                out["nested"] = (a + 1).device
            out["outer_again"] = (a + 1).device
    """,
    "missing_logical_cpu": """
        for name in ("/CPU:3", "/CPU:7"):
            with tf.device(name):
                c = tf.constant([1.0])
                y = c + 1.0
            out[name] = [c.device, y.device, y.numpy().tolist()]
        with tf.device("/GPU:0"):
            out["gpu_scope"] = (tf.constant([1.0]) + 1.0).device
        tf.config.set_soft_device_placement(False)
        def hard(name):
            with tf.device(name):
                return (tf.constant([1.0]) + 1.0).device
        out["hard_present"] = outcome(lambda: hard("/CPU:2"))
        out["hard_missing"] = outcome(lambda: hard("/CPU:3"))
    """,
    "variables": """
        with tf.device("/CPU:1"):
            v1 = tf.Variable([2.0, 3.0])
        out["v1"] = [v1.device, v1.value().device, tf.convert_to_tensor(v1).device]
        out["read_outside"] = v1.read_value().device
        with tf.device("/CPU:2"):
            out["read_inside"] = v1.read_value().device
            out["plus"] = (v1 + 1.0).device
            v1.assign(tf.constant([5.0, 6.0]))
            v1.assign_add([1.0, 1.0])
        out["after_assign"] = [v1.device, v1.numpy().tolist()]
        v0 = tf.Variable(1.0)
        out["v0"] = v0.device
        with tf.device("/CPU:1"):
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(v1 * v1)
            grad = tape.gradient(y, v1)
        out["grad"] = [grad.device, grad.numpy().tolist()]
    """,
    "functions": """
        @tf.function
        def inner_scope(a):
            with tf.device("/CPU:1"):
                b = a * 2.0
            return b, a + 1.0
        x = tf.constant([1.0, 2.0])
        out["called"] = [t.device for t in inner_scope(x)]
        with tf.device("/CPU:2"):
            got = inner_scope(x)
        out["called_under_cpu2"] = [t.device for t in got]
        out["values"] = [t.numpy().tolist() for t in got]
        @tf.function
        def missing(a):
            with tf.device("/CPU:5"):
                return a * 2.0
        out["missing"] = [missing(x).device, missing(x).numpy().tolist()]
        tf.config.set_soft_device_placement(False)
        out["missing_hard"] = outcome(lambda: missing(tf.constant([3.0])).numpy().tolist())
    """,
    "configuration": """
        out["get"] = [tuple(c) for c in tf.config.get_logical_device_configuration(cpu)]
        out["alias"] = tf.config.experimental.get_virtual_device_configuration(cpu) == (
            tf.config.get_logical_device_configuration(cpu)
        )
        out["same_again"] = tf.config.experimental.set_virtual_device_configuration(
            cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 3
        )
        with tf.device("/CPU:1"):
            tf.constant(1.0)
        out["changed"] = outcome(
            lambda: tf.config.set_logical_device_configuration(cpu, [ldc()] * 2)
        )
        out["memory"] = [tf.config.experimental.get_memory_info(d) for d in ("CPU:0", "CPU:2")]
        out["memory_missing"] = outcome(lambda: tf.config.experimental.get_memory_info("CPU:3"))
        out["usage"] = tf.config.experimental.get_memory_usage("CPU:1")
        out["reset"] = tf.config.experimental.reset_memory_stats("CPU:1")
    """,
}


@pytest.mark.parametrize("name", sorted(CPU_PROGRAMS))
def test_split_cpu(name):
    program = SPLIT_CPU + textwrap.dedent(CPU_PROGRAMS[name])
    expected = run_fresh("tensorflow", program)
    actual = run_fresh("ferroflow", program, {"FERROFLOW_VISIBLE_DEVICES": "-1"})
    assert actual == expected


def test_split_cpu_with_a_gpu_present_places_as_on_a_cpu_only_machine():
    # Scopes naming a logical CPU win over the GPU ferroflow would otherwise pick.
    program = SPLIT_CPU + textwrap.dedent(CPU_PROGRAMS["placement"])
    expected = run_fresh("tensorflow", program)
    actual = run_fresh("ferroflow", program, {"FERROFLOW_ALLOW_SOFTWARE_GPU": "1"})
    for key in expected:
        if key in ("logical", "no_scope", "to_cpu0"):
            continue  # a GPU adds logical devices and runs unscoped ops
        assert actual[key] == expected[key], key


def _placement_log(framework, program):
    python = tensorflow_python() if framework == "tensorflow" else sys.executable
    if python is None:
        pytest.skip("TensorFlow is not installed")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0", FERROFLOW_VISIBLE_DEVICES="-1")
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.pop("PYTHONPATH", None)
    module = "tensorflow" if framework == "tensorflow" else "ferroflow"
    done = subprocess.run(
        [python, "-c", f"import {module} as tf\n" + textwrap.dedent(program)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr.splitlines()


def test_placement_log_names_the_logical_cpu():
    program = SPLIT_CPU + textwrap.dedent(
        """
        tf.debugging.set_log_device_placement(True)
        with tf.device("/CPU:1"):
            x = tf.constant([1.0]) + 1.0
        @tf.function
        def f(a):
            with tf.device("/CPU:2"):
                return a * 2.0
        f(x)
        """
    )
    for framework in ("tensorflow", "ferroflow"):
        lines = _placement_log(framework, program)
        for op, device in (("AddV2", CPU + "1"), ("Mul", CPU + "2")):
            found = [ln for ln in lines if f"{op}" in ln and device in ln]
            assert found, (framework, op, lines[-40:])


# --- logical GPUs (ferroflow only: TensorFlow's CPU build has none) ---------------------------

SPLIT_GPU = """
gpus = tf.config.list_physical_devices("GPU")
out["gpus"] = len(gpus)
ldc = tf.config.LogicalDeviceConfiguration
MIB = 1 << 20
if gpus:
    tf.config.set_logical_device_configuration(gpus[0], [ldc(memory_limit=64), ldc(memory_limit=8)])
"""

GPU_PROGRAMS = {
    "placement": """
        out["logical"] = [d.name for d in tf.config.list_logical_devices()]
        values, devices = [], []
        for name in ("/GPU:0", "/GPU:1", "/CPU:0"):
            with tf.device(name):
                y = tf.constant([1.0, 2.0]) * 3.0 + 1.0
            values.append(y.numpy().tolist())
            devices.append(y.device)
        out["values"], out["devices"] = values, devices
        with tf.device("/GPU:0"):
            a = tf.constant([1.0, 2.0, 3.0])
        with tf.device("/GPU:1"):
            b = tf.identity(a)
            c = a + b
            v = tf.Variable([1.0, 1.0, 1.0])
            v.assign_add(c)
        out["copied"] = [a.device, b.device, b.numpy().tolist()]
        out["mixed"] = [c.device, c.numpy().tolist()]
        out["variable"] = [v.device, v.numpy().tolist()]
        with tf.device("/GPU:0"):
            back = tf.identity(c) * 2.0
        out["back"] = [back.device, back.numpy().tolist()]
        with tf.device("/GPU:2"):
            out["missing"] = (tf.constant([1.0]) + 1.0).device
        @tf.function
        def f(x):
            with tf.device("/GPU:1"):
                return x * 2.0
        out["function"] = f(tf.constant([2.0])).numpy().tolist()
        out["changed"] = outcome(
            lambda: tf.config.set_logical_device_configuration(gpus[0], [ldc(memory_limit=64)])
        )
    """,
    "memory": """
        info = tf.config.experimental.get_memory_info
        with tf.device("/GPU:1"):
            tf.constant(1.0)  # opens the GPU
        base = [info("GPU:0")["current"], info("GPU:1")["current"]]
        with tf.device("/GPU:1"):
            x = tf.ones([MIB // 4])  # 1 MiB of float32
        grown = info("GPU:1")
        out["grew"] = grown["current"] - base[1] >= MIB
        out["other_unchanged"] = info("GPU:0")["current"] == base[0]
        out["usage"] = tf.config.experimental.get_memory_usage("GPU:1") == grown["current"]
        out["value"] = float(x[0])
        del x
        after = info("GPU:1")
        out["freed"] = grown["current"] - after["current"] >= MIB
        out["peak_kept"] = after["peak"] >= grown["current"]
        tf.config.experimental.reset_memory_stats("GPU:1")
        out["peak_reset"] = info("GPU:1")["peak"] == info("GPU:1")["current"]
        with tf.device("/GPU:1"):
            out["over_limit"] = outcome(lambda: tf.ones([3 * MIB]).numpy().shape)  # 12 MiB > 8
            ok = tf.ones([MIB // 2])  # 2 MiB fits
        out["fits"] = ok.device.endswith("GPU:1") and float(ok[-1]) == 1.0
        with tf.device("/GPU:0"):
            big = tf.ones([3 * MIB])  # 12 MiB fits GPU:0's 64
        out["big"] = [big.device.endswith("GPU:0"), float(tf.reduce_sum(big))]
        out["missing"] = outcome(lambda: info("GPU:2"))
        out["cpu"] = info("CPU:0")
    """,
}


@pytest.mark.parametrize("name", sorted(GPU_PROGRAMS))
def test_split_gpu(name):
    body = textwrap.indent(textwrap.dedent(GPU_PROGRAMS[name]), "    ")
    program = SPLIT_GPU + "if gpus:\n" + body
    got = run_fresh("ferroflow", program, {"FERROFLOW_ALLOW_SOFTWARE_GPU": "1"})
    if not got["gpus"]:
        pytest.skip("no GPU adapter")
    if name == "placement":
        assert got["logical"][:3] == ["/device:CPU:0", "/device:GPU:0", "/device:GPU:1"]
        assert got["values"] == [[4.0, 7.0]] * 3
        assert got["devices"] == [GPU + "0", GPU + "1", CPU + "0"]
        assert got["copied"] == [GPU + "0", GPU + "1", [1.0, 2.0, 3.0]]
        assert got["mixed"] == [GPU + "1", [2.0, 4.0, 6.0]]
        assert got["variable"] == [GPU + "1", [3.0, 5.0, 7.0]]
        assert got["back"] == [GPU + "0", [4.0, 8.0, 12.0]]
        # Soft placement: a logical GPU that does not exist falls back to the CPU.
        assert got["missing"] == CPU + "0"
        assert got["function"] == [4.0]
        assert got["changed"] == "RuntimeError"
    else:
        for key in ("grew", "other_unchanged", "usage", "freed", "peak_kept", "peak_reset"):
            assert got[key] is True, key
        assert got["value"] == 1.0
        assert got["over_limit"] == "ResourceExhaustedError"
        assert got["fits"] is True
        assert got["big"] == [True, float(3 * (1 << 20))]
        assert got["missing"] == "ValueError"
        assert got["cpu"] == {"current": 0, "peak": 0}


def test_split_gpu_list_and_configuration():
    got = run_fresh(
        "ferroflow",
        SPLIT_GPU
        + textwrap.dedent(
            """
            if gpus:
                out["get"] = [c.memory_limit for c in
                              tf.config.experimental.get_virtual_device_configuration(gpus[0])]
                out["gpu_logical"] = [tuple(d) for d in tf.config.list_logical_devices("GPU")]
            """
        ),
        {"FERROFLOW_ALLOW_SOFTWARE_GPU": "1"},
    )
    if not got["gpus"]:
        pytest.skip("no GPU adapter")
    assert got["get"] == [64, 8]
    assert got["gpu_logical"][:2] == [["/device:GPU:0", "GPU"], ["/device:GPU:1", "GPU"]]
