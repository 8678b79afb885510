"""Non-max suppression and Sobol points: tf.image.non_max_suppression over 10k boxes (hard,
and Soft-NMS over 2k), tf.image.combined_non_max_suppression on a [8, 5000, 90] batch and
tf.math.sobol_sample of 10000 points in 1000 dimensions; eagerly and inside tf.function,
against TensorFlow's CPU kernels (run in its own interpreter, FERROFLOW_TF_PYTHON). numpy has
no equivalent. Both frameworks run on the CPU."""

import json
import sys

import numpy as np
from _harness import (
    eager_and_traced_rows,
    eager_and_traced_timings,
    report,
    run_tensorflow,
)


def _boxes(shape, seed):
    rng = np.random.default_rng(seed)
    corner = rng.random((*shape, 2)).astype(np.float32)
    size = (rng.random((*shape, 2)) * 0.2).astype(np.float32)
    return np.concatenate([corner, corner + size], -1)


def _programs(tf):
    """name -> (function returning one tensor, numpy inputs); the same for both frameworks."""
    rng = np.random.default_rng(0)
    boxes, scores = _boxes([10_000], 1), rng.random(10_000).astype(np.float32)
    programs = {
        "nms 10k boxes": (
            lambda b, s: tf.image.non_max_suppression(b, s, 1000, 0.5),
            (boxes, scores),
        ),
        "soft-nms 2k boxes": (
            lambda b, s: tf.image.non_max_suppression_with_scores(
                b, s, 200, 1.0, 0.1, soft_nms_sigma=0.5
            )[1],
            (boxes[:2000], scores[:2000]),
        ),
    }
    batch = _boxes([8, 5000, 1], 2)
    class_scores = rng.random((8, 5000, 90)).astype(np.float32)
    programs["combined nms [8,5000,90]"] = (
        lambda b, s: tf.image.combined_non_max_suppression(b, s, 100, 100, 0.5, 0.05).nmsed_scores,
        (batch, class_scores),
    )
    programs["sobol_sample 10000x1000"] = (
        lambda d: tf.math.sobol_sample(d, 10_000, skip=7),
        (np.int32(1000),),
    )
    return programs


def _timings(tf):
    return eager_and_traced_timings(tf, _programs(tf), repeat=3)


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(_timings(tf)))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    theirs = run_tensorflow(__file__) or {}
    mine = _timings(tf)
    eager_rows, fn_rows = eager_and_traced_rows(
        tf, _programs(tf), lambda *_: None, mine, theirs, rtol=0, atol=0
    )
    report("non-max suppression and Sobol points, eager", eager_rows, "ms")
    report("the same inside tf.function", fn_rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
