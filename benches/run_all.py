"""Runs every benchmark, each in its own process (CPU benches hide the GPUs before first use),
side by side with numpy (and TensorFlow if present)."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

for name in (
    "bench_dispatch",
    "bench_elementwise",
    "bench_roofline",
    "bench_matmul",
    "bench_random",
    "bench_training_step",
    "bench_function",
    "bench_tracing",
    "bench_saved_model",
    "bench_fit",
    "bench_keras_models",
    "bench_fit_memory",
    "bench_gpu",
    "gpu_report",
    "bench_tensor_array",
    "bench_ragged",
    "bench_strings",
    "bench_sparse",
    "bench_segment",
    "bench_dlpack",
    "bench_data_pipeline",
    # 100k records here (the per-record parse path is slow); the measure is 1M.
    "bench_data_io --records 100000",
    "bench_parse_example",
):
    script, *args = name.split()
    subprocess.run([sys.executable, os.path.join(HERE, f"{script}.py"), *args], check=True)
