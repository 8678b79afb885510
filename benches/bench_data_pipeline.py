"""In-memory `tf.data` pipelines with traced `map` functions, ferroflow beside TensorFlow (its
own interpreter, FERROFLOW_TF_PYTHON):

- vectors: ``range(n)`` → ``map(x * 2 + 1 on a float32 vector of 16 made from the index)`` →
  ``batch(256)`` → ``prefetch``; with a sequential ``map``, and (vectors-parallel) with
  ``num_parallel_calls=AUTOTUNE``;
- images: ``from_tensor_slices`` of n 64×64×3 uint8 images → ``map(tf.image.resize to 32×32,
  num_parallel_calls=AUTOTUNE)`` → ``batch(64)`` → ``prefetch``.

Each pipeline is one function of `tf`, run unchanged under both frameworks. It reports elements
per second and the CPU the process used over the pass, as `/usr/bin/time` gives it (CPU time /
wall time, in percent: 200% keeps both cores of a 2-core machine busy), and the ratio of
ferroflow's rate to TensorFlow's (>1: ferroflow is faster).

    python benches/bench_data_pipeline.py [--vectors 1000000] [--images 100000]
        [--cases vectors,vectors-parallel,images] [--ferroflow-only]

(one case per process under ``/usr/bin/time -v`` gives the same CPU percent.)
"""

import argparse
import json
import sys
import time

import numpy as np
from _harness import cpu_seconds

IMAGE_BATCH = 64
VECTOR_BATCH = 256


def timed_pass(dataset):
    """(elements, wall seconds, CPU percent) of one full pass over `dataset`."""
    count, wall, cpu = 0, time.perf_counter(), cpu_seconds()
    for batch in dataset:
        count += int(batch.shape[0])
    wall = time.perf_counter() - wall
    return count, wall, 100.0 * (cpu_seconds() - cpu) / wall


def vectors(tf, n, parallel):
    def scale(i):
        x = tf.cast(tf.fill([16], i), tf.float32)
        return x * 2.0 + 1.0

    calls = tf.data.AUTOTUNE if parallel else None
    ds = tf.data.Dataset.range(n).map(scale, num_parallel_calls=calls)
    return ds.batch(VECTOR_BATCH).prefetch(tf.data.AUTOTUNE)


def images(tf, n):
    pixels = np.random.default_rng(0).integers(0, 256, (n, 64, 64, 3), dtype=np.uint8)
    ds = tf.data.Dataset.from_tensor_slices(pixels)
    ds = ds.map(lambda im: tf.image.resize(im, [32, 32]), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(IMAGE_BATCH).prefetch(tf.data.AUTOTUNE)


CASES = ("vectors", "vectors-parallel", "images")


def run_all(tf, n_vectors, n_images, cases=CASES):
    """{case: [elements/s, CPU percent]}; each pipeline is built, then timed over one pass."""
    out = {}
    for name, make in (
        ("vectors", lambda: vectors(tf, n_vectors, False)),
        ("vectors-parallel", lambda: vectors(tf, n_vectors, True)),
        ("images", lambda: images(tf, n_images)),
    ):
        if name in cases:
            count, wall, cpu = timed_pass(make())
            out[name] = [count / wall, cpu]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vectors", type=int, default=1_000_000)
    parser.add_argument("--images", type=int, default=100_000)
    parser.add_argument("--cases", default=",".join(CASES), help=f"some of {CASES}")
    parser.add_argument("--tensorflow", action="store_true", help="only TensorFlow's half")
    parser.add_argument("--ferroflow-only", action="store_true")
    args = parser.parse_args()
    cases = args.cases.split(",")
    if args.tensorflow:
        import tensorflow as tf

        print(json.dumps(run_all(tf, args.vectors, args.images, cases)))
        return
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import ferroflow as tf
    from _harness import run_tensorflow

    mine = run_all(tf, args.vectors, args.images, cases)
    theirs = {}
    if not args.ferroflow_only:
        sizes = ("--vectors", args.vectors, "--images", args.images, "--cases", args.cases)
        theirs = run_tensorflow(__file__, *sizes) or {}
    print(f"\ntf.data pipelines ({args.vectors} vectors, {args.images} images)")
    header = zip(("ff elem/s", "ff CPU%", "tf elem/s", "tf CPU%", "vs tf"), (12, 9, 12, 9, 8))
    print(f"  {'case':<26}" + "".join(f"{h:>{w}}" for h, w in header))
    for name, (rate, cpu) in mine.items():
        tf_rate, tf_cpu = theirs.get(name, (None, None))
        ratio = "-" if tf_rate is None else f"{rate / tf_rate:.2f}x"
        tf_rate_text = "-" if tf_rate is None else f"{tf_rate:.3g}"
        tf_cpu_text = "-" if tf_cpu is None else f"{tf_cpu:.0f}"
        print(f"  {name:<26}{rate:>12.3g}{cpu:>9.0f}{tf_rate_text:>12}{tf_cpu_text:>9}{ratio:>8}")
    print("  (vs tf: ferroflow's rate relative to TensorFlow's; >1 is faster)")


if __name__ == "__main__":
    main()
