"""Shared timing helpers for the benchmarks: best-of-repeats wall time, printed side by side.

TensorFlow is optional: it is used when importable here, or through the interpreter named by
FERROFLOW_TF_PYTHON (a separate virtual environment, since TensorFlow is never a dependency).
"""

import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def cpu_seconds():
    """CPU time (user + system) this process has used: with the wall time of a pass, how many
    cores a pipeline kept busy."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best_time(fn, repeat=7, number=None, min_seconds=0.2):
    """Best per-call time in seconds over `repeat` rounds of `number` calls."""
    fn()
    if number is None:
        number = 1
        while True:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - start > min_seconds / repeat or number > 1 << 20:
                break
            number *= 2
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def tensorflow_python():
    """The interpreter that can import TensorFlow, or None."""
    try:
        import tensorflow  # noqa: F401

        return sys.executable
    except ImportError:
        pass
    candidate = os.environ.get("FERROFLOW_TF_PYTHON", "/opt/tf-oracle/bin/python")
    return candidate if os.path.exists(candidate) else None


def run_tensorflow(script, *args):
    """Runs `script` (a bench module's TF half) under TensorFlow's interpreter; returns its JSON."""
    python = tensorflow_python()
    if python is None:
        return None
    return run_script(python, script, "--tensorflow", *args, label="TensorFlow")


def run_script(python, script, *args, label="child"):
    """Runs `script` under `python` in its own process (TensorFlow's logs off, no CUDA);
    returns the JSON its last output line holds, or None when it fails."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    out = subprocess.run(
        [python, script, *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if out.returncode != 0:
        print(f"  ({label} run failed: {out.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(title, rows, unit):
    """rows: (label, ferroflow, numpy, tensorflow-or-None) in `unit`.

    The ratio columns are ferroflow's speed relative to the other library: above 1 means
    ferroflow is faster, whether the unit is a time (lower is better) or a rate (higher is).
    """
    rate = unit.endswith("/s")

    def speedup(ff, other):
        if other is None:
            return "-"
        return f"{ff / other:.2f}x" if rate else f"{other / ff:.2f}x"

    print(f"\n{title}  [{unit}]")
    print(f"  {'case':<28}{'ferroflow':>12}{'numpy':>12}{'tensorflow':>12}{'vs np':>9}{'vs tf':>9}")
    for label, ff, np_, tf_ in rows:
        tf_text = "-" if tf_ is None else f"{tf_:.3g}"
        np_text = "-" if np_ is None else f"{np_:.3g}"
        print(
            f"  {label:<28}{ff:>12.3g}{np_text:>12}{tf_text:>12}"
            f"{speedup(ff, np_):>9}{speedup(ff, tf_):>9}"
        )
    print("  (vs np / vs tf: ferroflow's speed relative to numpy / TensorFlow; >1 is faster)")


def eager_and_traced_rows(tf, programs, numpy_fn, mine, theirs, rtol, atol):
    """Report rows (name, ferroflow ms, numpy ms, TensorFlow ms) for eager calls and for
    tf.function calls of each `(program, arrays)`; checks each program against `numpy_fn`
    where that returns a reference."""
    eager_rows, fn_rows = [], []
    for name, (program, arrays) in programs.items():
        expected = numpy_fn(name, arrays)
        np_time = None
        if expected is not None:
            got = program(*[tf.constant(a) for a in arrays]).numpy()
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
            np_time = best_time(lambda n=name, a=arrays: numpy_fn(n, a), repeat=3) * 1e3
        tf_times = theirs.get(name)
        for rows, mode in ((eager_rows, "eager"), (fn_rows, "function")):
            rows.append((name, mine[name][mode] * 1e3, np_time, tf_times and tf_times[mode] * 1e3))
    return eager_rows, fn_rows


def eager_and_traced_timings(tf, programs, repeat=5):
    """Best times in seconds, ``{name: {"eager": ..., "function": ...}}``, of each
    ``name: (program, arrays)`` called on the arrays as constants, eagerly and as a
    tf.function (the program returns one tensor)."""
    out = {}
    for name, (program, arrays) in programs.items():
        args = [tf.constant(a) for a in arrays]
        traced = tf.function(program)
        out[name] = {
            "eager": best_time(lambda p=program, a=args: p(*a).numpy(), repeat=repeat),
            "function": best_time(lambda f=traced, a=args: f(*a).numpy(), repeat=repeat),
        }
    return out


def cuda_torch():
    """PyTorch when it is installed and sees a CUDA device (the GPU benches' reference), else
    None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def torch_matmul_gflops(n):
    """PyTorch's float32 matmul (TF32 off) on its CUDA device, GFLOP/s; None without one."""
    torch = cuda_torch()
    if torch is None:
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")

    def run():
        a @ b
        torch.cuda.synchronize()

    return 2 * n**3 / best_time(run, repeat=5) / 1e9
