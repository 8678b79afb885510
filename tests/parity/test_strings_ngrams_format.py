"""`tf.strings.ngrams`, `format`, `unsorted_segment_join`, regular expressions held in
tensors and crosses of string features against TensorFlow: values, dtypes, shapes and
exception classes, eagerly and inside `tf.function`, on the CPU and under a GPU scope."""

import pytest

from .harness import assert_parity
from .test_strings_unicode import _program

DEVICES = ["CPU:0", "GPU:0"]

RT = "tf.ragged.constant([['a', 'b', 'c', 'd'], [], ['e'], ['f', 'g']])"

EXPRESSIONS = [
    # ngrams
    "tf.strings.ngrams(['A', 'B', 'C', 'D'], 2)",
    "tf.strings.ngrams(['TF', 'and', 'keras'], 1)",
    "tf.strings.ngrams(['A', 'B', 'C'], 5)",
    "tf.strings.ngrams(['A', 'B', 'C'], 5, preserve_short_sequences=True)",
    f"tf.strings.ngrams({RT}, 2)",
    f"tf.strings.ngrams({RT}, [1, 3], separator='|')",
    f"tf.strings.ngrams({RT}, 3, pad_values='#')",
    f"tf.strings.ngrams({RT}, 3, pad_values=('<', '>'), padding_width=1)",
    f"tf.strings.ngrams({RT}, [2, 4], pad_values=('<', '>'), padding_width=2)",
    f"tf.strings.ngrams({RT}, 4, pad_values='#', padding_width=1, preserve_short_sequences=True)",
    f"tf.strings.ngrams({RT}, 3, preserve_short_sequences=True)",
    f"tf.strings.ngrams({RT}, 5, pad_values=('<', '>'), padding_width=10)",
    f"tf.strings.ngrams({RT}, 2, separator='')",
    "tf.strings.ngrams([['a', 'b', 'c'], ['d', 'e', 'f']], 2)",
    "tf.strings.ngrams([[['a', 'b'], ['c', 'd']]], 2, pad_values='_')",
    "tf.strings.ngrams(tf.ragged.constant([[['a', 'b'], ['c']], [[]]]), 2)",
    "tf.strings.ngrams(tf.zeros([0], tf.string), 2)",
    "tf.strings.ngrams(tf.ragged.constant([[], []], tf.string), 2, pad_values='x')",
    "tf.strings.ngrams(['a'], 0)",
    "tf.strings.ngrams(['a'], 2, padding_width=0, pad_values='x')",
    "tf.strings.ngrams(['a'], 2, padding_width=1)",
    "tf.strings.ngrams(['a'], 2, pad_values=3)",
    "tf.strings.ngrams(['a'], 2, pad_values=('a', 3))",
    "tf.strings.ngrams('a', 2)",
    "tf.strings.ngrams([1, 2], 2)",
    # format
    "tf.strings.format('tensor: {}, suffix', tf.range(5))",
    "tf.strings.format('a: {}, b: {}, suffix', (tf.range(2), tf.range(1, 4, 2)))",
    "tf.strings.format('{}', tf.constant('abc'))",
    "tf.strings.format('{} x {}', (tf.constant(['a', 'b\\n']), tf.constant(3.5)))",
    "tf.strings.format('{}', tf.range(10))",
    "tf.strings.format('{}', tf.range(10), summarize=-1)",
    "tf.strings.format('{}', tf.range(10), summarize=0)",
    "tf.strings.format('{}', tf.range(10), summarize=-2)",
    "tf.strings.format('{}', tf.reshape(tf.range(24), [2, 3, 4]), summarize=1)",
    "tf.strings.format('{}', tf.reshape(tf.range(16), [2, 2, 2, 2]))",
    "tf.strings.format('{}', tf.zeros([2, 0]))",
    "tf.strings.format('{}', tf.zeros([0]))",
    "tf.strings.format('{}', tf.zeros([2, 2, 0]))",
    "tf.strings.format('{}', tf.constant([True, False]))",
    "tf.strings.format('{}', tf.constant([[1 + 2j, 3j]]))",
    "tf.strings.format('{}', tf.constant([1.5, 0.1], tf.float16))",
    "tf.strings.format('{}', tf.constant([1.5, 0.1], tf.bfloat16))",
    "tf.strings.format('{}', tf.constant([0.1, 1 / 3.0, 1e20, -2.5e-7], tf.float64))",
    "tf.strings.format('{}', tf.constant([0.1, 1 / 3.0, 123456789.0, float('nan')], tf.float32))",
    "tf.strings.format('{}', tf.constant([1, 255], tf.uint8))",
    "tf.strings.format('{}', tf.constant([-1, 2], tf.int64))",
    "tf.strings.format('{} {}', tf.constant(1))",
    "tf.strings.format('{}', [tf.constant(1), tf.constant(2)])",
    "tf.strings.format('no', [])",
    "tf.strings.format('a%sb', tf.constant(1), placeholder='%s')",
    "tf.strings.format('{}', tf.ragged.constant([[1, 2], [3]]))",
    "tf.strings.format('r: {} d: {}', [tf.ragged.constant([[\"a'b\", 'c\\\\'], []]), "
    "tf.constant([1])])",
    "tf.strings.format('{}', tf.ragged.constant([[1], [2, 3, 4, 5, 6], [], [], [7], [8, 9]]), "
    "summarize=2)",
    "tf.strings.format('{}', tf.ragged.constant([[[1.5, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], "
    "ragged_rank=1))",
    "tf.strings.format('{}', tf.ragged.constant([[[1], []], [[2, 3]]]))",
    "tf.strings.format('{}', [5])",
    "tf.strings.format('{}', tf.constant([b'\\xff\\x00\"\\x07\\'\\\\']))",
    "tf.strings.format('{}', tf.constant(b'\\xc3\\xa9\\x01'))",
    # unsorted_segment_join
    "tf.strings.unsorted_segment_join(['a', 'b', '', 'c'], [0, 1, 0, 0], 3, separator=',')",
    "tf.strings.unsorted_segment_join(['', 'a', 'b'], [0, 0, 0], 1, separator=',')",
    "tf.strings.unsorted_segment_join([['a', 'b'], ['c', 'd']], [1, 0], 2, separator=':')",
    "tf.strings.unsorted_segment_join([['a', 'b'], ['c', 'd']], [[1, 0], [0, 0]], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 2], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, -1], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], 0, 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 0], [2])",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 0], [])",
    "tf.strings.unsorted_segment_join(['a', 'b'], [[0, 0]], 1)",
    "tf.strings.unsorted_segment_join('a', [0], 1)",
    "tf.strings.unsorted_segment_join(['a', 'b'], tf.constant([0, 1], tf.int64), "
    "tf.constant(2, tf.int64))",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0.0, 1.0], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 1], 0)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 1], -1)",
    "tf.strings.unsorted_segment_join(tf.zeros([0, 2], tf.string), tf.zeros([0], tf.int32), 2)",
    # regular expressions in tensors
    "tf.strings.regex_full_match(['abc', 'x'], tf.constant('a.c'))",
    "tf.strings.regex_full_match(['abc', 'x'], tf.constant(['a.c']))",
    "tf.strings.regex_full_match(['abc', 'x'], tf.constant('('))",
    "tf.strings.regex_full_match(['abc', 'x'], tf.constant(1))",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant('b'), 'Q')",
    "tf.strings.regex_replace(['abc', 'x'], 'b', tf.constant('Q'))",
    "tf.strings.regex_replace(['abcb', 'x'], tf.constant('(b)'), tf.constant('<\\\\1>'), "
    "replace_global=False)",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant('b'), tf.constant(['Q']))",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant(['b']), tf.constant('Q'))",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant('b'), tf.constant('\\\\2'))",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant('('), tf.constant('Q'))",
    "tf.strings.regex_replace(['abc', 'x'], tf.constant(''), tf.constant('-'))",
    "tf.strings.regex_replace(tf.ragged.constant([['abc'], ['x']]), tf.constant('b'), "
    "tf.constant('-'))",
    "tf.strings.regex_full_match(tf.ragged.constant([['abc'], ['x', 'ac']]), tf.constant('a.*'))",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_strings_expression(tf_oracle, expression, device):
    assert_parity(tf_oracle, _program, (expression, device))


