"""Peak memory of `fit`: the MLP and the small CNN of bench_keras_models.py (same data, model
and batch), each framework in a fresh process on the CPU. Reports the resident set before
`fit` (after the imports, the data and the model), its peak during `fit`, and the growth,
which is what training itself holds: activations, gradients, optimizer slots and whatever
the allocator keeps for reuse.
"""

import gc
import json
import os
import sys

from _harness import run_script, tensorflow_python

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 40


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def high_water_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(framework, kind):
    sys.path.insert(0, HERE)
    if framework == "tensorflow":
        import tensorflow as tf
    else:
        import ferroflow as tf
    tf.config.set_visible_devices([], "GPU")
    from bench_keras_models import BATCH, data, make_model

    x, y = data(kind)
    model = make_model(tf, kind)
    x, y = x[: BATCH * STEPS].copy(), y[: BATCH * STEPS].copy()
    model(x[:BATCH])
    gc.collect()
    before = rss_mb()
    # Resets the kernel's high-water mark (VmHWM) to the current resident set (Linux >= 4.0),
    # so that the peak read after fit is fit's own, not the full data set's before slicing.
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    model.fit(x, y, batch_size=BATCH, epochs=2, verbose=0)
    peak = high_water_mb()
    print(json.dumps({"before": before, "peak": peak}))


def measure(framework, kind):
    python = sys.executable
    if framework == "tensorflow":
        python = tensorflow_python()
        if python is None:
            return None
    return run_script(python, __file__, "--child", framework, kind, label=f"{framework} {kind}")


def main():
    print(f"\nPeak resident memory of fit, {STEPS} steps x 2 epochs, batch 128, CPU  [MiB]")
    print(f"  {'model':<8}{'framework':<12}{'before':>9}{'peak':>9}{'growth':>9}")
    for kind in ("mlp", "cnn"):
        growth = {}
        for framework in ("ferroflow", "tensorflow"):
            res = measure(framework, kind)
            if res is None:
                continue
            growth[framework] = res["peak"] - res["before"]
            print(
                f"  {kind:<8}{framework:<12}{res['before']:>9.0f}{res['peak']:>9.0f}"
                f"{growth[framework]:>9.0f}"
            )
        if len(growth) == 2:
            ratio = growth["ferroflow"] / growth["tensorflow"]
            print(f"  {kind}: ferroflow's growth is {ratio:.2f}x TensorFlow's")


if __name__ == "__main__":
    if "--child" in sys.argv:
        child(*sys.argv[sys.argv.index("--child") + 1 :])
    else:
        main()
