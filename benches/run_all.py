"""Runs every benchmark in one process run, side by side with numpy (and TensorFlow if present)."""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

for name in ("bench_dispatch", "bench_elementwise", "bench_matmul"):
    runpy.run_path(os.path.join(HERE, f"{name}.py"), run_name="__main__")
