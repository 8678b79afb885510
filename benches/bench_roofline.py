"""The CPU roofline: this machine's float32 FMA peak and memory bandwidth, measured, and
ferroflow's kernels as fractions of them, side by side with numpy and TensorFlow in one run.

- peak: independent FMA chains in the widest vector registers (AVX-512, else AVX2), on one
  thread and on all of ferroflow's threads (`ferroflow._core.roofline_fma_peak`);
- bandwidth: STREAM's triad (two reads, one write) and a read-only sum over 256 MB arrays;
- matmul 512..4096 (square, one transposed operand, and a batch of 64 x 256^3): GFLOP/s and
  their fraction of the all-thread peak;
- elementwise add, a traced chain of four elementwise ops, and reduce_sum over 16M float32:
  bytes moved per second (inputs read + output written) as a fraction of the triad or read
  bandwidth;
- conversion of a 10M-element result to numpy: `np.asarray` (a view in both frameworks) and
  `.numpy()` (a copy in both: TensorFlow's is writeable and owns its memory).

`--quick` measures fewer sizes. Timings are noisy on shared machines: best of several runs.
"""

import json
import sys

import numpy as np
from _harness import best_time, run_tensorflow

QUICK = "--quick" in sys.argv
SIZES = (512, 1024) if QUICK else (512, 1024, 2048, 4096)
BATCH = (64, 256)  # 64 products of 256 x 256 by 256 x 256
N_ELEMENTS = 1 << 24
N_CONVERT = 10_000_000


def matmul_cases(tf, rng):
    """{label: (flops, callable)} over constants of `tf`."""
    cases = {}
    for n in SIZES:
        x = tf.constant(rng.standard_normal((n, n), dtype=np.float32))
        y = tf.constant(rng.standard_normal((n, n), dtype=np.float32))
        repeat = 3 if n >= 2048 else 5
        cases[f"matmul {n}"] = (2 * n**3, lambda x=x, y=y: tf.matmul(x, y), repeat)
        if n == 1024:
            cases[f"matmul {n} a^T b"] = (
                2 * n**3,
                lambda x=x, y=y: tf.matmul(x, y, transpose_a=True),
                repeat,
            )
            cases[f"matmul {n} a b^T"] = (
                2 * n**3,
                lambda x=x, y=y: tf.matmul(x, y, transpose_b=True),
                repeat,
            )
    b, n = BATCH
    x = tf.constant(rng.standard_normal((b, n, n), dtype=np.float32))
    y = tf.constant(rng.standard_normal((b, n, n), dtype=np.float32))
    cases[f"batch {b} x {n}^3"] = (2 * b * n**3, lambda: tf.matmul(x, y), 5)
    return cases


def stream_cases(tf, rng):
    """{label: (bytes moved, callable, bandwidth kind)}."""
    x = tf.constant(rng.standard_normal(N_ELEMENTS, dtype=np.float32))
    y = tf.constant(rng.standard_normal(N_ELEMENTS, dtype=np.float32))
    chain = tf.function(lambda a, b: tf.nn.relu(a * 2.0 + b) - 1.0)
    chain(x, y)
    size = 4 * N_ELEMENTS
    return {
        "add 16M": (3 * size, lambda: x + y, "triad"),
        "traced chain 16M (4 ops)": (3 * size, lambda: chain(x, y), "triad"),
        "reduce_sum 16M": (size, lambda: tf.reduce_sum(x), "read"),
    }


def measure(tf, sync):
    """Seconds per call of every case, ``{label: seconds}``."""
    rng = np.random.default_rng(0)
    out = {}
    for label, (_, fn, repeat) in matmul_cases(tf, rng).items():
        out[label] = best_time(lambda fn=fn: sync(fn()), repeat=repeat)
    for label, (_, fn, _) in stream_cases(tf, rng).items():
        out[label] = best_time(lambda fn=fn: sync(fn()), repeat=5)
    big = tf.constant(rng.standard_normal(N_CONVERT, dtype=np.float32)) + 1.0
    out["np.asarray 10M"] = best_time(lambda: np.asarray(big), repeat=5)
    out[".numpy() 10M"] = best_time(lambda: big.numpy(), repeat=5)
    return out


