"""parse_example throughput: 1M serialized 10-feature Examples (10,000 distinct records parsed
100 times in batches of 10,000), records per second. Run under either framework:

    .venv/bin/python benches/bench_parse_example.py            # ferroflow
    .venv-tf/bin/python benches/bench_parse_example.py --tf    # TensorFlow
"""

import sys
import time

if "--tf" in sys.argv:
    import tensorflow as tf
else:
    import ferroflow as tf

BATCH, REPEATS = 10_000, 100


def records():
    t = tf.train
    out = []
    for i in range(BATCH):
        feature = {}
        for k in range(4):
            feature[f"f{k}"] = t.Feature(float_list=t.FloatList(value=[i * 0.5 + k] * 4))
        for k in range(4):
            feature[f"i{k}"] = t.Feature(int64_list=t.Int64List(value=[i + k, k]))
        feature["s0"] = t.Feature(bytes_list=t.BytesList(value=[b"label-%d" % (i % 97)]))
        feature["s1"] = t.Feature(bytes_list=t.BytesList(value=[b"x" * (i % 5)] * (i % 3)))
        out.append(t.Example(features=t.Features(feature=feature)).SerializeToString())
    return out


def main():
    io = tf.io
    spec = {f"f{k}": io.FixedLenFeature([4], tf.float32) for k in range(4)}
    spec.update({f"i{k}": io.FixedLenFeature([2], tf.int64) for k in range(4)})
    spec["s0"] = io.FixedLenFeature([], tf.string)
    spec["s1"] = io.VarLenFeature(tf.string)
    batch = tf.constant(records())
    io.parse_example(batch, spec)  # warm-up
    start = time.perf_counter()
    for _ in range(REPEATS):
        io.parse_example(batch, spec)
    elapsed = time.perf_counter() - start
    print(
        f"{'tensorflow' if '--tf' in sys.argv else 'ferroflow'}: "
        f"{BATCH * REPEATS / elapsed:,.0f} records/s ({elapsed:.2f} s for {BATCH * REPEATS:,})"
    )


if __name__ == "__main__":
    main()
