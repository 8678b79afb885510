"""`tf.lookup` against TensorFlow: static, vocabulary, mutable and dense tables, text-file and
dataset initializers; lookups of dense, ragged and sparse keys, eagerly, in `tf.function` and
in `Dataset.map`, with TensorFlow's errors. Exports are sorted (their order is the hash map's)."""

import pytest

from .harness import assert_parity


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _static(tf, device):
    out = []
    kv = tf.lookup.KeyValueTensorInitializer
    with tf.device(device):
        for keys, values, default, query in (
            (["a", "b", "c"], [7, 8, 9], -1, tf.constant([["a", "x"], ["c", "b"]])),
            (tf.constant([1, 5], tf.int64), [0.5, 1.5], -2.0, tf.constant([5, 2, 1], tf.int64)),
            (tf.constant([3, 4]), ["x", "y"], "?", tf.constant([[[4]], [[0]]])),
            (["u", "v"], [True, False], False, tf.constant("v")),
            (["u", "v"], tf.constant([1.0, 2.0], tf.float64), 0.0, tf.constant([], tf.string)),
        ):
            table = tf.lookup.StaticHashTable(kv(keys, values), default)
            k, v = table.export()
            out += [table.lookup(query), table[query], table.size(), table.key_dtype]
            out += [table.value_dtype, table.default_value, tf.sort(k) if k.dtype != tf.bool else k]
            out.append(tf.function(lambda q, t=table: (t.lookup(q), t.size()))(query))
        table = tf.lookup.StaticHashTable(kv(["a", "b", "a"], [1, 2, 1]), -1)
        out.append(table.lookup(tf.ragged.constant([["a", "q"], [], ["b"]])))
        sp = table.lookup(tf.sparse.SparseTensor([[0, 1], [2, 0]], ["b", "z"], [3, 2]))
        out += [sp.indices, sp.values, sp.dense_shape]
        ragged = tf.function(table.lookup)(tf.ragged.constant([["b"], ["a", "a", "x"]]))
        out += [ragged, _outcome(lambda: table.lookup(tf.constant([1])))]
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_static_hash_table(tf_oracle, device):
    assert_parity(tf_oracle, _static, (device,), helpers=[_outcome])


def _static_errors(tf):
    kv = tf.lookup.KeyValueTensorInitializer
    sh = tf.lookup.StaticHashTable
    return [
        _outcome(lambda: sh(kv(["a", "a"], [1, 2]), -1)),
        _outcome(lambda: sh(kv(["a", "b"], [1, 2, 3]), -1)),
        _outcome(lambda: sh(kv(tf.constant([], tf.string), tf.constant([], tf.int64)), -1)),
        _outcome(lambda: sh(kv(["a"], [1]), "x")),
        _outcome(lambda: sh(kv(["a"], [1]), [1, 2])),
        _outcome(lambda: sh(kv([1.5], [1]), -1)),
        _outcome(lambda: sh(kv([1], [True]), False)),
        _outcome(lambda: sh(kv(tf.constant([1], tf.int8), [1]), 0)),
        _outcome(lambda: sh(kv(["a"], [1]), -1).lookup(["a"])),
        _outcome(lambda: sh(kv(["a"], [1]), -1).lookup(tf.constant([1.0]))),
    ]


def test_static_hash_table_errors(tf_oracle):
    assert_parity(tf_oracle, _static_errors, helpers=[_outcome])


