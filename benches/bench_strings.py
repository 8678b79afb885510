"""tf.strings on 1M strings: lower, split, to_hash_bucket_fast, unicode_decode,
unicode_encode and ngrams, ferroflow beside TensorFlow (run in its own interpreter,
FERROFLOW_TF_PYTHON) and a plain-Python reference."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

N = 1_000_000


def words():
    rng = np.random.default_rng(0)
    vocab = np.array(["Hello", "World", "ferro", "FLOW", "caf\u00e9", "x", "tensor", "Strings"])
    picks = rng.integers(0, len(vocab), size=(N, 3))
    return [" ".join(row) for row in vocab[picks]]


def timings(tf, data):
    x = tf.constant(data)
    codes = tf.strings.unicode_decode(x, "UTF-8")
    tokens = tf.strings.split(x)
    return {
        "lower": best_time(lambda: tf.strings.lower(x), repeat=3) * 1e3,
        "split": best_time(lambda: tf.strings.split(x), repeat=3) * 1e3,
        "hash": best_time(lambda: tf.strings.to_hash_bucket_fast(x, 1000), repeat=3) * 1e3,
        "decode": best_time(lambda: tf.strings.unicode_decode(x, "UTF-8"), repeat=3) * 1e3,
        "encode": best_time(lambda: tf.strings.unicode_encode(codes, "UTF-8"), repeat=3) * 1e3,
        "ngrams": best_time(lambda: tf.strings.ngrams(tokens, 2), repeat=3) * 1e3,
    }


def tensorflow_half():
    import tensorflow as tf

    print(json.dumps(timings(tf, words())))


def main():
    import ferroflow as tf

    data = words()
    ff = timings(tf, data)
    codes = [[ord(c) for c in s] for s in data]
    toks = [s.split() for s in data]
    py = {
        "lower": best_time(lambda: [s.lower() for s in data], repeat=3) * 1e3,
        "split": best_time(lambda: [s.split() for s in data], repeat=3) * 1e3,
        "hash": best_time(lambda: [hash(s) % 1000 for s in data], repeat=3) * 1e3,
        "decode": best_time(lambda: [[ord(c) for c in s] for s in data], repeat=3) * 1e3,
        "encode": best_time(lambda: ["".join(map(chr, c)) for c in codes], repeat=3) * 1e3,
        "ngrams": best_time(lambda: [[" ".join(p) for p in zip(t, t[1:])] for t in toks], 3) * 1e3,
    }
    tf_res = run_tensorflow(__file__) or {}
    report(
        f"tf.strings on {N:,} strings (numpy column: plain Python lists)",
        [
            ("lower", ff["lower"], py["lower"], tf_res.get("lower")),
            ("split (ragged)", ff["split"], py["split"], tf_res.get("split")),
            ("to_hash_bucket_fast", ff["hash"], py["hash"], tf_res.get("hash")),
            ("unicode_decode (ragged)", ff["decode"], py["decode"], tf_res.get("decode")),
            ("unicode_encode (ragged)", ff["encode"], py["encode"], tf_res.get("encode")),
            ("ngrams (width 2)", ff["ngrams"], py["ngrams"], tf_res.get("ngrams")),
        ],
        "ms per call",
    )


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