def numpy_times():
    rng = np.random.default_rng(0)
    out = {}
    for n in SIZES:
        x = rng.standard_normal((n, n), dtype=np.float32)
        y = rng.standard_normal((n, n), dtype=np.float32)
        out[f"matmul {n}"] = best_time(lambda x=x, y=y: x @ y, repeat=3)
        if n == 1024:
            out[f"matmul {n} a^T b"] = best_time(lambda x=x, y=y: x.T @ y, repeat=3)
            out[f"matmul {n} a b^T"] = best_time(lambda x=x, y=y: x @ y.T, repeat=3)
    b, n = BATCH
    x = rng.standard_normal((b, n, n), dtype=np.float32)
    out[f"batch {b} x {n}^3"] = best_time(lambda: x @ x, repeat=3)
    a = rng.standard_normal(N_ELEMENTS, dtype=np.float32)
    out["add 16M"] = best_time(lambda: a + a, repeat=5)
    out["traced chain 16M (4 ops)"] = best_time(
        lambda: np.maximum(a * 2.0 + a, 0.0) - 1.0, repeat=5
    )
    out["reduce_sum 16M"] = best_time(lambda: a.sum(), repeat=5)
    return out


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(measure(tf, lambda t: t)))


def main():
    import ferroflow as tf
    from ferroflow import _core

    tf.config.set_visible_devices([], "GPU")
    peak1 = _core.roofline_fma_peak(threads=1)
    peak = _core.roofline_fma_peak()
    bw = _core.roofline_bandwidth()
    print(f"\nCPU roofline ({peak['method']}, {peak['threads']} threads)")
    print(
        f"  float32 FMA peak: {peak1['value']:.1f} GFLOP/s on 1 thread, {peak['value']:.1f} on all"
    )
    print(
        f"  memory bandwidth: triad {bw['triad']['value']:.1f} GB/s, "
        f"read {bw['read']['value']:.1f} GB/s"
    )
    mine = measure(tf, lambda t: t)
    theirs = run_tensorflow(__file__, *(["--quick"] if QUICK else [])) or {}
    np_times = numpy_times()
    rng = np.random.default_rng(0)
    header = (
        f"  {'case':<28}{'ferroflow':>11}{'numpy':>10}{'tensorflow':>12}"
        f"{'ff/peak':>9}{'tf/peak':>9}"
    )

    print(f"\nfloat32 matmul  [GFLOP/s; fraction of the {peak['value']:.0f} GFLOP/s peak]")
    print(header)
    for label, (flops, _, _) in matmul_cases(tf, rng).items():
        rates = [
            flops / t / 1e9 if t else None
            for t in (mine[label], np_times.get(label), theirs.get(label))
        ]
        row(label, rates, peak["value"])

    print("\nmemory-bound kernels  [GB/s moved; fraction of the triad or read bandwidth]")
    print(header)
    for label, (moved, _, kind) in stream_cases(tf, rng).items():
        rates = [
            moved / t / 1e9 if t else None
            for t in (mine[label], np_times.get(label), theirs.get(label))
        ]
        row(label, rates, bw[kind]["value"])

    print("\nto numpy, 10M float32  [ms]")
    print(f"  {'case':<28}{'ferroflow':>11}{'tensorflow':>12}{'vs tf':>9}")
    for label in ("np.asarray 10M", ".numpy() 10M"):
        ff, other = mine[label] * 1e3, theirs.get(label)
        other_text = "-" if other is None else f"{other * 1e3:.3g}"
        ratio = "-" if other is None else f"{other * 1e3 / ff:.2f}x"
        print(f"  {label:<28}{ff:>11.3g}{other_text:>12}{ratio:>9}")
    print("  (vs tf >1: ferroflow is faster)")


def row(label, rates, roof):
    ff, np_, tf_ = rates
    text = lambda v: "-" if v is None else f"{v:.4g}"  # noqa: E731
    frac = lambda v: "-" if v is None else f"{v / roof:.0%}"  # noqa: E731
    print(f"  {label:<28}{text(ff):>11}{text(np_):>10}{text(tf_):>12}{frac(ff):>9}{frac(tf_):>9}")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