def _vocabulary(tf, device):
    kv = tf.lookup.KeyValueTensorInitializer
    ids = tf.constant([0, 1, 2], tf.int64)
    out = []
    with tf.device(device):
        words = tf.lookup.StaticVocabularyTable(kv(["emerson", "lake", "palmer"], ids), 7)
        query = tf.constant([["lake", "tarkus"], ["", "palmer"]])
        out += [words.lookup(query), words.size(), words.key_dtype, words.value_dtype]
        out.append(tf.function(words.lookup)(query))
        out.append(words.lookup(tf.ragged.constant([["a", "lake"], ["zz"]])))
        numbers = tf.lookup.StaticVocabularyTable(
            kv(tf.constant([7, -3, 2**40], tf.int64), ids), 100, lookup_key_dtype=tf.int32
        )
        out.append(numbers.lookup(tf.constant([7, -3, 0, 12345, -99], tf.int32)))
        int64s = tf.lookup.StaticVocabularyTable(kv(tf.constant([5], tf.int64), [0 * 5]), 3)
        out.append(_outcome(lambda: int64s))
        only_oov = tf.lookup.StaticVocabularyTable(None, 11)
        out += [only_oov.lookup(tf.constant(["a", "b", "zz"])), only_oov.size()]
        out.append(_outcome(lambda: tf.lookup.StaticVocabularyTable(None, 0)))
        out.append(_outcome(lambda: tf.lookup.StaticVocabularyTable(kv(["a"], [1]), 2)))
        out.append(_outcome(lambda: tf.lookup.StaticVocabularyTable(kv([1], [1]), 2)))
        out.append(_outcome(lambda: words.lookup(tf.constant([1]))))
        out.append(
            _outcome(
                lambda: tf.lookup.StaticVocabularyTable(
                    kv(["a"], tf.constant([0], tf.int64)), 2, lookup_key_dtype=tf.int64
                )
            )
        )
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_static_vocabulary_table(tf_oracle, device):
    assert_parity(tf_oracle, _vocabulary, (device,), helpers=[_outcome])


def _text_file(tf, paths, blank_path):
    tfi = tf.lookup.TextFileInitializer
    idx = tf.lookup.TextFileIndex
    sh = tf.lookup.StaticHashTable
    out = [idx.WHOLE_LINE, idx.LINE_NUMBER]
    path = paths[0]
    query = tf.constant(["palmer", "lake", "tarkus", "palmer 30"])
    for init, default in (
        (tfi(paths[1], tf.string, 0, tf.int64, 1, delimiter=" "), -1),
        (tfi(paths[2], tf.string, idx.WHOLE_LINE, tf.int64, idx.LINE_NUMBER), -1),
        (tfi(paths[3], tf.string, 0, tf.int32, 1, delimiter=" ", value_index_offset=3), -1),
        (tfi(paths[4], tf.string, 0, tf.int64, idx.LINE_NUMBER, delimiter=" ", vocab_size=2), -1),
        (tfi(paths[5], tf.string, 0, tf.string, 1, delimiter=" "), "n/a"),
    ):
        table = sh(init, default)
        out += [table.lookup(query), table.size()]
    by_line = sh(tfi(paths[6], tf.int64, idx.LINE_NUMBER, tf.string, idx.WHOLE_LINE), "")
    out.append(by_line.lookup(tf.constant([0, 2, 9], tf.int64)))
    vocab = tf.lookup.StaticVocabularyTable(
        tfi(paths[7], tf.string, 0, tf.int64, idx.LINE_NUMBER, delimiter=" "), 4
    )
    out.append(vocab.lookup(query))
    for make in (
        lambda: sh(tfi(path, tf.string, 0, tf.int64, 2, delimiter=" "), -1),
        lambda: sh(tfi(path, tf.string, 0, tf.int64, 0, delimiter=" "), -1),
        lambda: sh(tfi(path, tf.string, -2, tf.int64, -1, vocab_size=5), -1),
        lambda: sh(tfi(blank_path, tf.string, -2, tf.int64, -1), -1),
        lambda: sh(tfi(path + ".missing", tf.string, -2, tf.int64, -1), -1),
        lambda: sh(tfi(path, tf.int64, -2, tf.int64, -1), -1),
        lambda: tfi("", tf.string, -2, tf.int64, -1),
        lambda: tfi(path, tf.string, -3, tf.int64, -1),
        lambda: tfi(path, tf.string, -1, tf.int64, -1),
        lambda: tfi(path, tf.float32, -2, tf.int64, -1),
        lambda: tfi(path, tf.string, -2, tf.string, -1),
        lambda: tfi(path, tf.string, -2, tf.int64, -1, vocab_size=0),
        lambda: sh(tfi(paths[8], tf.string, 0, tf.int32, 1, delimiter=" "), -1.5),
    ):
        out.append(_outcome(make))
    return out


