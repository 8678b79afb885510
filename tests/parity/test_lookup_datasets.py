"""Lookup tables in `tf.data`: lookups inside `Dataset.map`, and
`tf.data.experimental.DatasetInitializer`, `table_from_dataset`, `index_table_from_dataset`
against TensorFlow."""

from .harness import assert_parity


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _in_map(tf):
    kv = tf.lookup.KeyValueTensorInitializer
    static = tf.lookup.StaticHashTable(kv(["a", "b"], tf.constant([1, 2], tf.int64)), -1)
    vocab = tf.lookup.StaticVocabularyTable(kv(["a", "b"], tf.constant([0, 1], tf.int64)), 3)
    mutable = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
    mutable.insert(tf.constant(["c"]), tf.constant([30], tf.int64))
    lines = tf.data.Dataset.from_tensor_slices(["a b", "c", "b zz a", ""])
    ds = lines.map(lambda s: tf.strings.split(s)).map(
        lambda w: (static.lookup(w), vocab.lookup(w), mutable.lookup(w))
    )
    parallel = lines.map(lambda s: static.lookup(s), num_parallel_calls=2, deterministic=True)
    # A table made in the map function is one resource, filled by the first element only.
    local = lines.map(lambda s: tf.lookup.StaticHashTable(kv(tf.stack([s]), [5]), -1).lookup(s))
    return [list(d.as_numpy_iterator()) for d in (ds, parallel, local)]


def test_lookup_in_dataset_map(tf_oracle):
    assert_parity(tf_oracle, _in_map)


def _from_dataset(tf):
    exp = tf.data.experimental
    pairs = tf.data.Dataset.from_tensor_slices((["a", "b", "c"], tf.constant([5, 6, 7], tf.int64)))
    query = tf.constant(["a", "c", "x", "yy"])
    out = [tf.lookup.StaticHashTable(exp.DatasetInitializer(pairs), -1).lookup(query)]
    out.append(exp.table_from_dataset(pairs, num_oov_buckets=3).lookup(query))
    out.append(exp.table_from_dataset(pairs, vocab_size=2).lookup(query))
    words = tf.data.Dataset.from_tensor_slices(["x", "y", "z"])
    for kwargs in ({}, {"num_oov_buckets": 2, "vocab_size": 2}, {"default_value": -7}):
        table = exp.index_table_from_dataset(words, **kwargs)
        out += [table.lookup(tf.constant(["x", "z", "q"])), table.size()]
    numbers = tf.data.Dataset.from_tensor_slices(tf.constant([30, 10, 20], tf.int64))
    by_number = exp.index_table_from_dataset(numbers, num_oov_buckets=4, key_dtype=tf.int64)
    out.append(by_number.lookup(tf.constant([10, 11, 20], tf.int64)))
    strings = tf.data.Dataset.from_tensor_slices((["k"], ["v"]))
    out.append(exp.table_from_dataset(strings, default_value="?").lookup(tf.constant(["k", "j"])))
    for bad in (
        lambda: exp.index_table_from_dataset(words, vocab_size=4),
        lambda: exp.table_from_dataset(words),
        lambda: exp.table_from_dataset(strings),
        lambda: exp.table_from_dataset(tf.data.Dataset.from_tensor_slices(([["x"]], [1]))),
        lambda: exp.table_from_dataset(pairs, num_oov_buckets=-1),
        lambda: exp.table_from_dataset(pairs, vocab_size=0),
        lambda: exp.table_from_dataset(pairs, key_dtype=tf.float32),
        lambda: exp.index_table_from_dataset(numbers, key_dtype=tf.int32).lookup([20]),
        lambda: exp.DatasetInitializer(tf.data.Dataset.from_tensor_slices(([1], [2], [3]))),
        lambda: tf.lookup.StaticHashTable(
            exp.DatasetInitializer(
                tf.data.Dataset.from_tensor_slices((["a", "a"], tf.constant([1, 2], tf.int64)))
            ),
            -1,
        ),
    ):
        out.append(_outcome(bad))
    return out


def test_tables_from_datasets(tf_oracle):
    assert_parity(tf_oracle, _from_dataset, helpers=[_outcome])
