"""GPU speed: matmul GFLOP/s (1024..4096), elementwise throughput, an FFT of 2^20 complex64
values, the cost of one small op, readback latency, and 1000 queued small ops (shows that
submission is batched).

Runs on GPU:0 (set FERROFLOW_ALLOW_SOFTWARE_GPU=1 to count lavapipe, which is slower than the
CPU kernels: its figures only show that the path works). The CPU columns are ferroflow's own
CPU kernels in the same process; PyTorch's CUDA matmul is printed when torch sees a GPU.
"""

import os

import numpy as np
from _harness import best_time, cuda_torch, torch_matmul_gflops

SIZES = tuple(
    int(s) for s in os.environ.get("FERROFLOW_GPU_BENCH_SIZES", "1024,2048,4096").split(",")
)


def torch_fft_ms(n):
    torch = cuda_torch()
    if torch is None:
        return None
    z = torch.randn(n, dtype=torch.complex64, device="cuda")

    def run():
        torch.fft.fft(z)
        torch.cuda.synchronize()

    return best_time(run, repeat=5) * 1e3


def main():
    import ferroflow as tf
    from ferroflow import _core

    gpus = tf.config.list_logical_devices("GPU")
    if not gpus:
        print("\nGPU benchmarks: no GPU adapter (set FERROFLOW_ALLOW_SOFTWARE_GPU=1 for lavapipe)")
        return
    details = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])
    print(f"\nGPU benchmarks on {details['device_name']} ({details['backend']})")
    rng = np.random.default_rng(0)

    def on(device, fn):
        with tf.device(device):
            return fn()

    def gpu_time(fn, repeat=5):
        def run():
            fn()
            _core.gpu_synchronize()

        return best_time(run, repeat=repeat)

    print(f"  {'matmul float32':<28}{'GPU GFLOP/s':>12}{'CPU GFLOP/s':>12}{'torch':>10}")
    for n in SIZES:
        x = rng.standard_normal((n, n), dtype=np.float32)
        a, b = on("GPU:0", lambda x=x: (tf.constant(x), tf.constant(x.T.copy())))
        ca, cb = on("CPU:0", lambda x=x: (tf.constant(x), tf.constant(x.T.copy())))
        with tf.device("GPU:0"):
            gpu = 2 * n**3 / gpu_time(lambda a=a, b=b: a @ b, repeat=3) / 1e9
            err = np.abs((a @ b).numpy() - x @ x.T).max() / np.abs(x @ x.T).max()
        with tf.device("CPU:0"):
            cpu = 2 * n**3 / best_time(lambda ca=ca, cb=cb: ca @ cb, repeat=3) / 1e9
        torch = torch_matmul_gflops(n)
        torch_text = "-" if torch is None else f"{torch:.4g}"
        print(f"  {f'{n}x{n} (max rel err {err:.1e})':<28}{gpu:>12.4g}{cpu:>12.4g}{torch_text:>10}")

    n = 10_000_000
    x = rng.standard_normal(n, dtype=np.float32)
    with tf.device("GPU:0"):
        a = tf.constant(x)
        ew = n / gpu_time(lambda: a + a) / 1e9
    with tf.device("CPU:0"):
        c = tf.constant(x)
        ew_cpu = n / best_time(lambda: c + c) / 1e9
    print(f"  {'add, 10M float32':<28}{ew:>10.3g} Gelem/s (CPU kernels {ew_cpu:.3g})")

    n = 1 << 20
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    with tf.device("GPU:0"):
        g = tf.constant(z)
        fft_gpu = gpu_time(lambda: tf.signal.fft(g)) * 1e3
        err = np.abs(tf.signal.fft(g).numpy() - np.fft.fft(z)).max() / np.sqrt(n)
    with tf.device("CPU:0"):
        c = tf.constant(z)
        fft_cpu = best_time(lambda: tf.signal.fft(c)) * 1e3
    torch_fft = torch_fft_ms(n)
    torch_text = "" if torch_fft is None else f", torch {torch_fft:.3g} ms"
    print(
        f"  {'fft 2^20 complex64':<28}{fft_gpu:>10.3g} ms (CPU kernels {fft_cpu:.3g} ms"
        f"{torch_text}; max err/sqrt(n) {err:.1e})"
    )

    with tf.device("GPU:0"):
        s = tf.constant(1.0) * 1.0
        record = best_time(lambda: s + s)
        one = gpu_time(lambda: s + s)
        readback = best_time(lambda: (s + s).numpy())

        def thousand():
            t = s
            for _ in range(1000):
                t = t + 1.0
            return t

        batch = gpu_time(thousand, repeat=3) / 1000
    print(f"  {'one small op, queued':<28}{record * 1e6:>10.3g} us")
    print(f"  {'one small op + wait':<28}{one * 1e6:>10.3g} us")
    print(f"  {'one small op + readback':<28}{readback * 1e6:>10.3g} us")
    print(f"  {'1000 queued ops, per op':<28}{batch * 1e6:>10.3g} us (batched submission)")


if __name__ == "__main__":
    main()
