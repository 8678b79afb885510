"""Ragged reductions: a RaggedTensor of 100k (and 10k) rows of random length 0..20 (float32),
reduced over its ragged axis (reduce_sum, reduce_mean, reduce_max over axis 1), over everything
(reduce_mean), padded to a dense tensor (to_tensor), and built anew then reduced; eagerly and
inside tf.function, against TensorFlow's (run in its own interpreter, FERROFLOW_TF_PYTHON) and
numpy's reduceat. Both frameworks run on the CPU."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

ROWS = (100_000, 10_000)
MAX_LENGTH = 20


def _problem(rows, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, MAX_LENGTH + 1, size=rows).astype(np.int64)
    values = rng.standard_normal(int(lengths.sum())).astype(np.float32)
    return values, lengths


def _programs(tf):
    """name -> function of a RaggedTensor (the same programs for both frameworks). The last
    builds a new RaggedTensor from the same values and lengths on every call, so nothing
    computed from its row partition is reused between calls."""
    return {
        "from_row_lengths+reduce_sum": lambda rt: tf.reduce_sum(
            tf.RaggedTensor.from_row_lengths(rt.values, rt.row_lengths()), axis=1
        ),
        "reduce_sum axis=1": lambda rt: tf.reduce_sum(rt, axis=1),
        "reduce_mean axis=1": lambda rt: tf.reduce_mean(rt, axis=1),
        "reduce_max axis=1": lambda rt: tf.reduce_max(rt, axis=1),
        "reduce_mean (all)": lambda rt: tf.reduce_mean(rt),
        "to_tensor": lambda rt: rt.to_tensor(),
    }


def _timings(tf):
    out = {}
    for rows in ROWS:
        values, lengths = _problem(rows)
        rt = tf.RaggedTensor.from_row_lengths(values, lengths)
        for name, program in _programs(tf).items():
            traced = tf.function(program)
            out[f"{name} {rows}"] = {
                "eager": best_time(lambda p=program, rt=rt: p(rt).numpy()),
                "function": best_time(lambda f=traced, rt=rt: f(rt).numpy()),
            }
    return out


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


def _numpy(name, values, lengths):
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    nonempty = lengths > 0
    if name.startswith("reduce_sum") or name.startswith("from_row_lengths"):
        out = np.zeros(len(lengths), np.float32)
        out[nonempty] = np.add.reduceat(values, starts[nonempty])
        return out
    if name.startswith("reduce_mean axis"):
        out = np.full(len(lengths), np.nan, np.float32)  # an empty row's mean is 0 / 0
        out[nonempty] = np.add.reduceat(values, starts[nonempty]) / lengths[nonempty]
        return out
    if name.startswith("reduce_max"):
        out = np.full(len(lengths), np.finfo(np.float32).min, np.float32)
        out[nonempty] = np.maximum.reduceat(values, starts[nonempty])
        return out
    if name.startswith("reduce_mean"):
        return np.float32(values.mean())
    dense = np.zeros((len(lengths), lengths.max()), np.float32)
    dense[np.arange(MAX_LENGTH + 1)[None, : lengths.max()] < lengths[:, None]] = values
    return dense


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    theirs = run_tensorflow(__file__) or {}
    mine = _timings(tf)
    eager_rows, fn_rows = [], []
    for rows in ROWS:
        values, lengths = _problem(rows)
        rt = tf.RaggedTensor.from_row_lengths(values, lengths)
        for name, program in _programs(tf).items():
            key = f"{name} {rows}"
            expected = _numpy(name, values, lengths)
            np.testing.assert_allclose(program(rt).numpy(), expected, rtol=1e-4, atol=1e-4)
            np_time = best_time(lambda n=name, v=values, rl=lengths: _numpy(n, v, rl), repeat=3)
            tf_times = theirs.get(key)
            eager_rows.append(
                (key, mine[key]["eager"] * 1e3, np_time * 1e3, tf_times and tf_times["eager"] * 1e3)
            )
            fn_rows.append(
                (
                    key,
                    mine[key]["function"] * 1e3,
                    np_time * 1e3,
                    tf_times and tf_times["function"] * 1e3,
                )
            )
    report(f"ragged, rows of 0..{MAX_LENGTH} float32 values, eager", eager_rows, "ms per call")
    report("the same inside tf.function", fn_rows, "ms per call")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
