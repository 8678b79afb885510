"""Segment reductions and the other primitives of issue 18: tf.math.unsorted_segment_sum / max /
mean and the sorted segment_sum over 1M rows (inner sizes 1 and 16, 1000 segments), their
gradient, tf.bitcast of 1M floats, tf.random_index_shuffle of 1M indices and tf.edit_distance of
2000 pairs of 40-token sequences; eagerly and inside tf.function, against TensorFlow's (run in
its own interpreter, FERROFLOW_TF_PYTHON) and numpy. Both frameworks run on the CPU."""

import json
import sys

import numpy as np
from _harness import (
    eager_and_traced_rows,
    eager_and_traced_timings,
    report,
    run_tensorflow,
)

ROWS = 1_000_000
SEGMENTS = 1000


def _data(inner, seed=0):
    rng = np.random.default_rng(seed)
    shape = [ROWS] if inner == 1 else [ROWS // inner, inner]
    data = rng.standard_normal(shape).astype(np.float32)
    ids = rng.integers(0, SEGMENTS, size=shape[0]).astype(np.int32)
    return data, ids


def _sequences(pairs=2000, length=40, seed=1):
    rng = np.random.default_rng(seed)
    idx = np.stack(
        [np.repeat(np.arange(pairs), length), np.tile(np.arange(length), pairs)], 1
    ).astype(np.int64)
    hyp = rng.integers(0, 8, size=pairs * length).astype(np.int32)
    truth = rng.integers(0, 8, size=pairs * length).astype(np.int32)
    return idx, hyp, truth, [pairs, length]


def _programs(tf):
    """name -> (function, numpy inputs); the same programs for both frameworks."""
    programs = {}
    for inner in (1, 16):
        data, ids = _data(inner)
        sorted_ids = np.sort(ids)
        programs[f"unsorted_segment_sum x{inner}"] = (
            lambda d, i: tf.math.unsorted_segment_sum(d, i, SEGMENTS),
            (data, ids),
        )
        programs[f"unsorted_segment_max x{inner}"] = (
            lambda d, i: tf.math.unsorted_segment_max(d, i, SEGMENTS),
            (data, ids),
        )
        programs[f"unsorted_segment_mean x{inner}"] = (
            lambda d, i: tf.math.unsorted_segment_mean(d, i, SEGMENTS),
            (data, ids),
        )
        programs[f"segment_sum (sorted) x{inner}"] = (
            lambda d, i: tf.math.segment_sum(d, i),
            (data, sorted_ids),
        )

    def gradient(d, i):
        with tf.GradientTape() as tape:
            tape.watch(d)
            y = tf.math.unsorted_segment_max(d, i, SEGMENTS)
        return tape.gradient(y, d)

    programs["unsorted_segment_max gradient x16"] = (gradient, _data(16))
    floats = np.random.default_rng(2).standard_normal(ROWS).astype(np.float32)
    programs["bitcast float32->int32"] = (lambda x: tf.bitcast(x, tf.int32), (floats,))
    programs["random_index_shuffle 1M"] = (
        lambda i: tf.random_index_shuffle(i, [1, 2, 3], ROWS - 1),
        (np.arange(ROWS, dtype=np.int64),),
    )
    idx, hyp, truth, shape = _sequences()

    def distance(idx, hyp, truth):
        h = tf.SparseTensor(idx, hyp, shape)
        t = tf.SparseTensor(idx, truth, shape)
        return tf.edit_distance(h, t)

    programs["edit_distance 2000x40"] = (distance, (idx, hyp, truth))
    return programs


def _timings(tf):
    return eager_and_traced_timings(tf, _programs(tf), repeat=5)


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


def _numpy(name, arrays):
    """numpy's fastest equivalent (None where numpy has none)."""
    if name.startswith("unsorted_segment_sum") or name.startswith("segment_sum"):
        data, ids = arrays
        out = np.zeros((SEGMENTS, *data.shape[1:]), np.float32)
        np.add.at(out, ids, data)
        return out
    if name.startswith("unsorted_segment_max x"):
        data, ids = arrays
        out = np.full((SEGMENTS, *data.shape[1:]), np.finfo(np.float32).min, np.float32)
        np.maximum.at(out, ids, data)
        return out
    if name.startswith("bitcast"):
        return arrays[0].view(np.int32)
    return None


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    theirs = run_tensorflow(__file__) or {}
    mine = _timings(tf)
    eager_rows, fn_rows = eager_and_traced_rows(
        tf, _programs(tf), _numpy, mine, theirs, rtol=1e-4, atol=1e-4
    )
    report(f"segment reductions over {ROWS} float32 values and friends, eager", eager_rows, "ms")
    report("the same inside tf.function", fn_rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