def test_text_file_initializer(tf_oracle, tmp_path):
    paths = [tmp_path / f"vocab{i}.txt" for i in range(9)]
    for path in paths:
        path.write_text("emerson 10\nlake 20\npalmer 30\n")
    blank = tmp_path / "blank.txt"
    blank.write_text("a\nb\n\nc\n")
    assert_parity(tf_oracle, _text_file, ([str(p) for p in paths], str(blank)), helpers=[_outcome])


def _mutable(tf, device):
    out = []
    with tf.device(device):
        table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
        table.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64))
        table.insert(tf.constant([["b"]]), tf.constant([[20]], tf.int64))
        table.remove(tf.constant(["c", "nope"]))
        out += [table.lookup(tf.constant([["a", "b"], ["c", "d"]])), table.size()]
        out.append(table.lookup(["a", "x"], dynamic_default_values=tf.constant([5, 6], tf.int64)))
        k, v = table.export()
        order = tf.argsort(tf.strings.to_hash_bucket_fast(k, 2**31 - 1))
        out += [tf.gather(k, order), tf.gather(v, order), table.key_dtype, table.value_dtype]

        @tf.function
        def step(keys, values):
            table.insert(keys, values)
            found = table.lookup(tf.constant(["a", "q", "z"]))
            table.remove(tf.constant(["a"]))
            return found, table.lookup(tf.constant(["a"])), table.size()

        out.append(step(tf.constant(["z"]), tf.constant([26], tf.int64)))
        out.append(step(tf.constant(["q"]), tf.constant([17], tf.int64)))
        rows = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, -1.0])
        rows.insert(tf.constant([1, 2], tf.int64), [[1.0, 2.0], [3.0, 4.0]])
        out += [rows.lookup(tf.constant([[2, 9]], tf.int64)), rows.size()]
        for bad in (
            lambda: table.insert(tf.constant(["a", "b"]), tf.constant([1, 2, 3], tf.int64)),
            lambda: table.insert(tf.constant([1]), tf.constant([1], tf.int64)),
            lambda: table.insert(["a"], [1.5]),
            lambda: table.remove(tf.constant([1])),
            lambda: table.remove(["a"]),
            lambda: table.lookup(["a"], dynamic_default_values=tf.constant([1])),
            lambda: rows.insert(tf.constant([1, 2], tf.int64), [1.0, 2.0]),
            lambda: tf.lookup.experimental.MutableHashTable(tf.bool, tf.int32, 0),
            lambda: tf.lookup.experimental.MutableHashTable(tf.int32, tf.string, ""),
        ):
            out.append(_outcome(bad))
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_mutable_hash_table(tf_oracle, device):
    assert_parity(tf_oracle, _mutable, (device,), helpers=[_outcome])


def _dense(tf):
    dense = tf.lookup.experimental.DenseHashTable
    table = dense(tf.int64, tf.float32, -1.0, empty_key=0, deleted_key=-1)
    table.insert(tf.constant([5, 6, 7], tf.int64), tf.constant([0.5, 0.6, 0.7]))
    table.insert_or_assign(tf.constant([6], tf.int64), tf.constant([6.5]))
    table.erase(tf.constant([7, 99], tf.int64))
    out = [table.lookup(tf.constant([[5], [7]], tf.int64)), table.size(), table[[5]]]
    out.append(_outcome(lambda: table.lookup(tf.constant([[5, 6], [7, 8]], tf.int64))))
    out.append(tf.function(lambda k: table.lookup(k))(tf.constant([6], tf.int64)))
    words = dense(tf.string, tf.int32, 0, empty_key="", deleted_key="$")
    words.insert(["x", "y"], tf.constant([1, 2]))
    words.remove(tf.constant(["x"]))
    out += [words.lookup(["x", "y"]), words.size()]
    for bad in (
        lambda: dense(tf.int64, tf.int64, -1, empty_key=0, deleted_key=0),
        lambda: table.insert(tf.constant([0], tf.int64), [1.0]),
        lambda: table.insert(tf.constant([-1], tf.int64), [1.0]),
        lambda: table.lookup(tf.constant([0], tf.int64)),
        lambda: table.erase(tf.constant([1])),
        lambda: table.erase([1]),
        lambda: dense(tf.int32, tf.int64, -1, empty_key=0, deleted_key=-1),
        lambda: words.lookup(["", "y"]),
    ):
        out.append(_outcome(bad))
    return out


