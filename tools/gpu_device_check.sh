#!/usr/bin/env bash
# One prepared run of ferroflow's GPU checks on a lent NVIDIA machine (the workplace's `device`
# tool): the adapter wgpu finds, benches/gpu_report.py, benches/bench_gpu.py and
# benches/bench_gpu_matmul_tilings.py (PyTorch's float32 matmul beside ours), then
# the tests that run on GPU:0. Each step has its own time limit so that one hang cannot spend
# the whole lease; every log lands in $OUT.
#
# That machine has no package registry, and its python3 (3.12, with numpy, h5py, ml_dtypes,
# protobuf, pytest, hypothesis and torch) is not ours: the extension travels prebuilt (abi3) and
# stripped and compressed (the tree that travels is limited to 64 MiB) as
# .dev/_core.abi3.so.xz, and the Vulkan loader travels as .gl/libvulkan1*.deb.
# Prepare here:  strip -o /tmp/core.so python/ferroflow/_core.abi3.so && xz -c /tmp/core.so >.dev/_core.abi3.so.xz
# Run there:     bash tools/gpu_device_check.sh   (carry .gl and .dev)
set -u
out=${OUT:-/tmp/gpu_check}
mkdir -p "$out"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
python3 -c 'import lzma, shutil; shutil.copyfileobj(lzma.open(".dev/_core.abi3.so.xz"), open("python/ferroflow/_core.abi3.so", "wb"))'
# A .pth file rather than PYTHONPATH: tests start subprocesses with environments of their own.
site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
echo "$PWD/python" >"$site/ferroflow_dev.pth" || export PYTHONPATH=$PWD/python
# The autotune's choices come back with the logs.
export PYTHONUNBUFFERED=1 FERROFLOW_CACHE_DIR=$out

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv \
    >"$out/nvidia_smi.txt" 2>&1
timeout 60 python3 - <<'EOF' 2>&1 | tee "$out/adapter.txt"
import ferroflow as tf
gpus = tf.config.list_physical_devices("GPU")
print("GPUs:", gpus)
if gpus:
    print(tf.config.experimental.get_device_details(gpus[0]))
EOF
(cd benches && timeout 200 python3 gpu_report.py) 2>&1 | tee "$out/gpu_report.txt"
(cd benches && timeout 100 python3 bench_gpu.py) 2>&1 | tee "$out/bench_gpu.txt"
(cd benches && timeout 100 python3 bench_gpu_matmul_tilings.py) 2>&1 | tee "$out/tilings.txt"
# Parity tests need TensorFlow's interpreter, which cannot travel: they skip here, and the
# summary line says how many ran.
timeout "${GPU_TEST_SECONDS:-200}" python3 -m pytest -q -p no:cacheprovider -n 8 -k "GPU or tiling" \
    --timeout 60 -rfE tests >"$out/gpu_tests.txt" 2>&1
echo "pytest exit $?" >>"$out/gpu_tests.txt"
tail -40 "$out/gpu_tests.txt"
