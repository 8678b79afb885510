"""DLPack exchange of a 64 MiB float32 array: `to_dlpack` + `np.from_dlpack`, `np.__dlpack__` +
`from_dlpack` (also followed by a `reduce_sum` reading every element) and a tensor's own capsule
back, ferroflow vs TensorFlow vs numpy. Both directions share memory in both libraries (constant
time); the arrays are 64-byte aligned, as TensorFlow's kernels need for shared memory."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

N = 64 * 1024 * 1024 // 4


class _Holder:
    """Gives np.from_dlpack a capsule made beforehand (TensorFlow hands out bare capsules)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def _aligned(n):
    """np.arange(n, float32) at a 64-byte aligned address."""
    raw = np.zeros(4 * n + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    out = raw[skip : skip + 4 * n].view(np.float32)
    out[:] = np.arange(n, dtype=np.float32)
    return out


def _times(tf):
    dlpack = tf.experimental.dlpack
    t = tf.constant(np.arange(N, dtype=np.float32))
    array = _aligned(N)
    return {
        "export": best_time(lambda: np.from_dlpack(_Holder(dlpack.to_dlpack(t)))) * 1e6,
        "import": best_time(lambda: dlpack.from_dlpack(array.__dlpack__())) * 1e6,
        "import_sum": best_time(
            lambda: tf.reduce_sum(dlpack.from_dlpack(array.__dlpack__())).numpy()
        )
        * 1e6,
        "round_trip": best_time(lambda: dlpack.from_dlpack(dlpack.to_dlpack(t))) * 1e6,
    }


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_times(tf)))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    ff = _times(tf)
    array = _aligned(N)
    numpy_round = best_time(lambda: np.from_dlpack(array)) * 1e6
    numpy_sum = best_time(lambda: np.from_dlpack(array).sum()) * 1e6
    tf_res = run_tensorflow(__file__) or {}
    report(
        "DLPack exchange, 64 MiB float32",
        [
            ("to_dlpack + np.from_dlpack", ff["export"], numpy_round, tf_res.get("export")),
            ("np __dlpack__ + from_dlpack", ff["import"], numpy_round, tf_res.get("import")),
            ("from_dlpack + reduce_sum", ff["import_sum"], numpy_sum, tf_res.get("import_sum")),
            ("to_dlpack + from_dlpack", ff["round_trip"], numpy_round, tf_res.get("round_trip")),
        ],
        "us per exchange",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
