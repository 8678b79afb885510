"""One device-agnostic table of ferroflow's GPU path, for any adapter wgpu finds:

- the adapter (name, backend, whether it is a software rasteriser);
- float32 matmul GFLOP/s, 1024..8192 on a hardware adapter (256..1024 on a software one),
  with PyTorch's float32 matmul (TF32 off) beside it when PyTorch sees a CUDA device, and the
  fraction of the card's float32 peak when it is known (`--peak-tflops`, or the table below);
- the bandwidth of a large elementwise add (GB/s moved: two reads, one write);
- the host-side cost of one small op, one dispatch (recording and binding, no wait: 2000 ops
  queued without synchronising): the calling thread's CPU time per op, which leaves out the
  adapter's execution even where, as with lavapipe, it runs on this CPU's other threads, and
  the wall time per op beside it;
- Keras `fit` step times on GPU:0 of the seeds' model, the MLP and the small CNN (the models
  of bench_fit.py and bench_keras_models.py), and the kernel dispatches one step records.

Set FERROFLOW_ALLOW_SOFTWARE_GPU=1 to count lavapipe: its figures show that the path works and
what the host side costs, not GPU speed. ``--quick`` measures fewer sizes and steps.
"""

import os
import sys
import time

import numpy as np
from _harness import best_time, torch_matmul_gflops

QUICK = "--quick" in sys.argv
# Float32 peaks (TFLOP/s, boost clock, no tensor cores) of cards a report may run on; a name
# matches when it contains the key. `--peak-tflops N` overrides.
KNOWN_PEAKS = {"H200": 67.0, "H100 80GB HBM3": 67.0, "H100 PCIe": 51.2, "A100": 19.5, "L4": 30.3}


def card_peak(name):
    if "--peak-tflops" in sys.argv:
        return float(sys.argv[sys.argv.index("--peak-tflops") + 1])
    return next((peak for key, peak in KNOWN_PEAKS.items() if key in name), None)


def gpu_time(fn, repeat=3):
    from ferroflow import _core

    def run():
        fn()
        _core.gpu_synchronize()

    return best_time(run, repeat=repeat)


def matmul_rows(tf, software):
    sizes = (256, 512, 1024) if software else (1024, 2048, 4096, 8192)
    if QUICK:
        sizes = sizes[:2]
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        x = rng.standard_normal((n, n), dtype=np.float32)
        with tf.device("GPU:0"):
            a, b = tf.constant(x), tf.constant(x.T.copy())
            rate = 2 * n**3 / gpu_time(lambda a=a, b=b: a @ b) / 1e9
            got = (a @ b).numpy()
        expected = x.astype(np.float64) @ x.T.astype(np.float64)
        err = np.abs(got - expected).max() / np.abs(expected).max()
        rows.append((n, rate, err, torch_matmul_gflops(n)))
    return rows


def add_bandwidth(tf, software):
    n = (4 if software else 64) << 20
    with tf.device("GPU:0"):
        a = tf.constant(np.ones(n, np.float32))
        seconds = gpu_time(lambda: a + a, repeat=5)
    return 3 * 4 * n / seconds / 1e9


def dispatch_cost_us(tf):
    """(calling thread's CPU, wall) microseconds to queue one small op (no wait), best per-op
    figure over rounds of 2000 ops. Both operands are tensors, so nothing is uploaded."""
    from ferroflow import _core

    with tf.device("GPU:0"):
        s = tf.constant(1.0) * 1.0
        one = tf.constant(1.0)
        _core.gpu_synchronize()
        cpu = wall = float("inf")
        for _ in range(5):
            t = s
            start, start_cpu = time.perf_counter(), time.thread_time()
            for _ in range(2000):
                t = t + one
            cpu = min(cpu, (time.thread_time() - start_cpu) / 2000)
            wall = min(wall, (time.perf_counter() - start) / 2000)
            _core.gpu_synchronize()
    return cpu * 1e6, wall * 1e6


def fit_rows(tf, software):
    """(model, ms per step, dispatches per step) for fit on GPU:0."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_fit
    import bench_keras_models as models
    from ferroflow import _core

    rows = []
    steps = 3 if software or QUICK else 20
    cases = {
        "seeds' model (batch 32)": (lambda: bench_fit.make_model(tf), bench_fit.data(), 32),
        "mlp (batch 128)": (lambda: models.make_model(tf, "mlp"), models.data("mlp"), 128),
        "cnn (batch 128)": (lambda: models.make_model(tf, "cnn"), models.data("cnn"), 128),
    }
    for name, (make, (x, y), batch) in cases.items():
        x, y = x[: batch * steps], y[: batch * steps]
        with tf.device("GPU:0"):
            model = make()
            model.fit(x[:batch], y[:batch], batch_size=batch, epochs=1, verbose=0)
            _core.gpu_synchronize()
            before = _core.gpu_dispatch_count()
            start = time.perf_counter()
            history = model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
            float(history.history["loss"][-1])
            _core.gpu_synchronize()
            seconds = time.perf_counter() - start
            dispatches = _core.gpu_dispatch_count() - before
        rows.append((name, seconds / steps * 1e3, dispatches / steps))
    return rows


def main():
    import ferroflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        print("\nGPU report: no GPU adapter (set FERROFLOW_ALLOW_SOFTWARE_GPU=1 for lavapipe)")
        return
    details = tf.config.experimental.get_device_details(gpus[0])
    software = bool(details.get("software"))
    name = details["device_name"]
    kind = ", software rasteriser" if software else ""
    print(f"\nGPU report: {name} ({details['backend']}{kind})")
    peak = card_peak(name)

    print(
        f"\n  {'matmul float32':<16}{'GFLOP/s':>10}{'max rel err':>13}{'torch':>10}"
        f"{'vs torch':>10}{'of peak':>9}"
    )
    for n, rate, err, torch in matmul_rows(tf, software):
        torch_text = "-" if torch is None else f"{torch:.4g}"
        ratio = "-" if torch is None else f"{rate / torch:.2f}"
        of_peak = "-" if peak is None else f"{rate / (peak * 1e3):.1%}"
        print(f"  {f'{n}^3':<16}{rate:>10.4g}{err:>13.1e}{torch_text:>10}{ratio:>10}{of_peak:>9}")
    if peak is None:
        print("  (card peak unknown: pass --peak-tflops N for the fraction)")

    print(f"\n  add, large float32: {add_bandwidth(tf, software):.3g} GB/s")
    cpu_us, wall_us = dispatch_cost_us(tf)
    print(
        f"  one small op (one dispatch, no wait): {cpu_us:.3g} us host CPU "
        f"(calling thread), {wall_us:.3g} us wall"
    )

    print(f"\n  {'fit on GPU:0':<28}{'ms/step':>10}{'dispatches/step':>17}")
    for label, ms, dispatches in fit_rows(tf, software):
        print(f"  {label:<28}{ms:>10.3g}{dispatches:>17.0f}")


if __name__ == "__main__":
    main()
