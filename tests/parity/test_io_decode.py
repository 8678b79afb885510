"""`tf.io` file and decoding ops against TensorFlow: read_file/write_file/matching_files,
decode_raw, decode_csv, base64 and decode_compressed, eagerly and inside a `tf.function`, with
the error classes of bad inputs (missing files, malformed CSV lines, strings of the wrong
length, corrupted compressed data). Each program collects many cases into one result."""

import pytest

from .harness import assert_parity


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _files(tf, root):
    import os
    import tempfile

    base = tempfile.mkdtemp(dir=root)
    cut = len(base)
    a = os.path.join(base, "a.txt")
    with open(a, "wb") as f:
        f.write(b"abc\x00d")

    def rel(t):
        return [s[cut:] for s in t.numpy().tolist()]

    static = []

    @tf.function
    def traced(path, pattern):
        content = tf.io.read_file(path)
        tf.io.write_file(path + ".copy", content)
        matched = tf.io.matching_files(pattern)
        static.append((content.shape.as_list(), matched.shape.as_list()))
        return content, matched

    out = [
        tf.io.read_file(a),
        _try(lambda: tf.io.read_file(os.path.join(base, "missing"))),
        _try(lambda: tf.io.read_file(base)),
        _try(lambda: tf.io.read_file(3)),
        _try(lambda: tf.io.read_file([a])),
        tf.io.write_file(os.path.join(base, "sub", "b.txt"), "xyz"),
        tf.io.read_file(os.path.join(base, "sub", "b.txt")),
        _try(lambda: tf.io.write_file(a + "2", ["xyz"])),
        rel(tf.io.matching_files(os.path.join(base, "*.txt"))),
        rel(tf.io.matching_files([os.path.join(base, "*"), os.path.join(base, "a*")])),
        tf.io.matching_files(os.path.join(base, "zz*")),
        _try(lambda: tf.io.matching_files([["*"]])),
    ]
    content, matched = traced(tf.constant(a), tf.constant(os.path.join(base, "a.tx?")))
    out += [content, rel(matched), static, tf.io.read_file(a + ".copy")]
    out.append(_try(lambda: traced(tf.constant(a + "nope"), tf.constant(a))))
    v = tf.io.match_filenames_once(os.path.join(base, "*.txt"))
    out += [rel(v), v.trainable]
    return out


def test_files(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _files, (str(tmp_path),), helpers=[_try])


def _raw(tf, device):
    with tf.device(device):
        s = tf.constant([b"abcdefgh", b"\x01\x02\x03\x04\xff\xfe\xfd\x00"])
        out = []
        for dt in ("uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "float32",
                   "float64", "bfloat16", "complex64", "bool"):  # fmt: skip
            for little in (True, False):
                out.append(tf.io.decode_raw(s, getattr(tf, dt), little_endian=little))
        out.append(tf.io.decode_raw(tf.constant(b"abcd"), tf.int16))
        out.append(tf.io.decode_raw(tf.constant([[b"ab"], [b"cd"]]), tf.uint8))
        out.append(tf.io.decode_raw(tf.constant([[]], tf.string), tf.float64))
        out.append(tf.io.decode_raw(tf.constant([b""]), tf.float64))
        out.append(tf.io.decode_raw(tf.constant([b"abcd", b"ef"]), tf.int16, fixed_length=6))
        out.append(tf.io.decode_raw(tf.constant([b"abc", b""]), tf.int16, False, fixed_length=4))
        for bad in (
            lambda: tf.io.decode_raw(tf.constant([b"abcd", b"efg"]), tf.int16),
            lambda: tf.io.decode_raw(tf.constant(b"abc"), tf.int16),
            lambda: tf.io.decode_raw(tf.constant([b"ab"]), tf.int16, fixed_length=3),
            lambda: tf.io.decode_raw(tf.constant([b"ab"]), tf.string),
            lambda: tf.io.decode_raw(tf.constant([b"ab"]), tf.uint32),
            lambda: tf.io.decode_raw(tf.constant([1]), tf.uint8),
        ):
            out.append(_try(bad))
        f = tf.function(lambda x: tf.io.decode_raw(x, tf.int32))
        out.append(f(tf.constant([b"abcd", b"efgh"])))
        out.append(_try(lambda: f(tf.constant([b"abcd", b"efg"]))))
        return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_decode_raw(tf_oracle, device):
    assert_parity(tf_oracle, _raw, (device,), helpers=[_try])


