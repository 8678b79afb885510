"""GFLOP/s of every GPU matmul tiling (forced, one at a time) against what the autotune picks,
with PyTorch's float32 matmul (TF32 off) beside them when PyTorch sees a CUDA device: the
table that says whether the autotune's candidates are the right ones for an adapter.

Sizes 1024..4096 on a hardware adapter (256..512 on a software one); ``--quick`` takes fewer.
Set FERROFLOW_ALLOW_SOFTWARE_GPU=1 to run on lavapipe.
"""

import sys

import numpy as np
from _harness import best_time, torch_matmul_gflops


def main():
    import ferroflow as tf
    from ferroflow import _core

    if not tf.config.list_logical_devices("GPU"):
        print("\nGPU matmul tilings: no GPU adapter (set FERROFLOW_ALLOW_SOFTWARE_GPU=1)")
        return
    details = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])
    sizes = (256, 512) if details["software"] else (1024, 2048, 4096)
    if "--quick" in sys.argv:
        sizes = sizes[:1]
    names = _core.gpu_matmul_tilings()
    print(f"\nGPU matmul float32 GFLOP/s per tiling on {details['device_name']}")
    print(f"  {'n':>6}" + "".join(f"{name:>16}" for name in [*names, "autotuned", "torch"]))
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.standard_normal((n, n), dtype=np.float32)
        with tf.device("GPU:0"):
            a, b = tf.constant(x), tf.constant(x.T.copy())
            rates = []
            for name in [*names, None]:
                _core.set_gpu_matmul_tiling(name)

                def product(a=a, b=b):
                    a @ b
                    _core.gpu_synchronize()

                rates.append(2 * n**3 / best_time(product, repeat=3) / 1e9)
        torch = torch_matmul_gflops(n)
        cells = [f"{r:>16.4g}" for r in rates] + [f"{'-' if torch is None else f'{torch:.4g}':>16}"]
        print(f"  {n:>6}" + "".join(cells))
    _core.set_gpu_matmul_tiling(None)


if __name__ == "__main__":
    main()
