"""DLPack exchange of a 64 MiB float32 array: `to_dlpack` + `np.from_dlpack` and `np.__dlpack__`
+ `from_dlpack`, ferroflow vs TensorFlow vs numpy's own round trip. ferroflow's export shares the
tensor's memory (constant time); its import copies once (memcpy bound)."""

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


def _times(tf):
    t = tf.constant(np.arange(N, dtype=np.float32))
    array = np.arange(N, dtype=np.float32)
    export = best_time(lambda: np.from_dlpack(_Holder(tf.experimental.dlpack.to_dlpack(t))))
    imported = best_time(lambda: tf.experimental.dlpack.from_dlpack(array.__dlpack__()))
    return export * 1e6, imported * 1e6


def tensorflow_half():
    import tensorflow as tf

    export, imported = _times(tf)
    print(json.dumps({"export": export, "import": imported}))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    export, imported = _times(tf)
    array = np.arange(N, dtype=np.float32)
    numpy_round = best_time(lambda: np.from_dlpack(array)) * 1e6
    tf_res = run_tensorflow(__file__) or {}
    report(
        "DLPack exchange, 64 MiB float32",
        [
            ("to_dlpack + np.from_dlpack", export, numpy_round, tf_res.get("export")),
            ("np __dlpack__ + from_dlpack", imported, numpy_round, tf_res.get("import")),
        ],
        "us per exchange",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