def _csv(tf):
    d = tf.io.decode_csv
    i64, f64 = tf.constant([0], tf.int64), tf.constant([0.0], tf.float64)
    cases = [
        lambda: d(["1,2.5,a", '3,,"b,c"', '\n4,1e3,"x""y"'], [[0], [0.0], ["z"]]),
        lambda: d("1,2", [[0], [0]]),
        lambda: d([["1,2"], ["3,4"]], [[0], i64]),
        lambda: d(tf.constant([], tf.string), [[0], [0.0]]),
        lambda: d(["nan,inf,-Infinity,0x1p3,.5,+1.e2, 7 "], [[0.0]] * 4 + [f64] * 3),
        lambda: d(["1e40,1e-50,3.4028236e38"], [[0.0], [0.0], f64]),
        lambda: d([" 1,+2,-0,2147483647,9223372036854775807"], [[0]] * 4 + [i64]),
        lambda: d(['"a""b",c'], [[""], [""]], use_quote_delim=False),
        lambda: d(["1|2"], [[0], [0]], field_delim="|"),
        lambda: d(["NA,2"], [[0], [0]], na_value="NA"),
        lambda: d(["1,2,3"], [[0], [""]], select_cols=[0, 2]),
        lambda: d(['1,"x,y",3,"a"b'], [[0], [""]], select_cols=[0, 2]),
        lambda: d(["1,2,"], [[0], ["d"]], select_cols=[1, 2]),
        lambda: d([",", ""], [[""], ["q"]]),
        lambda: d(['"1\n",2'], [[""], [""]]),
        lambda: d(["1,2,3"], [[0], [0]]),
        lambda: d(["1"], [[0], [0]]),
        lambda: d(["1,"], [[0], tf.constant([], tf.int32)]),
        lambda: d(["a,2"], [[0], [0]]),
        lambda: d(["1.5,2"], [[0], [0]]),
        lambda: d(["2147483648"], [[0]]),
        lambda: d(["1.5e,2"], [[0.0], [""]]),
        lambda: d(["1_0"], [[0.0]]),
        lambda: d(['"a"b,c'], [[""], [""]]),
        lambda: d(['a"b,c'], [[""], [""]]),
        lambda: d(['"ab,c'], [[""], [""]]),
        lambda: d(["1\n,2"], [[""], [""]]),
        lambda: d(["1||2"], [[0], [0]], field_delim="||"),
        lambda: d(["1,2,3"], [[0], [""]], select_cols=[2, 0]),
        lambda: d(["1,2,3"], [[0], [""]], select_cols=[0, 5]),
        lambda: d(["1,2,3"], [[0]], select_cols=[0, 2]),
        lambda: d(["1,2"], [[0]], select_cols=[-1]),
        lambda: d(["1,2"], [[True], [0]]),
        lambda: d(["1,2"], [[0], [[0]]]),
        lambda: d(["1,2"], [[0], tf.constant([0, 1])]),
        lambda: d(["1,2"], []),
        lambda: d([1], [[0]]),
    ]
    out = [_try(c) for c in cases]
    f = tf.function(lambda r: d(r, [[0], ["-"], f64], select_cols=[0, 1, 3]))
    out.append(f(tf.constant(["1,a,x,2.5", "3,,y,"])))
    out.append(_try(lambda: f(tf.constant(["1,a,x"]))))
    return out


def test_decode_csv(tf_oracle):
    assert_parity(tf_oracle, _csv, helpers=[_try])


