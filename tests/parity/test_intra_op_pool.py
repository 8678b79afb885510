"""The intra-op thread pool: the thread that imports ferroflow as Python's main thread runs its
ops as a member of rayon's pool (it works on its own parallel jobs instead of sleeping until a
worker has done them), other threads inject their jobs as before. Checked: membership, products
either side of the size where matmul starts to split across threads against TensorFlow, and
parallel kernels run at once from several Python threads against numpy (no deadlock, the same
values)."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from .harness import assert_parity

MEMBERSHIP = textwrap.dedent(
    """
    import threading
    import ferroflow as tf
    from ferroflow import _core

    before = _core.intra_op_thread_index()
    with tf.device("CPU:0"):
        tf.reduce_sum(tf.ones([1 << 20])).numpy()
    seen = []
    worker = threading.Thread(target=lambda: seen.append(_core.intra_op_thread_index()))
    worker.start()
    worker.join()
    print(before, _core.intra_op_thread_index(), seen[0])
    """
)


@pytest.mark.parametrize("threads, after", [(None, "0"), (2, "0"), (1, "None")])
def test_the_importing_main_thread_joins_the_pool_at_the_first_op(threads, after):
    env = dict(os.environ)
    prelude = ""
    if threads is not None:
        prelude = (
            "import ferroflow as tf\n"
            f"tf.config.threading.set_intra_op_parallelism_threads({threads})\n"
        )
    out = subprocess.run(
        [sys.executable, "-c", prelude + MEMBERSHIP],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    ).stdout.split()
    # Outside the pool before the first op, worker 0 after it (not in a one-thread pool: it
    # would be the only member and never run other threads' jobs); other threads stay outside.
    assert out == ["None", after, "None"]


ONE_THREAD = textwrap.dedent(
    """
    import threading
    import ferroflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    with tf.device("CPU:0"):
        (tf.constant(1.0) + 1.0).numpy()
        got = []
        worker = threading.Thread(
            target=lambda: got.append(float(tf.reduce_sum(tf.ones([1 << 22]) * 2.0)))
        )
        worker.start()
        worker.join()
    print(got[0])
    """
)


def test_a_one_thread_pool_runs_other_threads_parallel_kernels():
    # The main thread waits in join() while another thread runs kernels large enough to go
    # to the pool: with the main thread as the pool's only member this hung.
    out = subprocess.run(
        [sys.executable, "-c", ONE_THREAD],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert out == [str(float(1 << 23))]


def _products(tf, a, b, device):
    with tf.device(device):
        a, b = tf.constant(a), tf.constant(b)
        out = {}
        # 64x64x256 runs on the calling thread; 128^3 and 256x128x128 split across the pool.
        for m, k, n in [(64, 64, 256), (127, 128, 128), (128, 128, 128), (256, 128, 128)]:
            x, y = a[:m, :k], b[:k, :n]
            out[f"{m}x{k}x{n}"] = tf.matmul(x, y)
            out[f"{m}x{k}x{n}_t"] = tf.matmul(x, tf.transpose(y), transpose_b=True)
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_products_either_side_of_the_split_size_match_tensorflow(tf_oracle, device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    assert_parity(tf_oracle, _products, (a, b, device), rtol=2e-5, atol=2e-4)


def test_parallel_kernels_from_several_threads_at_once():
    import ferroflow as tf

    rng = np.random.default_rng(4)
    a = rng.standard_normal((384, 512)).astype(np.float32)
    b = rng.standard_normal((512, 384)).astype(np.float32)
    big = rng.standard_normal(1 << 21).astype(np.float32)
    want_product, want_sum = a @ b, (big * 2.0 + 1.0).astype(np.float64).sum()
    failures, results = [], []

    def work():
        try:
            with tf.device("CPU:0"):
                for _ in range(5):
                    product = tf.matmul(a, b).numpy()
                    total = float(tf.reduce_sum(tf.constant(big) * 2.0 + 1.0))
                    results.append((product, total))
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    work()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung in the pool"
    assert not failures, failures
    assert len(results) == 20
    for product, total in results:
        np.testing.assert_allclose(product, want_product, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(total, want_sum, rtol=1e-5)
