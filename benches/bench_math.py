"""tf.math of issue 19: the sorted tf.math.segment_sum over 10M float32 values (10k segments),
tf.math.lgamma and tf.math.igamma over 1M float32 values; eagerly and inside tf.function,
against TensorFlow's (run in its own interpreter, FERROFLOW_TF_PYTHON) and numpy without scipy
(np.add.reduceat for segment_sum, math.lgamma through np.vectorize for lgamma; numpy has no
incomplete gamma). Both frameworks run on the CPU."""

import json
import math
import sys

import numpy as np
from _harness import best_time, eager_and_traced_rows, report, run_tensorflow

VALUES = 10_000_000
SEGMENTS = 10_000
ELEMENTWISE = 1_000_000


def _arrays():
    rng = np.random.default_rng(0)
    data = rng.standard_normal(VALUES).astype(np.float32)
    ids = np.sort(rng.integers(0, SEGMENTS, size=VALUES)).astype(np.int32)
    a = rng.uniform(0.1, 20.0, ELEMENTWISE).astype(np.float32)
    x = rng.uniform(0.0, 25.0, ELEMENTWISE).astype(np.float32)
    return data, ids, a, x


def _programs(tf):
    """name -> (function, numpy inputs); the same programs for both frameworks."""
    data, ids, a, x = _arrays()
    return {
        "segment_sum 10M/10k": (lambda d, i: tf.math.segment_sum(d, i), (data, ids)),
        "lgamma 1M": (lambda v: tf.math.lgamma(v), (a,)),
        "igamma 1M": (lambda p, q: tf.math.igamma(p, q), (a, x)),
    }


def _timings(tf):
    out = {}
    for name, (program, arrays) in _programs(tf).items():
        args = [tf.constant(v) for v in arrays]
        traced = tf.function(program)
        out[name] = {
            "eager": best_time(lambda p=program, v=args: p(*v).numpy(), repeat=5),
            "function": best_time(lambda f=traced, v=args: f(*v).numpy(), repeat=5),
        }
    return out


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


_LGAMMA = np.vectorize(math.lgamma, otypes=[np.float64])


def _numpy(name, arrays):
    """numpy's fastest scipy-free equivalent (None where numpy has none)."""
    if name.startswith("segment_sum"):
        data, ids = arrays
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        out = np.zeros(ids[-1] + 1, np.float32)
        out[ids[starts]] = np.add.reduceat(data, starts)
        return out
    if name.startswith("lgamma"):
        return _LGAMMA(arrays[0]).astype(np.float32)
    return None


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    theirs = run_tensorflow(__file__) or {}
    mine = _timings(tf)
    eager_rows, fn_rows = eager_and_traced_rows(
        tf, _programs(tf), _numpy, mine, theirs, rtol=1e-3, atol=1e-2
    )
    report("tf.math: segment_sum and special functions, eager", eager_rows, "ms")
    report("the same inside tf.function", fn_rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