def _codecs(tf):
    import gzip
    import zlib

    out = [
        tf.io.encode_base64(tf.constant([b"hi?>", b"", b"\xff\xfe\x00"])),
        tf.io.encode_base64(tf.constant([[b"hi?>", b"a"]]), pad=True),
        tf.io.decode_base64(tf.constant([b"aGk_Pg", b"aGk_Pg==", b"", b"YQ", b"YWI="])),
    ]
    for bad in (b"aGk/Pg", b"aGk_P", b"aGk_Pg=", b"a", b"aG k_", b"aGk_Pg===", b"aGk=Pg", b"===="):
        out.append(_try(lambda b=bad: tf.io.decode_base64(tf.constant([b]))))
    out.append(_try(lambda: tf.io.encode_base64(tf.constant([1]))))
    big = bytes(range(256)) * 50
    cases = [
        ([zlib.compress(b"hello"), zlib.compress(b"")], "ZLIB"),
        ([gzip.compress(b"hello"), gzip.compress(big)], "GZIP"),
        ([b"plain"], ""),
        ([zlib.compress(b"a") + zlib.compress(b"b"), zlib.compress(b"a") + b"junk"], "ZLIB"),
        ([gzip.compress(b"a") + gzip.compress(b"b")], "GZIP"),
        ([zlib.compress(big)[:300], gzip.compress(b"hello")[:-3]], "ZLIB"),
        ([gzip.compress(big)[:300]], "GZIP"),
        ([b"plain"], "ZLIB"),
        ([gzip.compress(b"hello")], "ZLIB"),
        ([zlib.compress(b"hello")], "GZIP"),
        ([zlib.compress(b"hello")], "BAD"),
        ([zlib.compress(b"hello")[:-1] + b"\x00"], "ZLIB"),
        ([gzip.compress(b"hello")[:-1] + b"\x09"], "GZIP"),
        ([gzip.compress(b"a") + b"junk"], "GZIP"),
    ]
    for data, kind in cases:
        out.append(_try(lambda d=data, k=kind: tf.io.decode_compressed(tf.constant(d), k)))
    out.append(tf.io.decode_compressed(tf.constant(b""), "ZLIB"))
    f = tf.function(lambda x: tf.io.decode_base64(tf.io.encode_base64(x, pad=True)))
    out.append(f(tf.constant([b"abc", b"de"])))
    g = tf.function(lambda x: tf.io.decode_compressed(x, "GZIP"))
    out.append(g(tf.constant([gzip.compress(b"xyz")])))
    out.append(_try(lambda: g(tf.constant([b"notgzip"]))))
    return out


def test_base64_and_compressed(tf_oracle):
    assert_parity(tf_oracle, _codecs, helpers=[_try])


def _sparse(tf):
    sp = tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 2]], [1.5, 2.5, 3.5], [3, 4])
    unordered = tf.sparse.SparseTensor([[2, 0], [0, 1]], [1, 2], [3, 2])
    strings = tf.sparse.SparseTensor([[1]], [b"s"], [3])
    many = tf.io.serialize_many_sparse(sp)
    a = tf.io.serialize_sparse(tf.sparse.SparseTensor([[1]], [1.0], [5]))
    b = tf.io.serialize_sparse(tf.sparse.SparseTensor([[3], [0]], [2.0, 3.0], [4]))
    c = tf.io.serialize_sparse(tf.sparse.SparseTensor([[0, 0]], [2.0], [4, 4]))
    out = [
        tf.io.serialize_sparse(sp),
        tf.io.serialize_sparse(strings),
        many,
        tf.io.deserialize_many_sparse(many, tf.float32),
        tf.io.deserialize_many_sparse(tf.stack([b, a]), tf.float32),
        tf.io.deserialize_many_sparse(a, tf.float32),
        tf.function(lambda m: tf.io.deserialize_many_sparse(m, tf.float32, rank=2))(many),
    ]
    words = tf.sparse.SparseTensor([[0, 1], [1, 0], [1, 1]], [b"", b"xyz", b"\xff"], [3, 2])
    out.append(tf.io.serialize_many_sparse(words))
    out.append(tf.io.deserialize_many_sparse(tf.io.serialize_many_sparse(words), tf.string))
    for bad in (
        lambda: tf.io.serialize_sparse(tf.constant([1])),
        lambda: tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[1]], [1], [3])),
        lambda: tf.io.serialize_many_sparse(unordered),
        lambda: tf.io.deserialize_many_sparse(many, tf.float64),
        lambda: tf.io.deserialize_many_sparse(many, tf.float32, rank=3),
        lambda: tf.io.deserialize_many_sparse(tf.constant([[b"x", b"y", b"z"]]), tf.float32),
        lambda: tf.io.deserialize_many_sparse(tf.stack([a, c]), tf.float32),
        lambda: tf.io.deserialize_many_sparse(tf.zeros([0, 3], tf.string), tf.float32),
    ):
        out.append(_try(bad))
    return out


def _has_serialize_tensor():
    from ferroflow import _core

    return hasattr(_core, "serialize_tensor")


@pytest.mark.skipif(not _has_serialize_tensor(), reason="_core.serialize_tensor not built yet")
def test_sparse_serialization(tf_oracle):
    assert_parity(tf_oracle, _sparse, helpers=[_try])