def _traced(tf, device):
    with tf.device(device):

        @tf.function
        def f(words, splits, ids, pattern, rewrite):
            rt = tf.RaggedTensor.from_row_splits(words, splits)
            return {
                "ngrams": tf.strings.ngrams(rt, [1, 2], pad_values="#"),
                "dense": tf.strings.ngrams(words, 2),
                "format": tf.strings.format("w={} ids={}", (words, ids), summarize=2),
                "ragged": tf.strings.format("{}", rt),
                "join": tf.strings.unsorted_segment_join(words, ids, 3, separator="+"),
                "match": tf.strings.regex_full_match(words, pattern),
                "replace": tf.strings.regex_replace(words, pattern, rewrite),
            }

        def rows(out):
            return {k: v.to_list() if hasattr(v, "ragged_rank") else v for k, v in out.items()}

        def run(words, splits, ids, pattern, rewrite):
            return rows(
                f(
                    tf.constant(words),
                    tf.constant(splits, tf.int64),
                    tf.constant(ids),
                    tf.constant(pattern),
                    tf.constant(rewrite),
                )
            )

        a = run(["a", "bb", "c", "dd", "e"], [0, 2, 2, 5], [0, 2, 0, 1, 2], "[a-c]+", "<\\0>")
        b = run(["x", "y"], [0, 1, 2], [2, 2], "y", "")
        return a, b, f.experimental_get_tracing_count()


