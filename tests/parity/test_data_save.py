"""`Dataset.save` / `Dataset.load` in TensorFlow's snapshot layout, both directions: each
framework saves the same datasets into its own directory (`_save_all`), then each loads
what both saved (`_load_all`), so TensorFlow reads ferroflow's files and ferroflow reads
TensorFlow's. Elements, specs, order and cardinality are compared, and both frameworks must
read their own files and the other's alike (dense, ragged and sparse components, dict, tuple and
namedtuple elements, GZIP/ZLIB/SNAPPY, shard_func, reader_func, empty and unknown shapes). The files
themselves are compared too: layout, metadata, the encoded element spec and the uncompressed
shard bytes. `snapshot` writes the same layout under a fingerprint directory, which both
frameworks read back. Damaged and missing files give TensorFlow's exception classes."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _cases(tf):
    """(name, dataset, save keyword arguments, load keyword arguments)."""
    import collections

    D = tf.data.Dataset
    P = collections.namedtuple("P", ["x", "y"])
    gen = lambda: iter([[1.0], [2.0, 3.0]])  # noqa: E731 - a generator of ragged rows
    return [
        ("tuple", D.range(5).map(lambda x: (x, tf.strings.as_string(x))), {}, {}),
        (
            "dict_gzip",
            D.from_tensor_slices(
                {
                    "b": [[True, False], [False, True]],
                    "a": tf.constant([[1, 2], [3, 4]], tf.uint8),
                }
            ),
            {"compression": "GZIP"},
            {"compression": "GZIP"},
        ),
        (
            "namedtuple_zlib",
            D.range(3).map(lambda i: P(tf.cast(i, tf.float32) / 4, (i, tf.fill([i], "s")))),
            {"compression": "ZLIB"},
            {"compression": "ZLIB"},
        ),
        (
            "dict_ragged",
            D.from_tensors(tf.ragged.constant([[[1.5], [2.0, 3.0]], [[4.0]]], ragged_rank=2))
            .repeat(2)
            .map(
                lambda r: {"r": r, "s": tf.ragged.constant([["a"], []], row_splits_dtype=tf.int32)}
            ),
            {},
            {},
        ),
        ("ragged_rows", D.from_tensor_slices(tf.ragged.constant([[1, 2], [3], []])), {}, {}),
        (
            "sparse",
            D.from_tensor_slices(
                tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.5, 2.5, -1.0], [3, 4])
            ).map(lambda s: (s, tf.sparse.from_dense(tf.constant([["", "x"]])))),
            {"compression": "GZIP"},
            {"compression": "GZIP"},
        ),
        (
            "snappy",
            D.range(300).map(lambda x: (x % 7, tf.strings.as_string(x // 3))),
            {"compression": "SNAPPY", "shard_func": lambda x, _: x % 2},
            {"compression": "SNAPPY"},
        ),
        ("sharded", D.range(7), {"shard_func": lambda x: x % 3}, {}),
        (
            "reader_func",
            D.range(6),
            {"shard_func": lambda x: x % 2},
            {"reader_func": lambda shards: shards.flat_map(lambda s: s)},
        ),
        ("empty_dataset", D.range(0), {}, {}),
        ("empty_shape", D.from_tensors(tf.zeros([0, 3], tf.float32)), {}, {}),
        ("unknown_dim", D.range(4).map(lambda x: tf.range(x)), {}, {}),
        (
            "unknown_rank",
            D.from_generator(gen, output_signature=tf.TensorSpec(None, tf.float32)),
            {},
            {"element_spec": tf.TensorSpec(None, tf.float32)},
        ),
    ]


def _plain(tf, value):
    """A value as plain Python parts that compare with ``==`` across frameworks."""
    if isinstance(value, dict):
        return sorted((k, _plain(tf, v)) for k, v in value.items())
    if isinstance(value, tuple):
        name = type(value).__name__ if hasattr(value, "_fields") else "tuple"
        fields = getattr(value, "_fields", None)
        return (name, fields, tuple(_plain(tf, v) for v in value))
    if isinstance(value, tf.TypeSpec):
        return (type(value).__name__, value.shape.rank and value.shape.as_list(), value.dtype.name)
    if isinstance(value, tf.SparseTensor):
        return (
            "sparse",
            *(_plain(tf, t) for t in (value.indices, value.values, value.dense_shape)),
        )
    if isinstance(value, tf.RaggedTensor):
        return ("ragged", value.row_splits.dtype.name, value.to_list())
    if isinstance(value, tf.Tensor):
        import numpy as np

        return (value.dtype.name, value.shape.as_list(), np.asarray(value.numpy()).tolist())
    return value


def _metadata_class(tf):
    if tf.__name__ == "tensorflow":
        from tensorflow.core.protobuf import snapshot_pb2

        return snapshot_pb2.SnapshotMetadataRecord
    from ferroflow._proto import message_class

    return message_class("tensorflow.data.experimental.SnapshotMetadataRecord")


def _save_all(tf, root, device):
    """Saves every case under ``root/<framework>/``; returns what the files hold."""
    import os

    out = {}
    meta_class = _metadata_class(tf)
    for name, ds, save_kw, _ in _cases(tf):
        path = os.path.join(root, tf.__name__, name)
        with tf.device(device):
            ds.save(path, **save_kw)
        with open(os.path.join(path, "snapshot.metadata"), "rb") as f:
            meta = meta_class.FromString(f.read())
        layout = []
        for d, _, files in os.walk(path):
            rel = os.path.relpath(d, path).replace(meta.run_id, "RUN")
            layout += [os.path.join(rel, f) for f in files]
        out[name] = {
            "layout": sorted(layout),
            "metadata": (meta.version, list(meta.dtype), meta.num_elements, meta.finalized),
            "run_id_is_a_number": meta.run_id.isdigit(),
            "graph_hash": meta.graph_hash,
        }
        if not name.startswith("dict"):  # a dict's map entries may come in any order
            with open(os.path.join(path, "dataset_spec.pb"), "rb") as f:
                out[name]["spec_bytes"] = f.read()
        if name in ("tuple", "unknown_dim", "empty_shape"):
            shard = os.path.join(path, meta.run_id, "00000000.shard", "00000000.snapshot")
            with open(shard, "rb") as f:
                out[name]["shard_bytes"] = f.read()
    return out


def _load_all(tf, root, device):
    """Loads what both frameworks saved; each framework's files read alike."""
    import os

    out = {}
    for name, _, _, load_kw in _cases(tf):
        seen = []
        for writer in ("tensorflow", "ferroflow"):
            with tf.device(device):
                loaded = tf.data.Dataset.load(os.path.join(root, writer, name), **load_kw)
                got = (
                    _plain(tf, loaded.element_spec),
                    int(loaded.cardinality()),
                    [_plain(tf, e) for e in loaded],
                )
            out[(writer, name)] = got
            seen.append(got)
        out[(name, "alike")] = seen[0] == seen[1]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_save_and_load_both_directions(tf_oracle, device, tmp_path):
    root = str(tmp_path)
    helpers = [_cases, _plain, _metadata_class]
    for program in (_save_all, _load_all):
        result = assert_parity(tf_oracle, program, args=(root, device), helpers=helpers)
        assert result[0] != "raised", result