def test_dense_hash_table(tf_oracle):
    assert_parity(tf_oracle, _dense, helpers=[_outcome])


def _dense_export(tf):
    """The bucket arrays: hash positions, quadratic probing, reuse of removed buckets, growth.
    TensorFlow's export aliases the table's buffers (later inserts change an exported tensor),
    so each export is copied at once."""

    def copied(table):
        return [t.numpy().copy() for t in table.export()]

    dense = tf.lookup.experimental.DenseHashTable
    numbers = dense(tf.int64, tf.int64, -1, empty_key=0, deleted_key=-1, initial_num_buckets=16)
    numbers.insert(
        tf.constant([5, 21, 37, -7, 3], tf.int64), tf.constant([1, 2, 3, 4, 5], tf.int64)
    )
    out = copied(numbers)
    numbers.erase(tf.constant([21], tf.int64))
    numbers.insert(tf.constant([53], tf.int64), tf.constant([9], tf.int64))
    out += [*copied(numbers), numbers.size()]
    numbers.insert(tf.range(100, 140, dtype=tf.int64), tf.range(40, dtype=tf.int64))
    out += [*numbers.export(), numbers.size(), numbers.lookup(tf.constant([37, 53, 21], tf.int64))]
    words = dense(tf.string, tf.float32, [0.0, 0.0], "", "$", initial_num_buckets=64)
    keys = tf.strings.as_string(tf.range(40)) + tf.constant(["", "abcdefgh", "xyz\xff"])[:1]
    words.insert(tf.concat([keys, ["abcdefghij", "\u00e9\u00e9"]], 0), tf.ones([42, 2]))
    words.erase(tf.constant(["7", "nope"]))
    out += [*words.export(), words.size()]
    small = dense(tf.int32, tf.float64, 0.5, 7, 8, initial_num_buckets=4)
    small.insert(tf.constant([-1, 2**30, 3, 9]), tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
    out += [*small.export(), small.lookup(tf.constant([9, 3]))]
    for buckets in (3, 0, 1):
        out.append(_outcome(lambda b=buckets: dense(tf.int64, tf.int64, -1, 0, -1, b)))
    return out


def test_dense_hash_table_export(tf_oracle):
    assert_parity(tf_oracle, _dense_export, helpers=[_outcome])


def _checkpoint(tf, directory):
    import os

    prefix = os.path.join(directory, tf.__name__, "ckpt")
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    table.insert(tf.constant(["a", "b"]), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int32, -1, 0, -1)
    dense.insert(tf.constant([7, 8], tf.int64), tf.constant([70, 80]))
    path = tf.train.Checkpoint(t=table, d=dense).write(prefix)
    table.insert(tf.constant(["c"]), tf.constant([[5.0, 6.0]]))
    table.remove(tf.constant(["a"]))
    dense.erase(tf.constant([7], tf.int64))
    query = tf.constant(["a", "b", "c"])
    out = [table.lookup(query), dense.lookup(tf.constant([7, 8], tf.int64))]
    tf.train.Checkpoint(t=table, d=dense).read(path).assert_consumed()
    out += [table.lookup(query), table.size(), dense.lookup(tf.constant([7, 8], tf.int64))]
    fresh = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    later = tf.train.Checkpoint()
    later.restore(path)
    later.t = fresh  # restored on assignment
    out += [fresh.lookup(query), fresh.size()]
    return out


def test_mutable_tables_in_checkpoints(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _checkpoint, (str(tmp_path),))


FIELDS = ["1_0", "+7", "1e2", "inf", "0x10", "1.5", "\u0663", "1.5x", "nan", "-Infinity", ".5"]
FIELDS += ["99999999999999999999", "2147483648", "-0"]


def _text_fields(tf, paths):
    out = []
    for path, dtype in paths:  # one file per table: TensorFlow shares tables by file name
        init = tf.lookup.TextFileInitializer(path, tf.string, 0, getattr(tf, dtype), 1, " ")
        out.append(_outcome(lambda i=init: tf.lookup.StaticHashTable(i, 0).export()[1]))
    return out


def test_text_file_fields(tf_oracle, tmp_path):
    paths = []
    for dtype in ("int64", "int32", "float32", "float64"):
        for i, field in enumerate(FIELDS):
            path = tmp_path / f"{dtype}_{i}.txt"
            path.write_text(f"a {field}\n", encoding="utf-8")
            paths.append((str(path), dtype))
    assert_parity(tf_oracle, _text_fields, (paths,), helpers=[_outcome])


def _function_local(tf):
    """Tables made inside a traced function from its inputs: one per trace, filled on the
    trace's first run (later runs keep those contents, as TensorFlow's resources)."""
    kv = tf.lookup.KeyValueTensorInitializer

    @tf.function
    def local(keys, values, query):
        table = tf.lookup.StaticHashTable(kv(keys, values), -1)
        return table.lookup(query), table.size()

    @tf.function
    def vocabulary(keys, query):
        ids = tf.range(tf.size(keys, out_type=tf.int64))
        return tf.lookup.StaticVocabularyTable(kv(keys, ids), 3).lookup(query)

    query = tf.constant(["a", "c"])
    return [
        local(tf.constant(["a", "b"]), tf.constant([1, 2]), query),
        local(tf.constant(["c"]), tf.constant([3]), query),
        local(tf.constant(["c", "c"]), tf.constant([3, 4]), query),
        vocabulary(tf.constant(["x", "y"]), tf.constant(["y", "zz"])),
    ]


def test_tables_made_in_functions(tf_oracle):
    assert_parity(tf_oracle, _function_local)


def _dense_vector_keys(tf):
    """Keys that are vectors: TensorFlow's Hash64Combine of the elements' hashes places them."""
    dense = tf.lookup.experimental.DenseHashTable
    pairs = dense(tf.int64, tf.float32, -1.0, [0, 0], [-1, -1], initial_num_buckets=16)
    pairs.insert(tf.constant([[1, 2], [3, 4], [5, 6], [0, 7]], tf.int64), [1.0, 2.0, 3.0, 4.0])
    out = [t.numpy().copy() for t in pairs.export()]
    out.append(pairs.lookup(tf.constant([[3, 4], [9, 9]], tf.int64)))
    out.append(pairs.lookup(tf.constant([[[3, 4]], [[5, 6]]], tf.int64)))
    pairs.erase(tf.constant([[3, 4]], tf.int64))
    out += [pairs.size(), tf.function(pairs.lookup)(tf.constant([[5, 6], [3, 4]], tf.int64))]
    words = dense(tf.string, tf.int64, [-1, -1], ["", ""], ["$", "$"], initial_num_buckets=16)
    words.insert(tf.constant([["a", "b"], ["hello", "x"]]), tf.constant([[1, 2], [3, 4]], tf.int64))
    out += [*words.export(), words.lookup(tf.constant([["hello", "x"], ["a", "a"]]))]
    for bad in (
        lambda: pairs.lookup(tf.constant([3, 4], tf.int64)),
        lambda: pairs.lookup(tf.constant([1, 2, 3], tf.int64)),
        lambda: pairs.insert(tf.constant([[0, 0]], tf.int64), [1.0]),
        lambda: pairs.insert(tf.constant([[8, 8]], tf.int64), [1.0, 2.0]),
        lambda: dense(tf.int64, tf.int64, -1, empty_key=[0, 0], deleted_key=[1]),
    ):
        out.append(_outcome(bad))
    return out


def test_dense_hash_table_vector_keys(tf_oracle):
    assert_parity(tf_oracle, _dense_vector_keys, helpers=[_outcome])