@pytest.mark.parametrize("device", DEVICES)
def test_strings_through_a_function(tf_oracle, device):
    assert_parity(tf_oracle, _traced, (device,))


CROSSES = [
    "tf.sparse.cross([tf.sparse.from_dense(tf.constant([['a', 'b'], ['c', '']])), "
    "tf.constant([[1], [2]], tf.int64)])",
    "tf.sparse.cross_hashed([tf.sparse.from_dense(tf.constant([['a', 'b'], ['c', '']])), "
    "tf.constant([[1], [2]], tf.int64)])",
    "tf.sparse.cross_hashed([tf.sparse.from_dense(tf.constant([['a', 'b'], ['c', '']])), "
    "tf.constant([[1], [2]], tf.int64)], num_buckets=100, hash_key=7)",
    "tf.sparse.cross([tf.constant([['a'], ['b']]), tf.constant([['x', 'y'], ['z', 'w']])], "
    "separator='|')",
    "tf.sparse.cross([tf.constant([[1], [2]], tf.int32), tf.constant([['x'], ['z']])])",
    "tf.sparse.cross([tf.constant([[1.5], [2]]), tf.constant([['x'], ['z']])])",
    "tf.sparse.cross([tf.constant([[3], [4]], tf.int64), tf.constant([[5, 6], [7, 8]], tf.int64)])",
    "tf.sparse.cross_hashed([tf.constant([['x', 'y'], ['z', 'w']]), tf.constant([['a'], ['b']])], "
    "num_buckets=10)",
    "tf.sparse.cross([tf.constant([['a'], ['b']]), tf.constant([['x']])])",
    "tf.ragged.cross([tf.ragged.constant([['a', 'b'], ['c']]), tf.constant([[1], [2]], tf.int64)])",
    "tf.ragged.cross_hashed([tf.ragged.constant([['a', 'b'], ['c']]), "
    "tf.constant([[1], [2]], tf.int64)], num_buckets=1000)",
    "tf.ragged.cross([tf.constant([['p'], ['q']]), tf.ragged.constant([['a', 'b'], []]), "
    "tf.sparse.from_dense(tf.constant([[7], [8]], tf.int64))])",
    "tf.ragged.cross_hashed([tf.constant([['p'], ['q']]), tf.ragged.constant([['a', 'b'], []])])",
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("expression", CROSSES)
def test_cross_expression(tf_oracle, expression, device):
    assert_parity(tf_oracle, _program, (expression, device))


def _random_crosses(tf, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    words = np.array([rng.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in range(80)])
    a = tf.constant(words.reshape(40, 2).astype(object))
    b = tf.constant(rng.integers(-(2**40), 2**40, size=(40, 3)), tf.int64)
    return {
        "hashed": tf.sparse.cross_hashed([a, b]).values,
        "buckets": tf.sparse.cross_hashed([b, a], num_buckets=97, hash_key=3).values,
        "strings": tf.sparse.cross([a, b], separator="#").values,
    }


def test_crosses_of_random_features(tf_oracle):
    assert_parity(tf_oracle, _random_crosses, (0,))