def _damaged(tf, root):
    """The exception classes of loading damaged copies of TensorFlow's files."""
    import os
    import shutil

    D = tf.data.Dataset
    source = os.path.join(root, "tensorflow", "tuple")
    out = {}

    def attempt(name, damage, **load_kw):
        path = os.path.join(root, tf.__name__ + "-damaged", name)
        shutil.copytree(source, path)
        run = [d for d in os.listdir(path) if d.isdigit()][0]
        shard = os.path.join(path, run, "00000000.shard", "00000000.snapshot")
        damage(path, shard)
        try:
            out[name] = [e[0].numpy().tolist() for e in D.load(path, **load_kw)]
        except Exception as e:  # noqa: BLE001 - the class is compared
            out[name] = type(e).__name__

    def rewrite(file, change):
        with open(file, "rb") as f:
            data = f.read()
        with open(file, "wb") as f:
            f.write(change(data))

    attempt("intact", lambda p, s: None)
    attempt("truncated_shard", lambda p, s: rewrite(s, lambda b: b[:-5]))
    attempt("flipped_crc", lambda p, s: rewrite(s, lambda b: b[:9] + bytes([b[9] ^ 1]) + b[10:]))
    attempt("flipped_payload", lambda p, s: rewrite(s, lambda b: b[:14] + b"\xff" + b[15:]))
    attempt("gzip_of_plain", lambda p, s: None, compression="GZIP")
    attempt("no_spec", lambda p, s: os.remove(os.path.join(p, "dataset_spec.pb")))
    attempt(
        "garbage_spec", lambda p, s: rewrite(os.path.join(p, "dataset_spec.pb"), lambda b: b"\xff")
    )
    attempt("no_metadata", lambda p, s: os.remove(os.path.join(p, "snapshot.metadata")))
    attempt(
        "garbage_metadata",
        lambda p, s: rewrite(
            os.path.join(p, "snapshot.metadata"), lambda b: b"hello world garbage long enough"
        ),
    )
    attempt("no_run", lambda p, s: shutil.rmtree(os.path.dirname(os.path.dirname(s))))
    attempt("empty_spec", lambda p, s: rewrite(os.path.join(p, "dataset_spec.pb"), lambda b: b""))
    attempt("no_components", lambda p, s: None, element_spec=())
    try:
        D.load(os.path.join(root, "missing"))
        out["missing"] = None
    except Exception as e:  # noqa: BLE001
        out["missing"] = (type(e).__name__, str(e).replace(root, "ROOT"))
    for name, shard_func in (
        ("int32_shard", lambda x: tf.cast(x, tf.int32)),
        ("pair", lambda x: (x, x)),
    ):
        try:
            D.range(3).save(os.path.join(root, tf.__name__ + "-" + name), shard_func=shard_func)
            out[name] = None
        except Exception as e:  # noqa: BLE001
            out[name] = type(e).__name__
    return out


