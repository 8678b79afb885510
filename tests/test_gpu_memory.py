"""GPU memory statistics (`tf.config.experimental.get_memory_info`, `reset_memory_stats`,
`get_memory_usage`): the bytes the live tensors of a GPU hold, counted where ferroflow's GPU
buffers are allocated and freed. In CI the GPU is Mesa's lavapipe (see conftest.py); split GPUs
with memory limits are in tests/parity/test_logical_devices.py."""

import gc

import ferroflow as tf
import pytest
from conftest import require_gpu

MIB = 1 << 20
info = tf.config.experimental.get_memory_info


@pytest.fixture(autouse=True)
def gpu():
    require_gpu()
    gc.collect()


def current():
    return info("GPU:0")["current"]


@pytest.mark.parametrize(
    "name", ["GPU:0", "/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0", "gpu:0"]
)
def test_spellings_name_the_same_counters(name):
    got = info(name)
    assert sorted(got) == ["current", "peak"]
    assert got["peak"] >= got["current"] >= 0


def test_a_tensor_counts_while_it_lives():
    before = current()
    with tf.device("GPU:0"):
        x = tf.ones([MIB // 4])  # 1 MiB of float32
    assert x.device.endswith("GPU:0")
    grown = current()
    assert grown - before >= MIB
    assert info("GPU:0")["peak"] >= grown
    assert tf.config.experimental.get_memory_usage("GPU:0") == grown
    del x
    gc.collect()
    assert grown - current() >= MIB
    assert info("GPU:0")["peak"] >= grown


def test_results_of_ops_and_uploads_count():
    before = current()
    with tf.device("GPU:0"):
        a = tf.constant([[1.0] * 512] * 512)  # uploaded: 1 MiB
        b = tf.matmul(a, a)  # a kernel output: 1 MiB
    assert float(b[0, 0]) == 512.0
    assert current() - before >= 2 * MIB
    del a, b
    gc.collect()
    assert current() - before < MIB


def test_peak_holds_until_reset():
    with tf.device("GPU:0"):
        x = tf.zeros([2 * MIB // 4])
    peak = info("GPU:0")["peak"]
    del x
    gc.collect()
    assert info("GPU:0")["peak"] == peak
    tf.config.experimental.reset_memory_stats("GPU:0")
    now = info("GPU:0")
    assert now["peak"] == now["current"] < peak


def test_cpu_is_not_tracked_and_unknown_devices_raise():
    # TensorFlow tracks no CPU memory by default: zeros.
    with tf.device("CPU:0"):
        kept = tf.ones([MIB])
    assert info("CPU:0") == {"current": 0, "peak": 0}
    assert tf.config.experimental.reset_memory_stats("CPU:0") is None
    assert float(kept[0]) == 1.0
    count = len(tf.config.list_logical_devices("GPU"))
    with pytest.raises(ValueError, match="No matching devices"):
        info(f"GPU:{count}")
    with pytest.raises(ValueError, match="Failed parsing device name"):
        info("GPU:x")
