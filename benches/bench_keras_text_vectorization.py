"""`tf.keras.layers.TextVectorization` over 100k strings in a `tf.data` pipeline, ferroflow
beside TensorFlow (run in its own interpreter, FERROFLOW_TF_PYTHON):

- adapt: `adapt` on the strings as a dataset batched by 256 (standardize, split, count, sort);
- map: one pass over ``dataset.batch(256).map(layer)``: index sequences of length 32;
- call: one eager call of the layer on all 100k strings.

The strings are synthetic sentences of 4 to 20 words drawn from a Zipf-like vocabulary of 8000
words, with capitals and punctuation for the standardization to strip. Both runs learn the same
vocabulary (checked by a digest) and produce the same indices (checked by a checksum).
"""

import hashlib
import json
import sys
import time

import numpy as np
from _harness import report, run_tensorflow

N = 100_000
BATCH = 256
MAX_TOKENS = 20_000
LENGTH = 32
REPEAT = 3


def sentences():
    rng = np.random.default_rng(0)
    words = np.array([f"w{i:x}" for i in range(8000)])
    weights = 1.0 / np.arange(1, 8001)
    weights /= weights.sum()
    lengths = rng.integers(4, 21, size=N)
    picks = rng.choice(8000, size=int(lengths.sum()), p=weights)
    out, start = [], 0
    for n in lengths:
        sentence = " ".join(words[picks[start : start + n]])
        start += n
        out.append(sentence.capitalize() + (".", "!", "?", ",")[n % 4])
    return out


def best(fn):
    times = []
    for _ in range(REPEAT):
        begin = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - begin)
    return min(times) * 1e3, result


def timings(tf, data):
    dataset = tf.data.Dataset.from_tensor_slices(data).batch(BATCH)
    layer = tf.keras.layers.TextVectorization(max_tokens=MAX_TOKENS, output_sequence_length=LENGTH)
    adapt_ms, _ = best(lambda: layer.adapt(dataset))
    vocabulary = layer.get_vocabulary()

    def one_pass():
        total = 0
        for batch in dataset.map(layer):
            total += int(np.asarray(batch).astype(np.int64).sum())
        return total

    map_ms, checksum = best(one_pass)
    strings = tf.constant(data)
    call_ms, ids = best(lambda: layer(strings))
    return {
        "adapt": adapt_ms,
        "map": map_ms,
        "call": call_ms,
        "vocabulary": hashlib.sha1("\n".join(map(str, vocabulary)).encode()).hexdigest(),
        "size": len(vocabulary),
        "checksum": checksum,
        "call_checksum": int(np.asarray(ids).astype(np.int64).sum()),
    }


def tensorflow_half():
    import tensorflow as tf

    tf.config.set_visible_devices([], "GPU")
    print(json.dumps(timings(tf, sentences())))


def main():
    import ferroflow as tf

    data = sentences()
    with tf.device("/CPU:0"):
        ff = timings(tf, data)
    theirs = run_tensorflow(__file__) or {}
    report(
        f"TextVectorization on {N:,} strings (batch {BATCH}, max_tokens {MAX_TOKENS}, "
        f"sequence length {LENGTH}; numpy column unused)",
        [(case, ff[case], None, theirs.get(case)) for case in ("adapt", "map", "call")],
        "ms",
    )
    if theirs:
        same = all(ff[k] == theirs[k] for k in ("vocabulary", "size", "checksum", "call_checksum"))
        print(f"  same vocabulary ({ff['size']} tokens) and indices as TensorFlow: {same}")


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_half()
    else:
        main()