def test_damaged_files_and_bad_arguments(tf_oracle, tmp_path):
    root = str(tmp_path)
    helpers = [_cases, _plain, _metadata_class]
    assert_parity(tf_oracle, _save_all, args=(root, "CPU:0"), helpers=helpers)
    result = assert_parity(tf_oracle, _damaged, args=(root,))
    assert result[0] != "raised", result


def _snapshots(tf, root, read_both):
    """Each framework snapshots a pipeline (GZIP, and the default "AUTO": snappy) into its
    own directory and replays it; then both snapshots' run directories are read with `load`
    (TensorFlow's and ferroflow's fingerprints differ, so neither `snapshot` finds the
    other's files)."""
    import os

    D = tf.data.Dataset
    meta_class = _metadata_class(tf)
    out = {}
    path = os.path.join(root, "snap", tf.__name__)
    snap = D.range(5).map(lambda x: x * 2).snapshot(path, compression="GZIP")
    out["passes"] = [[int(x) for x in snap] for _ in range(2)]
    out["again"] = [int(x) for x in D.range(5).map(lambda x: x * 2).snapshot(path, "GZIP")]
    auto = os.path.join(root, "auto", tf.__name__)
    pipeline = D.range(40).map(lambda x: tf.strings.as_string(x % 5))
    out["auto"] = [[bytes(x.numpy()) for x in pipeline.snapshot(auto)] for _ in range(2)]
    (fingerprint,) = os.listdir(path)
    with open(os.path.join(path, fingerprint, "snapshot.metadata"), "rb") as f:
        meta = meta_class.FromString(f.read())
    out["metadata"] = (meta.version, list(meta.dtype), meta.num_elements, meta.finalized)
    out["fingerprint"] = (fingerprint.isdigit(), meta.graph_hash == fingerprint)
    out["layout"] = sorted(
        os.path.relpath(os.path.join(d, f), path)
        .replace(fingerprint, "HASH")
        .replace(meta.run_id, "RUN")
        for d, _, files in os.walk(path)
        for f in files
    )
    out["shards"] = len(os.listdir(os.path.join(path, fingerprint, meta.run_id)))
    for writer in ("tensorflow", "ferroflow") if read_both else ():
        flat = lambda s: s.flat_map(lambda d: d)  # noqa: E731
        where = os.path.join(root, "snap", writer)
        (h,) = os.listdir(where)
        spec = (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))
        loaded = D.load(os.path.join(where, h), spec, "GZIP", flat)
        out[writer] = sorted((int(i), int(x)) for i, x in loaded)
        where = os.path.join(root, "auto", writer)
        (h,) = os.listdir(where)
        spec = (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.string))
        loaded = D.load(os.path.join(where, h), spec, "SNAPPY", flat)
        out[writer, "auto"] = sorted((int(i), bytes(x.numpy())) for i, x in loaded)
    return out


def test_snapshot_layout_and_files(tf_oracle, tmp_path):
    root = str(tmp_path)
    for read_both in (False, True):
        # Once both snapshot directories exist, each framework reads the other's too.
        result = assert_parity(
            tf_oracle, _snapshots, args=(root, read_both), helpers=[_metadata_class]
        )
        assert result[0] != "raised", result
