"""tf.signal's FFTs: fft of 2^20 complex64 values and rfft2d of a 1024x1024 float32 image,
ferroflow on CPU:0 and on GPU:0 (the WGSL Stockham kernels; the signal is uploaded before the
clock starts, the result read back inside it) against TensorFlow (its CPU build, in its own
interpreter, FERROFLOW_TF_PYTHON) and numpy.fft, in one run. On lavapipe (a software Vulkan
device on the CPU) the GPU row only shows that the path works."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow


def _arrays():
    rng = np.random.default_rng(0)
    n = 1 << 20
    signal = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    image = rng.standard_normal((1024, 1024)).astype(np.float32)
    return {"fft 2^20 complex64": signal, "rfft2d 1024x1024 float32": image}


def _program(tf, name):
    return tf.signal.fft if name.startswith("fft") else tf.signal.rfft2d


def _timings(tf, device=None):
    out = {}
    for name, array in _arrays().items():
        op = _program(tf, name)
        if device is None:
            x = tf.constant(array)
            out[name] = best_time(lambda o=op, v=x: o(v).numpy(), repeat=5)
            continue
        with tf.device(device):
            x = tf.constant(array)
            out[name] = best_time(lambda o=op, v=x: o(v).numpy(), repeat=5)
    return out


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


def _numpy(name, array):
    return np.fft.fft(array) if name.startswith("fft") else np.fft.rfft2(array)


def main():
    import ferroflow as tf

    theirs = run_tensorflow(__file__) or {}
    cpu = _timings(tf, "CPU:0")
    gpu = _timings(tf, "GPU:0") if tf.config.list_physical_devices("GPU") else {}
    rows = []
    for name, array in _arrays().items():
        got = _program(tf, name)(tf.constant(array)).numpy()
        want = _numpy(name, array)
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
        np_time = best_time(lambda n=name, a=array: _numpy(n, a), repeat=5) * 1e3
        tf_time = theirs.get(name)
        rows.append((f"{name} CPU:0", cpu[name] * 1e3, np_time, tf_time and tf_time * 1e3))
        if name in gpu:
            rows.append((f"{name} GPU:0", gpu[name] * 1e3, np_time, tf_time and tf_time * 1e3))
    report("tf.signal FFTs (time per call, result read back)", rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
